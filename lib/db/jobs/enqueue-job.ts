import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, QueueFullError } from "../../errors/domain-errors.ts";
import type { Db } from "../open-database.ts";
import { isRunIndexRace, runInsertStatement, type RunInput } from "../runs/run-insert.ts";
import type { DataScope } from "../scope.ts";
import { epochSeconds, nullSafeEquals, readJob, toStoredJob, JOB_COLUMNS, type StoredJob } from "./job-row.ts";
import { isUniqueViolation } from "./unique-violation.ts";

export interface JobInput {
  /** agent | team | workflow. */
  componentType: string;
  componentId: string;
  /** What the worker does with it, e.g. `run` or `continue`. */
  jobType: string;
  /** Only workers of this deployment may claim the job; null/absent: any worker. */
  deploymentId?: string | null;
  /** Everything the worker needs to execute the run. */
  payload: Record<string, unknown>;
  /** Whether the submit streams; recorded as payload.stream so a duplicate in the other mode is a 409. */
  stream: boolean;
  maxAttempts: number;
  /** Dedupes submits per (owner, key); the API caps it at 512 characters. */
  idempotencyKey?: string | null;
  /** Epoch seconds; default now. */
  availableAt?: number;
}

export interface EnqueueRunJobOptions {
  scope: DataScope;
  /** The run as upsertRun takes it; written with status PENDING. */
  run: RunInput;
  job: JobInput;
  /** QueueFullError when this many jobs are queued already (checked inside the insert). */
  maxQueueDepth?: number;
  now?: number;
}

/** A new job, or the job an earlier submit with the same Idempotency-Key made (nothing was written). */
export type EnqueueResult = { duplicate: false; job: StoredJob } | { duplicate: true; job: StoredJob };

const RUN_INDEX_RACE_RETRIES = 8;

/**
 * Submits a durable background run: the PENDING agno_runs row and its agno_jobs row (id = run id)
 * are committed in one transaction, so a worker never sees a job without its run, nor a run
 * without its job. The run gets its run_index inside the insert exactly as upsertRun assigns it.
 *
 * The job insert goes first and is the arbiter: with an Idempotency-Key it is
 * `ON CONFLICT (owner, key) DO NOTHING`, and the run insert is guarded on that job row existing,
 * so concurrent submits with one key make exactly one job and one run, and every loser gets
 * `{ duplicate: true, job }` (the winner). The job's owner is the session's owner, as the run's is.
 * The queue depth is checked inside the same insert (exact on SQLite; on PostgreSQL concurrent
 * submits at the limit may overshoot it by a few).
 *
 * Throws NotFoundError (session missing for this scope), ConflictError (the run id exists),
 * QueueFullError (`maxQueueDepth` queued runs already: jobs of other kinds, such as schedule fires, do not count).
 */
