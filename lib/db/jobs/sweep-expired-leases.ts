import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";

/** A job whose worker vanished this many times is given up on (a likely poison job). */
export const MAX_LEASE_LOSSES = 3;

export interface SweepResult {
  /** Jobs taken back from a dead worker and queued again (no attempt spent). */
  requeued: string[];
  /** Jobs failed for losing their worker MAX_LEASE_LOSSES times; their runs are ERROR. */
  failed: string[];
}

export interface SweepOptions {
  now: number;
  /** A running job whose locked_at is older than now − leaseSeconds has lost its worker. */
  leaseSeconds: number;
  maxLeaseLosses?: number;
  /** At most this many jobs per call. */
  limit?: number;
}

/**
 * UNSAFE (unscoped): a server-wide housekeeping task that runs with no principal.
 *
 * Takes back every job whose lease expired. The job goes back to queued, available now, with
 * lease_losses + 1 and the lock cleared; `attempt` is kept, so the dead worker's fence can never
 * match again (the next claim makes attempt + 1) and the lost lease spends no attempt
 * (spent = attempt − lease_losses). A job that has now lost MAX_LEASE_LOSSES leases (graceful
 * releases count too) is failed instead, and its run is set ERROR with the reason in the same
 * transaction. Each job is taken conditionally on the attempt and the stale locked_at it was
 * read with, so a heartbeat that lands first, or a concurrent sweeper, wins cleanly.
 */
export async function unsafeSweepExpiredLeases(
  db: Db,
  { now, leaseSeconds, maxLeaseLosses = MAX_LEASE_LOSSES, limit = 500 }: SweepOptions,
): Promise<SweepResult> {
  const cutoff = now - leaseSeconds;
  const expired = await db.sql.query<{ id: string; attempt: number; lease_losses: number }>(
    `SELECT id, attempt, lease_losses FROM agno_jobs WHERE status = 'running' AND locked_at < ?
      ORDER BY locked_at, id LIMIT ${Math.max(1, Math.floor(limit))}`,
    [cutoff],
  );
  const result: SweepResult = { requeued: [], failed: [] };
  const stillExpired = "id = ? AND attempt = ? AND status = 'running' AND locked_at < ?";
  for (const job of expired) {
    const losses = Number(job.lease_losses) + 1;
    const fence = [job.id, Number(job.attempt), cutoff];
    if (losses < maxLeaseLosses) {
      const changed = await db.sql.exec(
        `UPDATE agno_jobs SET status = 'queued', available_at = ?, lease_losses = lease_losses + 1,
                locked_by = NULL, locked_at = NULL, updated_at = ?
          WHERE ${stillExpired}`,
        [now, now, ...fence],
      );
      if (changed === 1) result.requeued.push(job.id);
      continue;
    }
    const reason =
      `Job lost its worker ${losses} times (each time no heartbeat for ${leaseSeconds} s, or a shutdown); ` +
      "not retried again";
    const [changed] = await db.sql.batch([
      {
        text: `UPDATE agno_jobs SET status = 'failed', lease_losses = lease_losses + 1, error = ?, completed_at = ?, updated_at = ?
                WHERE ${stillExpired}`,
        params: [reason, now, now, ...fence],
      },
      runErrorStatement(db, { runId: job.id, reason, now, attempt: Number(job.attempt), losses }),
    ]);
    if (changed === 1) result.failed.push(job.id);
  }
  return result;
}

/** Sets the run ERROR, only if its job was failed by this sweep (not by its worker) and the run had not ended. */
function runErrorStatement(
  db: Db,
  { runId, reason, now, attempt, losses }: { runId: string; reason: string; now: number; attempt: number; losses: number },
): Statement {
  const error = { message: reason, error_type: "job_lost_worker" };
  const setData =
    db.dialect === "postgres"
      ? "jsonb_set(jsonb_set(jsonb_set(run_data, '{status}', to_jsonb(?::text)), '{error}', ?::jsonb), '{content}', to_jsonb(?::text))"
      : "json_set(run_data, '$.status', ?, '$.error', json(?), '$.content', ?)";
  return {
    text: `UPDATE agno_runs SET status = 'ERROR', run_data = ${setData}, updated_at = ?
            WHERE run_id = ? AND status IN ('PENDING', 'RUNNING')
              AND EXISTS (SELECT 1 FROM agno_jobs j
                           WHERE j.id = ? AND j.status = 'failed' AND j.attempt = ? AND j.lease_losses = ? AND j.completed_at = ?)`,
    params: ["ERROR", error, reason, now, runId, runId, attempt, losses, now],
  };
}
