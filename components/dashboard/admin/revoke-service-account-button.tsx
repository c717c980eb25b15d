"use client";

import { useActionState, useState } from "react";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "@/components/dashboard/users/user-action-types.ts";

const small = "rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-60 dark:border-slate-700 dark:hover:bg-slate-800";

/** Revoke behind a second, explicit click: the token stops working at once and for good. */
export function RevokeServiceAccountButton({ accountId, name, action }: { accountId: string; name: string; action: UserAction }) {
  const [confirming, setConfirming] = useState(false);
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  return (
    <div>
      {confirming ? (
        <form action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="accountId" value={accountId} />
          <span className="text-xs text-slate-600 dark:text-slate-400">Its token stops working.</span>
          <button type="submit" disabled={pending} aria-label={`Confirm revoking ${name}`} className="rounded bg-red-700 px-2 py-1 text-xs font-medium text-white hover:bg-red-600 disabled:opacity-60">
            {pending ? "Revoking…" : "Revoke"}
          </button>
          <button type="button" className={small} onClick={() => setConfirming(false)}>
            Keep
          </button>
        </form>
      ) : (
        <button type="button" className={small} onClick={() => setConfirming(true)} aria-label={`Revoke ${name}`}>
          Revoke
        </button>
      )}
      <ActionResult state={state} />
    </div>
  );
}
