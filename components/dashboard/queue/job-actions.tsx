"use client";

import { createContext, useActionState, useContext } from "react";
import type { StoredJob } from "@/lib/db/jobs/job-row.ts";
import { ActionButton } from "../action-button.tsx";
import { ActionResult } from "../users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "../users/user-action-types.ts";

type Job = Omit<StoredJob, "payload">;

/** The server actions behind a job's buttons, which the queue page hands to its table. */
export interface JobActionSet {
  /** Cancels the job's run (fields `agentId`, `runId`, `sessionId`). */
  cancel: UserAction;
  /** Cancels an eval job's eval run (field `evalRunId`). */
  cancelEval: UserAction;
  /** Requeues a failed or cancelled job (fields `jobId`, `force`, `clearCancellation`). */
  requeue: UserAction;
}

/** Lets the table's module-scope action column reach the actions its page passed in. */
export const JobActionsContext = createContext<JobActionSet | null>(null);

function useJobActions(): JobActionSet {
  const actions = useContext(JobActionsContext);
  if (!actions) throw new Error("JobActions renders inside JobActionsContext (JobsTable's `actions`)");
  return actions;
}

/** Requeue (admins, failed or cancelled jobs) with the API's force / clear-cancellation choices. */
function RequeueForm({ job, requeue }: { job: Job; requeue: UserAction }) {
  const [state, formAction, pending] = useActionState(requeue, IDLE_STATE);
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
  const actions = useJobActions();
  // Runs (they have a session) and evals have a cancel; the other kinds (schedule fires, refreshes) end on their own.
  const cancelKind = job.session_id !== null ? "run" : job.job_type === "eval_run" ? "eval" : null;
  const cancellable = cancelKind !== null && (job.status === "queued" || job.status === "running" || job.status === "paused") && job.cancel_requested_at === null;
  const requeueable = isAdmin && (job.status === "failed" || job.status === "cancelled");
  if (!cancellable && !requeueable) return job.cancel_requested_at !== null && job.status === "running" ? <span className="text-xs text-slate-500">cancel requested</span> : null;
  return (
    <div className="flex flex-col gap-1">
      {cancellable && cancelKind === "run" && (
        <ActionButton
          action={actions.cancel}
          fields={{ kind: job.component_type === "team" ? "team" : "agent", agentId: job.component_id, runId: job.id, sessionId: job.session_id ?? "" }}
          label="Cancel"
          pendingLabel="Cancelling…"
          tone="danger"
        />
      )}
      {cancellable && cancelKind === "eval" && <ActionButton action={actions.cancelEval} fields={{ evalRunId: job.id }} label="Cancel" pendingLabel="Cancelling…" tone="danger" />}
      {requeueable && <RequeueForm job={job} requeue={actions.requeue} />}
    </div>
  );
}
