import { ConflictError, NotFoundError, PermissionError } from "../../errors/domain-errors.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { epochSeconds, readJob, type StoredJob } from "./job-row.ts";
import { followStatements, type SubjectBinding } from "./job-subject.ts";
import { getJob } from "./list-jobs.ts";

/** A job that failed less than this long ago is a fresh failure: requeueing it needs `force`. */
export const FRESH_FAILURE_SECONDS = 60;

/** A requeue refused because the job is neither failed nor cancelled, or changed while being requeued. */
export class JobNotRequeueableError extends ConflictError {}

/** A requeue of a job that failed within FRESH_FAILURE_SECONDS, sent without `force`: its worker may still be executing. */
export class FreshFailureError extends ConflictError {}

export interface RequeueJobOptions {
  /** Admins only (the /queue routes need admin scope); an admin naming a user reaches only that user's jobs. */
  scope: DataScope;
  id: string;
  /** Requeue a fresh failure anyway. */
  force?: boolean;
  /**
   * Overrides a cancellation: clears the recorded intent (cancel_requested_at). Without it a
   * cancelled job is requeued with its intent, so the worker that claims it cancels it again at
   * its first checkpoint (as Agno does). The caller also clears the process-local intent (run registry).
   */
  clearCancellation?: boolean;
  /** The job kinds' subjects (a run job's run) that move with their jobs. */
  subjects: readonly SubjectBinding[];
  now?: number;
}

/**
 * Puts a failed or cancelled job back in the queue, available now, error and lock cleared, and its
 * subject back to waiting (a run PENDING) in the same transaction (a client polling the run must not see it end).
 * `attempt` keeps growing (it is the fencing token); max_attempts is raised if needed so the job
 * gets at least one more attempt. Compare-and-set on the status it was read in: a concurrent
 * requeue or change is a ConflictError.
 * Throws PermissionError (not admin), NotFoundError, JobNotRequeueableError (another status, a
 * concurrent change), FreshFailureError (a fresh failure without `force`).
 */
export async function requeueJob(db: Db, options: RequeueJobOptions): Promise<StoredJob> {
  const { scope, id, force = false, clearCancellation = false, subjects, now = epochSeconds() } = options;
  if (scope.kind !== "admin") throw new PermissionError("Only admins can requeue jobs");
  const job = await getJob(db, { scope, id });
  if (!job) throw new NotFoundError(`Job ${id} not found`);
  if (job.status !== "failed" && job.status !== "cancelled") {
    throw new JobNotRequeueableError(`Job ${id} is ${job.status}: only failed or cancelled jobs can be requeued`);
  }
  const failedAt = job.completed_at ?? job.updated_at ?? job.created_at;
  if (job.status === "failed" && !force && now - failedAt < FRESH_FAILURE_SECONDS) {
    throw new FreshFailureError(`Job ${id} failed ${now - failedAt} s ago: requeue it with force, or wait ${FRESH_FAILURE_SECONDS} s`);
  }
  const owner = ownerSql(scope);
  const greatest = db.dialect === "postgres" ? "GREATEST" : "MAX";
  const [changed] = await db.sql.batch([
    {
      text: `UPDATE agno_jobs SET status = 'queued', available_at = ?, error = NULL, completed_at = NULL,
                    locked_by = NULL, locked_at = NULL, updated_at = ?,${clearCancellation ? " cancel_requested_at = NULL," : ""}
                    max_attempts = ${greatest}(max_attempts, attempt - lease_losses + 1)
              WHERE id = ? AND status = ? AND attempt = ? AND ${owner.clause}`,
      params: [now, now, id, job.status, job.attempt, ...owner.params],
    },
    // The subject back to waiting (a run PENDING, its error dropped), only if this requeue took.
    ...followStatements(db, subjects, job.job_type, id, { to: "waiting", after: "end" }, { clause: "j.status = 'queued' AND j.attempt = ? AND j.updated_at = ?", params: [job.attempt, now] }, now),
  ]);
  if (changed !== 1) throw new JobNotRequeueableError(`Job ${id} changed while it was being requeued`);
  return (await readJob(db, id))!;
}
