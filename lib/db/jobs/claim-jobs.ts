import type { Db } from "../open-database.ts";
import { JOB_COLUMNS, toStoredJob, type StoredJob } from "./job-row.ts";
import { jobTypeLiterals, type SubjectBinding } from "./job-subject.ts";

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
  /** The job types this worker can execute (its catalog's): it claims no other. */
  jobTypes: readonly string[];
  /** The subjects the claim starts with their jobs (a run job's run becomes RUNNING). */
  subjects: readonly SubjectBinding[];
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
 * Ready jobs for a worker of `deploymentId`, as a stream in the order workers take them (oldest
 * available first): queued, available, routed to it (a worker takes jobs of no deployment and of
 * its own), and the first of its session — one live run per session, so a job waits while its
 * session has a running job or one submitted before it still queued (created_at has one-second
 * resolution; within a second the runs' run_index, assigned in submission order, decides).
 *
 * The session rule is a correlated check, so it is applied to the ordered candidates *after* the
 * scan (the subquery is not flattened: it has an ORDER BY and, on PostgreSQL, a row lock): a
 * claim evaluates it for the first rows only, whatever the planner thinks the queue holds. The
 * check reads idx_agno_jobs_live_session (`o.status IN (…)`), so a session's finished jobs,
 * however many, are never looked at. Jobs of one session are ordered by their runs' run_index
 * (jobs with a session are run jobs; a job of another kind has none and waits for nobody).
 * `lock` is PostgreSQL's row lock for the candidates. Only `jobTypes` are claimed.
 */
function readyJobs(deploymentId: string | null | undefined, jobTypes: readonly string[], lock = ""): { sql: string; params: (now: number) => unknown[] } {
  const routing = (deploymentId ? "(j.deployment_id IS NULL OR j.deployment_id = ?)" : "j.deployment_id IS NULL") + ` AND ${jobTypeLiterals("j.job_type", jobTypes)}`;
  const runIndex = (alias: string) => `(SELECT r.run_index FROM agno_runs r WHERE r.run_id = ${alias}.id)`;
  const sql = `SELECT c.id, c.available_at FROM (
      SELECT j.id, j.session_id, j.created_at, j.available_at FROM agno_jobs j
       WHERE j.status = 'queued' AND j.available_at <= ? AND ${routing}
       ORDER BY j.available_at, j.created_at ${lock}) c
     WHERE c.session_id IS NULL OR NOT EXISTS (
       SELECT 1 FROM agno_jobs o WHERE o.session_id = c.session_id AND o.status IN ('queued', 'running') AND o.id <> c.id
          AND (o.status = 'running' OR o.created_at < c.created_at
               OR (o.created_at = c.created_at AND ${runIndex("o")} < ${runIndex("c")})))`;
  return { sql, params: (now) => [now, ...(deploymentId ? [deploymentId] : [])] };
}

/**
 * UNSAFE (unscoped): worker health, across every user's jobs. Seconds the oldest job that a
 * worker of `deploymentId` could claim now has been ready (since available_at), or null when none is.
 */
export async function unsafeOldestReadyJobAge(db: Db, { now, deploymentId, jobTypes }: { now: number; deploymentId?: string | null; jobTypes: readonly string[] }): Promise<number | null> {
  const ready = readyJobs(deploymentId, jobTypes);
  const [row] = await db.sql.query<{ oldest: number | null }>(`SELECT MIN(r.available_at) AS oldest FROM (${ready.sql} LIMIT 1) r`, ready.params(now));
  return row?.oldest === null || row?.oldest === undefined ? null : Math.max(0, now - Number(row.oldest));
}

/**
 * Claims up to `limit` ready jobs (readyJobs), oldest available first, in ONE statement, so two
 * workers can never claim the same job: each becomes running with attempt + 1, locked_by =
 * workerId and locked_at = now, and its subject (if its kind has one) is started in the same
 * statement — a claimed run job is a started run. PostgreSQL locks the candidates `FOR UPDATE SKIP LOCKED` (concurrent claimers
 * skip each other's rows instead of waiting); SQLite runs under its write lock (busy retries in
 * the executor). Returned oldest available first.
 */
export async function claimJobs(db: Db, { workerId, limit, now, leaseSeconds, deploymentId, jobTypes, subjects }: ClaimJobsOptions): Promise<ClaimedJob[]> {
  if (!Number.isInteger(limit) || limit < 1 || jobTypes.length === 0) return [];
  const set = "status = 'running', attempt = attempt + 1, locked_by = ?, locked_at = ?, updated_at = ?";
  const setParams = [workerId, now, now];
  let rows: Record<string, unknown>[];
  if (db.dialect === "postgres") {
    const ready = readyJobs(deploymentId, jobTypes, "FOR UPDATE OF j SKIP LOCKED");
    const started = subjects.map((b, i) => ({ name: `started_${i}`, ...b.subject.claimedCte(`SELECT id FROM claimed WHERE ${jobTypeLiterals("job_type", b.jobTypes)}`, now) }));
    // The picked ids are computed exactly once (MATERIALIZED: in `id IN (subquery … LIMIT n)` the
    // planner may run the subquery more than once and update more than n rows, seen here), and
    // the updates take them as one array (`= ANY (ARRAY(…))`), so each row is found by its key
    // whatever plan a prepared statement settles on. The lock was taken in the scan, which
    // re-checks a row another claimer changed meanwhile (READ COMMITTED), so the rows are still queued.
    rows = await db.sql.query(
      `WITH picked AS MATERIALIZED (${ready.sql} LIMIT ${limit}),
       claimed AS (
         UPDATE agno_jobs SET ${set} WHERE id = ANY (ARRAY(SELECT id FROM picked))
         RETURNING ${JOB_COLUMNS})${started
           .map(
             (cte) => `,
       ${cte.name} AS (${cte.text})`,
           )
           .join("")}
       SELECT ${JOB_COLUMNS} FROM claimed`,
      [...ready.params(now), ...setParams, ...started.flatMap((cte) => cte.params)],
    );
  } else {
    rows = await claimOnSqlite(db, { set, setParams, ready: readyJobs(deploymentId, jobTypes), limit, now, subjects });
  }
  return rows
    .map((row) => ({ ...toStoredJob(row), lease_expires_at: now + leaseSeconds }) as ClaimedJob)
    .sort((a, b) => a.available_at - b.available_at || a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
}

/**
 * SQLite: the claim is one `UPDATE … RETURNING` under the write lock (busy retries in the
 * executor); the subjects of the claimed jobs are started in a second statement per subject (a
 * crash in between leaves a claimed run job's run PENDING, which its executor writes RUNNING anyway).
 */
async function claimOnSqlite(
  db: Db,
  { set, setParams, ready, limit, now, subjects }: { set: string; setParams: unknown[]; ready: ReturnType<typeof readyJobs>; limit: number; now: number; subjects: readonly SubjectBinding[] },
) {
  const rows = await db.sql.query(`UPDATE agno_jobs SET ${set} WHERE status = 'queued' AND id IN (SELECT id FROM (${ready.sql} LIMIT ${limit})) RETURNING ${JOB_COLUMNS}`, [
    ...setParams,
    ...ready.params(now),
  ]);
  for (const { jobTypes, subject } of subjects) {
    const ids = rows.filter((row) => jobTypes.includes(String(row.job_type))).map((row) => String(row.id));
    if (ids.length > 0) {
      const statement = subject.claimedStatement(ids, now);
      await db.sql.exec(statement.text, statement.params);
    }
  }
  return rows;
}
