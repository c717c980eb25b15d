import { randomUUID } from "node:crypto";
import { ConflictError, QueueFullError } from "../../errors/domain-errors.ts";
import { plainJobInsert, type PlainJobInput } from "../jobs/enqueue-job.ts";
import { isUniqueViolation } from "../jobs/unique-violation.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerForWrite, ownerSql, unsafeSystemScope, type DataScope } from "../scope.ts";

/**
 * Eval runs in `agno_eval_runs`, Agno's table: one row per run of an eval (`run_id`, never
 * overwritten: a re-run is a new row), owned by the user it ran for. Every read and write is in a
 * scope: a member sees and changes only its own rows (owner-less rows are an admin's), an admin
 * every row or one user's.
 *
 * Agentry's own columns say where a run is (`run_status`, `run_details`, both nullable; a row Agno
 * wrote has neither and is complete). A row is written when the eval starts (PENDING or RUNNING,
 * `eval_data` empty), its progress as it goes, and its result at the end. Reads reconcile the
 * stored status with what is known besides: an eval job the queue failed or cancelled before the
 * eval could say so, and a run nothing runs any more (no job — none, or one retention removed —
 * and no heartbeat for STALE_EVAL_SECONDS).
 */

export const EVAL_TYPES = ["accuracy", "agent_as_judge", "performance", "reliability"] as const;
export type EvalType = (typeof EVAL_TYPES)[number];

/** What `GET /eval-runs` may sort by (an unknown field keeps the default order, created_at). */
export const EVAL_SORT_FIELDS = ["created_at", "updated_at", "name", "eval_type", "agent_id", "team_id", "workflow_id", "model_id", "model_provider", "evaluated_component_name", "run_id"] as const;
export type EvalSortField = (typeof EVAL_SORT_FIELDS)[number];

/** Where an eval run is (Agentry's `run_status`; a row Agno wrote, which has none, is COMPLETED). */
export const EVAL_RUN_STATUSES = ["PENDING", "RUNNING", "COMPLETED", "ERROR", "CANCELLED"] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];

/** The statuses an eval run moves on from; the others are ends. */
export const ACTIVE_EVAL_STATUSES: readonly EvalRunStatus[] = ["PENDING", "RUNNING"];

/**
 * A PENDING or RUNNING eval with no job whose row has not been touched for this long is taken as
 * interrupted (the process running it stopped): a running eval writes its heartbeat far more often.
 */
export const STALE_EVAL_SECONDS = 300;

/** The job type of eval jobs (lib/evals/eval-job.ts), whose id is the eval run's. */
export const EVAL_JOB_TYPE = "eval_run";

export interface StoredEvalRun {
  run_id: string;
  user_id: string | null;
  eval_type: EvalType;
  eval_data: Record<string, unknown>;
  eval_input: Record<string, unknown> | null;
  name: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  model_id: string | null;
  model_provider: string | null;
  evaluated_component_name: string | null;
  created_at: number;
  updated_at: number | null;
  /** Agentry's status, reconciled with the eval's job and heartbeat (see the module comment). */
  run_status: EvalRunStatus;
  /** Agentry's details: progress, the agent runs it made, the judge, an error (null on a row Agno wrote). */
  run_details: Record<string, unknown> | null;
}

export interface NewEvalRun {
  /** Default: a new UUID. */
  runId?: string;
  evalType: EvalType;
  evalData: Record<string, unknown>;
  evalInput?: Record<string, unknown> | null;
  name?: string | null;
  agentId?: string | null;
  teamId?: string | null;
  workflowId?: string | null;
  modelId?: string | null;
  modelProvider?: string | null;
  evaluatedComponentName?: string | null;
  /** Admins only: whose eval run this is (a member's is always its own). */
  userId?: string | null;
  /** Default COMPLETED (a finished result stored at once). */
  status?: EvalRunStatus;
  details?: Record<string, unknown> | null;
}

const COLUMNS =
  "run_id, user_id, eval_type, eval_data, eval_input, name, agent_id, team_id, workflow_id, model_id, model_provider, evaluated_component_name, created_at, updated_at, run_status, run_details";
