import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { epochSeconds, type JobStatus } from "./job-row.ts";
import { runStatusStatement } from "./job-run-status.ts";

/**
 * Records the intent to cancel a durable run's job (cancel_requested_at, the truth every replica
 * reads) within the scope: a non-admin only its own. A job no worker holds (queued or paused) is
 * cancelled at once together with its run (CANCELLED), in one transaction; a running job keeps
 * running until its worker sees the intent (Redis signal, or its next heartbeat). A finished job
 * keeps the intent too, so a later requeue re-applies it unless it clears the cancellation.
 * Returns the job's status afterwards, or null when the scope has no such job.
 */
export async function requestJobCancel(
  db: Db,
  { scope, id, reason = "Run cancelled by request", now = epochSeconds() }: { scope: DataScope; id: string; reason?: string; now?: number },
): Promise<JobStatus | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query<{ status: JobStatus }>(
    `UPDATE agno_jobs SET cancel_requested_at = COALESCE(cancel_requested_at, ?), updated_at = ?
      WHERE id = ? AND ${owner.clause} RETURNING status`,
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
    // Its run too: PENDING, PAUSED, or RUNNING when a worker that had claimed it let it go (it was
    // released or swept, and nobody holds it now).
    runStatusStatement(db, {
      runId: id,
      to: "CANCELLED",
      from: ["PENDING", "RUNNING", "PAUSED"],
      error: { message: reason, error_type: "run_cancelled" },
      now,
      job: { clause: "j.status = 'cancelled'", params: [] },
    }),
  ]);
  // 0: a worker claimed it in between; it sees the intent when it starts.
  return changed === 1 ? "cancelled" : "running";
}
