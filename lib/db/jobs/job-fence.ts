import type { Db } from "../open-database.ts";
import { epochSeconds } from "./job-row.ts";
import type { Statement } from "../sql.ts";
import { cancelRecordedStatements } from "./cancel-recorded.ts";
import { followStatements, type SubjectBinding } from "./job-subject.ts";
import { lostWorkerFollow, MAX_LEASE_LOSSES } from "./sweep-expired-leases.ts";

/**
 * What a worker got from claimJobs and presents on every later write. A write applies only while
 * the row is still running with this attempt and this locked_by. `attempt` only ever grows (each
 * claim adds one, nothing subtracts), so once the job was released, swept or finished, no later
 * claim — not even by a worker with the same id — can make an old fence match again.
 */
export interface JobFence {
  id: string;
  attempt: number;
  workerId: string;
}

export const FENCE_SQL = "id = ? AND attempt = ? AND locked_by = ? AND status = 'running'";
export const fenceParams = ({ id, attempt, workerId }: JobFence): unknown[] => [id, attempt, workerId];

/**
 * Runs one fenced UPDATE (`set` with its params); reports whether the fence held. `uncancelled`:
 * only while no cancel is recorded — an end other than "cancelled" is refused for a job whose
 * cancel was accepted.
 */
export async function fencedUpdate(db: Db, fence: JobFence, set: string, setParams: readonly unknown[], { uncancelled = false } = {}): Promise<boolean> {
  const changed = await db.sql.exec(`UPDATE agno_jobs SET ${set} WHERE ${FENCE_SQL}${uncancelled ? " AND cancel_requested_at IS NULL" : ""}`, [...setParams, ...fenceParams(fence)]);
  return changed === 1;
}

type FencedWrite = JobFence & { now?: number };

/** Renews the lease (locked_at = now). False: the lease is gone; stop working on the job. */
export function heartbeat(db: Db, { now = epochSeconds(), ...fence }: FencedWrite): Promise<boolean> {
  return fencedUpdate(db, fence, "locked_at = ?, updated_at = ?", [now, now]);
}

/** The job is done (completed, completed_at = now); refused while a cancel is recorded. The run row is the runtime's to write. */
export function completeJob(db: Db, { now = epochSeconds(), ...fence }: FencedWrite): Promise<boolean> {
  return fencedUpdate(db, fence, "status = 'completed', error = NULL, completed_at = ?, updated_at = ?", [now, now], { uncancelled: true });
}

/** The run paused (human in the loop): the job leaves the worker and waits as `paused`; refused while a cancel is recorded. */
export function pauseJob(db: Db, { now = epochSeconds(), ...fence }: FencedWrite): Promise<boolean> {
  return fencedUpdate(db, fence, "status = 'paused', updated_at = ?", [now], { uncancelled: true });
}

/** The run was cancelled while this worker ran it (cancelled, completed_at = now). */
export function cancelJob(db: Db, { now = epochSeconds(), reason, ...fence }: FencedWrite & { reason?: string }): Promise<boolean> {
  return fencedUpdate(db, fence, "status = 'cancelled', error = ?, completed_at = ?, updated_at = ?", [reason ?? null, now, now]);
}

/** The job kinds' subjects a statement moves along with its job (lib/db/jobs/job-subject.ts). */
type WithSubjects = { subjects: readonly SubjectBinding[] };

/**
 * Runs a job's UPDATE, its subject's follow statements and the cancel-recorded pair in one
 * transaction: whether the job's UPDATE or the cancel applied (exactly one of them can).
 */
async function moveWithSubject(db: Db, job: Statement, follow: Statement[], cancel: Statement[]): Promise<boolean> {
  const counts = await db.sql.batch([job, ...follow, ...cancel]);
  return counts[0] + counts[1 + follow.length] === 1;
}

