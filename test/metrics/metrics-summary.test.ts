import { describe, expect, it } from "vitest";
import type { DailyMetrics } from "@/lib/db/index.ts";
import { metricsRange } from "@/lib/http/dashboard/metrics-range.ts";
import { summarizeMetrics, topUsers } from "@/lib/metrics/metrics-summary.ts";

const figures = (runs: number, cost: number | null, tokens = 10) => ({
  runs,
  priced_runs: cost === null ? 0 : runs,
  cost,
  input_tokens: tokens,
  output_tokens: 1,
  total_tokens: tokens + 1,
  cache_read_tokens: 0,
});

function row(date: string, user: string | null, runs: number, tokens: number, cost: number | null, model = "gpt-4o-mini"): DailyMetrics {
  return {
    id: `${date}-${user}`,
    user_id: user,
    date,
    aggregation_period: "daily",
    agent_runs_count: runs,
    team_runs_count: 0,
    workflow_runs_count: 0,
    agent_sessions_count: 1,
    team_sessions_count: 0,
    workflow_sessions_count: 0,
    users_count: user ? 1 : 0,
    token_metrics: { total_tokens: tokens },
    model_metrics: [],
    cost_metrics: {
      ...figures(runs, cost),
      agents: [{ component_type: "agent", component_id: "assistant", ...figures(runs, cost) }],
      models: [{ model_id: model, model_provider: "OpenAI", ...figures(runs, cost) }],
    },
    created_at: 1,
    updated_at: 1,
    completed: true,
  };
}

describe("the dashboard's metrics summary", () => {
  it("gives one point per day of the range (zero where no row is), totals, and per-agent and per-model figures with 'no price' kept apart", () => {
    const summary = summarizeMetrics([row("2026-01-02", "a", 3, 30, 0.5), row("2026-01-02", "b", 1, 5, null, "local"), row("2026-01-04", "a", 2, 20, 0.25)], { from: "2026-01-01", to: "2026-01-04" });
    expect(summary.days).toEqual([
      { date: "2026-01-01", runs: 0, sessions: 0, tokens: 0, cost: null },
      { date: "2026-01-02", runs: 4, sessions: 2, tokens: 35, cost: 0.5 },
      { date: "2026-01-03", runs: 0, sessions: 0, tokens: 0, cost: null },
      { date: "2026-01-04", runs: 2, sessions: 1, tokens: 20, cost: 0.25 },
    ]);
    expect(summary.totals).toEqual({ runs: 6, sessions: 3, tokens: 55, cost: 0.75, priced_runs: 5, unpriced_runs: 1 });
    expect(summary.models.map((m) => [m.label, m.runs, m.cost, m.unpriced_runs])).toEqual([
      ["gpt-4o-mini (OpenAI)", 5, 0.75, 0],
      ["local (OpenAI)", 1, null, 1],
    ]);
    expect(summary.agents.map((a) => [a.label, a.runs, a.cost, a.unpriced_runs])).toEqual([["assistant", 6, 0.75, 1]]);
  });

  it("ranks users by runs, tokens or cost, the shared bucket as a user of its own", () => {
    const rows = [row("2026-01-02", "a", 3, 10, 0.1), row("2026-01-03", "a", 1, 10, 0.1), row("2026-01-02", "b", 2, 90, 1), row("2026-01-02", null, 9, 1, null)];
    expect(topUsers(rows, { by: "runs", limit: 10 }).map((u) => [u.user_id, u.runs])).toEqual([
      [null, 9],
      ["a", 4],
      ["b", 2],
    ]);
    expect(topUsers(rows, { by: "tokens", limit: 2 }).map((u) => u.user_id)).toEqual(["b", "a"]);
    expect(topUsers(rows, { by: "cost", limit: 10 }).map((u) => [u.user_id, u.cost])).toEqual([
      ["b", 1],
      ["a", 0.2],
      [null, null],
    ]);
  });

  it("reads the date range from the URL, reporting a range that is none and showing the default then", () => {
    const today = new Date().toISOString().slice(0, 10);
    const problems: string[] = [];
    expect(metricsRange({ from: "2026-01-01", to: "2026-01-31" }, problems)).toEqual({ from: "2026-01-01", to: "2026-01-31", days: 31 });
    expect(metricsRange({ days: "7" }, problems)).toMatchObject({ to: today, days: 7 });
    expect(metricsRange({}, problems)).toMatchObject({ to: today, days: 30 });
    expect(problems).toEqual([]);
    for (const [params, problem] of [
      [{ from: "2026-02-30" }, 'from must be a date like 2026-12-01, got "2026-02-30"'],
      [{ from: "2026-03-02", to: "2026-03-01" }, "from (2026-03-02) must not be after to (2026-03-01)"],
      [{ from: "2024-01-01", to: "2026-01-01" }, "a range of at most 366 days, got 732"],
      [{ days: "0" }, 'days must be a whole number from 1 to 366, got "0"'],
    ] as const) {
      const found: string[] = [];
      expect(metricsRange(params, found)).toMatchObject({ to: today, days: 30 });
      expect(found).toEqual([problem]);
    }
  });
});
