import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import type { Db } from "@/lib/db/index.ts";
import { MetricsResponseSchema, RefreshStatusSchema } from "@/lib/http/schemas/metrics.ts";
import { lastRefreshAt } from "@/lib/metrics/refresh.ts";
import { dailyMetricsRefreshTask, refreshRecentMetrics, startBackgroundRefresh } from "@/lib/metrics/start-refresh.ts";
import { METRICS_REFRESH_JOB_TYPE } from "@/lib/metrics/refresh-job.ts";
import { agnoRun, seedSession } from "../support/agno-runs.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

const DAY = 86_400;
const dateOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

async function json(response: Response) {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Two users' sessions yesterday (A: 2 runs, B: 1 run) and a shared one. */
async function seedTwoUsers(db: Db, { userA, userB }: { userA: string; userB: string }) {
  const at = Math.floor(Date.now() / 1000) - DAY;
  const runs = (n: number) => Array.from({ length: n }, () => ({ ...agnoRun({ sessionId: "x", agentId: "assistant", createdAt: at }), model: "gpt-4o-mini", model_provider: "OpenAI" }));
  await seedSession(db, { scope: adminScope(), session: { userId: userA, createdAt: at, sessionData: { session_metrics: { total_tokens: 100 } } }, runs: runs(2) });
  await seedSession(db, { scope: adminScope(), session: { userId: userB, createdAt: at, sessionData: { session_metrics: { total_tokens: 7 } } }, runs: runs(1) });
  await seedSession(db, { scope: adminScope(), session: { userId: null, createdAt: at }, runs: runs(1) });
  return dateOf(at);
}

describe.each(DIALECTS)("metrics API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    let db: Db;
    const who = mintPrincipals();
    const reader = (p: Principal) => withScopes(p, ["metrics:read"]);
    const writer = (p: Principal) => withScopes(p, ["metrics:read", "metrics:write"]);
    let date: string;

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [{ id: "assistant", name: "Assistant", model: null }] });
      db = await app.db();
      date = await seedTwoUsers(db, who);
    });
    afterAll(() => app?.close());

    it("GET /metrics: a member sees only its own rows, whatever user_id it names; an admin sees every user summed per day, or one user's", async () => {
      const mine = await json(await app.call("GET", `/metrics?user_id=${who.userB}`, { principal: reader(who.a) }));
      expect(mine.status).toBe(200);
      const parsed = MetricsResponseSchema.parse(mine.body);
      expect(parsed.metrics.map((m) => [m.id, m.user_id, m.agent_runs_count, m.token_metrics.total_tokens])).toEqual([[`${date}_${who.userA}_daily`, who.userA, 2, 100]]);
      expect(parsed.metrics[0].date).toBe(`${date}T00:00:00Z`);
      expect(parsed.metrics[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(parsed.updated_at).toMatch(/Z$/);
      const b = MetricsResponseSchema.parse((await json(await app.call("GET", "/metrics", { principal: reader(who.b) }))).body);
      expect(b.metrics.map((m) => [m.user_id, m.agent_runs_count])).toEqual([[who.userB, 1]]);
      expect(JSON.stringify(b)).not.toContain(who.userA);

      const all = MetricsResponseSchema.parse((await json(await app.call("GET", `/metrics?starting_date=${date}&ending_date=${date}`, { principal: who.admin }))).body);
      expect(all.metrics.map((m) => [m.id, m.user_id, m.agent_runs_count, m.users_count, m.agent_sessions_count])).toEqual([[`${date}_daily`, null, 4, 2, 3]]);
      const one = MetricsResponseSchema.parse((await json(await app.call("GET", `/metrics?user_id=${who.userB}`, { principal: who.admin }))).body);
      expect(one.metrics.map((m) => [m.user_id, m.agent_runs_count])).toEqual([[who.userB, 1]]);
      // A user with no rows: nothing, and no updated_at.
      expect((await json(await app.call("GET", "/metrics?user_id=nobody-here", { principal: who.admin }))).body).toEqual({ metrics: [], updated_at: null });
    });

    it("POST /metrics/refresh answers the recomputed days in the caller's scope; members need metrics:write", async () => {
      expect((await app.call("POST", "/metrics/refresh", { principal: reader(who.a) })).status).toBe(403);
      // Rows owed: yesterday is complete, today has nothing new.
      await db.sql.exec("DELETE FROM agno_metrics");
      const member = await json(await app.call("POST", "/metrics/refresh", { principal: writer(who.a) }));
      expect(member.status).toBe(200);
      expect(member.body.map((m: { user_id: string; agent_runs_count: number }) => [m.user_id, m.agent_runs_count])).toEqual([[who.userA, 2]]);
      await db.sql.exec("DELETE FROM agno_metrics");
      const admin = await json(await app.call("POST", "/metrics/refresh", { principal: who.admin }));
      expect(admin.body.map((m: { id: string; agent_runs_count: number }) => [m.id, m.agent_runs_count])).toEqual([[`${date}_daily`, 4]]);
      // Nothing owed any more: an empty list.
      expect((await json(await app.call("POST", "/metrics/refresh", { principal: who.admin }))).body.filter((m: { date: string }) => m.date.startsWith(date))).toEqual([]);
    });

    it("background=true answers 202 started, runs in this process (no durable queue), and the status follows it", async () => {
      const started = await json(await app.call("POST", "/metrics/refresh?background=true", { principal: who.admin }));
      expect(started).toEqual({ status: 202, body: { status: "started", message: "Metrics refresh started in background" } });
      await until(
        "the background refresh ends",
        async () => RefreshStatusSchema.parse((await json(await app.call("GET", "/metrics/refresh/status", { principal: reader(who.a) }))).body).status === "completed",
      );
      const status = RefreshStatusSchema.parse((await json(await app.call("GET", "/metrics/refresh/status", { principal: who.admin }))).body);
      expect(status).toMatchObject({ status: "completed", error: null });
      expect(status.started_at).toMatch(/Z$/);
      expect(status.finished_at).toMatch(/Z$/);
    });

    it("answers already_running beside a refresh in progress (202 in the background, 200 synchronously)", async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // Holds the refresh's first read until released, so it is still running when the next request comes.
      const query = db.sql.query.bind(db.sql);
      db.sql.query = (async (text: string, params?: readonly unknown[]) => {
        if (text.includes("MAX(date)")) await gate;
        return query(text, params);
      }) as typeof db.sql.query;
      try {
        const first = await startBackgroundRefresh(db, app.settings);
        expect(first.status).toBe("started");
        expect((await json(await app.call("POST", "/metrics/refresh?background=true", { principal: who.admin }))).body).toEqual({
          status: "already_running",
          message: "A metrics refresh is already in progress for this database",
        });
        expect(await json(await app.call("POST", "/metrics/refresh", { principal: who.admin }))).toEqual({
          status: 200,
          body: { status: "already_running", message: "A metrics refresh is already in progress for this database" },
        });
        expect(RefreshStatusSchema.parse((await json(await app.call("GET", "/metrics/refresh/status", { principal: who.admin }))).body).status).toBe("running");
        release();
        await first.done;
      } finally {
        db.sql.query = query;
      }
      expect(RefreshStatusSchema.parse((await json(await app.call("GET", "/metrics/refresh/status", { principal: who.admin }))).body).status).toBe("completed");
    });

    it("reports a failed refresh with its error", async () => {
      const query = db.sql.query.bind(db.sql);
      db.sql.query = (async (text: string, params?: readonly unknown[]) => {
        if (text.includes("MAX(date)")) throw new Error("database away");
        return query(text, params);
      }) as typeof db.sql.query;
      try {
        const started = await startBackgroundRefresh(db, app.settings);
        await started.done;
      } finally {
        db.sql.query = query;
      }
      expect(RefreshStatusSchema.parse((await json(await app.call("GET", "/metrics/refresh/status", { principal: who.admin }))).body)).toMatchObject({ status: "failed", error: "database away" });
    });

    it("rejects bad input with 422 naming the field, and a table it does not keep with 404", async () => {
      for (const [path, loc] of [
        ["/metrics?starting_date=2025-13-01", "query.starting_date"],
        ["/metrics?ending_date=yesterday", "query.ending_date"],
        ["/metrics?starting_date=2025-02-30", "query.starting_date"],
      ] as const) {
        const response = await json(await app.call("GET", path, { principal: who.admin }));
        expect(response.status).toBe(422);
        expect(response.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual([loc]);
      }
      const bad = await json(await app.call("POST", "/metrics/refresh?background=maybe", { principal: who.admin }));
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(["query", "background"]);
      expect((await json(await app.call("GET", "/metrics?table=agno_metrics", { principal: who.admin }))).status).toBe(400);
      expect((await json(await app.call("GET", `/metrics?db_id=${app.settings.database.id}&table=agno_sessions`, { principal: who.admin }))).status).toBe(404);
      expect((await json(await app.call("GET", "/metrics?db_id=elsewhere", { principal: who.admin }))).status).toBe(404);
      // A date range with nothing in it, or reversed, is simply empty.
      expect((await json(await app.call("GET", "/metrics?starting_date=2030-01-02&ending_date=2030-01-01", { principal: who.admin }))).body).toEqual({ metrics: [], updated_at: null });
    });

    it("refreshRecentMetrics (the daily refresh) recomputes yesterday in this process, and does nothing while metrics.dailyRefresh is off", async () => {
      // Yesterday is complete; a run added to a yesterday session lands only through the daily refresh.
      const [session] = await db.sql.query<{ session_id: string }>("SELECT session_id FROM agno_sessions WHERE user_id = ?", [who.userB]);
      const at = Math.floor(Date.now() / 1000) - DAY;
      await seedSession(db, {
        scope: adminScope(),
        session: { sessionId: session.session_id, userId: who.userB, createdAt: at },
        runs: [agnoRun({ sessionId: session.session_id, agentId: "assistant", createdAt: at + 1 })],
      });
      // The test apps turn the daily refresh off (so no test sees one it did not start); on is the product's default.
      expect(await refreshRecentMetrics(db, app.settings)).toEqual({ status: "disabled" });
      const started = await refreshRecentMetrics(db, { ...app.settings, metrics: { ...app.settings.metrics, dailyRefresh: true } });
      expect(started.status).toBe("started");
      await started.done;
      lastRefreshAt().set(db, Date.now());
      const b = MetricsResponseSchema.parse((await json(await app.call("GET", "/metrics", { principal: reader(who.b) }))).body);
      expect(b.metrics.find((m) => m.date.startsWith(date))?.agent_runs_count).toBe(2);
    });
  });
});