/**
 * Graceful shutdown: hands the job back at once (queued, available now, lock cleared) without
 * spending an attempt — lease_losses + 1 offsets the claim — and its subject back to waiting (a
 * run PENDING), in one transaction. The attempt stays, so this worker's fence never matches
 * again; the next claim gets attempt + 1. A release counts as a lost lease: the one that makes
 * MAX_LEASE_LOSSES fails the job and its subject instead, as the sweeper would. A job with a
 * cancel recorded is cancelled with its subject instead, whichever loss this is (the cancel was accepted).
 */
export async function releaseJob(db: Db, { now = epochSeconds(), subjects, ...fence }: FencedWrite & WithSubjects): Promise<boolean> {
  const [row] = await db.sql.query<{ lease_losses: number; job_type: string }>(`SELECT lease_losses, job_type FROM agno_jobs WHERE ${FENCE_SQL}`, fenceParams(fence));
  if (!row) return false;
  const jobType = String(row.job_type);
  const losses = Number(row.lease_losses) + 1;
  const cancel = cancelRecordedStatements(db, { id: fence.id, jobType, subjects, where: FENCE_SQL, params: fenceParams(fence), now, attempt: fence.attempt, leaseLost: true });
  if (losses >= MAX_LEASE_LOSSES) {
    const reason = `Job lost its worker ${losses} times (shut down or no heartbeat); not retried again`;
    return moveWithSubject(
      db,
      {
        text: `UPDATE agno_jobs SET status = 'failed', lease_losses = lease_losses + 1, error = ?, completed_at = ?, updated_at = ?
                WHERE ${FENCE_SQL} AND cancel_requested_at IS NULL`,
        params: [reason, now, now, ...fenceParams(fence)],
      },
      lostWorkerFollow(db, { subjects, jobType, jobId: fence.id, reason, now, attempt: fence.attempt, losses }),
      cancel,
    );
  }
  return moveWithSubject(
    db,
    {
      text: `UPDATE agno_jobs SET status = 'queued', available_at = ?, lease_losses = lease_losses + 1, locked_by = NULL, locked_at = NULL, updated_at = ?
              WHERE ${FENCE_SQL} AND cancel_requested_at IS NULL`,
      params: [now, now, ...fenceParams(fence)],
    },
    followStatements(
      db,
      subjects,
      jobType,
      fence.id,
      { to: "waiting", after: "claim" },
      { clause: "j.status = 'queued' AND j.attempt = ? AND j.lease_losses = ?", params: [fence.attempt, losses] },
      now,
    ),
    cancel,
  );
}

/**
 * Gives up on an attempt that would not stop (a tool ignoring the abort of its timeout or of a
 * cancel): the job fails and its subject with the reason (a run ERROR) — or, with a cancel
 * recorded, both are cancelled (the cancel was accepted) — in one transaction, under the fence.
 * Whatever the stuck attempt writes later is fenced out.
 */
export async function abandonJob(
  db: Db,
  { now = epochSeconds(), reason, errorType, jobType, subjects, ...fence }: FencedWrite & WithSubjects & { reason: string; errorType: string; jobType: string },
): Promise<boolean> {
  return moveWithSubject(
    db,
    {
      text: `UPDATE agno_jobs SET status = 'failed', error = ?, completed_at = ?, updated_at = ? WHERE ${FENCE_SQL} AND cancel_requested_at IS NULL`,
      params: [reason, now, now, ...fenceParams(fence)],
    },
    followStatements(
      db,
      subjects,
      jobType,
      fence.id,
      { to: "failed", reason, errorType },
      { clause: "j.status = 'failed' AND j.attempt = ? AND j.completed_at = ?", params: [fence.attempt, now] },
      now,
    ),
    cancelRecordedStatements(db, { id: fence.id, jobType, subjects, where: FENCE_SQL, params: fenceParams(fence), now, attempt: fence.attempt, leaseLost: false }),
  );
}

/** One live lease as its worker holds it. */
export interface HeldLease extends JobFence {
  /** The lease_losses the claim returned: unchanged while the lease is held. */
  leaseLosses: number;
}

/**
 * Renews every lease this worker holds in one statement. Returns, per job still held, whether a
 * cancel has been recorded for it; a job missing from the answer has lost its lease (swept,
 * requeued by an admin, or finished elsewhere) and must stop without writing anything.
 */
