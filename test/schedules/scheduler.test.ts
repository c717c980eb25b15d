import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSchedule, createScheduleRun, getRun, listScheduleRuns, unsafeScheduleById, updateScheduleRun, type StoredSchedule } from "@/lib/db/index.ts";
import { cronProblem, nextRunAt, nextRuns, slotsBetween } from "@/lib/scheduler/cron.ts";
import { endpointCallerFor } from "@/lib/scheduler/endpoint-port.ts";
import { plainJobInsert } from "@/lib/db/jobs/enqueue-job.ts";
import { executeFire, FireAbortedError } from "@/lib/scheduler/fire.ts";
import { wakeScheduler } from "@/lib/scheduler/scheduler.ts";
import { dispatchDueSchedules, slotsToFire } from "@/lib/scheduler/tick.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS, openMigrated } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

const HOUR = 3600;
const iso = (s: number) => new Date(s * 1000).toISOString();
const base = (extra: Partial<StoredSchedule> = {}): StoredSchedule =>
  ({
    id: "s",
    user_id: null,
    name: "n",
    cron_expr: "* * * * *",
    timezone: "UTC",
    misfire_policy: "fire_once",
    catch_up_limit: 10,
    next_run_at: 0,
    ...extra,
  }) as StoredSchedule;

describe("cron (croner, five fields, IANA time zones)", () => {
  it("a 02:30 daily slot fires once on a spring-forward day and once on a fall-back day", () => {
    // 2026-03-08: New York skips 02:00–03:00; 2026-11-01: it repeats 01:00–02:00.
    const spring = slotsBetween("30 2 * * *", "America/New_York", Date.parse("2026-03-07T12:00:00Z") / 1000, Date.parse("2026-03-09T12:00:00Z") / 1000, 10);
    expect(spring.map(iso)).toEqual(["2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"]);
    const fall = slotsBetween("30 1 * * *", "America/New_York", Date.parse("2026-10-31T12:00:00Z") / 1000, Date.parse("2026-11-02T12:00:00Z") / 1000, 10);
    expect(fall.map(iso)).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
    const fallDaily = slotsBetween("30 2 * * *", "America/New_York", Date.parse("2026-10-31T12:00:00Z") / 1000, Date.parse("2026-11-02T12:00:00Z") / 1000, 10);
    expect(fallDaily).toHaveLength(2);
  });

  it("takes exactly five fields and real time zones; next_run_at is never sooner than one second from now", () => {
    expect(cronProblem("*/5 * * * *")).toBeNull();
    expect(cronProblem("0 0 * * * *")).toMatch(/expected 5 fields/);
    expect(cronProblem("0 0 * * * * 2030")).toMatch(/expected 5 fields/);
    expect(cronProblem("0 25 * * *")).not.toBeNull();
    const now = Date.parse("2026-05-05T10:00:00Z") / 1000;
    // A slot due in the current second is the next one's.
    expect(nextRunAt("0 10 * * *", "UTC", now)).toBe(now + 24 * HOUR);
    expect(nextRunAt("* * * * *", "UTC", now - 1)).toBe(now);
    expect(nextRuns("0 9 * * 1-5", "Europe/Paris", 5, now).map(iso)).toEqual([
      "2026-05-06T07:00:00.000Z",
      "2026-05-07T07:00:00.000Z",
      "2026-05-08T07:00:00.000Z",
      "2026-05-11T07:00:00.000Z",
      "2026-05-12T07:00:00.000Z",
    ]);
  });
});

