"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { ActionResult } from "../users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "../users/user-action-types.ts";

/** Approve or reject one pending approval, with an optional note; the run then continues in the background. */
export function ResolveApprovalForm({ action, approvalId, toolName }: { action: UserAction; approvalId: string; toolName: string }) {
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  const router = useRouter();
  useEffect(() => {
    if (state.ok) router.refresh();
  }, [state, router]);
  return (
    <form action={formAction} className="flex min-w-[14rem] flex-col gap-1" aria-label={`Decide on ${toolName}`}>
      <input type="hidden" name="approvalId" value={approvalId} />
      <label className="sr-only" htmlFor={`note-${approvalId}`}>
        Note
      </label>
      <input
        id={`note-${approvalId}`}
        name="note"
        placeholder="Note (optional)"
        maxLength={2000}
        className="rounded border border-slate-300 px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-950"
      />
      <span className="flex gap-2">
        <button
          type="submit"
          name="decision"
          value="approved"
          disabled={pending}
          className="rounded border border-emerald-400 px-2 py-1 text-sm text-emerald-800 hover:bg-emerald-50 disabled:opacity-60 dark:text-emerald-200 dark:hover:bg-emerald-950"
        >
          Approve
        </button>
        <button
          type="submit"
          name="decision"
          value="rejected"
          disabled={pending}
          className="rounded border border-red-300 px-2 py-1 text-sm text-red-700 hover:bg-red-50 disabled:opacity-60 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950"
        >
          Reject
        </button>
      </span>
      <ActionResult state={state} />
    </form>
  );
}
