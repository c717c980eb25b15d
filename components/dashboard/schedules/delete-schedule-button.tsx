"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import type { ScheduleAction } from "./schedule-row.ts";

/** Deletes a schedule and its run history after asking, then opens the list (its page is gone). */
export function DeleteScheduleButton({ action, scheduleId }: { action: ScheduleAction; scheduleId: string }) {
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  const router = useRouter();
  useEffect(() => {
    if (state.ok) router.push("/dashboard/schedules");
  }, [state, router]);
  return (
    <form
      action={formAction}
      onSubmit={(event) => {
        if (!window.confirm("Delete this schedule and its run history? The runs it started stay in Runs.")) event.preventDefault();
      }}
      className="inline-block"
    >
      <input type="hidden" name="scheduleId" value={scheduleId} />
      <button
        type="submit"
        disabled={pending}
        className="rounded border border-red-300 px-2 py-1 text-sm text-red-700 hover:bg-red-50 disabled:opacity-60 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950"
      >
        {pending ? "Deleting…" : "Delete"}
      </button>
      {!state.ok && <ActionResult state={state} />}
    </form>
  );
}