describe("misfire policies after a downtime", () => {
  const now = Date.parse("2026-05-05T10:00:00Z") / 1000;
  const downSince = now - 30 * 60; // 30 missed per-minute slots (+ the one due now)
  it("fire_once fires one (the latest), skip none, catch_up the latest catch_up_limit oldest first; on time always fires", () => {
    expect(slotsToFire(base({ next_run_at: now }), now + 5)).toEqual({ fire: [now], skipped: [] });
    const once = slotsToFire(base({ next_run_at: downSince }), now);
    expect(once.fire).toEqual([now]);
    expect(once.skipped).toHaveLength(30);
    expect(slotsToFire(base({ next_run_at: downSince, misfire_policy: "skip" }), now).fire).toEqual([]);
    const caught = slotsToFire(base({ next_run_at: downSince, misfire_policy: "catch_up", catch_up_limit: 3 }), now);
    expect(caught.fire).toEqual([now - 120, now - 60, now]);
    // A single slot more than a minute late is a misfire too.
    expect(slotsToFire(base({ next_run_at: now, cron_expr: "0 * * * *", misfire_policy: "skip" }), now + 90)).toEqual({ fire: [], skipped: [now] });
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`the scheduler (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    let durable: TestApp;
    let failNext = 0;
    beforeAll(async () => {
      server = await startModelServer({
        respond: () => {
          if (failNext > 0) {
            failNext--;
            return { error: { status: 400, message: "scripted outage" } };
          }
          return { text: "tick" };
        },
      });
      const agents = [{ id: "cron-agent", name: "Cron", model: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } }];
      app = await startTestApp({ dialect, agents, scheduler: { pollIntervalMs: 100 } });
      durable = await startTestApp({ dialect, agents, scheduler: { pollIntervalMs: 100 }, queue: { durable: true, pollIntervalMs: 50, lockGraceSeconds: 5 } });
    });
    afterAll(async () => {
      await app.close();
      await durable.close();
      await server.close();
    });

    let n = 0;
    const make = async (target: TestApp, extra: Partial<Parameters<typeof createSchedule>[1]["schedule"]> = {}, owner = `cron-user-${dialect.name}`) =>
      createSchedule(await target.db(), {
        scope: userScope(owner),
        schedule: {
          name: `s-${++n}-${Date.now()}`,
          method: "POST",
          endpoint: "/agents/cron-agent/runs",
          payload: { message: "scheduled" },
          cron_expr: "* * * * *",
          timezone: "UTC",
          timeout_seconds: 60,
          max_retries: 0,
          retry_delay_seconds: 1,
          next_run_at: Math.floor(Date.now() / 1000) - 1,
          ...extra,
        },
      });
    const jobsOf = async (target: TestApp, scheduleId: string) =>
      (await target.db()).sql.query<{ idempotency_key: string; status: string }>("SELECT idempotency_key, status FROM agno_jobs WHERE component_id = ? AND job_type = 'schedule_fire'", [scheduleId]);

    it("a due schedule fires once per slot, is re-armed after now, and its fire runs the agent as the owner (queue off: the scheduler's own worker)", async () => {
      const schedule = await make(app);
      wakeScheduler(app.settings);
      const db = await app.db();
      await until("the fire succeeded", async () => (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs.some((r) => r.status === "success"));
      const { runs } = await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 });
      // The slot fired is next_run_at, or the latest minute if a minute boundary passed before the tick (fire_once).
      const slot = runs.find((r) => r.status === "success")!.scheduled_for;
      expect(slot).toBeGreaterThanOrEqual(schedule.next_run_at!);
      const first = runs.filter((r) => r.scheduled_for === slot);
      expect(first).toHaveLength(1);
      expect(first[0]).toMatchObject({ status: "success", user_id: schedule.user_id, attempt: 1 });
      expect(await getRun(db, { scope: userScope(schedule.user_id!), runId: first[0]!.run_id! })).toMatchObject({ status: "COMPLETED" });
      const rearmed = await unsafeScheduleById(db, schedule.id);
      expect(rearmed!.next_run_at).toBeGreaterThan(Math.floor(Date.now() / 1000) - 1);
      expect(rearmed!.locked_by).toBeNull();
      const key = `schedule:${schedule.id}:${slot}`;
      await until("the fire job completed", async () => (await jobsOf(app, schedule.id)).some((j) => j.idempotency_key === key && j.status === "completed"));
    });

    it("with the durable queue the fire is a catalog job the embedded worker runs, and its run a durable run keyed by schedule and slot", async () => {
      const schedule = await make(durable);
      wakeScheduler(durable.settings);
      const db = await durable.db();
      await until("the fire succeeded", async () => (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs.some((r) => r.status === "success")).catch(
        async (error) => {
          console.log(
            await db.sql.query("SELECT job_type, status, error, idempotency_key, attempt, available_at FROM agno_jobs"),
            (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs,
            await unsafeScheduleById(db, schedule.id),
          );
          throw error;
        },
      );
      // The slot fired is next_run_at, or the latest minute if a minute boundary passed before the tick (fire_once).
      const run = (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs.find((r) => r.status === "success")!;
      const slot = run.scheduled_for;
      expect(slot).toBeGreaterThanOrEqual(schedule.next_run_at!);
      const [runJob] = await db.sql.query<{ idempotency_key: string; job_type: string; user_id: string }>("SELECT idempotency_key, job_type, user_id FROM agno_jobs WHERE id = ?", [run.run_id]);
      expect(runJob).toEqual({ idempotency_key: `schedule-run:${schedule.id}:${slot}`, job_type: "run", user_id: schedule.user_id });
      const key = `schedule:${schedule.id}:${slot}`;
      await until("the fire job completed", async () => (await jobsOf(durable, schedule.id)).some((j) => j.idempotency_key === key && j.status === "completed"));
    });

    it("a fire whose run the full queue refuses (429) submits again until there is room, in the same attempt", async () => {
      const tight = await startTestApp({
        dialect,
        agents: [{ id: "cron-agent", name: "Cron", model: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } }],
        scheduler: { pollIntervalMs: 100 },
        // A lease long enough that no takeover (another test's subject) happens under a loaded machine.
        queue: { durable: true, pollIntervalMs: 50, lockGraceSeconds: 60, maxQueueDepth: 1 },
      });
      try {
        const db = await tight.db();
        // One queued run nobody may claim yet fills the queue.
        const blocker = plainJobInsert(
          {
            id: `blocker-${dialect.name}-${Date.now()}`,
            jobType: "run",
            componentType: "agent",
            componentId: "cron-agent",
            payload: {},
            maxAttempts: 1,
            availableAt: Math.floor(Date.now() / 1000) + 3600,
          },
          { owner: null },
        );
        await db.sql.exec(blocker.text, blocker.params);
        // A yearly expression: no second slot comes due while the test waits.
        const schedule = await make(tight, { cron_expr: "0 0 1 1 *" });
        wakeScheduler(tight.settings);
        const runsOf = async () => (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs;
        await until("the fire started", async () => (await runsOf()).length > 0);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const waiting = await runsOf();
        expect(waiting, JSON.stringify(waiting.map((r) => [r.status, r.attempt, r.error]))).toMatchObject([{ status: "running", attempt: 1, run_id: null }]);
        await db.sql.exec("DELETE FROM agno_jobs WHERE id = ?", [blocker.params[0]]);
        await until("the fire succeeded", async () => (await runsOf()).some((r) => r.status === "success"));
        const runs = await runsOf();
        expect(runs).toHaveLength(1);
        expect(runs[0]).toMatchObject({ status: "success", attempt: 1 });
        expect(await getRun(db, { scope: userScope(schedule.user_id!), runId: runs[0]!.run_id! })).toMatchObject({ status: "COMPLETED" });
      } finally {
        await tight.close();
      }
    });

    it("two schedulers dispatching at once over the same due schedules enqueue each slot once", async () => {
      {
        // Concurrent claimers in one process (test/schedules/scheduler-processes.test.ts races real processes).
        const due = await Promise.all(Array.from({ length: 40 }, () => make(app, { enabled: true, next_run_at: Math.floor(Date.now() / 1000) + 3600 })));
        const db = await app.db();
        const now = Math.floor(Date.now() / 1000) + 3600;
        const results = await Promise.all([
          dispatchDueSchedules(db, app.settings, { workerId: "race-a", now, limit: 7 }),
          dispatchDueSchedules(db, app.settings, { workerId: "race-b", now, limit: 7 }),
          dispatchDueSchedules(db, app.settings, { workerId: "race-c", now, limit: 100 }),
          dispatchDueSchedules(db, app.settings, { workerId: "race-d", now, limit: 100 }),
        ]);
        const jobs = await db.sql.query<{ component_id: string; n: number }>(
          `SELECT component_id, COUNT(*) AS n FROM agno_jobs WHERE job_type = 'schedule_fire' AND component_id IN (${due.map(() => "?").join(", ")}) GROUP BY component_id`,
          due.map((s) => s.id),
        );
        expect(jobs).toHaveLength(40);
        expect(jobs.every((j) => Number(j.n) === 1)).toBe(true);
        expect(results.reduce((sum, r) => sum + r.fires, 0)).toBeGreaterThanOrEqual(40);
        // Re-dispatching a slot (a claimer that lost its lock mid-release) inserts nothing new: the key dedupes.
        await db.sql.exec(`UPDATE agno_schedules SET next_run_at = ? WHERE id = ?`, [due[0]!.next_run_at, due[0]!.id]);
        await dispatchDueSchedules(db, app.settings, { workerId: "race-e", now });
        expect((await jobsOf(app, due[0]!.id)).length).toBe(1);
      }
    });

    it("a schedule whose expression stopped parsing is disabled with disabled_reason", async () => {
      const schedule = await make(app, { next_run_at: Math.floor(Date.now() / 1000) + 7200 });
      const db = await app.db();
      await db.sql.exec(`UPDATE agno_schedules SET cron_expr = '99 * * * *' WHERE id = ?`, [schedule.id]);
      await dispatchDueSchedules(db, app.settings, { workerId: "bad-cron", now: Math.floor(Date.now() / 1000) + 7200 });
      const disabled = await unsafeScheduleById(db, schedule.id);
      expect(disabled).toMatchObject({ enabled: false, next_run_at: null, locked_by: null });
      expect(disabled!.disabled_reason).toMatch(/^invalid_cron: Invalid cron expression '99 \* \* \* \*'/);
    });

    it("skip records the missed slots as one skipped run and arms the next future slot", async () => {
      const now = Math.floor(Date.now() / 1000) + 7200;
      const schedule = await make(app, { next_run_at: now - 600, misfire_policy: "skip" });
      const db = await app.db();
      expect(await dispatchDueSchedules(db, app.settings, { workerId: "skip", now })).toMatchObject({ fires: 0 });
      const { runs } = await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 });
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: "skipped" });
      expect(runs[0]!.error).toMatch(/^Skipped 11 missed slots \(misfire_policy skip\)/);
      expect((await unsafeScheduleById(db, schedule.id))!.next_run_at).toBeGreaterThan(now);
    });

    it("a slot whose previous fire is still running is skipped and says so; allow_overlap fires it", async () => {
      const db = await app.db();
      const caller = endpointCallerFor(app.settings);
      for (const allowOverlap of [false, true]) {
        const schedule = await make(app, { next_run_at: null, allow_overlap: allowOverlap });
        const scope = userScope(schedule.user_id!);
        await createScheduleRun(db, { scope, run: { scheduleId: schedule.id, attempt: 1, scheduledFor: 1000 } });
        const fired = await executeFire({ db, settings: app.settings, schedule, slot: 1060, caller });
        if (allowOverlap) expect(fired).toMatchObject({ status: "success", scheduled_for: 1060 });
        else {
          expect(fired).toMatchObject({ status: "skipped", scheduled_for: 1060 });
          expect(fired!.error).toMatch(/still running and allow_overlap is off/);
          // A manual trigger is not a slot: it runs anyway.
          expect(await executeFire({ db, settings: app.settings, schedule, slot: null, caller })).toMatchObject({ status: "success", scheduled_for: null });
        }
      }
    });

    it("retries a failed attempt after retry_delay_seconds, recording each attempt", async () => {
      const db = await app.db();
      const schedule = await make(app, { next_run_at: null, max_retries: 2, retry_delay_seconds: 1 });
      failNext = 1;
      const fired = await executeFire({ db, settings: app.settings, schedule, slot: 2000, caller: endpointCallerFor(app.settings) });
      expect(fired).toMatchObject({ status: "success", attempt: 2 });
      const { runs } = await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 });
      expect(runs.map((r) => [r.attempt, r.status])).toEqual([
        [2, "success"],
        [1, "failed"],
      ]);
      expect(runs[1]!.error).toMatch(/Run failed with status ERROR|scripted outage/);
    });

    it("a fire whose job was taken over by another worker records no attempt beside its taker's", async () => {
      const db = await app.db();
      const caller = endpointCallerFor(app.settings);
      const schedule = await make(app, { next_run_at: null });
      // The fire job as the taker holds it: attempt 2 on worker "taker".
      const job = plainJobInsert(
        { id: `taken-${dialect.name}-${Date.now()}`, jobType: "schedule_fire", componentType: "schedule", componentId: schedule.id, payload: { schedule_id: schedule.id, slot: 4000 }, maxAttempts: 3 },
        { owner: schedule.user_id },
      );
      await db.sql.exec(job.text, job.params);
      const jobId = String(job.params[0]);
      await db.sql.exec("UPDATE agno_jobs SET status = 'running', attempt = 2, locked_by = 'taker', locked_at = ? WHERE id = ?", [Math.floor(Date.now() / 1000), jobId]);
      const stale = executeFire({ db, settings: app.settings, schedule, slot: 4000, caller, fence: { id: jobId, attempt: 1, workerId: "lost" } });
      await expect(stale).rejects.toBeInstanceOf(FireAbortedError);
      const slotRuns = async () => (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs;
      expect(await slotRuns()).toEqual([]);
      const taken = await executeFire({ db, settings: app.settings, schedule, slot: 4000, caller, fence: { id: jobId, attempt: 2, workerId: "taker" } });
      expect(taken).toMatchObject({ status: "success", attempt: 1 });
      expect(await slotRuns()).toHaveLength(1);
    });

    it("a fire taken over follows the run its dead attempt started, and a finished slot fires nothing", async () => {
      const db = await app.db();
      const caller = endpointCallerFor(app.settings);
      const schedule = await make(app, { next_run_at: null });
      const first = await executeFire({ db, settings: app.settings, schedule, slot: 3000, caller });
      expect(first).toMatchObject({ status: "success" });
      const runsBefore = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs WHERE user_id = ?", [schedule.user_id]);
      // The slot already succeeded: a retried job does nothing.
      expect(await executeFire({ db, settings: app.settings, schedule, slot: 3000, caller })).toBeNull();
      // A dead attempt left "running" with its run: the takeover adopts it and follows the same run.
      const scope = userScope(schedule.user_id!);
      const dead = await createScheduleRun(db, { scope, run: { scheduleId: schedule.id, attempt: 1, scheduledFor: 3060 } });
      await updateScheduleRun(db, { scope, id: dead.id, updates: { run_id: first!.run_id, session_id: first!.session_id } });
      const resumed = await executeFire({ db, settings: app.settings, schedule, slot: 3060, caller });
      expect(resumed).toMatchObject({ id: dead.id, status: "success", run_id: first!.run_id });
      const runsAfter = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs WHERE user_id = ?", [schedule.user_id]);
      expect(Number(runsAfter[0]!.n)).toBe(Number(runsBefore[0]!.n));
    });
  });
}

describe.skipIf(DIALECTS[0]!.skipReason !== null)("the agents' schedules toolkit", () => {
  it("manages only its own user's schedules of this agent, with provenance; bad input is an answer the model can use", async () => {
    const { schedulesToolkit } = await import("@/lib/scheduler/schedule-tools.ts");
    const db = await openMigrated(DIALECTS[0]!);
    try {
      const tools = Object.fromEntries(schedulesToolkit({ db, agentId: "helper" }).tools.map((t) => [t.name, t]));
      const ctx = (userId: string | null, runId = "run-1") => ({ runId, sessionId: "sess-1", agentId: "helper", userId, signal: new AbortController().signal });
      const created = (await tools.create_schedule!.execute!({ name: "standup", cron_expr: "0 9 * * 1-5", message: "Post the standup", timezone: "Europe/Paris" }, ctx("alice"))) as {
        id: string;
        in_words: string;
      };
      expect(created.in_words).toMatch(/09:00/);
      const stored = await unsafeScheduleById(db, created.id);
      expect(stored).toMatchObject({
        user_id: "alice",
        endpoint: "/agents/helper/runs",
        managed_by: "agent",
        target_type: "agent",
        target_id: "helper",
        created_by_run_id: "run-1",
        created_by_session_id: "sess-1",
        payload: { message: "Post the standup" },
      });
      expect(await tools.create_schedule!.execute!({ name: "bad", cron_expr: "0 9 * *", message: "x" }, ctx("alice"))).toEqual({
        error: expect.stringMatching(/^Invalid cron expression: 0 9 \* \* \(/),
      });
      expect(await tools.list_schedules!.execute!({}, ctx("bob"))).toEqual([]);
      expect(await tools.pause_schedule!.execute!({ id: created.id }, ctx("bob"))).toEqual({ error: "Schedule not found" });
      expect(await tools.pause_schedule!.execute!({ id: created.id }, ctx("alice", "run-2"))).toMatchObject({ enabled: false });
      expect(await unsafeScheduleById(db, created.id)).toMatchObject({ enabled: false, updated_by_run_id: "run-2", updated_by_session_id: "sess-1", created_by_run_id: "run-1" });
      expect(((await tools.list_schedules!.execute!({}, ctx("alice"))) as unknown[]).length).toBe(1);
      await expect(tools.list_schedules!.execute!({}, ctx(null))).rejects.toThrow(/need a user/);
      expect(await tools.delete_schedule!.execute!({ id: created.id }, ctx("alice"))).toEqual({ deleted: created.id });
      expect(await unsafeScheduleById(db, created.id)).toBeNull();
      // The user's cap (scheduler.maxSchedulesPerUser) holds through the toolkit too.
      const capped = Object.fromEntries(schedulesToolkit({ db, agentId: "helper", maxSchedulesPerUser: 2 }).tools.map((t) => [t.name, t]));
      for (const name of ["one", "two"]) expect(await capped.create_schedule!.execute!({ name, cron_expr: "0 9 * * *", message: "x" }, ctx("carol"))).toHaveProperty("id");
      expect(await capped.create_schedule!.execute!({ name: "three", cron_expr: "0 9 * * *", message: "x" }, ctx("carol"))).toEqual({ error: expect.stringMatching(/maxSchedulesPerUser/) });
      expect(await capped.create_schedule!.execute!({ name: "three", cron_expr: "0 9 * * *", message: "x" }, ctx("dave"))).toHaveProperty("id");
    } finally {
      await db.destroy();
    }
  });
});
