"use client";

import { useActionState } from "react";
import { requeueJob } from "@/app/dashboard/_actions/queue.ts";
import { cancelRun } from "@/app/dashboard/_actions/runs.ts";
import type { StoredJob } from "@/lib/db/jobs/job-row.ts";

type Job = Omit<StoredJob, "payload">;
import { ActionButton } from "../action-button.tsx";
import { ActionResult } from "../users/action-result.tsx";
import { IDLE_STATE } from "../users/user-action-types.ts";

/** Requeue (admins, failed or cancelled jobs) with the API's force / clear-cancellation choices. */
function RequeueForm({ job }: { job: Job }) {
  const [state, formAction, pending] = useActionState(requeueJob, IDLE_STATE);
  return (
    <form action={formAction} className="space-y-1 text-xs">
      <input type="hidden" name="jobId" value={job.id} />
      <div className="flex flex-wrap gap-x-3">
        {job.status === "failed" && (
          <label className="inline-flex items-center gap-1" title="Requeue even though it failed less than a minute ago">
            <input type="checkbox" name="force" /> force
          </label>
        )}
        {job.status === "cancelled" && (
          <label className="inline-flex items-center gap-1" title="Override the cancellation (it would be re-applied otherwise)">
            <input type="checkbox" name="clearCancellation" /> clear cancellation
          </label>
        )}
      </div>
      <button type="submit" disabled={pending} className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 disabled:opacity-60 dark:border-slate-700 dark:hover:bg-slate-800">
        {pending ? "Requeueing…" : "Requeue"}
      </button>
      <ActionResult state={state} />
    </form>
  );
}

export function JobActions({ job, isAdmin }: { job: Job; isAdmin: boolean }) {
  const cancellable = (job.status === "queued" || job.status === "running" || job.status === "paused") && job.cancel_requested_at === null;
  const requeueable = isAdmin && (job.status === "failed" || job.status === "cancelled");
  if (!cancellable && !requeueable) return job.cancel_requested_at !== null && job.status === "running" ? <span className="text-xs text-slate-500">cancel requested</span> : null;
  return (
    <div className="flex flex-col gap-1">
      {cancellable && (
        <ActionButton action={cancelRun} fields={{ agentId: job.component_id, runId: job.id, sessionId: job.session_id ?? "" }} label="Cancel" pendingLabel="Cancelling…" tone="danger" />
      )}
      {requeueable && <RequeueForm job={job} />}
    </div>
  );
}
