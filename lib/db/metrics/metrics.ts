import { randomUUID } from "node:crypto";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";

const COUNT_FIELDS = ["agent_runs_count", "team_runs_count", "workflow_runs_count", "agent_sessions_count", "team_sessions_count", "workflow_sessions_count", "users_count"] as const;

type CountField = (typeof COUNT_FIELDS)[number];

/** One day's metrics for one user bucket (`user_id` null = the shared bucket of user-less sessions). */
export interface DailyMetrics extends Record<CountField, number> {
  id: string;
  user_id: string | null;
  token_metrics: Record<string, number>;
  model_metrics: { model_id: string; model_provider: string; count: number }[];
  /** YYYY-MM-DD (UTC). */
  date: string;
  aggregation_period: string;
  created_at: number;
  updated_at: number | null;
  completed: boolean;
}

export type DailyMetricsInput = Omit<DailyMetrics, "id" | "created_at" | "updated_at">;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function toDailyMetrics(row: Record<string, unknown>): DailyMetrics {
  const counts = Object.fromEntries(COUNT_FIELDS.map((f) => [f, Number(row[f] ?? 0)])) as Record<CountField, number>;
  return {
    ...counts,
    id: String(row.id),
    user_id: row.user_id === "" || row.user_id === null ? null : String(row.user_id),
    token_metrics: (parseJson(row.token_metrics) ?? {}) as Record<string, number>,
    model_metrics: (parseJson(row.model_metrics) ?? []) as DailyMetrics["model_metrics"],
    date: String(row.date).slice(0, 10),
    aggregation_period: String(row.aggregation_period),
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
    completed: row.completed === true || row.completed === 1 || row.completed === "1",
  };
}

/**
 * Writes one day's aggregate for one user bucket, keyed by (user_id, date, aggregation_period).
 * Unscoped on purpose: only the metrics aggregation (a worker job that sees every user's sessions)
 * writes metrics; no request path calls this.
 */
export async function unsafeUpsertDailyMetrics(db: Db, metrics: DailyMetricsInput): Promise<void> {
  if (!DATE.test(metrics.date)) throw new Error(`metrics date must be YYYY-MM-DD, got '${metrics.date}'`);
  const now = Math.floor(Date.now() / 1000);
  const counts = COUNT_FIELDS.map((f) => metrics[f]);
  await db.sql.exec(
    `INSERT INTO agno_metrics (id, user_id, ${COUNT_FIELDS.join(", ")}, token_metrics, model_metrics, date,
       aggregation_period, created_at, updated_at, completed)
     VALUES (?, ?, ${COUNT_FIELDS.map(() => "?").join(", ")}, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (user_id, date, aggregation_period) DO UPDATE SET
       ${COUNT_FIELDS.map((f) => `${f} = excluded.${f}`).join(", ")},
       token_metrics = excluded.token_metrics, model_metrics = excluded.model_metrics,
       updated_at = excluded.updated_at, completed = excluded.completed`,
    [randomUUID(), metrics.user_id ?? "", ...counts, metrics.token_metrics, metrics.model_metrics, metrics.date, metrics.aggregation_period, now, now, metrics.completed],
  );
}

/**
 * Daily metrics in a date range (inclusive, YYYY-MM-DD). A non-admin sees its own bucket; an admin
 * naming a user sees that user's, naming `null` the shared bucket, and naming nobody gets every
 * bucket re-aggregated to one row per day.
 */
export async function getMetrics(db: Db, { scope, startingDate, endingDate }: { scope: DataScope; startingDate?: string; endingDate?: string }): Promise<DailyMetrics[]> {
  for (const [name, value] of [
    ["starting_date", startingDate],
    ["ending_date", endingDate],
  ] as const) {
    if (value !== undefined && !DATE.test(value)) throw new Error(`${name} must be YYYY-MM-DD, got '${value}'`);
  }
  const where: string[] = ["aggregation_period = 'daily'"];
  const params: unknown[] = [];
  if (startingDate) where.push("date >= ?"), params.push(startingDate);
  if (endingDate) where.push("date <= ?"), params.push(endingDate);
  const bucket = scope.kind === "user" ? scope.userId : scope.userId === undefined ? undefined : (scope.userId ?? "");
  if (bucket !== undefined) where.push("user_id = ?"), params.push(bucket);
  const rows = await db.sql.query(`SELECT * FROM agno_metrics WHERE ${where.join(" AND ")} ORDER BY date ASC, user_id ASC`, params);
  const metrics = rows.map(toDailyMetrics);
  return bucket === undefined ? reaggregateByDay(metrics) : metrics;
}

/** Sums every user bucket of a day into one row (users_count is a sum of distinct per-bucket users). */
export function reaggregateByDay(rows: DailyMetrics[]): DailyMetrics[] {
  const byDay = new Map<string, DailyMetrics>();
  for (const row of rows) {
    const day = byDay.get(row.date);
    if (!day) {
      byDay.set(row.date, { ...row, user_id: null, token_metrics: { ...row.token_metrics }, model_metrics: [...row.model_metrics] });
      continue;
    }
    for (const f of COUNT_FIELDS) day[f] += row[f];
    for (const [k, v] of Object.entries(row.token_metrics)) day.token_metrics[k] = (day.token_metrics[k] ?? 0) + v;
    for (const m of row.model_metrics) {
      const same = day.model_metrics.find((x) => x.model_id === m.model_id && x.model_provider === m.model_provider);
      if (same) same.count += m.count;
      else day.model_metrics.push({ ...m });
    }
    day.completed = day.completed && row.completed;
    day.updated_at = Math.max(day.updated_at ?? 0, row.updated_at ?? 0);
  }
  return [...byDay.values()];
}
