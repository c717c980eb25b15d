import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { FENCE_SQL, fenceParams, type JobFence } from "./job-fence.ts";
import { epochSeconds, type JobStatus } from "./job-row.ts";
import { followStatements, type SubjectBinding } from "./job-subject.ts";
import { CANCEL_REASON } from "./cancel-recorded.ts";

/**
 * Records the intent to cancel a durable run's job (cancel_requested_at, the truth every replica
 * reads) within the scope: a non-admin only its own. A job no worker holds (queued or paused) is
 * cancelled at once together with its subject (a run CANCELLED), in one transaction; a running job keeps
 * running until its worker sees the intent (Redis signal, its poll or heartbeat, or at the latest
 * its end: settleJobs refuses any other end for a job with an intent, so the run ends CANCELLED).
 * On PostgreSQL this UPDATE and an attempt's settlement lock the same row, so one of them comes
 * first: "running" here means the settlement has not happened and will see the intent; a
 * finished status means the run ended before the intent was recorded. A finished job keeps the
 * intent too, so a later requeue re-applies it unless it clears the cancellation.
 * Returns the job's status afterwards, or null when the scope has no such job.
 */
export async function requestJobCancel(
  db: Db,
  { scope, id, subjects, reason = CANCEL_REASON, now = epochSeconds() }: { scope: DataScope; id: string; subjects: readonly SubjectBinding[]; reason?: string; now?: number },
): Promise<JobStatus | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query<{ status: JobStatus; job_type: string }>(
    `UPDATE agno_jobs SET cancel_requested_at = COALESCE(cancel_requested_at, ?), updated_at = ?
      WHERE id = ? AND ${owner.clause} RETURNING status, job_type`,
    [now, now, id, ...owner.params],
  );
  if (!row) return null;
  if (row.status !== "queued" && row.status !== "paused") return row.status;
  const [changed] = await db.sql.batch([
    {
      text: `UPDATE agno_jobs SET status = 'cancelled', error = ?, locked_by = NULL, locked_at = NULL, completed_at = ?, updated_at = ?
              WHERE id = ? AND status IN ('queued', 'paused')`,
      params: [reason, now, now, id],
    },
    // Its subject too (a run: PENDING, PAUSED, or RUNNING when a worker that had claimed it let
    // it go — it was released or swept, and nobody holds it now).
    ...followStatements(db, subjects, String(row.job_type), id, { to: "cancelled", reason }, { clause: "j.status = 'cancelled'", params: [] }, now),
  ]);
  // 0: a worker claimed it in between; it sees the intent when it starts.
  return changed === 1 ? "cancelled" : "running";
}

/**
 * Whether a cancel is recorded for a job this fence still holds: true or false, or null when the
 * fence no longer holds (the lease is gone). An executor reads it once its run is registered, so
 * a cancel recorded before then — possibly delivered to this process before the run existed —
 * reaches the run; one recorded later reaches the live run through the worker.
 */
export async function heldJobCancelRequested(db: Db, fence: JobFence): Promise<boolean | null> {
  const [row] = await db.sql.query<{ cancel_requested_at: number | null }>(`SELECT cancel_requested_at FROM agno_jobs WHERE ${FENCE_SQL}`, fenceParams(fence));
  return row ? row.cancel_requested_at !== null : null;
}
