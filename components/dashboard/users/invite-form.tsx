"use client";

import { useActionState } from "react";
import { IDLE_STATE, type UserAction } from "./user-action-types.ts";
import { ActionResult } from "./action-result.tsx";

/** Invite by one-time link: the admin copies the link and hands it over; nothing is mailed. */
export function InviteForm({ action }: { action: UserAction }) {
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  return (
    <form action={formAction} className="flex flex-wrap items-end gap-3">
      <div className="min-w-64 flex-1">
        <label htmlFor="invite-email" className="mb-1 block text-sm font-medium">
          Email
        </label>
        <input id="invite-email" name="email" type="email" required className="h-9 w-full rounded border border-slate-300 bg-white px-3 text-sm dark:border-slate-700 dark:bg-slate-950" />
      </div>
      <div>
        <label htmlFor="invite-role" className="mb-1 block text-sm font-medium">
          Role
        </label>
        <select id="invite-role" name="role" defaultValue="member" className="h-9 rounded border border-slate-300 bg-white px-2 text-sm dark:border-slate-700 dark:bg-slate-950">
          <option value="member">Member</option>
          <option value="admin">Admin</option>
        </select>
      </div>
      <button type="submit" disabled={pending} className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900">
        {pending ? "Creating…" : "Create invite link"}
      </button>
      <div className="basis-full">
        <ActionResult state={state} />
      </div>
    </form>
  );
}
