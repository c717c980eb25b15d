"use client";

import type { ActionState } from "@/lib/http/dashboard/action.ts";

/** The outcome of a user-management action; a one-time link is shown in a read-only field to copy. */
export function ActionResult({ state }: { state: ActionState }) {
  if (state.ok === null) return null;
  if (!state.ok) {
    return (
      <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
        {state.error}
      </p>
    );
  }
  return (
    <div role="status" className="mt-2 text-sm text-emerald-800 dark:text-emerald-300">
      <p>{state.message}</p>
      {state.link && (
        <div className="mt-1 flex gap-2">
          <input
            aria-label="One-time link"
            data-testid="one-time-link"
            readOnly
            value={state.link}
            onFocus={(event) => event.currentTarget.select()}
            className="w-full rounded border border-slate-300 bg-slate-50 px-2 py-1 font-mono text-xs text-slate-800 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-200"
          />
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(state.link!)}
            className="rounded border border-slate-300 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50 dark:border-slate-700 dark:text-slate-200 dark:hover:bg-slate-800"
          >
            Copy
          </button>
        </div>
      )}
    </div>
  );
}
