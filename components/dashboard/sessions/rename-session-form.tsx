"use client";

import { useActionState } from "react";
import { ActionResult } from "../users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "../users/user-action-types.ts";

export function RenameSessionForm({ sessionId, name, action }: { sessionId: string; name: string; action: UserAction }) {
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  return (
    <form action={formAction} className="flex flex-wrap items-end gap-2 text-sm">
      <input type="hidden" name="sessionId" value={sessionId} />
      <label className="block">
        <span className="text-slate-600 dark:text-slate-400">Session name</span>
        <input name="name" defaultValue={name} required maxLength={200} className="mt-1 block w-64 rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-950" />
      </label>
      <button type="submit" disabled={pending} className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 disabled:opacity-60 dark:border-slate-700 dark:hover:bg-slate-800">
        {pending ? "Renaming…" : "Rename"}
      </button>
      <ActionResult state={state} />
    </form>
  );
}
