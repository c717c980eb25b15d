import type { Db } from "../open-database.ts";
import { JOB_COLUMNS, toStoredJob, type StoredJob } from "./job-row.ts";

export interface ClaimJobsOptions {
  /** Unique per worker process (e.g. `worker-<host>-<pid>-<random>`); it fences the worker's writes. */
  workerId: string;
  limit: number;
  /** Epoch seconds. */
  now: number;
  /** How long the lease lasts without a heartbeat; the sweeper takes the job back after it. */
  leaseSeconds: number;
  /** This worker's deployment: it also claims that deployment's jobs. Absent: only jobs with none. */
  deploymentId?: string | null;
}

/** A claimed job: `attempt` and `locked_by` are the fence every later write must present. */
export interface ClaimedJob extends StoredJob {
  status: "running";
  locked_by: string;
  locked_at: number;
  /** When the lease runs out unless a heartbeat renews it (locked_at + leaseSeconds). */
  lease_expires_at: number;
}

/**
 * The condition a job `j` meets when a worker of `deploymentId` may claim it now: queued,
 * available, routed to it (a worker claims jobs of no deployment and of its own), and the first
 * of its session: one live run per session, so a job waits while its session has a running job
 * or one submitted before it still queued. created_at has one-second resolution; within a second
 * the runs' run_index (assigned in submission order) decides. Params: readyJobParams.
 */
const READY_JOB_WHERE = (deploymentId: string | null | undefined): string => {
  const routing = deploymentId ? "(j.deployment_id IS NULL OR j.deployment_id = ?)" : "j.deployment_id IS NULL";
  const runIndex = (alias: string) => `(SELECT r.run_index FROM agno_runs r WHERE r.run_id = ${alias}.id)`;
  return `j.status = 'queued' AND j.available_at <= ? AND ${routing} AND (j.session_id IS NULL OR NOT EXISTS (
           SELECT 1 FROM agno_jobs o WHERE o.session_id = j.session_id AND o.id <> j.id
              AND (o.status = 'running' OR (o.status = 'queued' AND (o.created_at < j.created_at
                   OR (o.created_at = j.created_at AND ${runIndex("o")} < ${runIndex("j")}))))))`;
};

const readyJobParams = (now: number, deploymentId: string | null | undefined): unknown[] => [now, ...(deploymentId ? [deploymentId] : [])];

/**
 * UNSAFE (unscoped): worker health, across every user's jobs. Seconds the oldest job that a
 * worker of `deploymentId` could claim now has been ready (since available_at), or null when none is.
 */
export async function unsafeOldestReadyJobAge(db: Db, { now, deploymentId }: { now: number; deploymentId?: string | null }): Promise<number | null> {
  const [row] = await db.sql.query<{ oldest: number | null }>(
    `SELECT MIN(j.available_at) AS oldest FROM agno_jobs j WHERE ${READY_JOB_WHERE(deploymentId)}`,
    readyJobParams(now, deploymentId),
  );
  return row?.oldest === null || row?.oldest === undefined ? null : Math.max(0, now - Number(row.oldest));
}

/**
 * Claims up to `limit` ready jobs (READY_JOB_WHERE), oldest available first: each becomes running with attempt + 1, locked_by = workerId and
 * locked_at = now, in ONE statement, so two workers can never claim the same job. PostgreSQL
 * picks the rows `FOR UPDATE SKIP LOCKED` in a materialized CTE (concurrent claimers skip each
 * other's rows instead of waiting); SQLite runs `UPDATE … WHERE id IN (SELECT … LIMIT n)` under
 * its write lock (busy retries in the executor). Returned oldest available first.
 */
export async function claimJobs(db: Db, { workerId, limit, now, leaseSeconds, deploymentId }: ClaimJobsOptions): Promise<ClaimedJob[]> {
  if (!Number.isInteger(limit) || limit < 1) return [];
  const ready = `SELECT j.id FROM agno_jobs j WHERE ${READY_JOB_WHERE(deploymentId)}
         ORDER BY j.available_at, j.created_at, j.id
         LIMIT ${limit}`;
  const readyParams = readyJobParams(now, deploymentId);
  const set = "status = 'running', attempt = attempt + 1, locked_by = ?, locked_at = ?, updated_at = ?";
  const setParams = [workerId, now, now];
  // PostgreSQL: the picked ids must be computed exactly once. In `id IN (subquery … LIMIT n)` the
  // planner may run the subquery more than once and update more than n rows (seen here); a
  // MATERIALIZED CTE runs once. SKIP LOCKED: concurrent claimers pass over each other's rows, and
  // a row another claimer just took fails the re-check of `status = 'queued'`.
  const rows =
    db.dialect === "postgres"
      ? await db.sql.query(
          `WITH picked AS MATERIALIZED (${ready} FOR UPDATE OF j SKIP LOCKED)
           UPDATE agno_jobs SET ${set} FROM picked
            WHERE agno_jobs.id = picked.id AND agno_jobs.status = 'queued'
           RETURNING ${JOB_COLUMNS.split(", ").map((c) => `agno_jobs.${c}`).join(", ")}`,
          [...readyParams, ...setParams],
        )
      : await db.sql.query(`UPDATE agno_jobs SET ${set} WHERE status = 'queued' AND id IN (${ready}) RETURNING ${JOB_COLUMNS}`, [
          ...setParams,
          ...readyParams,
        ]);
  return rows
    .map((row) => ({ ...toStoredJob(row), lease_expires_at: now + leaseSeconds }) as ClaimedJob)
    .sort((a, b) => a.available_at - b.available_at || a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
}