export async function heartbeatJobs(
  db: Db,
  { workerId, leases, now = epochSeconds() }: { workerId: string; leases: readonly JobFence[]; now?: number },
): Promise<Map<string, { cancelRequested: boolean }>> {
  const held = new Map<string, { cancelRequested: boolean }>();
  if (leases.length === 0) return held;
  // Each lease by its id and attempt: an older claim of a job this worker claimed again must not
  // be renewed as if it were the current one.
  const rows = await db.sql.query<{ id: string; attempt: number; cancel_requested_at: number | null }>(
    `UPDATE agno_jobs SET locked_at = ?, updated_at = ?
      WHERE locked_by = ? AND status = 'running' AND (${leases.map(() => "(id = ? AND attempt = ?)").join(" OR ")})
      RETURNING id, attempt, cancel_requested_at`,
    [now, now, workerId, ...leases.flatMap((l) => [l.id, l.attempt])],
  );
  const attempts = new Map(leases.map((l) => [l.id, l.attempt]));
  for (const row of rows) {
    if (Number(row.attempt) === attempts.get(String(row.id))) held.set(String(row.id), { cancelRequested: row.cancel_requested_at !== null });
  }
  return held;
}

/**
 * Which of these jobs, still held by this worker, have a cancel recorded: a read as cheap as the
 * poll, so a cancel reaches a worker within a poll interval even without Redis.
 */
export async function cancelRequestedJobs(db: Db, { workerId, ids }: { workerId: string; ids: readonly string[] }): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.sql.query<{ id: string }>(
    `SELECT id FROM agno_jobs WHERE status = 'running' AND locked_by = ? AND cancel_requested_at IS NOT NULL
        AND id IN (${ids.map(() => "?").join(", ")})`,
    [workerId, ...ids],
  );
  return rows.map((row) => String(row.id));
}

/** How an attempt ended, as the job records it. */
export type JobSettlement = { status: "completed" | "paused" | "cancelled"; error?: string | null } | { status: "queued"; error: string; availableAt: number } | { status: "failed"; error: string };

/**
 * The fenced UPDATE that records an attempt's end. While a cancel is recorded only a `cancelled`
 * end applies (as in settleJobs): any other matches no row, and the caller ends the job cancelled.
 * `runEnded`: the run had ended before this attempt (its row says how), so the job records that
 * end whatever was asked since.
 */
export function settleJobStatement(
  fence: JobFence,
  settlement: JobSettlement,
  { now = epochSeconds(), runEnded = false }: { now?: number; runEnded?: boolean } = {},
): { text: string; params: unknown[] } {
  const [set, params] =
    settlement.status === "queued"
      ? ["status = 'queued', available_at = ?, error = ?, locked_by = NULL, locked_at = NULL, updated_at = ?", [settlement.availableAt, settlement.error, now]]
      : settlement.status === "paused"
        ? ["status = 'paused', locked_by = NULL, locked_at = NULL, updated_at = ?", [now]]
        : [`status = ?, error = ?, completed_at = ?, updated_at = ?`, [settlement.status, settlement.error ?? null, now, now]];
  const uncancelled = settlement.status === "cancelled" || runEnded ? "" : " AND cancel_requested_at IS NULL";
  return { text: `UPDATE agno_jobs SET ${set} WHERE ${FENCE_SQL}${uncancelled}`, params: [...params, ...fenceParams(fence)] };
}

/**
 * The condition a fenced run write carries: the job is still held under this fence. On
 * PostgreSQL the job row is share-locked for the write's duration, so a sweep or a new claim
 * cannot slip in between this check (made on the statement's snapshot) and the row it updates.
 */
export function runFenceGuard(db: Db, fence: JobFence): { clause: string; params: unknown[] } {
  const lock = db.dialect === "postgres" ? " FOR SHARE" : "";
  return {
    clause: `EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND j.attempt = ? AND j.locked_by = ? AND j.status = 'running'${lock})`,
    params: fenceParams(fence),
  };
}
