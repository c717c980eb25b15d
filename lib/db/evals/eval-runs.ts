import { randomUUID } from "node:crypto";
import { ConflictError } from "../../errors/domain-errors.ts";
import { isUniqueViolation } from "../jobs/unique-violation.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerForWrite, ownerSql, type DataScope } from "../scope.ts";

/**
 * Eval runs in `agno_eval_runs`, Agno's table: one row per run of an eval (`run_id`, never
 * overwritten: a re-run is a new row), owned by the user it ran for. Every read and write is in a
 * scope: a member sees and changes only its own rows (owner-less rows are an admin's), an admin
 * every row or one user's.
 */

export const EVAL_TYPES = ["accuracy", "agent_as_judge", "performance", "reliability"] as const;
export type EvalType = (typeof EVAL_TYPES)[number];

/** What `GET /eval-runs` may sort by (an unknown field keeps the default order, created_at). */
export const EVAL_SORT_FIELDS = ["created_at", "updated_at", "name", "eval_type", "agent_id", "team_id", "workflow_id", "model_id", "model_provider", "evaluated_component_name", "run_id"] as const;
export type EvalSortField = (typeof EVAL_SORT_FIELDS)[number];

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
}

const COLUMNS = "run_id, user_id, eval_type, eval_data, eval_input, name, agent_id, team_id, workflow_id, model_id, model_provider, evaluated_component_name, created_at, updated_at";

const asObject = (value: unknown): Record<string, unknown> | null => {
  const parsed = parseJson(value);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
};

function toStoredEvalRun(row: Record<string, unknown>): StoredEvalRun {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
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
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Stores one eval run, owned by the scope's user (an admin: `userId`, or the user it acts for). ConflictError when the run id exists. */
export async function createEvalRun(db: Db, { scope, run }: { scope: DataScope; run: NewEvalRun }): Promise<StoredEvalRun> {
  const now = nowSeconds();
  try {
    const rows = await db.sql.query(`INSERT INTO agno_eval_runs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`, [
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
    ]);
    return toStoredEvalRun(rows[0]!);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`An eval run with id ${run.runId} already exists`);
    throw error;
  }
}

export async function getEvalRun(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredEvalRun | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${COLUMNS} FROM agno_eval_runs WHERE run_id = ? AND ${owner.clause}`, [id, ...owner.params]);
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
  const owner = ownerSql(scope);
  const where = [owner.clause];
  const params: unknown[] = [...owner.params];
  const equal: [string, string | undefined][] = [
    ["agent_id", filters.agentId],
    ["team_id", filters.teamId],
    ["workflow_id", filters.workflowId],
    ["model_id", filters.modelId],
  ];
  for (const [column, value] of equal) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (filters.componentType) where.push(`${filters.componentType}_id IS NOT NULL`);
  if (filters.evalTypes && filters.evalTypes.length > 0) {
    where.push(`eval_type IN (${filters.evalTypes.map(() => "?").join(", ")})`);
    params.push(...filters.evalTypes);
  }
  const field: EvalSortField = (EVAL_SORT_FIELDS as readonly string[]).includes(sortBy) ? (sortBy as EvalSortField) : "created_at";
  const direction = sortOrder === "asc" ? "ASC" : "DESC";
  const clause = where.join(" AND ");
  const [count] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_eval_runs WHERE ${clause}`, params);
  const rows = await db.sql.query(`SELECT ${COLUMNS} FROM agno_eval_runs WHERE ${clause} ORDER BY ${field} ${direction}, run_id ${direction} LIMIT ? OFFSET ?`, [
    ...params,
    window.take ?? limit,
    window.skip,
  ]);
  return { runs: rows.map(toStoredEvalRun), totalCount: Number(count?.n ?? 0) };
}

/** Renames an eval run in the scope; null when the scope has no such run. */
export async function renameEvalRun(db: Db, { scope, id, name }: { scope: DataScope; id: string; name: string }): Promise<StoredEvalRun | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`UPDATE agno_eval_runs SET name = ?, updated_at = ? WHERE run_id = ? AND ${owner.clause} RETURNING ${COLUMNS}`, [name, nowSeconds(), id, ...owner.params]);
  return row ? toStoredEvalRun(row) : null;
}

/** Deletes the scope's eval runs among `ids` (others' are left alone); returns how many went. */
export async function deleteEvalRuns(db: Db, { scope, ids }: { scope: DataScope; ids: readonly string[] }): Promise<number> {
  if (ids.length === 0) return 0;
  const owner = ownerSql(scope);
  return db.sql.exec(`DELETE FROM agno_eval_runs WHERE run_id IN (${ids.map(() => "?").join(", ")}) AND ${owner.clause}`, [...ids, ...owner.params]);
}
