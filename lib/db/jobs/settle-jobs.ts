import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";
import { FENCE_SQL, fenceParams, type JobFence, type JobSettlement } from "./job-fence.ts";
import { epochSeconds } from "./job-row.ts";

/** One attempt's end: the job's settlement and its run's final row, under the claim's fence. */
export interface JobSettlementItem {
  fence: JobFence;
  settlement: JobSettlement;
  /** The run's status and data as they are to be stored (the run row exists: the submit wrote it). */
  run: { status: string; runData: Record<string, unknown> };
}

/**
 * Settles the attempts of many jobs held by one worker at once: for each job whose fence still
 * holds, the job takes its settlement and its run its final row, together; a job whose fence no
 * longer holds (another claim owns it) changes nothing, and neither does its run. A job with a
 * cancel recorded takes no settlement but "cancelled" (a cancel accepted while it ran must end it
 * CANCELLED, whatever the attempt made of it): it stays held and unchanged, and its worker writes
 * the run's end again as CANCELLED. Returns the ids that were settled. One statement on PostgreSQL (a data-modifying CTE: the run updates join the
 * job updates that applied); one transaction on SQLite (each run update guarded by the fence,
 * then its job's).
 */
export async function settleJobs(db: Db, { workerId, items, now = epochSeconds() }: { workerId: string; items: readonly JobSettlementItem[]; now?: number }): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  if (items.some((item) => item.fence.workerId !== workerId)) throw new Error("settleJobs: every item must be held by the settling worker");
  return db.dialect === "postgres" ? settleOnPostgres(db, workerId, items, now) : settleOnSqlite(db, items, now);
}

/** The job columns a settlement sets: status, error, and for some the lock, retry time or end. */
const settlementValues = ({ settlement }: JobSettlementItem) => ({
  status: settlement.status,
  error: "error" in settlement ? (settlement.error ?? null) : null,
  availableAt: settlement.status === "queued" ? settlement.availableAt : null,
});

async function settleOnPostgres(db: Db, workerId: string, items: readonly JobSettlementItem[], now: number): Promise<Set<string>> {
  const rows = items.map(() => "(?::text, ?::bigint, ?::text, ?::text, ?::bigint, ?::text, ?::jsonb)").join(", ");
  const params = items.flatMap((item) => {
    const v = settlementValues(item);
    return [item.fence.id, item.fence.attempt, v.status, v.error, v.availableAt, item.run.status, item.run.runData];
  });
  const released = "v.status IN ('queued', 'paused')";
  // The cancel check is in the UPDATE's own WHERE: a cancel committed while this statement waited
  // for the row lock is seen when PostgreSQL re-checks the row (READ COMMITTED), never missed.
  // `= ANY (ARRAY(…))`: rows are looked up by key whatever plan a prepared statement settles on.
  const result = await db.sql.query<{ id: string }>(
    `WITH v (id, attempt, status, error, available_at, run_status, run_data) AS (VALUES ${rows}),
     settled AS (
       UPDATE agno_jobs j SET status = v.status, error = v.error,
              available_at = COALESCE(v.available_at, j.available_at),
              completed_at = CASE WHEN v.status IN ('completed', 'failed', 'cancelled') THEN ? ELSE j.completed_at END,
              locked_by = CASE WHEN ${released} THEN NULL ELSE j.locked_by END,
              locked_at = CASE WHEN ${released} THEN NULL ELSE j.locked_at END,
              updated_at = ?
         FROM v WHERE j.id = ANY (ARRAY(SELECT id FROM v)) AND j.id = v.id AND j.attempt = v.attempt AND j.locked_by = ? AND j.status = 'running'
          AND (j.cancel_requested_at IS NULL OR v.status = 'cancelled')
       RETURNING j.id, j.session_id),
     runs AS (
       UPDATE agno_runs r SET status = v.run_status, run_data = v.run_data, updated_at = ?
         FROM v JOIN settled s ON s.id = v.id
        WHERE r.run_id = ANY (ARRAY(SELECT id FROM settled)) AND r.run_id = v.id AND r.session_id = s.session_id)
     SELECT id FROM settled`,
    [...params, now, now, workerId, now],
  );
  return new Set(result.map((row) => String(row.id)));
}

async function settleOnSqlite(db: Db, items: readonly JobSettlementItem[], now: number): Promise<Set<string>> {
  const statements: Statement[] = items.flatMap((item): Statement[] => {
    const v = settlementValues(item);
    const lock = v.status === "queued" || v.status === "paused" ? ", locked_by = NULL, locked_at = NULL" : "";
    const end = v.status === "completed" || v.status === "failed" || v.status === "cancelled" ? ", completed_at = ?" : "";
    // Only "cancelled" settles a job with a cancel recorded (see above).
    const uncancelled = (column: string) => (v.status === "cancelled" ? "" : ` AND ${column} IS NULL`);
    return [
      {
        text: `UPDATE agno_runs SET status = ?, run_data = ?, updated_at = ?
                WHERE run_id = ? AND EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND j.attempt = ? AND j.locked_by = ? AND j.status = 'running'${uncancelled("j.cancel_requested_at")})`,
        params: [item.run.status, item.run.runData, now, item.fence.id, ...fenceParams(item.fence)],
      },
      {
        text: `UPDATE agno_jobs SET status = ?, error = ?, available_at = COALESCE(?, available_at), updated_at = ?${end}${lock} WHERE ${FENCE_SQL}${uncancelled("cancel_requested_at")}`,
        params: [v.status, v.error, v.availableAt, now, ...(end ? [now] : []), ...fenceParams(item.fence)],
      },
    ];
  });
  const counts = await db.sql.batch(statements);
  return new Set(items.filter((_, i) => counts[2 * i + 1] === 1).map((item) => item.fence.id));
}
