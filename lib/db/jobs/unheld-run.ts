import type { Db } from "../open-database.ts";
import { isRunIndexRace, runInsertStatement, type RunInput } from "../runs/run-insert.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { CANCEL_REASON } from "./cancel-recorded.ts";
import type { JobSettlement } from "./job-fence.ts";
import { epochSeconds } from "./job-row.ts";
import { runStatusStatement } from "../runs/run-job-subject.ts";
import type { SessionUpdate } from "../sessions/session-data.ts";
import type { Statement } from "../sql.ts";

/**
 * Runs no worker holds: an inline run, and the continuation of a paused run on the replica that
 * was asked to continue it (its durable job, if it has one, stays `paused` meanwhile: no worker
 * claims, renews or sweeps it). Where a worker's writes are fenced by its claim, these are fenced
 * by the recorded cancel, so one accepted through any replica ends the run CANCELLED:
 * - a run with a paused job is written only while the job is paused with no cancel recorded,
 *   and its end settles the job in the same statement (completed, paused again, failed,
 *   cancelled); on PostgreSQL the job row is locked for it, ordering it with the cancel's UPDATE;
 * - a run with no job is cancelled by its own row (CANCELLED, `cancelUnheldRun`), and a row
 *   stored CANCELLED is overwritten by nothing but CANCELLED; on PostgreSQL the run row is locked
 *   for the check, ordering it with the cancel's UPDATE.
 * Only the CANCELLED end itself passes a recorded cancel.
 */

/** What a write of a run no worker holds came to. "cancelled": refused, a cancel is recorded; "refused": the job moved on or the row is not this scope's to write. */
export type UnheldWrite = "written" | "cancelled" | "refused";

const RACE_RETRIES = 8;

/** The condition a write of the run puts on its row or job (none for its CANCELLED end with no job). */
function writeGuard(db: Db, runId: string, { pausedJob, cancelling }: { pausedJob: boolean; cancelling: boolean }) {
  const pg = db.dialect === "postgres";
  if (pausedJob) {
    const uncancelled = cancelling ? "j.status IN ('paused', 'cancelled')" : `j.status = 'paused' AND j.cancel_requested_at IS NULL`;
    return { clause: `EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND ${uncancelled}${pg ? " FOR SHARE" : ""})`, params: [runId] };
  }
  if (cancelling) return undefined;
  // PostgreSQL: the row is locked before its status is read, so a cancel committed while this
  // write waited is seen (the locked row is read again); a first write has no row to lock.
  return pg
    ? {
        clause: `(NOT EXISTS (SELECT 1 FROM agno_runs c WHERE c.run_id = ?)
                  OR EXISTS (SELECT 1 FROM agno_runs c WHERE c.run_id = ? AND c.status IS DISTINCT FROM 'CANCELLED' FOR NO KEY UPDATE))`,
        params: [runId, runId],
      }
    : { clause: `NOT EXISTS (SELECT 1 FROM agno_runs c WHERE c.run_id = ? AND c.status = 'CANCELLED')`, params: [runId] };
}

/**
 * Writes (upserts) the run of no worker, as upsertRun does but fenced by its recorded cancel (see
 * above): `pausedJob` when the run's durable job waits paused while it runs here. With `session`
 * (the run's end): its session update applies in the same transaction, only when the run's row
 * was written — one statement on PostgreSQL, one transaction on SQLite — and `session.applied`
 * says whether it did (not when the session changed since the run read it).
 */
export async function writeUnheldRun(db: Db, { scope, run, pausedJob, session }: { scope: DataScope; run: RunInput; pausedJob: boolean; session?: SessionUpdate }): Promise<UnheldWrite> {
  const extraGuard = writeGuard(db, run.runId, { pausedJob, cancelling: run.status === "CANCELLED" });
  const statement = await runInsertStatement(db, { scope, run, now: epochSeconds(), extraGuard });
  for (let attempt = 0; ; attempt++) {
    try {
      const written = session ? await writeWithSession(db, statement, session) : (await db.sql.query(statement.text, statement.params)).length > 0;
      if (written) return "written";
      return (await runCancelRecorded(db, run.runId)) ? "cancelled" : "refused";
    } catch (error) {
      if (!isRunIndexRace(error) || attempt >= RACE_RETRIES) throw error;
    }
  }
}

/** The run's write and its session's update together; whether the run's row was written. */
async function writeWithSession(db: Db, run: Statement, session: SessionUpdate): Promise<boolean> {
  if (db.dialect === "postgres") {
    const update = session.statement("EXISTS (SELECT 1 FROM run)");
    const [row] = await db.sql.query<{ run: number; session: number }>(
      `WITH run AS (${run.text}), session AS (${update.text})
       SELECT (SELECT COUNT(*) FROM run) AS run, (SELECT COUNT(*) FROM session) AS session`,
      [...run.params!, ...update.params!],
    );
    session.applied = Number(row?.session) === 1;
    return Number(row?.run) === 1;
  }
  // changes(): the rows the statement before it in this transaction (the run's write) changed.
  const [runRows, sessionRows] = await db.sql.batchRows([run, session.statement("changes() > 0")]);
  session.applied = sessionRows!.length === 1;
  return runRows!.length > 0;
}

