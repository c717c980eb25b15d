"use client";

import { useActionState, useState } from "react";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import type { LearningAction } from "./learning-actions.ts";
import { smallButton } from "./learning-controls.tsx";

/**
 * "Forget everything about me" (an admin's: about the user the page shows): what goes and what
 * stays, then a second, explicit click. `userId` is sent for an admin acting for someone; the
 * server ignores it for a member.
 */
export function ForgetEverything({ action, userId, who }: { action: LearningAction; userId?: string; who: string }) {
  const [confirming, setConfirming] = useState(false);
  const [state, formAction, pending] = useActionState(async (previous: Awaited<ReturnType<LearningAction>>, formData: FormData) => {
    const result = await action(previous, formData);
    if (result.ok) setConfirming(false);
    return result;
  }, IDLE_STATE);
  const self = who === "me";
  return (
    <div className="text-sm">
      <p>
        Deletes {self ? "your" : "their"} profile, {self ? "your" : "their"} memories (these and the ones on the Memories page), the people and things agents noted for {self ? "you" : "them"}, and the
        decisions and session summaries recorded in {self ? "your" : "their"} runs.
      </p>
      <p className="mt-1 text-slate-600 dark:text-slate-400">
        It keeps {self ? "your" : "their"} sessions and runs (the chat history itself), and the shared learnings no user owns (the Shared tab). Agents start learning again at the next conversation.
      </p>
      <form action={formAction} className="mt-3 flex flex-wrap items-center gap-2">
        {userId && <input type="hidden" name="userId" value={userId} />}
        {confirming ? (
          <>
            <span className="font-medium text-red-800 dark:text-red-300">This cannot be undone. Forget everything?</span>
            <button type="submit" disabled={pending} className="rounded bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-600 disabled:opacity-60">
              {pending ? "Forgetting…" : "Yes, forget everything"}
            </button>
            <button type="button" className={smallButton} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            className="rounded border border-red-300 px-3 py-1.5 text-sm font-medium text-red-700 hover:bg-red-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950"
          >
            Forget everything about {who}
          </button>
        )}
      </form>
      <ActionResult state={state} />
    </div>
  );
}
