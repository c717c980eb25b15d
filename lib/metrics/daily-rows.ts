import { addCostFigures, emptyCostFigures, TOKEN_FIELDS, type CostMetrics, type DailyMetricsInput, type TokenField } from "../db/metrics/metrics.ts";
import type { LegacyBlobSession, RunCostAggregate, SessionDayAggregate, SessionRunAggregate } from "../db/metrics/metrics-aggregates.ts";

/**
 * Assembles the daily rows of a refresh from its aggregates, exactly as Agno's
 * calculate_date_metrics does per (user, day) — and Agentry's cost figures beside them. Pure.
 *
 * Agno's figures, per day a session was created on (UTC) and per user ('' for none):
 * `*_sessions_count` the sessions of each type; `*_runs_count` their runs (every run of the
 * session, counted under the session's type); `users_count` 1 for a user's bucket, 0 for the
 * shared one; `token_metrics` the sessions' `session_metrics` token fields summed;
 * `model_metrics` the runs counted per (model, provider) — runs with no model skipped, a missing
 * provider spelled as Python spells None ("None"; "" for a pre-v3 blob run without the key),
 * and the pair split at its last ':' as Agno splits its `model:provider` key.
 *
 * Agentry's `cost_metrics`, per day a run was created on: the runs, their tokens and their stored
 * cost, per agent and per model. A (user, day) with runs but no session created that day gets a
 * row whose Agno figures are all zero.
 */

export interface RefreshAggregates {
  sessions: SessionDayAggregate[];
  sessionRuns: SessionRunAggregate[];
  legacySessions: LegacyBlobSession[];
  runCosts: RunCostAggregate[];
}

interface Bucket {
  user_id: string;
  day: number;
  fromSessions: boolean;
  counts: Record<"agent" | "team" | "workflow", { sessions: number; runs: number }>;
  tokens: Record<TokenField, number>;
  /** Keyed by Agno's `model:provider` string, in first-seen order. */
  models: Map<string, number>;
  cost: CostMetrics;
}

/** YYYY-MM-DD of a day number (days since 1970-01-01, UTC). */
export function dayToDate(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/** Day number (days since 1970-01-01, UTC) of a YYYY-MM-DD date. */
export function dateToDay(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
}

const emptyTokens = () => Object.fromEntries(TOKEN_FIELDS.map((f) => [f, 0])) as Record<TokenField, number>;

/** Python's f"{model}:{provider}" for a provider Agno read as None (PostgreSQL's ->> of a missing key). */
const providerText = (provider: string | null) => (provider === null ? "None" : provider);

/** Agno's `model_id, model_provider = key.rsplit(":", 1)`. */
function splitModelKey(key: string): { model_id: string; model_provider: string } {
  const at = key.lastIndexOf(":");
  return { model_id: key.slice(0, at), model_provider: key.slice(at + 1) };
}

/**
 * One row per (user, day) of the window's days, for every bucket with a session created or a run
 * created that day. `today` (a day number) decides `completed` (a day before it is complete).
 */
export function dailyRows(aggregates: RefreshAggregates, { today }: { today: number }): DailyMetricsInput[] {
  const buckets = new Map<string, Bucket>();
  const bucket = (user_id: string, day: number): Bucket => {
    const key = `${day}|${user_id}`;
    let found = buckets.get(key);
    if (!found) {
      found = {
        user_id,
        day,
        fromSessions: false,
        counts: { agent: { sessions: 0, runs: 0 }, team: { sessions: 0, runs: 0 }, workflow: { sessions: 0, runs: 0 } },
        tokens: emptyTokens(),
        models: new Map(),
        cost: { ...emptyCostFigures(), agents: [], models: [] },
      };
      buckets.set(key, found);
    }
    return found;
  };
  const countModel = (b: Bucket, model: unknown, provider: string, runs: number) => {
    // Python's `if model_id := run.get("model")`: a missing, null or empty model is not counted.
    if (model === null || model === undefined || model === "") return;
    const key = `${typeof model === "string" ? model : JSON.stringify(model)}:${provider}`;
    b.models.set(key, (b.models.get(key) ?? 0) + runs);
  };

  for (const s of aggregates.sessions) {
    const b = bucket(s.user_id, s.day);
    b.fromSessions = true;
    b.counts[s.session_type].sessions += s.sessions;
    for (const f of TOKEN_FIELDS) b.tokens[f] += s.tokens[f];
  }
  for (const r of aggregates.sessionRuns) {
    const b = bucket(r.user_id, r.day);
    b.counts[r.session_type].runs += r.runs;
    countModel(b, r.model, providerText(r.provider), r.runs);
  }
  for (const s of aggregates.legacySessions) {
    const b = bucket(s.user_id, s.day);
    b.counts[s.session_type].runs += s.runs.length;
    for (const run of s.runs) {
      // A blob run is a dict: run.get("model_provider", "") is "" without the key, None for a JSON null.
      const provider = !("model_provider" in run) ? "" : run.model_provider === null ? "None" : String(run.model_provider);
      countModel(b, run.model, provider, 1);
    }
  }
  for (const r of aggregates.runCosts) {
    const b = bucket(r.user_id, r.day);
    const figures = {
      runs: r.runs,
      priced_runs: r.priced_runs,
      cost: r.priced_runs > 0 ? r.cost : null,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      total_tokens: r.total_tokens,
      cache_read_tokens: r.cache_read_tokens,
    };
    addCostFigures(b.cost, figures);
    const agent = b.cost.agents.find((a) => a.component_type === r.run_type && a.component_id === r.component_id);
    if (agent) addCostFigures(agent, figures);
    else b.cost.agents.push({ component_type: r.run_type, component_id: r.component_id, ...figures });
    const model = b.cost.models.find((m) => m.model_id === r.model && m.model_provider === r.provider);
    if (model) addCostFigures(model, figures);
    else b.cost.models.push({ model_id: r.model, model_provider: r.provider, ...figures });
  }

  const rows: DailyMetricsInput[] = [];
  for (const b of buckets.values()) {
    const byCost = (x: { cost: number | null; runs: number }, y: { cost: number | null; runs: number }) => (y.cost ?? -1) - (x.cost ?? -1) || y.runs - x.runs;
    b.cost.agents.sort(byCost);
    b.cost.models.sort(byCost);
    rows.push({
      user_id: b.user_id === "" ? null : b.user_id,
      date: dayToDate(b.day),
      aggregation_period: "daily",
      completed: b.day < today,
      agent_sessions_count: b.counts.agent.sessions,
      team_sessions_count: b.counts.team.sessions,
      workflow_sessions_count: b.counts.workflow.sessions,
      agent_runs_count: b.counts.agent.runs,
      team_runs_count: b.counts.team.runs,
      workflow_runs_count: b.counts.workflow.runs,
      // One distinct user per bucket with sessions, none for the shared one, so summed counts stay right.
      users_count: b.fromSessions && b.user_id !== "" ? 1 : 0,
      token_metrics: { ...b.tokens },
      model_metrics: [...b.models].map(([key, count]) => ({ ...splitModelKey(key), count })),
      cost_metrics: b.cost,
    });
  }
  return rows.sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : (x.user_id ?? "").localeCompare(y.user_id ?? "")));
}