/** The columns a read selects (over EVAL_RUN_FROM): the row and its job's state. */
export const EVAL_RUN_SELECT = `${COLUMNS.split(", ")
  .map((c) => `e.${c}`)
  .join(", ")}, j.status AS job_status, j.error AS job_error`;
/** The eval's job, if it has one (an eval started in the background with the durable queue). */
export const EVAL_RUN_FROM = `agno_eval_runs e LEFT JOIN agno_jobs j ON j.id = e.run_id AND j.job_type = '${EVAL_JOB_TYPE}'`;

const asObject = (value: unknown): Record<string, unknown> | null => {
  const parsed = parseJson(value);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
};

/** The status a row stands at, from its own column, its job's end and its heartbeat. */
function reconciledStatus(row: Record<string, unknown>, nowSeconds: number): { status: EvalRunStatus; error: string | null } {
  const stored = row.run_status === null || row.run_status === undefined ? "COMPLETED" : (String(row.run_status) as EvalRunStatus);
  if (!ACTIVE_EVAL_STATUSES.includes(stored)) return { status: stored, error: null };
  const job = row.job_status === null || row.job_status === undefined ? null : String(row.job_status);
  const jobError = row.job_error === null || row.job_error === undefined ? null : String(row.job_error);
  if (job === "failed") return { status: "ERROR", error: jobError ?? "The eval's job failed" };
  if (job === "cancelled") return { status: "CANCELLED", error: jobError ?? "Job cancelled by request" };
  // No job (an in-process eval, or a job retention removed) and no heartbeat: nothing runs it any more.
  if (job === null && nowSeconds - Number(row.updated_at ?? row.created_at) > STALE_EVAL_SECONDS) {
    return { status: "ERROR", error: "Interrupted: the process running this eval stopped before it ended" };
  }
  return { status: stored, error: null };
}

export function toStoredEvalRun(row: Record<string, unknown>): StoredEvalRun {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const { status, error } = reconciledStatus(row, nowSeconds());
  const details = asObject(row.run_details);
  return {
    run_id: String(row.run_id),
    user_id: text(row.user_id),
    eval_type: String(row.eval_type) as EvalType,
    eval_data: asObject(row.eval_data) ?? {},
    eval_input: asObject(row.eval_input),
    name: text(row.name),
    agent_id: text(row.agent_id),
    team_id: text(row.team_id),
    workflow_id: text(row.workflow_id),
    model_id: text(row.model_id),
    model_provider: text(row.model_provider),
    evaluated_component_name: text(row.evaluated_component_name),
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null || row.updated_at === undefined ? null : Number(row.updated_at),
    run_status: status,
    run_details: error ? { ...(details ?? {}), error } : details,
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The values of a new row, in COLUMNS order: owned by the scope's user (an admin: `userId`, or the user it acts for). */
function rowValues(scope: DataScope, run: NewEvalRun, now: number, defaultStatus: EvalRunStatus): unknown[] {
  return [
    run.runId ?? randomUUID(),
    ownerForWrite(scope, run.userId),
    run.evalType,
    run.evalData,
    run.evalInput ?? {},
    run.name ?? null,
    run.agentId ?? null,
    run.teamId ?? null,
    run.workflowId ?? null,
    run.modelId ?? null,
    run.modelProvider ?? null,
    run.evaluatedComponentName ?? null,
    now,
    now,
    run.status ?? defaultStatus,
    run.details ?? null,
  ];
}

/** Stores one eval run, owned by the scope's user (an admin: `userId`, or the user it acts for). ConflictError when the run id exists. */
export async function createEvalRun(db: Db, { scope, run }: { scope: DataScope; run: NewEvalRun }): Promise<StoredEvalRun> {
  const now = nowSeconds();
  try {
    const values = rowValues(scope, run, now, "COMPLETED");
    const rows = await db.sql.query(`INSERT INTO agno_eval_runs (${COLUMNS}) VALUES (${values.map(() => "?").join(", ")}) RETURNING ${COLUMNS}`, values);
    return toStoredEvalRun(rows[0]!);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`An eval run with id ${run.runId} already exists`);
    throw error;
  }
}

/**
 * Stores a PENDING eval run and the job that will run it (id = the run's) in one transaction: the
 * job first (refused at `maxQueueDepth` queued jobs of its type), then the row only if the job was
 * inserted — so neither exists without the other, and no worker can claim the job before its row
 * is there. QueueFullError when the queue is full (nothing stored).
 */
export async function createEvalRunWithJob(
  db: Db,
  { scope, run, job, maxQueueDepth }: { scope: DataScope; run: NewEvalRun & { runId: string }; job: Omit<PlainJobInput, "id">; maxQueueDepth?: number },
): Promise<StoredEvalRun> {
  const now = nowSeconds();
  const owner = ownerForWrite(scope, run.userId);
  const insertJob = plainJobInsert({ ...job, id: run.runId }, { owner, maxQueueDepth, now });
  const values = rowValues(scope, run, now, "PENDING");
  const insertRow = {
    text: `INSERT INTO agno_eval_runs (${COLUMNS}) SELECT ${values.map(() => "?").join(", ")} WHERE EXISTS (SELECT 1 FROM agno_jobs WHERE id = ?)`,
    params: [...values, run.runId],
  };
  let counts: number[];
  try {
    counts = await db.sql.batch([insertJob, insertRow]);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`An eval run with id ${run.runId} already exists`);
    throw error;
  }
  if (counts[0] === 0) throw new QueueFullError(maxQueueDepth ?? 0);
  const stored = await getEvalRun(db, { scope: unsafeSystemScope("read back the eval run this call just stored"), id: run.runId });
  if (!stored) throw new Error(`Eval run ${run.runId} was not stored`);
  return stored;
}

