import { beforeAll, describe, expect, it } from "vitest";
import { getMetrics, getMetricsRows, unsafeUpsertDailyMetrics, type DailyMetrics, type Db } from "@/lib/db/index.ts";
import { metricsView, readMetrics, refreshIfStale } from "@/lib/metrics/read-metrics.ts";
import { lastRefreshAt, refreshMetrics } from "@/lib/metrics/refresh.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { agnoMetrics, seedMixedSessions } from "./agno-metrics.ts";

const DAY = 86_400;
const dateOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** The Agno figures of a row, model counts in a fixed order. */
function agnoFigures(
  row: Pick<
    DailyMetrics,
    | "agent_sessions_count"
    | "team_sessions_count"
    | "workflow_sessions_count"
    | "agent_runs_count"
    | "team_runs_count"
    | "workflow_runs_count"
    | "users_count"
    | "token_metrics"
    | "model_metrics"
    | "completed"
  >,
) {
  return {
    agent_sessions_count: row.agent_sessions_count,
    team_sessions_count: row.team_sessions_count,
    workflow_sessions_count: row.workflow_sessions_count,
    agent_runs_count: row.agent_runs_count,
    team_runs_count: row.team_runs_count,
    workflow_runs_count: row.workflow_runs_count,
    users_count: row.users_count,
    token_metrics: row.token_metrics,
    model_metrics: [...row.model_metrics].sort((a, b) => `${a.model_id}:${a.model_provider}`.localeCompare(`${b.model_id}:${b.model_provider}`)),
    completed: row.completed,
  };
}

async function wipe(db: Db) {
  await db.sql.batch([{ text: "DELETE FROM agno_metrics" }, { text: "DELETE FROM agno_runs" }, { text: "DELETE FROM agno_sessions" }]);
}

