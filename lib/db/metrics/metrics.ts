import { randomUUID } from "node:crypto";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";
import type { Statement } from "../sql.ts";

export const COUNT_FIELDS = ["agent_runs_count", "team_runs_count", "workflow_runs_count", "agent_sessions_count", "team_sessions_count", "workflow_sessions_count", "users_count"] as const;

type CountField = (typeof COUNT_FIELDS)[number];

/** The token fields of `token_metrics`, as Agno sums them from each session's `session_metrics`. */
export const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "audio_total_tokens",
  "audio_input_tokens",
  "audio_output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
] as const;
export type TokenField = (typeof TOKEN_FIELDS)[number];

/** Runs, their tokens (from each run's own metrics) and their cost, for one slice of a day. */
export interface CostFigures {
  runs: number;
  /** Runs whose metrics carry a cost (their model had a price when they ran). */
  priced_runs: number;
  /** USD over the priced runs; null when none of them had a price ("no price"). */
  cost: number | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
}

export interface AgentCost extends CostFigures {
  /** agent | team | workflow */
  component_type: string;
  component_id: string | null;
}

export interface ModelCost extends CostFigures {
  model_id: string | null;
  model_provider: string | null;
}

/**
 * Agentry's cost figures of one (user, day): the runs created that day (by the run's own
 * `created_at`, where Agno's counts go by the session's), totalled and broken down per agent and
 * per model. Stored in the nullable `cost_metrics` column, which Agno neither reads nor writes.
 */
export interface CostMetrics extends CostFigures {
  agents: AgentCost[];
  models: ModelCost[];
}

/** One day's metrics for one user bucket (`user_id` null = the shared bucket of user-less sessions). */
export interface DailyMetrics extends Record<CountField, number> {
  id: string;
  user_id: string | null;
  token_metrics: Record<string, number>;
  model_metrics: { model_id: string; model_provider: string; count: number }[];
  /** null on a row Agno wrote (it keeps no cost). */
  cost_metrics: CostMetrics | null;
  /** YYYY-MM-DD (UTC). */
  date: string;
  aggregation_period: string;
  created_at: number;
  updated_at: number | null;
  completed: boolean;
}

export type DailyMetricsInput = Omit<DailyMetrics, "id" | "created_at" | "updated_at" | "cost_metrics"> & { cost_metrics?: CostMetrics | null };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const emptyCostFigures = (): CostFigures => ({ runs: 0, priced_runs: 0, cost: null, input_tokens: 0, output_tokens: 0, total_tokens: 0, cache_read_tokens: 0 });

/** Adds `more` into `into` (a null cost stays null only while both are). */
export function addCostFigures(into: CostFigures, more: CostFigures): void {
  into.runs += more.runs;
  into.priced_runs += more.priced_runs;
  into.cost = into.cost === null && more.cost === null ? null : (into.cost ?? 0) + (more.cost ?? 0);
  into.input_tokens += more.input_tokens;
  into.output_tokens += more.output_tokens;
  into.total_tokens += more.total_tokens;
  into.cache_read_tokens += more.cache_read_tokens;
}

function asCostMetrics(value: unknown): CostMetrics | null {
  const parsed = parseJson(value);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const cost = parsed as Partial<CostMetrics>;
  return { ...emptyCostFigures(), ...cost, agents: Array.isArray(cost.agents) ? cost.agents : [], models: Array.isArray(cost.models) ? cost.models : [] } as CostMetrics;
}

export function toDailyMetrics(row: Record<string, unknown>): DailyMetrics {
  const counts = Object.fromEntries(COUNT_FIELDS.map((f) => [f, Number(row[f] ?? 0)])) as Record<CountField, number>;
  return {
    ...counts,
    id: String(row.id),
    user_id: row.user_id === "" || row.user_id === null ? null : String(row.user_id),
    token_metrics: (parseJson(row.token_metrics) ?? {}) as Record<string, number>,
    model_metrics: (parseJson(row.model_metrics) ?? []) as DailyMetrics["model_metrics"],
    cost_metrics: asCostMetrics(row.cost_metrics),
    date: String(row.date).slice(0, 10),
    aggregation_period: String(row.aggregation_period),
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null || row.updated_at === undefined ? null : Number(row.updated_at),
    completed: row.completed === true || row.completed === 1 || row.completed === "1",
  };
}

/** Rows per upsert statement: 16 parameters each, well under both dialects' limits. */
const UPSERT_CHUNK = 500;
const METRICS_COLUMNS = ["id", "user_id", ...COUNT_FIELDS, "token_metrics", "model_metrics", "cost_metrics", "date", "aggregation_period", "created_at", "updated_at", "completed"] as const;