export async function getEvalRun(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredEvalRun | null> {
  const owner = ownerSql(scope, "e.user_id");
  const [row] = await db.sql.query(`SELECT ${EVAL_RUN_SELECT} FROM ${EVAL_RUN_FROM} WHERE e.run_id = ? AND ${owner.clause}`, [id, ...owner.params]);
  return row ? toStoredEvalRun(row) : null;
}

export interface EvalRunFilters {
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  modelId?: string;
  /** Which kind of component was evaluated: a row with that id set. */
  componentType?: "agent" | "team" | "workflow";
  evalTypes?: readonly EvalType[];
  /** The eval's name, exactly (the dashboard's trend of one eval). */
  name?: string;
  /** created_at at or after, epoch seconds. */
  createdFrom?: number;
  /** created_at before, epoch seconds. */
  createdTo?: number;
}

/** The WHERE clause (over `agno_eval_runs e`) of the scope and the filters. */
export function evalRunFilterSql(scope: DataScope, filters: EvalRunFilters): { clause: string; params: unknown[] } {
  const owner = ownerSql(scope, "e.user_id");
  const where = [owner.clause];
  const params: unknown[] = [...owner.params];
  const equal: [string, string | undefined][] = [
    ["e.agent_id", filters.agentId],
    ["e.team_id", filters.teamId],
    ["e.workflow_id", filters.workflowId],
    ["e.model_id", filters.modelId],
    ["e.name", filters.name],
  ];
  for (const [column, value] of equal) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (filters.componentType) where.push(`e.${filters.componentType}_id IS NOT NULL`);
  if (filters.evalTypes && filters.evalTypes.length > 0) {
    where.push(`e.eval_type IN (${filters.evalTypes.map(() => "?").join(", ")})`);
    params.push(...filters.evalTypes);
  }
  if (filters.createdFrom !== undefined) {
    where.push("e.created_at >= ?");
    params.push(filters.createdFrom);
  }
  if (filters.createdTo !== undefined) {
    where.push("e.created_at < ?");
    params.push(filters.createdTo);
  }
  return { clause: where.join(" AND "), params };
}

/**
 * A page of eval runs in the scope, with the total count. `sortBy` outside EVAL_SORT_FIELDS keeps
 * the default (created_at); ties are broken by run_id so pages never overlap.
 */
export async function listEvalRuns(
  db: Db,
  {
    scope,
    filters = {},
    page,
    limit,
    sortBy = "created_at",
    sortOrder = "desc",
  }: { scope: DataScope; filters?: EvalRunFilters; page: number; limit: number; sortBy?: string; sortOrder?: "asc" | "desc" },
): Promise<{ runs: StoredEvalRun[]; totalCount: number }> {
  const window = pageWindow({ page, limit });
  const { clause, params } = evalRunFilterSql(scope, filters);
  const field: EvalSortField = (EVAL_SORT_FIELDS as readonly string[]).includes(sortBy) ? (sortBy as EvalSortField) : "created_at";
  const direction = sortOrder === "asc" ? "ASC" : "DESC";
  const [count] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_eval_runs e WHERE ${clause}`, params);
  const rows = await db.sql.query(`SELECT ${EVAL_RUN_SELECT} FROM ${EVAL_RUN_FROM} WHERE ${clause} ORDER BY e.${field} ${direction}, e.run_id ${direction} LIMIT ? OFFSET ?`, [
    ...params,
    window.take ?? limit,
    window.skip,
  ]);
  return { runs: rows.map(toStoredEvalRun), totalCount: Number(count?.n ?? 0) };
}

/** Renames an eval run in the scope; null when the scope has no such run. */
export async function renameEvalRun(db: Db, { scope, id, name }: { scope: DataScope; id: string; name: string }): Promise<StoredEvalRun | null> {
  const owner = ownerSql(scope);
  // updated_at of a run still going is its heartbeat (STALE_EVAL_SECONDS), so a rename leaves it alone there.
  const active = ACTIVE_EVAL_STATUSES.map((s) => `'${s}'`).join(", ");
  const [row] = await db.sql.query(
    `UPDATE agno_eval_runs SET name = ?, updated_at = CASE WHEN run_status IN (${active}) THEN updated_at ELSE ? END WHERE run_id = ? AND ${owner.clause} RETURNING run_id`,
    [name, nowSeconds(), id, ...owner.params],
  );
  // Read back with the job's state, which the UPDATE cannot return.
  return row ? getEvalRun(db, { scope, id }) : null;
}

/** What an eval's runner writes as it goes: its status, details, and at the end its result and the model it ran. */
export interface EvalRunState {
  status: EvalRunStatus;
  details: Record<string, unknown>;
  evalData?: Record<string, unknown>;
  modelId?: string | null;
  modelProvider?: string | null;
}

/**
 * Writes an eval run's state while it is PENDING or RUNNING (an ended run is never written again,
 * so a late writer cannot undo a cancel), in the scope, and — for an eval its job runs — only
 * while `fence` holds (a condition on the job row `agno_jobs j`, its id bound first: the claim's
 * attempt and worker). updated_at is the run's heartbeat. Returns whether the row was written.
 */
export async function writeEvalRunState(
  db: Db,
  { scope, id, state, fence }: { scope: DataScope; id: string; state: EvalRunState; fence?: { clause: string; params: readonly unknown[] } },
): Promise<boolean> {
  const owner = ownerSql(scope);
  const sets = ["run_status = ?", "run_details = ?", "updated_at = ?"];
  const params: unknown[] = [state.status, state.details, nowSeconds()];
  if (state.evalData !== undefined) sets.push("eval_data = ?"), params.push(state.evalData);
  if (state.modelId !== undefined) sets.push("model_id = ?"), params.push(state.modelId);
  if (state.modelProvider !== undefined) sets.push("model_provider = ?"), params.push(state.modelProvider);
  const active = ACTIVE_EVAL_STATUSES.map(() => "?").join(", ");
  const guard = fence ? ` AND EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND ${fence.clause})` : "";
  const changed = await db.sql.exec(`UPDATE agno_eval_runs SET ${sets.join(", ")} WHERE run_id = ? AND run_status IN (${active}) AND ${owner.clause}${guard}`, [
    ...params,
    id,
    ...ACTIVE_EVAL_STATUSES,
    ...owner.params,
    ...(fence ? [id, ...fence.params] : []),
  ]);
  return changed > 0;
}

/** Deletes the scope's eval runs among `ids` (others' are left alone); returns how many went. */
export async function deleteEvalRuns(db: Db, { scope, ids }: { scope: DataScope; ids: readonly string[] }): Promise<number> {
  if (ids.length === 0) return 0;
  const owner = ownerSql(scope);
  return db.sql.exec(`DELETE FROM agno_eval_runs WHERE run_id IN (${ids.map(() => "?").join(", ")}) AND ${owner.clause}`, [...ids, ...owner.params]);
}
