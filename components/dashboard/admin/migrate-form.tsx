"use client";

import { useActionState } from "react";
import type { MigrateState } from "@/lib/http/dashboard/database-actions.ts";

type MigrateAction = (previous: MigrateState, formData: FormData) => Promise<MigrateState>;

const ACTION_STYLE: Record<string, string> = {
  created: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  migrated: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  unchanged: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
  reverted: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
};

/** Runs the migrations and reports what happened to each table, or where and why it stopped. */
export function MigrateForm({ action, pendingCount }: { action: MigrateAction; pendingCount: number }) {
  const [state, formAction, pending] = useActionState(action, { ok: null });
  return (
    <div>
      <form action={formAction} className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900">
          {pending ? "Migrating…" : "Migrate"}
        </button>
        <span className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
          {pending
            ? "Running the migrations, one table at a time…"
            : pendingCount === 0
              ? "Nothing is pending; migrating again changes nothing (every step is idempotent)."
              : `${pendingCount} table(s) will be brought to the latest version.`}
        </span>
      </form>
      {state.ok === false && (
        <p role="alert" className="mt-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          {state.error}
        </p>
      )}
      {state.ok && (
        <div role="status" data-testid="migrate-result" className="mt-3 text-sm">
          <p className="text-emerald-800 dark:text-emerald-300">{state.message}</p>
          {state.outcomes && (
            <ul className="mt-2 grid gap-1 sm:grid-cols-2 lg:grid-cols-3">
              {state.outcomes.map((outcome) => (
                <li
                  key={outcome.table}
                  data-testid={`migrate-outcome-${outcome.table}`}
                  className="flex items-center justify-between gap-2 rounded border border-slate-200 px-2 py-1 dark:border-slate-800"
                >
                  <span className="truncate font-mono text-xs">{outcome.table}</span>
                  <span className={`shrink-0 rounded px-1.5 py-0.5 text-xs ${ACTION_STYLE[outcome.action]}`}>
                    {outcome.action}
                    {outcome.action !== "unchanged" && ` ${outcome.from ?? "new"} → ${outcome.to}`}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