export async function enqueueRunJob(db: Db, options: EnqueueRunJobOptions): Promise<EnqueueResult> {
  const { job } = options;
  if (!Number.isInteger(job.maxAttempts) || job.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be an integer of at least 1, got ${job.maxAttempts}`);
  }
  return db.dialect === "postgres" ? enqueueOnPostgres(db, options) : enqueueInBatch(db, options);
}

/**
 * PostgreSQL: everything in ONE statement (one round trip, one commit): the session's owner is
 * read, the job inserted, then the run, guarded on the job's insert having happened (a session
 * deleted meanwhile fails the run's foreign key, and the statement with it). `ON CONFLICT DO NOTHING` covers the Idempotency-Key and the id alike; a
 * submit that wrote nothing is explained afterwards (duplicate, existing id, missing session, full
 * queue), off the hot path. A unique violation of the run (its id, a run_index race) aborts the
 * whole statement, job included.
 */
async function enqueueOnPostgres(db: Db, { scope, run, job, maxQueueDepth, now = epochSeconds() }: EnqueueRunJobOptions): Promise<EnqueueResult> {
  const key = job.idempotencyKey ?? null;
  const pendingRun: RunInput = { ...run, status: "PENDING", runData: { ...run.runData, status: "PENDING" } };
  const runInsert = await runInsertStatement(db, { scope, run: pendingRun, now, onExisting: "insert", extraGuard: { clause: "EXISTS (SELECT 1 FROM job)", params: [] } });
  const ownerScope = scope.kind === "user" ? " AND s.user_id = ?" : "";
  // Bounded: counting stops at the limit, however long the queue.
  const depth = maxQueueDepth !== undefined ? "WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM agno_jobs q WHERE q.status = 'queued' AND q.job_type = ? LIMIT ?) d) < ?" : "";
  const head = jobInsertHead({ run, job, now }, { sql: "owner.user_id", params: [] });
  const text = `WITH owner AS (SELECT s.user_id FROM agno_sessions s WHERE s.session_id = ?${ownerScope}),
     job AS (
       ${head.text} FROM owner ${depth}
       ON CONFLICT DO NOTHING
       RETURNING ${JOB_COLUMNS}),
     run AS (${runInsert.text})
     SELECT ${JOB_COLUMNS}, (SELECT COUNT(*) FROM run) AS run_written FROM job`;
  const params = [
    run.sessionId,
    ...(scope.kind === "user" ? [scope.userId] : []),
    ...head.params,
    ...(maxQueueDepth !== undefined ? [job.jobType, maxQueueDepth, maxQueueDepth] : []),
    ...(runInsert.params ?? []),
  ];
  let rows: Record<string, unknown>[];
  for (let attempt = 0; ; attempt++) {
    try {
      rows = await db.sql.query(text, params);
      break;
    } catch (error) {
      if (isRunIndexRace(error) && attempt < RUN_INDEX_RACE_RETRIES) continue;
      if (isUniqueViolation(error)) throw new ConflictError(`A run or job with id ${run.runId} already exists`);
      throw error;
    }
  }
  const [row] = rows;
  if (row && Number(row.run_written) === 1) return { duplicate: false, job: toStoredJob(row) };
  if (row) {
    // Cannot happen (the run's guards are the job's, read in the same snapshot); never leave a job without its run.
    await db.sql.exec(`DELETE FROM agno_jobs WHERE id = ? AND status = 'queued' AND attempt = 0`, [run.runId]);
    throw new NotFoundError(`Run ${run.runId} was not queued: session ${run.sessionId} was deleted meanwhile`);
  }
  return explainNotQueued(db, { scope, run, key, maxQueueDepth });
}

/** Why a submit wrote nothing: an earlier submit's job (a duplicate), an existing id, a missing session, or a full queue. */
async function explainNotQueued(db: Db, { scope, run, key, maxQueueDepth }: { scope: DataScope; run: RunInput; key: string | null; maxQueueDepth?: number }): Promise<EnqueueResult> {
  const owner = await sessionOwner(db, scope, run.sessionId);
  if (owner === undefined) throw new NotFoundError(`Run ${run.runId} was not queued: session ${run.sessionId} does not exist for this user`);
  if (key !== null) {
    const earlier = await jobByKey(db, owner, key);
    if (earlier) return { duplicate: true, job: earlier };
  }
  if (await readJob(db, run.runId)) throw new ConflictError(`A run or job with id ${run.runId} already exists`);
  // The session, the key and the id are ruled out: the depth guard refused it (the queue may have
  // drained a little since, which is no reason to call it anything else).
  if (maxQueueDepth !== undefined) throw new QueueFullError(maxQueueDepth);
  throw new NotFoundError(`Run ${run.runId} was not queued: session ${run.sessionId} does not exist for this user`);
}

/**
 * SQLite: the job and run inserts as one transaction (a synchronous batch: nothing else runs in
 * between, and no transaction is held across an await).
 */
async function enqueueInBatch(db: Db, options: EnqueueRunJobOptions): Promise<EnqueueResult> {
  const { scope, run, job, maxQueueDepth } = options;
  const now = options.now ?? epochSeconds();
  const owner = await sessionOwner(db, scope, run.sessionId);
  if (owner === undefined) {
    throw new NotFoundError(`Run ${run.runId} was not queued: session ${run.sessionId} does not exist for this user`);
  }
  const key = job.idempotencyKey ?? null;
  if (key !== null) {
    const earlier = await jobByKey(db, owner, key);
    if (earlier) return { duplicate: true, job: earlier };
  }
  const pendingRun: RunInput = { ...run, status: "PENDING", runData: { ...run.runData, status: "PENDING" } };
  const runInsert = await runInsertStatement(db, {
    scope,
    run: pendingRun,
    now,
    onExisting: "insert",
    extraGuard: { clause: "EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ?)", params: [run.runId] },
  });
  const jobInsert = jobInsertStatement(db, { run, job, owner, now, maxQueueDepth });
  let counts: number[];
  for (let attempt = 0; ; attempt++) {
    try {
      counts = await db.sql.batch([jobInsert, runInsert]);
      break;
    } catch (error) {
      if (isRunIndexRace(error) && attempt < RUN_INDEX_RACE_RETRIES) continue;
      if (isUniqueViolation(error)) throw new ConflictError(`A run or job with id ${run.runId} already exists`);
      throw error;
    }
  }
  const [jobWritten, runWritten] = counts;
  if (jobWritten === 1 && runWritten === 1) return { duplicate: false, job: (await readJob(db, run.runId))! };
  if (jobWritten === 1) {
    // Cannot happen (SQLite runs the batch alone, both statements see the same session); never
    // leave a job without its run.
    await db.sql.exec(`DELETE FROM agno_jobs WHERE id = ? AND status = 'queued' AND attempt = 0`, [run.runId]);
    throw new NotFoundError(`Run ${run.runId} was not queued: session ${run.sessionId} was deleted meanwhile`);
  }
  if (key !== null) {
    const winner = await jobByKey(db, owner, key);
    if (winner) return { duplicate: true, job: winner };
  }
  // The session (checked above) and the key are ruled out: the depth guard refused it.
  if (maxQueueDepth !== undefined) throw new QueueFullError(maxQueueDepth);
  throw new NotFoundError(`Run ${run.runId} was not queued: session ${run.sessionId} does not exist for this user`);
}

/**
 * Why a duplicate submit may not reuse the earlier job (409), or null when it may (202 with the
 * earlier ids): the key was used for another component, or in the other stream mode.
 */
export function duplicateMismatch(earlier: StoredJob, submit: { componentType: string; componentId: string; stream: boolean }): string | null {
  if (earlier.component_type !== submit.componentType || earlier.component_id !== submit.componentId) {
    return `Idempotency-Key was already used for ${earlier.component_type} ${earlier.component_id}`;
  }
  if (Boolean(earlier.payload?.stream) !== submit.stream) {
    return `Idempotency-Key was already used for a ${earlier.payload?.stream ? "streaming" : "non-streaming"} run`;
  }
  return null;
}

/** The session's owner (null = shared) if this scope may write into it; undefined when it may not. */
async function sessionOwner(db: Db, scope: DataScope, sessionId: string): Promise<string | null | undefined> {
  const rows = await db.sql.query<{ user_id: string | null }>(
    `SELECT user_id FROM agno_sessions WHERE session_id = ?${scope.kind === "user" ? " AND user_id = ?" : ""}`,
    scope.kind === "user" ? [sessionId, scope.userId] : [sessionId],
  );
  return rows.length === 0 ? undefined : (rows[0].user_id ?? null);
}

/** The job an owner's Idempotency-Key made, while its row exists. */
export async function jobByKey(db: Db, owner: string | null, key: string): Promise<StoredJob | null> {
  // `user_id = ?` / `IS NULL` (not IS NOT DISTINCT FROM, which no index serves): each form matches its partial unique index.
  const [row] =
    owner === null
      ? await db.sql.query(`SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE idempotency_key = ? AND user_id IS NULL`, [key])
      : await db.sql.query(`SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE user_id = ? AND idempotency_key = ?`, [owner, key]);
  return row ? toStoredJob(row) : null;
}

/**
 * The INSERT INTO agno_jobs head and its SELECT list for a new queued job, with the owner given as
 * SQL (`?` with its value, or a column of the statement's own).
 */
function jobInsertHead({ run, job, now }: { run: RunInput; job: JobInput; now: number }, owner: { sql: string; params: unknown[] }) {
  return {
    text: `INSERT INTO agno_jobs
        (id, component_type, job_type, deployment_id, component_id, session_id, user_id, payload, status,
         attempt, lease_losses, max_attempts, idempotency_key, available_at, created_at, updated_at)
      SELECT ?, ?, ?, ?, ?, ?, ${owner.sql}, ?, 'queued', 0, 0, ?, ?, ?, ?, ?`,
    params: [
      run.runId,
      job.componentType,
      job.jobType,
      job.deploymentId ?? null,
      job.componentId,
      run.sessionId,
      ...owner.params,
      { ...job.payload, stream: job.stream },
      job.maxAttempts,
      job.idempotencyKey ?? null,
      job.availableAt ?? now,
      now,
      now,
    ],
  };
}

function jobInsertStatement(db: Db, { run, job, owner, now, maxQueueDepth }: { run: RunInput; job: JobInput; owner: string | null; now: number; maxQueueDepth?: number }) {
  const key = job.idempotencyKey ?? null;
  const depth = maxQueueDepth !== undefined ? " AND (SELECT COUNT(*) FROM agno_jobs q WHERE q.status = 'queued' AND q.job_type = ?) < ?" : "";
  // Each conflict target names its partial unique index exactly; any other violation (the id) throws.
  const onConflict =
    key === null
      ? ""
      : owner === null
        ? "ON CONFLICT (idempotency_key) WHERE user_id IS NULL AND idempotency_key IS NOT NULL DO NOTHING"
        : "ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING";
  const head = jobInsertHead({ run, job, now }, { sql: "?", params: [owner] });
  return {
    text: `${head.text}
       WHERE EXISTS (SELECT 1 FROM agno_sessions s WHERE s.session_id = ? AND ${nullSafeEquals(db, "s.user_id")})${depth}
      ${onConflict}`,
    params: [...head.params, run.sessionId, owner, ...(maxQueueDepth !== undefined ? [job.jobType, maxQueueDepth] : [])],
  };
}

/** A job of a kind that is not a run: no session, no run row. */
export interface PlainJobInput {
  /** Default: a new UUID. */
  id?: string;
  jobType: string;
  /** What the job is about: its kind (`eval`, `knowledge`, `schedule`, `metrics`…) and the subject's id. */
  componentType: string;
  componentId: string;
  deploymentId?: string | null;
  payload: Record<string, unknown>;
  maxAttempts: number;
  idempotencyKey?: string | null;
  /** Epoch seconds; default now. */
  availableAt?: number;
}

/**
 * The INSERT of a job that is not a run (without RETURNING), for callers that commit it in a
 * transaction with other writes (the scheduler releases a schedule with its fire jobs). With an
 * Idempotency-Key an existing job of the same owner and key wins and nothing is inserted; with
 * `maxQueueDepth` nothing is inserted at that many queued jobs of its type.
 */
export function plainJobInsert(
  job: PlainJobInput & { id: string },
  { owner, maxQueueDepth, now = epochSeconds() }: { owner: string | null; maxQueueDepth?: number; now?: number },
): { text: string; params: unknown[] } {
  const key = job.idempotencyKey ?? null;
  // Bounded: counting stops at the limit. SQLite's upsert after INSERT … SELECT needs a WHERE.
  const depth = ` WHERE ${maxQueueDepth !== undefined ? "(SELECT COUNT(*) FROM (SELECT 1 FROM agno_jobs q WHERE q.status = 'queued' AND q.job_type = ? LIMIT ?) d) < ?" : "1 = 1"}`;
  const onConflict =
    key === null
      ? ""
      : owner === null
        ? " ON CONFLICT (idempotency_key) WHERE user_id IS NULL AND idempotency_key IS NOT NULL DO NOTHING"
        : " ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING";
  return {
    text: `INSERT INTO agno_jobs
          (id, component_type, job_type, deployment_id, component_id, session_id, user_id, payload, status,
           attempt, lease_losses, max_attempts, idempotency_key, available_at, created_at, updated_at)
        SELECT ?, ?, ?, ?, ?, NULL, ?, ?, 'queued', 0, 0, ?, ?, ?, ?, ?${depth}${onConflict}`,
    params: [
      job.id,
      job.componentType,
      job.jobType,
      job.deploymentId ?? null,
      job.componentId,
      owner,
      job.payload,
      job.maxAttempts,
      key,
      job.availableAt ?? now,
      now,
      now,
      ...(maxQueueDepth !== undefined ? [job.jobType, maxQueueDepth, maxQueueDepth] : []),
    ],
  };
}

/**
 * The INSERTs of many jobs that are not runs (without RETURNING), each with an Idempotency-Key:
 * one multi-row statement per kind of owner (a user's keys and the shared ones have their own
 * unique indexes), where an existing job of the same owner and key wins. No depth limit: for
 * callers that bound the number themselves (the scheduler's fires: one per due slot).
 */
export function plainJobsInsert(
  jobs: readonly (PlainJobInput & { id: string; idempotencyKey: string; owner: string | null })[],
  { now = epochSeconds() }: { now?: number } = {},
): { text: string; params: unknown[] }[] {
  const statements: { text: string; params: unknown[] }[] = [];
  for (const shared of [false, true]) {
    const owned = jobs.filter((job) => (job.owner === null) === shared);
    // Chunks keep each statement's parameters under both drivers' limits (12 per row).
    for (let start = 0; start < owned.length; start += JOBS_PER_INSERT) statements.push(jobsInsert(owned.slice(start, start + JOBS_PER_INSERT), shared, now));
  }
  return statements;
}

/** Rows per multi-row INSERT of plainJobsInsert. */
const JOBS_PER_INSERT = 1000;

function jobsInsert(group: Parameters<typeof plainJobsInsert>[0], shared: boolean, now: number): { text: string; params: unknown[] } {
  const onConflict = shared
    ? "ON CONFLICT (idempotency_key) WHERE user_id IS NULL AND idempotency_key IS NOT NULL DO NOTHING"
    : "ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING";
  return {
    text: `INSERT INTO agno_jobs
        (id, component_type, job_type, deployment_id, component_id, session_id, user_id, payload, status,
         attempt, lease_losses, max_attempts, idempotency_key, available_at, created_at, updated_at)
      VALUES ${group.map(() => "(?, ?, ?, ?, ?, NULL, ?, ?, 'queued', 0, 0, ?, ?, ?, ?, ?)").join(", ")}
      ${onConflict}`,
    params: group.flatMap((job) => [
      job.id,
      job.componentType,
      job.jobType,
      job.deploymentId ?? null,
      job.componentId,
      job.owner,
      job.payload,
      job.maxAttempts,
      job.idempotencyKey,
      job.availableAt ?? now,
      now,
      now,
    ]),
  };
}

/**
 * Enqueues a job of a kind that is not a run (session_id NULL): one INSERT, owned by `owner`
 * (null: the system's). With an Idempotency-Key an earlier job of the same owner and key is
 * returned instead (`duplicate: true`, nothing written) — a ConflictError when it is of another
 * kind or subject. ConflictError when the id exists;
 * QueueFullError at `maxQueueDepth` queued jobs of its type.
 */
export async function enqueueJob(
  db: Db,
  { job, owner, maxQueueDepth, now = epochSeconds() }: { job: PlainJobInput; owner: string | null; maxQueueDepth?: number; now?: number },
): Promise<EnqueueResult> {
  if (!Number.isInteger(job.maxAttempts) || job.maxAttempts < 1) throw new RangeError(`maxAttempts must be an integer of at least 1, got ${job.maxAttempts}`);
  const key = job.idempotencyKey ?? null;
  // An earlier job of the key is this submit's only if it is the same kind of job for the same subject.
  const sameJob = (earlier: StoredJob): EnqueueResult => {
    if (earlier.job_type !== job.jobType || earlier.component_id !== job.componentId) {
      throw new ConflictError(`Idempotency-Key was already used for a ${earlier.job_type} job of ${earlier.component_type} ${earlier.component_id}`);
    }
    return { duplicate: true, job: earlier };
  };
  if (key !== null) {
    const earlier = await jobByKey(db, owner, key);
    if (earlier) return sameJob(earlier);
  }
  const id = job.id ?? randomUUID();
  const insert = plainJobInsert({ ...job, id }, { owner, maxQueueDepth, now });
  let rows: Record<string, unknown>[];
  try {
    rows = await db.sql.query(`${insert.text} RETURNING ${JOB_COLUMNS}`, insert.params);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A job with id ${id} already exists`);
    throw error;
  }
  if (rows[0]) return { duplicate: false, job: toStoredJob(rows[0]) };
  if (key !== null) {
    const winner = await jobByKey(db, owner, key);
    if (winner) return sameJob(winner);
  }
  throw new QueueFullError(maxQueueDepth ?? 0);
}