/**
 * The end of a continuation whose durable job waited paused: the run's final row and the job's
 * settlement (completed, paused again, failed, cancelled) in one statement on PostgreSQL, one
 * transaction on SQLite, applied only while the job is still paused with no cancel recorded — or,
 * for "cancelled", paused or already cancelled. Returns what it came to.
 */
export async function settleUnheldRun(
  db: Db,
  {
    scope,
    runId,
    settlement,
    run,
    now = epochSeconds(),
  }: { scope: DataScope; runId: string; settlement: Exclude<JobSettlement, { status: "queued" }>; run: { status: string; runData: Record<string, unknown> }; now?: number },
): Promise<UnheldWrite> {
  const cancelling = settlement.status === "cancelled";
  const ended = settlement.status !== "paused";
  const owner = ownerSql(scope, "j.user_id");
  const held = `j.id = ? AND ${cancelling ? "j.status IN ('paused', 'cancelled')" : "j.status = 'paused' AND j.cancel_requested_at IS NULL"} AND ${owner.clause}`;
  const heldParams = [runId, ...owner.params];
  const error = "error" in settlement ? (settlement.error ?? null) : null;
  const set = `status = ?, error = ?, updated_at = ?${ended ? ", completed_at = COALESCE(completed_at, ?)" : ""}`;
  const setParams = [settlement.status, error, now, ...(ended ? [now] : [])];
  let settled: boolean;
  if (db.dialect === "postgres") {
    // The job's UPDATE re-reads a row a concurrent cancel changed before it applies (READ
    // COMMITTED): a cancel committed while this waited is seen, never missed.
    const [row] = await db.sql.query<{ n: number }>(
      `WITH settled AS (UPDATE agno_jobs j SET ${set} WHERE ${held} RETURNING j.id, j.session_id),
       runs AS (UPDATE agno_runs r SET status = ?, run_data = ?::jsonb, updated_at = ? FROM settled s WHERE r.run_id = s.id AND r.session_id = s.session_id)
       SELECT COUNT(*) AS n FROM settled`,
      [...setParams, ...heldParams, run.status, run.runData, now],
    );
    settled = Number(row?.n) === 1;
  } else {
    const counts = await db.sql.batch([
      {
        text: `UPDATE agno_runs SET status = ?, run_data = ?, updated_at = ?
                WHERE run_id = ? AND EXISTS (SELECT 1 FROM agno_jobs j WHERE ${held} AND j.session_id = agno_runs.session_id)`,
        params: [run.status, run.runData, now, runId, ...heldParams],
      },
      { text: `UPDATE agno_jobs AS j SET ${set} WHERE ${held}`, params: [...setParams, ...heldParams] },
    ]);
    settled = counts[1] === 1;
  }
  if (settled) return "written";
  return (await runCancelRecorded(db, runId)) ? "cancelled" : "refused";
}

/**
 * Whether a cancel is recorded for the run: its job's intent, or its row stored CANCELLED. What a
 * replica running the run (not a worker) polls for, and what a refused write is explained by.
 */
export async function runCancelRecorded(db: Db, runId: string): Promise<boolean> {
  const rows = await db.sql.query(
    `SELECT 1 AS hit FROM agno_jobs WHERE id = ? AND cancel_requested_at IS NOT NULL
     UNION ALL SELECT 1 AS hit FROM agno_runs WHERE run_id = ? AND status = 'CANCELLED'`,
    [runId, runId],
  );
  return rows.length > 0;
}

/**
 * Cancels a run no worker holds, where no process can be told to: its row (PENDING or RUNNING
 * as stored, within the scope) becomes CANCELLED, so whatever runs it — on any replica — has its
 * next write refused and ends CANCELLED. False when the row is not PENDING or RUNNING (any more).
 */
export async function cancelUnheldRun(db: Db, { scope, runId, sessionId, now = epochSeconds() }: { scope: DataScope; runId: string; sessionId?: string; now?: number }): Promise<boolean> {
  const owner = ownerSql(scope);
  const statement = runStatusStatement(db, {
    runId,
    to: "CANCELLED",
    from: ["PENDING", "RUNNING"],
    error: { message: CANCEL_REASON, error_type: "run_cancelled" },
    now,
    run: { clause: `${owner.clause}${sessionId ? " AND session_id = ?" : ""}`, params: [...owner.params, ...(sessionId ? [sessionId] : [])] },
  });
  const changed = await db.sql.exec(statement.text, statement.params);
  return changed === 1;
}