describe.each(DIALECTS)("metrics refresh on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)("computation", () => {
    it("gives Agno's figures for every (user, day) on the same sessions and runs", async () => {
      await wipe(db);
      const now = Date.now();
      const users = [`u1-${uid("o")}`, `u2-${uid("o")}`, `u3-${uid("o")}`];
      await seedMixedSessions(db, adminScope(), { users, count: 60, seed: 20260115, now });
      const today = dateOf(Math.floor(now / 1000));
      const expected = await agnoMetrics(db, today);
      expect(expected.length).toBeGreaterThan(5);

      const rows = await refreshMetrics(db, { now });
      const byKey = new Map(rows.map((r) => [`${r.date}|${r.user_id ?? ""}`, r]));
      for (const record of expected) {
        const row = byKey.get(`${record.date}|${record.user_id}`);
        expect(row, `row for ${record.date} ${record.user_id}`).toBeDefined();
        expect(agnoFigures(row!)).toEqual(agnoFigures(record));
      }
      // Every other row only carries cost figures (runs of a day on which that user created no session): Agno's figures are all zero there.
      const agnoKeys = new Set(expected.map((r) => `${r.date}|${r.user_id}`));
      for (const row of rows.filter((r) => !agnoKeys.has(`${r.date}|${r.user_id ?? ""}`))) {
        expect(row.agent_sessions_count + row.team_sessions_count + row.workflow_sessions_count + row.agent_runs_count + row.team_runs_count + row.workflow_runs_count + row.users_count).toBe(0);
        expect(row.cost_metrics?.runs).toBeGreaterThan(0);
      }
      // What is stored is what the refresh answered.
      const stored = await getMetricsRows(db, { scope: adminScope() });
      expect(stored.map((r) => agnoFigures(r))).toEqual(rows.map((r) => agnoFigures(r)));
    });

    it("counts a team session's member runs, spells a missing provider 'None', skips runs without a model, and splits model:provider at the last colon", async () => {
      await wipe(db);
      const now = Date.now();
      const at = Math.floor(now / 1000) - 3600;
      const user = `u-${uid("team")}`;
      const sessionId = uid("team-session");
      const lead = agnoRun({ sessionId, teamId: "squad", createdAt: at });
      await seedSession(db, {
        scope: adminScope(),
        session: { sessionId, sessionType: "team", teamId: "squad", agentId: null, userId: user, createdAt: at, sessionData: { session_metrics: { input_tokens: 30, total_tokens: 40 } } },
        runs: [
          { ...lead, model: "gpt-4o", model_provider: "OpenAI" },
          { ...agnoRun({ sessionId, agentId: "member", parentRunId: String(lead.run_id), createdAt: at }), model: "gpt-4o" },
          { ...agnoRun({ sessionId, teamId: "squad", createdAt: at }), model: "" },
          { ...agnoRun({ sessionId, teamId: "squad", createdAt: at }), model: "ollama:llama3", model_provider: "Ollama" },
        ],
      });
      const [row] = await refreshMetrics(db, { now });
      expect(row).toMatchObject({ user_id: user, team_sessions_count: 1, team_runs_count: 4, agent_runs_count: 0, users_count: 1, completed: false });
      expect(row.token_metrics).toMatchObject({ input_tokens: 30, total_tokens: 40, output_tokens: 0, audio_total_tokens: 0 });
      expect(agnoFigures(row).model_metrics).toEqual([
        { model_id: "gpt-4o", model_provider: "None", count: 1 },
        { model_id: "gpt-4o", model_provider: "OpenAI", count: 1 },
        { model_id: "ollama:llama3", model_provider: "Ollama", count: 1 },
      ]);
    });
  });

  describe.skipIf(dialect.skipReason !== null)("per-user rows", () => {
    it("keeps one row per user and day, the shared bucket stored as '' and read back as null; an admin naming nobody gets one row per day", async () => {
      await wipe(db);
      const now = Date.now();
      const at = Math.floor(now / 1000) - DAY;
      const [a, b] = [`a-${uid("u")}`, `b-${uid("u")}`];
      const session = (userId: string | null, tokens: number, runs: number) =>
        seedSession(db, {
          scope: adminScope(),
          session: { userId, createdAt: at, sessionData: { session_metrics: { total_tokens: tokens } } },
          runs: Array.from({ length: runs }, () => ({ ...agnoRun({ sessionId: "x", agentId: "assistant", createdAt: at }), model: "gpt-4o-mini", model_provider: "OpenAI" })),
        });
      await session(a, 100, 2);
      await session(a, 50, 1);
      await session(b, 7, 1);
      await session(null, 3, 1);
      await refreshMetrics(db, { now });
      const date = dateOf(at);
      const raw = await db.sql.query<{ user_id: string }>("SELECT user_id FROM agno_metrics WHERE date = ? ORDER BY user_id", [date]);
      expect(raw.map((r) => r.user_id)).toEqual(["", a, b].sort());

      const mine = await readMetrics(db, { scope: userScope(a), refresh: false });
      expect(mine.metrics.map((m) => [m.id, m.user_id, m.agent_sessions_count, m.agent_runs_count, m.users_count, m.token_metrics.total_tokens])).toEqual([[`${date}_${a}_daily`, a, 2, 3, 1, 150]]);
      expect(mine.updatedAt).toBeGreaterThan(0);
      const shared = await getMetrics(db, { scope: adminScope(null) });
      expect(shared.map((m) => [m.user_id, m.users_count, m.agent_runs_count])).toEqual([[null, 0, 1]]);

      const all = await readMetrics(db, { scope: adminScope(), refresh: false });
      expect(all.metrics).toHaveLength(1);
      expect(all.metrics[0]).toMatchObject({ id: `${date}_daily`, user_id: null, agent_sessions_count: 4, agent_runs_count: 5, users_count: 2, completed: true });
      expect(all.metrics[0].token_metrics.total_tokens).toBe(160);
      expect(all.metrics[0].model_metrics).toEqual([{ model_id: "gpt-4o-mini", model_provider: "OpenAI", count: 5 }]);
      // Nothing in range: no rows and no updated_at.
      expect(await readMetrics(db, { scope: adminScope(), startingDate: "2001-01-01", endingDate: "2001-01-02", refresh: false })).toEqual({ metrics: [], updatedAt: null });
    });

    it("leaves a pre-v3 row out of a day that per-user rows cover, and keeps it on a day they do not", async () => {
      await wipe(db);
      const base = {
        agent_runs_count: 9,
        team_runs_count: 0,
        workflow_runs_count: 0,
        agent_sessions_count: 9,
        team_sessions_count: 0,
        workflow_sessions_count: 0,
        aggregation_period: "daily",
        completed: true,
      };
      const user = `u-${uid("legacy")}`;
      await unsafeUpsertDailyMetrics(db, { ...base, user_id: null, users_count: 3, date: "2025-03-01", token_metrics: {}, model_metrics: [] });
      await unsafeUpsertDailyMetrics(db, { ...base, user_id: user, users_count: 1, agent_runs_count: 2, date: "2025-03-01", token_metrics: {}, model_metrics: [] });
      await unsafeUpsertDailyMetrics(db, { ...base, user_id: null, users_count: 3, date: "2025-03-02", token_metrics: {}, model_metrics: [] });
      const all = (await readMetrics(db, { scope: adminScope(), refresh: false })).metrics;
      expect(all.map((m) => [m.date, m.agent_runs_count, m.users_count])).toEqual([
        ["2025-03-01", 2, 1],
        ["2025-03-02", 9, 3],
      ]);
      // Read as the shared bucket, the legacy rows (every user's traffic) are not shown.
      expect(metricsView(await getMetricsRows(db, { scope: adminScope(null) }), "")).toEqual([]);
    });
  });

  describe.skipIf(dialect.skipReason !== null)("idempotence and the days a refresh recomputes", () => {
    it("gives the same rows however often it runs, keeping each row's id and created_at", async () => {
      await wipe(db);
      const now = Date.now();
      await seedMixedSessions(db, adminScope(), { users: [`i-${uid("u")}`, `j-${uid("u")}`], count: 30, seed: 7, now });
      const first = await refreshMetrics(db, { now });
      const second = await refreshMetrics(db, { now: now + 1000 });
      const third = await refreshMetrics(db, { now: now + 2000 });
      const stable = (rows: DailyMetrics[]) => rows.map(({ updated_at: _u, ...rest }) => rest);
      expect(first.length).toBeGreaterThan(0);
      // A second refresh recomputes only the days still owed (today), with the same figures.
      const today = dateOf(Math.floor(now / 1000));
      expect(second.every((r) => r.date === today)).toBe(true);
      expect(stable(second)).toEqual(stable(first.filter((r) => r.date === today)));
      expect(stable(third)).toEqual(stable(second));
      const stored = await getMetricsRows(db, { scope: adminScope() });
      expect(stable(stored)).toEqual(stable(first));
      const [count] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_metrics");
      expect(Number(count.n)).toBe(first.length);
    });

    it("resumes as Agno does (a completed day is not recomputed), while the daily 'recent' refresh recomputes yesterday anyway", async () => {
      await wipe(db);
      const now = Date.now();
      const yesterday = Math.floor(now / 1000) - DAY;
      const user = `u-${uid("resume")}`;
      const session = await seedSession(db, { scope: adminScope(), session: { userId: user, createdAt: yesterday }, runs: [agnoRun({ sessionId: "x", agentId: "assistant", createdAt: yesterday })] });
      // Refreshed after yesterday ended: its row is complete.
      const [row] = await refreshMetrics(db, { now });
      expect(row).toMatchObject({ date: dateOf(yesterday), agent_runs_count: 1, completed: true });
      await seedSession(db, {
        scope: adminScope(),
        session: { sessionId: session.session_id, userId: user, createdAt: yesterday },
        runs: [agnoRun({ sessionId: session.session_id, agentId: "assistant", createdAt: yesterday + 5 })],
      });
      expect((await refreshMetrics(db, { now })).filter((r) => r.date === dateOf(yesterday))).toEqual([]);
      expect((await getMetricsRows(db, { scope: userScope(user) }))[0].agent_runs_count).toBe(1);
      const recent = await refreshMetrics(db, { now, mode: "recent" });
      expect(recent.find((r) => r.date === dateOf(yesterday))?.agent_runs_count).toBe(2);
      expect((await getMetricsRows(db, { scope: userScope(user) }))[0].agent_runs_count).toBe(2);
    });

    it("refreshes on read once a minute at most, as Agno's get_metrics does", async () => {
      await wipe(db);
      const now = Date.now();
      lastRefreshAt().delete(db);
      const user = `u-${uid("lazy")}`;
      await seedSession(db, { scope: adminScope(), session: { userId: user, createdAt: Math.floor(now / 1000) - 60 } });
      await refreshIfStale(db, now - 120_000);
      expect(await getMetricsRows(db, { scope: userScope(user) })).toHaveLength(1);
      await seedSession(db, { scope: adminScope(), session: { userId: user, createdAt: Math.floor(now / 1000) - 30 } });
      await refreshIfStale(db, now - 100_000);
      expect((await getMetricsRows(db, { scope: userScope(user) }))[0].agent_sessions_count).toBe(1);
      await refreshIfStale(db, now);
      expect((await getMetricsRows(db, { scope: userScope(user) }))[0].agent_sessions_count).toBe(2);
    });
  });
});