/**
 * Writes days' aggregates, one row per (user_id, date, aggregation_period), in one transaction:
 * a new key gets a new id and created_at; an existing one keeps both and has every other column
 * replaced, as Agno's upsert does. Unscoped on purpose: only the metrics aggregation (which sees
 * every user's sessions) writes metrics; no request path writes rows of its own choosing.
 */
export async function unsafeUpsertDailyMetricsRows(db: Db, rows: readonly DailyMetricsInput[], now = Math.floor(Date.now() / 1000)): Promise<void> {
  for (const row of rows) if (!DATE.test(row.date)) throw new Error(`metrics date must be YYYY-MM-DD, got '${row.date}'`);
  const statements: Statement[] = [];
  for (let start = 0; start < rows.length; start += UPSERT_CHUNK) {
    const chunk = rows.slice(start, start + UPSERT_CHUNK);
    const placeholders = `(${METRICS_COLUMNS.map(() => "?").join(", ")})`;
    statements.push({
      text: `INSERT INTO agno_metrics (${METRICS_COLUMNS.join(", ")})
        VALUES ${chunk.map(() => placeholders).join(", ")}
        ON CONFLICT (user_id, date, aggregation_period) DO UPDATE SET
          ${COUNT_FIELDS.map((f) => `${f} = excluded.${f}`).join(", ")},
          token_metrics = excluded.token_metrics, model_metrics = excluded.model_metrics, cost_metrics = excluded.cost_metrics,
          updated_at = excluded.updated_at, completed = excluded.completed`,
      params: chunk.flatMap((m) => [
        randomUUID(),
        m.user_id ?? "",
        ...COUNT_FIELDS.map((f) => m[f]),
        m.token_metrics,
        m.model_metrics,
        m.cost_metrics ?? null,
        m.date,
        m.aggregation_period,
        now,
        now,
        m.completed,
      ]),
    });
  }
  if (statements.length > 0) await db.sql.batch(statements);
}

/** One row of unsafeUpsertDailyMetricsRows. */
export async function unsafeUpsertDailyMetrics(db: Db, metrics: DailyMetricsInput): Promise<void> {
  await unsafeUpsertDailyMetricsRows(db, [metrics]);
}

/** Every stored row dated in [fromDate, toDate] (YYYY-MM-DD), for the refresh to read back what it wrote. Unscoped like the refresh. */
export async function unsafeMetricsRowsBetween(db: Db, { fromDate, toDate }: { fromDate: string; toDate: string }): Promise<DailyMetrics[]> {
  const rows = await db.sql.query(`SELECT * FROM agno_metrics WHERE aggregation_period = 'daily' AND date >= ? AND date <= ? ORDER BY date ASC, user_id ASC`, [fromDate, toDate]);
  return rows.map(toDailyMetrics);
}

/** The user bucket a scope reads: its own for a member, the named one for an admin naming one (null: shared), every one otherwise. */
function bucketOf(scope: DataScope): string | undefined {
  if (scope.kind === "user") return scope.userId;
  return scope.userId === undefined ? undefined : (scope.userId ?? "");
}

function checkDates(startingDate?: string, endingDate?: string): void {
  for (const [name, value] of [
    ["starting_date", startingDate],
    ["ending_date", endingDate],
  ] as const) {
    if (value !== undefined && !DATE.test(value)) throw new Error(`${name} must be YYYY-MM-DD, got '${value}'`);
  }
}

/**
 * The daily rows of the scope's bucket in a date range (inclusive, YYYY-MM-DD), as stored: a
 * non-admin sees its own bucket; an admin naming a user sees that user's, naming `null` the
 * shared bucket, and naming nobody every bucket (see getMetrics for the one-row-per-day view).
 */
export async function getMetricsRows(db: Db, { scope, startingDate, endingDate }: { scope: DataScope; startingDate?: string; endingDate?: string }): Promise<DailyMetrics[]> {
  checkDates(startingDate, endingDate);
  const where: string[] = ["aggregation_period = 'daily'"];
  const params: unknown[] = [];
  if (startingDate) where.push("date >= ?"), params.push(startingDate);
  if (endingDate) where.push("date <= ?"), params.push(endingDate);
  const bucket = bucketOf(scope);
  if (bucket !== undefined) where.push("user_id = ?"), params.push(bucket);
  const rows = await db.sql.query(`SELECT * FROM agno_metrics WHERE ${where.join(" AND ")} ORDER BY date ASC, user_id ASC`, params);
  return rows.map(toDailyMetrics);
}

