"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { ActionResult } from "./users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "./users/user-action-types.ts";

/**
 * One server action behind one button, with its hidden fields; shows progress while it runs and
 * its outcome after, and re-renders the page once it succeeded. `confirm` asks first (destructive actions).
 */
export function ActionButton({
  action,
  fields,
  label,
  pendingLabel,
  confirm,
  tone = "neutral",
  children,
}: {
  action: UserAction;
  fields: Record<string, string>;
  label: string;
  pendingLabel?: string;
  confirm?: string;
  tone?: "neutral" | "danger";
  children?: React.ReactNode;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  const router = useRouter();
  // What the action changed shows at once, whichever page it was on; one that made or removed a page goes where it says.
  useEffect(() => {
    if (state.ok && state.href) router.push(state.href);
    else if (state.ok) router.refresh();
  }, [state, router]);
  const tones = {
    neutral: "border-slate-300 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800",
    danger: "border-red-300 text-red-700 hover:bg-red-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950",
  };
  return (
    <form
      action={formAction}
      onSubmit={(event) => {
        if (confirm && !window.confirm(confirm)) event.preventDefault();
      }}
      className="inline-block"
    >
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children}
      <button type="submit" disabled={pending} className={`rounded border px-2 py-1 text-sm disabled:opacity-60 ${tones[tone]}`}>
        {pending ? (pendingLabel ?? `${label}…`) : label}
      </button>
      <ActionResult state={state} />
    </form>
  );
}