describe.each(DIALECTS)("metrics of a database still holding legacy runs blobs, on $name", (dialect) => {
  let legacyDb: TestDb;
  useMigratedDb(dialect, (opened) => (legacyDb = opened));
  beforeAll(async () => {
    if (dialect.skipReason) return;
    // The pre-v3 column, added before anything looks for it (lib/db remembers whether it exists).
    await legacyDb.sql.exec(dialect.name === "postgres" ? "ALTER TABLE agno_sessions ADD COLUMN runs JSONB" : "ALTER TABLE agno_sessions ADD COLUMN runs JSON");
  });

  it.skipIf(dialect.skipReason !== null)("counts a not yet migrated session's runs from its legacy blob", async () => {
    await wipe(legacyDb);
    const now = Date.now();
    const at = Math.floor(now / 1000) - 600;
    const user = `u-${uid("blob")}`;
    const sessionId = uid("blob-session");
    await seedSession(legacyDb, { scope: adminScope(), session: { sessionId, userId: user, createdAt: at } });
    const blob = [
      { run_id: "r1", agent_id: "assistant", model: "gpt-4o" },
      { run_id: "r2", agent_id: "assistant", model: "gpt-4o", model_provider: "OpenAI" },
    ];
    // Agno 2.x on SQLite double-encodes the blob.
    await legacyDb.sql.exec("UPDATE agno_sessions SET runs = ? WHERE session_id = ?", [dialect.name === "postgres" ? blob : JSON.stringify(JSON.stringify(blob)), sessionId]);
    try {
      const [row] = await refreshMetrics(legacyDb, { now });
      expect(row).toMatchObject({ user_id: user, agent_sessions_count: 1, agent_runs_count: 2 });
      // A blob run without the key reads as "" there (run.get("model_provider", "")).
      expect(agnoFigures(row).model_metrics).toEqual([
        { model_id: "gpt-4o", model_provider: "", count: 1 },
        { model_id: "gpt-4o", model_provider: "OpenAI", count: 1 },
      ]);
    } finally {
      await legacyDb.sql.exec("UPDATE agno_sessions SET runs = NULL");
    }
  });
});