describe.each(DIALECTS)("metrics refresh as a job of the durable queue on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    let db: Db;
    const who = mintPrincipals();

    beforeAll(async () => {
      app = await startTestApp({
        dialect,
        agents: [{ id: "assistant", name: "Assistant", model: null }],
        env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50" },
        scheduler: false,
      });
      db = await app.db();
      await seedTwoUsers(db, who);
      lastRefreshAt().set(db, Date.now());
    });
    afterAll(() => app?.close());

    it("background=true enqueues a metrics_refresh job a worker runs; the status follows the job; the daily refresh is one job per day", async () => {
      const started = await json(await app.call("POST", "/metrics/refresh?background=true", { principal: who.admin }));
      expect(started).toEqual({ status: 202, body: { status: "started", message: "Metrics refresh started in background" } });
      const [job] = await db.sql.query<{ status: string; component_type: string; user_id: string | null }>("SELECT status, component_type, user_id FROM agno_jobs WHERE job_type = ?", [
        METRICS_REFRESH_JOB_TYPE,
      ]);
      expect(job).toMatchObject({ component_type: METRICS_REFRESH_JOB_TYPE, user_id: null });
      await until(
        "the refresh job completes",
        async () => RefreshStatusSchema.parse((await json(await app.call("GET", "/metrics/refresh/status", { principal: who.admin }))).body).status === "completed",
      );
      const [row] = await db.sql.query<{ n: number }>("SELECT SUM(agent_runs_count) AS n FROM agno_metrics");
      expect(Number(row.n)).toBe(4);

      const daily = { ...app.settings, metrics: { ...app.settings.metrics, dailyRefresh: true } };
      const first = await refreshRecentMetrics(db, daily);
      expect(first.status).toBe("started");
      await until("the daily job completes", async () => (await db.sql.query("SELECT 1 FROM agno_jobs WHERE job_type = ? AND status = 'completed'", [METRICS_REFRESH_JOB_TYPE])).length === 2);
      // Another process's tick the same day: the same job (its idempotency key), not a second one.
      expect((await refreshRecentMetrics(db, daily)).status).toBe("already_running");
      const [jobs] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_jobs WHERE job_type = ?", [METRICS_REFRESH_JOB_TYPE]);
      expect(Number(jobs.n)).toBe(2);

      // The scheduler's system task: once per UTC day however often the loop calls it, again the next day.
      const task = dailyMetricsRefreshTask(db, daily);
      const nowSeconds = Math.floor(Date.now() / 1000);
      await task.run(nowSeconds);
      await task.run(nowSeconds + 1);
      const keys = async () =>
        (await db.sql.query<{ idempotency_key: string }>("SELECT idempotency_key FROM agno_jobs WHERE job_type = ? ORDER BY idempotency_key", [METRICS_REFRESH_JOB_TYPE])).map(
          (r) => r.idempotency_key,
        );
      const today = new Date(nowSeconds * 1000).toISOString().slice(0, 10);
      const tomorrow = new Date((nowSeconds + DAY) * 1000).toISOString().slice(0, 10);
      await until("the day's job completes", async () => (await db.sql.query("SELECT 1 FROM agno_jobs WHERE job_type = ? AND status = 'completed'", [METRICS_REFRESH_JOB_TYPE])).length === 2);
      await task.run(nowSeconds + DAY);
      expect((await keys()).filter((k) => k?.startsWith("metrics_refresh:recent:"))).toEqual([`metrics_refresh:recent:${today}`, `metrics_refresh:recent:${tomorrow}`]);
    });
  });
});

describe.each(DIALECTS)("the scheduler's daily metrics refresh on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    afterAll(() => app?.close());

    it("opening the database starts the scheduler, whose first loop enqueues the day's metrics_refresh job", async () => {
      app = await startTestApp({
        dialect,
        agents: [{ id: "assistant", name: "Assistant", model: null }],
        env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50" },
        metrics: { dailyRefresh: true },
      });
      const db = await app.db();
      const today = new Date().toISOString().slice(0, 10);
      await until(
        "the daily job is enqueued and run",
        async () =>
          (await db.sql.query("SELECT 1 FROM agno_jobs WHERE job_type = ? AND idempotency_key = ? AND status = 'completed'", [METRICS_REFRESH_JOB_TYPE, `metrics_refresh:recent:${today}`])).length ===
          1,
      );
    });
  });
});
