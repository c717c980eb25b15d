import { addCostFigures, emptyCostFigures, mergeCostMetrics, type CostFigures, type DailyMetrics } from "../db/metrics/metrics.ts";
import { dateToDay, dayToDate } from "./daily-rows.ts";

/**
 * What the dashboard's Metrics page and the Overview chart show, from the rows of one read. Pure
 * (no server imports). Runs, sessions and tokens per day are Agno's figures (by the day a session
 * was created); cost and the per-agent / per-model breakdowns are Agentry's (by each run's own day).
 */

export interface DayPoint {
  date: string;
  runs: number;
  sessions: number;
  tokens: number;
  /** USD; null when no run of the day had a price. */
  cost: number | null;
}

export interface BreakdownRow extends CostFigures {
  key: string;
  label: string;
  /** Runs whose model had no price. */
  unpriced_runs: number;
}

export interface MetricsSummary {
  days: DayPoint[];
  totals: { runs: number; sessions: number; tokens: number; cost: number | null; priced_runs: number; unpriced_runs: number };
  agents: BreakdownRow[];
  models: BreakdownRow[];
}

const runsOf = (row: DailyMetrics) => row.agent_runs_count + row.team_runs_count + row.workflow_runs_count;
const sessionsOf = (row: DailyMetrics) => row.agent_sessions_count + row.team_sessions_count + row.workflow_sessions_count;
const tokensOf = (row: DailyMetrics) => Number(row.token_metrics.total_tokens) || 0;

/** The longest range the page charts (days). */
export const MAX_RANGE_DAYS = 366;

const breakdown = (entries: Map<string, BreakdownRow>) =>
  [...entries.values()].map((row) => ({ ...row, unpriced_runs: row.runs - row.priced_runs })).sort((a, b) => (b.cost ?? -1) - (a.cost ?? -1) || b.runs - a.runs || a.label.localeCompare(b.label));

/**
 * One point per day of [from, to] (a day without a row is zero), the range's totals, and its
 * runs, tokens and cost per agent and per model. `rows` are one read's: one user's, or every
 * user's summed per day (several rows of a day are summed here too).
 */
export function summarizeMetrics(rows: readonly DailyMetrics[], { from, to }: { from: string; to: string }): MetricsSummary {
  const byDate = new Map<string, DailyMetrics[]>();
  for (const row of rows) byDate.set(row.date, [...(byDate.get(row.date) ?? []), row]);
  const days: DayPoint[] = [];
  for (let day = dateToDay(from); day <= dateToDay(to); day++) {
    const date = dayToDate(day);
    const of = byDate.get(date) ?? [];
    const cost = of.reduce<number | null>((sum, row) => (row.cost_metrics?.cost === null || row.cost_metrics?.cost === undefined ? sum : (sum ?? 0) + row.cost_metrics.cost), null);
    days.push({ date, runs: of.reduce((n, r) => n + runsOf(r), 0), sessions: of.reduce((n, r) => n + sessionsOf(r), 0), tokens: of.reduce((n, r) => n + tokensOf(r), 0), cost });
  }
  const cost = rows.reduce((merged, row) => mergeCostMetrics(merged, row.cost_metrics), null as ReturnType<typeof mergeCostMetrics>);
  const agents = new Map<string, BreakdownRow>();
  const models = new Map<string, BreakdownRow>();
  for (const agent of cost?.agents ?? []) {
    const key = `${agent.component_type}:${agent.component_id ?? ""}`;
    const row = agents.get(key) ?? { key, label: agent.component_id ?? `(no ${agent.component_type} id)`, unpriced_runs: 0, ...emptyCostFigures() };
    addCostFigures(row, agent);
    agents.set(key, row);
  }
  for (const model of cost?.models ?? []) {
    const key = `${model.model_id ?? ""}:${model.model_provider ?? ""}`;
    const label = model.model_id ? (model.model_provider ? `${model.model_id} (${model.model_provider})` : model.model_id) : "(no model)";
    const row = models.get(key) ?? { key, label, unpriced_runs: 0, ...emptyCostFigures() };
    addCostFigures(row, model);
    models.set(key, row);
  }
  return {
    days,
    totals: {
      runs: days.reduce((n, d) => n + d.runs, 0),
      sessions: days.reduce((n, d) => n + d.sessions, 0),
      tokens: days.reduce((n, d) => n + d.tokens, 0),
      cost: cost?.cost ?? null,
      priced_runs: cost?.priced_runs ?? 0,
      unpriced_runs: (cost?.runs ?? 0) - (cost?.priced_runs ?? 0),
    },
    agents: breakdown(agents),
    models: breakdown(models),
  };
}

export interface UserTotals {
  user_id: string | null;
  runs: number;
  sessions: number;
  tokens: number;
  cost: number | null;
  priced_runs: number;
}

export type TopUsersSort = "runs" | "tokens" | "cost";

/** Every user's totals over per-user rows (the shared bucket as user null), the top `limit` by `by`. */
export function topUsers(rows: readonly DailyMetrics[], { by, limit }: { by: TopUsersSort; limit: number }): UserTotals[] {
  const users = new Map<string, UserTotals>();
  for (const row of rows) {
    const key = row.user_id ?? "";
    const totals = users.get(key) ?? { user_id: row.user_id, runs: 0, sessions: 0, tokens: 0, cost: null, priced_runs: 0 };
    totals.runs += runsOf(row);
    totals.sessions += sessionsOf(row);
    totals.tokens += tokensOf(row);
    if (row.cost_metrics?.cost !== null && row.cost_metrics?.cost !== undefined) totals.cost = (totals.cost ?? 0) + row.cost_metrics.cost;
    totals.priced_runs += row.cost_metrics?.priced_runs ?? 0;
    users.set(key, totals);
  }
  const value = (u: UserTotals) => (by === "cost" ? (u.cost ?? -1) : u[by]);
  return [...users.values()].sort((a, b) => value(b) - value(a) || b.runs - a.runs || (a.user_id ?? "").localeCompare(b.user_id ?? "")).slice(0, limit);
}