/**
 * Daily metrics in a date range (inclusive, YYYY-MM-DD). A non-admin sees its own bucket; an admin
 * naming a user sees that user's, naming `null` the shared bucket, and naming nobody gets every
 * bucket re-aggregated to one row per day (reaggregateByDay).
 */
export async function getMetrics(db: Db, options: { scope: DataScope; startingDate?: string; endingDate?: string }): Promise<DailyMetrics[]> {
  const rows = await getMetricsRows(db, options);
  return bucketOf(options.scope) === undefined ? reaggregateByDay(rows) : rows;
}

/** The newest updated_at of the scope's bucket (of every row, for a scope naming none), whatever the dates; null with no rows. */
export async function latestMetricsUpdate(db: Db, { scope }: { scope: DataScope }): Promise<number | null> {
  const bucket = bucketOf(scope);
  const [row] = await db.sql.query<{ at: number | null }>(`SELECT MAX(updated_at) AS at FROM agno_metrics${bucket === undefined ? "" : " WHERE user_id = ?"}`, bucket === undefined ? [] : [bucket]);
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/**
 * A row from before per-user buckets: no owner, yet users counted, so it holds every user's
 * traffic of its day (a real shared bucket has no user to count). Agno drops it from a day that
 * per-user rows cover, so the day is not counted twice.
 */
export function isLegacyMetricsRow(row: DailyMetrics): boolean {
  return row.user_id === null && row.users_count > 0;
}

/** Merges model counts by (model_id, model_provider). */
function mergeModelCounts(into: DailyMetrics["model_metrics"], more: DailyMetrics["model_metrics"]): void {
  for (const m of more) {
    const same = into.find((x) => x.model_id === m.model_id && x.model_provider === m.model_provider);
    if (same) same.count += m.count;
    else into.push({ ...m });
  }
}

/** Sums two days' cost figures (null + null stays null: neither was computed by Agentry). */
export function mergeCostMetrics(a: CostMetrics | null, b: CostMetrics | null): CostMetrics | null {
  if (!a && !b) return null;
  const merged: CostMetrics = { ...emptyCostFigures(), agents: [], models: [] };
  for (const part of [a, b]) {
    if (!part) continue;
    addCostFigures(merged, part);
    for (const agent of part.agents) {
      const same = merged.agents.find((x) => x.component_type === agent.component_type && x.component_id === agent.component_id);
      if (same) addCostFigures(same, agent);
      else merged.agents.push({ ...agent });
    }
    for (const model of part.models) {
      const same = merged.models.find((x) => x.model_id === model.model_id && x.model_provider === model.model_provider);
      if (same) addCostFigures(same, model);
      else merged.models.push({ ...model });
    }
  }
  return merged;
}

/**
 * Sums every user bucket of a day into one row, as Agno's aggregate_metrics_by_date: counts, token
 * fields and model counts added up (users_count is then the day's distinct users, one per
 * bucket), created_at the earliest, updated_at the latest, cost figures summed; a pre-v3 row of a
 * day that per-user rows cover is left out (isLegacyMetricsRow).
 */
export function reaggregateByDay(rows: DailyMetrics[]): DailyMetrics[] {
  const perUserDays = new Set(rows.filter((r) => !isLegacyMetricsRow(r)).map((r) => `${r.date}|${r.aggregation_period}`));
  const byDay = new Map<string, DailyMetrics>();
  for (const row of rows) {
    const key = `${row.date}|${row.aggregation_period}`;
    if (isLegacyMetricsRow(row) && perUserDays.has(key)) continue;
    const day = byDay.get(key);
    if (!day) {
      byDay.set(key, {
        ...row,
        user_id: null,
        token_metrics: { ...row.token_metrics },
        model_metrics: row.model_metrics.map((m) => ({ ...m })),
        cost_metrics: mergeCostMetrics(row.cost_metrics, null),
      });
      continue;
    }
    for (const f of COUNT_FIELDS) day[f] += row[f];
    for (const [k, v] of Object.entries(row.token_metrics)) day.token_metrics[k] = (day.token_metrics[k] ?? 0) + (Number(v) || 0);
    mergeModelCounts(day.model_metrics, row.model_metrics);
    day.cost_metrics = mergeCostMetrics(day.cost_metrics, row.cost_metrics);
    day.completed = day.completed && row.completed;
    day.created_at = Math.min(day.created_at, row.created_at);
    day.updated_at = day.updated_at === null ? row.updated_at : row.updated_at === null ? day.updated_at : Math.max(day.updated_at, row.updated_at);
  }
  return [...byDay.values()];
}
