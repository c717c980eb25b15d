import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";
import { FENCE_SQL, fenceParams, type JobFence, type JobSettlement } from "./job-fence.ts";
import { epochSeconds } from "./job-row.ts";
import { jobTypeLiterals, subjectOf, type SubjectBinding, type SubjectValue } from "./job-subject.ts";

/** One attempt's end: the job's settlement and its subject's final row (a run's), under the claim's fence. */
export interface JobSettlementItem {
  fence: JobFence;
  jobType: string;
  settlement: JobSettlement;
  /** The subject as it is to be stored (a run's status and run_data; its row exists: the submit wrote it). Absent for a job of a kind with no subject. */
  subject?: SubjectValue;
}

/**
 * Settles the attempts of many jobs held by one worker at once: for each job whose fence still
 * holds, the job takes its settlement and its subject (a run job's run) its final row, together;
 * a job whose fence no longer holds (another claim owns it) changes nothing, and neither does its
 * subject. A job with a cancel recorded takes no settlement but "cancelled" (a cancel accepted
 * while it ran must end it CANCELLED, whatever the attempt made of it): it stays held and
 * unchanged, and its worker writes the end again as cancelled. Returns the ids that were
 * settled. One statement on PostgreSQL (data-modifying CTEs: each subject's update joins the job
 * updates that applied); one transaction on SQLite (each subject update guarded by the fence,
 * then its job's).
 */
export async function settleJobs(
  db: Db,
  { workerId, items, subjects, now = epochSeconds() }: { workerId: string; items: readonly JobSettlementItem[]; subjects: readonly SubjectBinding[]; now?: number },
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  if (items.some((item) => item.fence.workerId !== workerId)) throw new Error("settleJobs: every item must be held by the settling worker");
  return db.dialect === "postgres" ? settleOnPostgres(db, workerId, items, subjects, now) : settleOnSqlite(db, items, subjects, now);
}

/** The job columns a settlement sets: status, error, and for some the lock, retry time or end. */
const settlementValues = ({ settlement }: JobSettlementItem) => ({
  status: settlement.status,
  error: "error" in settlement ? (settlement.error ?? null) : null,
  availableAt: settlement.status === "queued" ? settlement.availableAt : null,
});

async function settleOnPostgres(db: Db, workerId: string, items: readonly JobSettlementItem[], subjects: readonly SubjectBinding[], now: number): Promise<Set<string>> {
  const rows = items.map(() => "(?::text, ?::bigint, ?::text, ?::text, ?::bigint, ?::text, ?::jsonb)").join(", ");
  const params = items.flatMap((item) => {
    const v = settlementValues(item);
    return [item.fence.id, item.fence.attempt, v.status, v.error, v.availableAt, item.subject?.status ?? null, item.subject?.data ?? null];
  });
  const released = "v.status IN ('queued', 'paused')";
  // Only the kinds present in this batch get their subject's CTE.
  const present = subjects.filter((b) => items.some((item) => item.subject && b.jobTypes.includes(item.jobType)));
  const written = present.map((b, i) => ({
    name: `subject_${i}`,
    ...b.subject.settledCte(`SELECT id FROM settled WHERE ${jobTypeLiterals("job_type", b.jobTypes)}`, now),
  }));
  // The cancel check is in the UPDATE's own WHERE: a cancel committed while this statement waited
  // for the row lock is seen when PostgreSQL re-checks the row (READ COMMITTED), never missed.
  // `= ANY (ARRAY(…))`: rows are looked up by key whatever plan a prepared statement settles on.
  const result = await db.sql.query<{ id: string }>(
    `WITH v (id, attempt, status, error, available_at, subject_status, subject_data) AS (VALUES ${rows}),
     settled AS (
       UPDATE agno_jobs j SET status = v.status, error = v.error,
              available_at = COALESCE(v.available_at, j.available_at),
              completed_at = CASE WHEN v.status IN ('completed', 'failed', 'cancelled') THEN ? ELSE j.completed_at END,
              locked_by = CASE WHEN ${released} THEN NULL ELSE j.locked_by END,
              locked_at = CASE WHEN ${released} THEN NULL ELSE j.locked_at END,
              updated_at = ?
         FROM v WHERE j.id = ANY (ARRAY(SELECT id FROM v)) AND j.id = v.id AND j.attempt = v.attempt AND j.locked_by = ? AND j.status = 'running'
          AND (j.cancel_requested_at IS NULL OR v.status = 'cancelled')
       RETURNING j.id, j.session_id, j.job_type)${written
         .map(
           (cte) => `,
     ${cte.name} AS (${cte.text})`,
         )
         .join("")}
     SELECT id FROM settled`,
    [...params, now, now, workerId, ...written.flatMap((cte) => cte.params)],
  );
  return new Set(result.map((row) => String(row.id)));
}

async function settleOnSqlite(db: Db, items: readonly JobSettlementItem[], subjects: readonly SubjectBinding[], now: number): Promise<Set<string>> {
  // Where each item's job UPDATE lands in the batch (after its subject's write, if any).
  const jobStatementAt: number[] = [];
  const statements: Statement[] = [];
  for (const item of items) {
    const v = settlementValues(item);
    const lock = v.status === "queued" || v.status === "paused" ? ", locked_by = NULL, locked_at = NULL" : "";
    const end = v.status === "completed" || v.status === "failed" || v.status === "cancelled" ? ", completed_at = ?" : "";
    // Only "cancelled" settles a job with a cancel recorded (see above).
    const uncancelled = (column: string) => (v.status === "cancelled" ? "" : ` AND ${column} IS NULL`);
    const subject = item.subject ? subjectOf(subjects, item.jobType) : null;
    const guard = {
      clause: `j.attempt = ? AND j.locked_by = ? AND j.status = 'running'${uncancelled("j.cancel_requested_at")}`,
      params: [item.fence.attempt, item.fence.workerId],
    };
    if (subject && item.subject) statements.push(subject.settledStatement(item.fence.id, item.subject, guard, now));
    jobStatementAt.push(statements.length);
    statements.push({
      text: `UPDATE agno_jobs SET status = ?, error = ?, available_at = COALESCE(?, available_at), updated_at = ?${end}${lock} WHERE ${FENCE_SQL}${uncancelled("cancel_requested_at")}`,
      params: [v.status, v.error, v.availableAt, now, ...(end ? [now] : []), ...fenceParams(item.fence)],
    });
  }
  const counts = await db.sql.batch(statements);
  return new Set(items.filter((_, i) => counts[jobStatementAt[i]] === 1).map((item) => item.fence.id));
}
