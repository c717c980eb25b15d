import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";
import { cancelRecordedStatements } from "./cancel-recorded.ts";
import { followStatements, jobTypeLiterals, type SubjectBinding } from "./job-subject.ts";

/** A job whose worker vanished this many times is given up on (a likely poison job). */
export const MAX_LEASE_LOSSES = 3;

export interface SweepResult {
  /** Jobs taken back from a dead worker and queued again (no attempt spent). */
  requeued: string[];
  /** Jobs failed for losing their worker MAX_LEASE_LOSSES times; their runs are ERROR. */
  failed: string[];
  /** Jobs taken back with a cancel recorded: cancelled with their subjects, on any loss (absent when none). */
  cancelled?: string[];
}

export interface SweepOptions {
  now: number;
  /** A running job whose locked_at is older than now − leaseSeconds has lost its worker. */
  leaseSeconds: number;
  maxLeaseLosses?: number;
  /** At most this many jobs per call. */
  limit?: number;
  /** The job kinds' subjects (a run job's run) that move with their jobs. */
  subjects: readonly SubjectBinding[];
  /**
   * Only jobs of these types (the sweeping worker's catalog): a worker never takes back a job of
   * a kind whose subject it does not know how to move. Absent: every type.
   */
  jobTypes?: readonly string[];
}

/**
 * UNSAFE (unscoped): a server-wide housekeeping task that runs with no principal.
 *
 * Takes back every job whose lease expired. The job goes back to queued, available now, with
 * lease_losses + 1 and the lock cleared, and its subject back to waiting (a run PENDING) in the same transaction; `attempt` is kept, so the dead worker's fence can never
 * match again (the next claim makes attempt + 1) and the lost lease spends no attempt
 * (spent = attempt − lease_losses). A job that has now lost MAX_LEASE_LOSSES leases (graceful
 * releases count too) is failed instead, and its subject (a run ERROR) with the reason in the same
 * transaction. A job with a cancel recorded is neither queued again nor failed: it ends
 * cancelled, its run CANCELLED (the cancel was accepted), in the same transaction. Each job is
 * taken conditionally on the attempt and the stale locked_at it was read with, so a heartbeat
 * that lands first, or a concurrent sweeper, wins cleanly.
 */
export async function unsafeSweepExpiredLeases(db: Db, { now, leaseSeconds, maxLeaseLosses = MAX_LEASE_LOSSES, limit = 500, subjects, jobTypes }: SweepOptions): Promise<SweepResult> {
  const cutoff = now - leaseSeconds;
  const kinds = jobTypes ? ` AND ${jobTypeLiterals("job_type", jobTypes)}` : "";
  const expired = await db.sql.query<{ id: string; attempt: number; lease_losses: number; job_type: string }>(
    `SELECT id, attempt, lease_losses, job_type FROM agno_jobs WHERE status = 'running' AND locked_at < ?${kinds}
      ORDER BY locked_at, id LIMIT ${Math.max(1, Math.floor(limit))}`,
    [cutoff],
  );
  const result: SweepResult = { requeued: [], failed: [] };
  const stillExpired = "id = ? AND attempt = ? AND status = 'running' AND locked_at < ?";
  for (const job of expired) {
    const losses = Number(job.lease_losses) + 1;
    const attempt = Number(job.attempt);
    const jobType = String(job.job_type);
    const fence = [job.id, attempt, cutoff];
    // A cancel recorded for it was accepted: it ends CANCELLED, whichever loss this is.
    const cancel = cancelRecordedStatements(db, { id: job.id, jobType, subjects, where: stillExpired, params: fence, now, attempt, leaseLost: true });
    const requeue = losses < maxLeaseLosses;
    const reason = `Job lost its worker ${losses} times (each time no heartbeat for ${leaseSeconds} s, or a shutdown); ` + "not retried again";
    const statement: Statement = requeue
      ? {
          text: `UPDATE agno_jobs SET status = 'queued', available_at = ?, lease_losses = lease_losses + 1,
                  locked_by = NULL, locked_at = NULL, updated_at = ?
            WHERE ${stillExpired} AND cancel_requested_at IS NULL`,
          params: [now, now, ...fence],
        }
      : {
          text: `UPDATE agno_jobs SET status = 'failed', lease_losses = lease_losses + 1, error = ?, completed_at = ?, updated_at = ?
                WHERE ${stillExpired} AND cancel_requested_at IS NULL`,
          params: [reason, now, now, ...fence],
        };
    // Queued again, its subject back to waiting (the claim started it): they wait together. Or
    // failed, and its subject with it.
    const follow = requeue
      ? followStatements(db, subjects, jobType, job.id, { to: "waiting", after: "claim" }, { clause: "j.status = 'queued' AND j.attempt = ? AND j.lease_losses = ?", params: [attempt, losses] }, now)
      : lostWorkerFollow(db, { subjects, jobType, jobId: job.id, reason, now, attempt, losses });
    const counts = await db.sql.batch([statement, ...follow, ...cancel]);
    if (counts[0] === 1) (requeue ? result.requeued : result.failed).push(job.id);
    if (counts[1 + follow.length] === 1) (result.cancelled ??= []).push(job.id);
  }
  return result;
}

/** The subject of a job failed for losing its worker too often: failed, only if that failure was this one's and the subject had not ended. */
export function lostWorkerFollow(
  db: Db,
  { subjects, jobType, jobId, reason, now, attempt, losses }: { subjects: readonly SubjectBinding[]; jobType: string; jobId: string; reason: string; now: number; attempt: number; losses: number },
): Statement[] {
  return followStatements(
    db,
    subjects,
    jobType,
    jobId,
    { to: "failed", reason, errorType: "job_lost_worker" },
    { clause: "j.status = 'failed' AND j.attempt = ? AND j.lease_losses = ? AND j.completed_at = ?", params: [attempt, losses, now] },
    now,
  );
}
