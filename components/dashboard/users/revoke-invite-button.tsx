"use client";

import { useActionState } from "react";
import { ActionResult } from "./action-result.tsx";
import { IDLE_STATE, type UserAction } from "./user-action-types.ts";

export function RevokeInviteButton({ inviteId, email, action }: { inviteId: string; email: string; action: UserAction }) {
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  return (
    <form action={formAction}>
      <input type="hidden" name="inviteId" value={inviteId} />
      <button
        type="submit"
        disabled={pending}
        aria-label={`Withdraw the invite for ${email}`}
        className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
      >
        Withdraw
      </button>
      <ActionResult state={state} />
    </form>
  );
}
