import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { getRun, getSession, type Db } from "@/lib/db/index.ts";
import { MetricsResponseSchema } from "@/lib/http/schemas/metrics.ts";
import { DEFAULT_PRICES, priceFor, priceTable, runCost, tokensCost } from "@/lib/models/prices.ts";
import { refreshMetrics } from "@/lib/metrics/refresh.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

describe("the price table", () => {
  it("takes an exact id first, else the longest prefix, the configured entries over the built-in ones, ids in any case", () => {
    const table = priceTable({ "house-model": { input: 2, output: 8 }, "gpt-4o*": { input: 1, output: 1 }, "claude-*": { input: 9, output: 9 } });
    expect(priceFor("house-model", table)).toEqual({ input: 2, output: 8 });
    expect(priceFor("HOUSE-MODEL", table)).toEqual({ input: 2, output: 8 });
    expect(priceFor("house-model-2", table)).toBeNull();
    // The configured gpt-4o* replaces the built-in one; gpt-4o-mini* is longer, so it still wins for mini.
    expect(priceFor("gpt-4o-2024-08-06", table)).toEqual({ input: 1, output: 1 });
    expect(priceFor("gpt-4o-mini-2024-07-18", table)).toEqual(DEFAULT_PRICES["gpt-4o-mini*"]);
    expect(priceFor("claude-sonnet-4-20250514", table)).toEqual(DEFAULT_PRICES["claude-sonnet-4*"]);
    expect(priceFor("claude-unknown", table)).toEqual({ input: 9, output: 9 });
    expect(priceFor("scripted", table)).toBeNull();
    expect(priceFor(null, table)).toBeNull();
  });

  it("prices cached input at the cached price (the input price without one), the rest of the input and the output at theirs", () => {
    expect(tokensCost({ input_tokens: 1_000_000, output_tokens: 1_000_000 }, { input: 3, output: 15 })).toBe(18);
    expect(tokensCost({ input_tokens: 1000, cache_read_tokens: 400, output_tokens: 100 }, { input: 2.5, cachedInput: 1.25, output: 10 })).toBe((600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6);
    expect(tokensCost({ input_tokens: 1000, cache_read_tokens: 400, output_tokens: 0 }, { input: 2, output: 8 })).toBe(0.002);
    expect(runCost({ model: "gpt-4o-mini", metrics: { input_tokens: 1000, output_tokens: 500 } })).toBe(0.00045);
    expect(runCost({ model: "scripted", metrics: { input_tokens: 1000, output_tokens: 500 } })).toBeUndefined();
  });
});

describe.each(DIALECTS)("cost per run, day, user, agent and model on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    let db: Db;

    beforeAll(async () => {
      server = await startModelServer({ respond: () => ({ text: "ok", usage: { prompt_tokens: 1000, completion_tokens: 500 } }) });
      const model = (id: string) => ({ provider: "openai-compatible" as const, id, baseUrl: server.url, apiKey: "t" });
      const agents: AgentDefinition[] = [
        { id: "builtin", name: "Built-in price", model: model("gpt-4o-mini") },
        { id: "house", name: "Configured price", model: model("house-model") },
        { id: "unpriced", name: "No price", model: model("scripted") },
      ];
      app = await startTestApp({ dialect, agents, metrics: { prices: { "house-model": { input: 2, output: 8 } } } });
      db = await app.db();
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    const run = async (agent: string, fields: Record<string, string>) => {
      const response = await app.call("POST", `/agents/${agent}/runs`, { form: { message: "hi", stream: "false", ...fields } });
      expect(response.status).toBe(200);
      return (await response.json()) as { run_id: string; session_id: string; metrics: Record<string, number> };
    };

    it("stores each run's cost with the run, sums it into the session, and puts it in the metrics rows per day, agent and model ('no price' for an unknown model)", async () => {
      const user = `u-${uid("cost")}`;
      const builtin = await run("builtin", { user_id: user });
      expect(builtin.metrics).toMatchObject({ input_tokens: 1000, output_tokens: 500, cost: 0.00045 });
      const house = await run("house", { user_id: user });
      expect(house.metrics.cost).toBe(0.006);
      await run("house", { user_id: user, session_id: house.session_id });
      const unpriced = await run("unpriced", { user_id: user });
      expect(unpriced.metrics).not.toHaveProperty("cost");
      expect(unpriced.metrics.total_tokens).toBe(1500);

      const stored = await getRun(db, { scope: adminScope(), runId: house.run_id, sessionId: house.session_id });
      expect(stored?.run_data.metrics).toMatchObject({ cost: 0.006 });
      const session = await getSession(db, { scope: adminScope(), sessionId: house.session_id });
      expect((session?.session_data?.session_metrics as Record<string, number> | undefined)?.cost).toBeCloseTo(0.012, 12);
      const unpricedSession = await getSession(db, { scope: adminScope(), sessionId: unpriced.session_id });
      expect(unpricedSession?.session_data?.session_metrics).not.toHaveProperty("cost");

      await refreshMetrics(db);
      const response = await app.call("GET", `/metrics?user_id=${user}`);
      const [today] = MetricsResponseSchema.parse(await response.json()).metrics;
      const cost = today.cost_metrics!;
      expect(cost).toMatchObject({ runs: 4, priced_runs: 3, input_tokens: 4000, output_tokens: 2000 });
      expect(cost.cost).toBeCloseTo(0.01245, 12);
      const byModel = Object.fromEntries(cost.models.map((m) => [m.model_id, m]));
      expect(byModel["house-model"]).toMatchObject({ model_provider: "openai-compatible", runs: 2, priced_runs: 2 });
      expect(byModel["house-model"].cost).toBeCloseTo(0.012, 12);
      expect(byModel["gpt-4o-mini"].cost).toBeCloseTo(0.00045, 12);
      expect(byModel.scripted).toMatchObject({ runs: 1, priced_runs: 0, cost: null, total_tokens: 1500 });
      const byAgent = Object.fromEntries(cost.agents.map((a) => [a.component_id, a]));
      expect(byAgent.house).toMatchObject({ component_type: "agent", runs: 2 });
      expect(byAgent.unpriced).toMatchObject({ runs: 1, cost: null });
      // Agno's figures of the same row, from the sessions: four runs of three sessions.
      expect(today).toMatchObject({ agent_sessions_count: 3, agent_runs_count: 4, users_count: 1 });
      expect(today.model_metrics).toEqual(expect.arrayContaining([{ model_id: "house-model", model_provider: "openai-compatible", count: 2 }]));
    });

    it("counts cost on the run's own day and per user, while Agno's counts stay on the session's day", async () => {
      const [u1, u2] = [`u1-${uid("day")}`, `u2-${uid("day")}`];
      const now = Math.floor(Date.now() / 1000);
      const twoDaysAgo = now - 2 * 86_400;
      const yesterday = now - 86_400;
      const priced = (sessionId: string, createdAt: number, cost: number) => ({
        ...agnoRun({ sessionId, agentId: "house", createdAt }),
        model: "house-model",
        metrics: { input_tokens: 1, output_tokens: 1, total_tokens: 2, cost },
      });
      const s1 = uid("s");
      await seedSession(db, { scope: adminScope(), session: { sessionId: s1, agentId: "house", userId: u1, createdAt: twoDaysAgo }, runs: [priced(s1, twoDaysAgo, 0.5), priced(s1, yesterday, 0.25)] });
      const s2 = uid("s");
      await seedSession(db, { scope: adminScope(), session: { sessionId: s2, agentId: "house", userId: u2, createdAt: yesterday }, runs: [priced(s2, yesterday, 0.125)] });
      await db.sql.exec("DELETE FROM agno_metrics");
      await refreshMetrics(db);
      const rows = async (user: string) => MetricsResponseSchema.parse(await (await app.call("GET", `/metrics?user_id=${user}`)).json()).metrics;
      const date = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
      const u1Rows = Object.fromEntries((await rows(u1)).map((m) => [m.date.slice(0, 10), m]));
      expect(u1Rows[date(twoDaysAgo)]).toMatchObject({ agent_runs_count: 2, agent_sessions_count: 1, cost_metrics: { runs: 1, cost: 0.5 } });
      // The day of the second run: no session of u1 was created then, so Agno's figures are zero.
      expect(u1Rows[date(yesterday)]).toMatchObject({ agent_runs_count: 0, agent_sessions_count: 0, users_count: 0, cost_metrics: { runs: 1, cost: 0.25 } });
      expect((await rows(u2)).map((m) => [m.date.slice(0, 10), m.cost_metrics?.cost])).toEqual([[date(yesterday), 0.125]]);
      const day = MetricsResponseSchema.parse(await (await app.call("GET", `/metrics?starting_date=${date(yesterday)}&ending_date=${date(yesterday)}`)).json()).metrics;
      expect(day).toHaveLength(1);
      expect(day[0].cost_metrics?.cost).toBeCloseTo(0.375, 12);
      expect(day[0]).toMatchObject({ users_count: 1, agent_sessions_count: 1, agent_runs_count: 1 });
    });
  });
});
