import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSchedule, deleteSessions, listScheduleRuns, type StoredSchedule } from "@/lib/db/index.ts";
import { ScheduleRunSchema } from "@/lib/http/schemas/schedules.ts";
import { endpointCallerFor, type EndpointCaller } from "@/lib/scheduler/endpoint-port.ts";
import { executeFire, RUN_UNREADABLE } from "@/lib/scheduler/fire.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * A fire whose run was accepted but can no longer be read back (its session deleted right after
 * the submit, or its read answering 404) fails that attempt at once with RUN_UNREADABLE, instead
 * of holding its fire slot (and a trigger's request) until timeout_seconds.
 */

/** Well inside the schedules' timeout_seconds (an hour): what "at once" has to beat. */
const PROMPTLY_MS = 10_000;
let n = 0;

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`a fire that cannot read its run back (${dialect.name})`, () => {
    let server: ModelServer;
    let apps: { name: string; app: TestApp }[];
    beforeAll(async () => {
      // Slow enough that the run is still going when its session is deleted.
      server = await startModelServer({ respond: () => ({ text: "late", delayMs: 1000 }) });
      const agents = [{ id: "cron-agent", name: "Cron", model: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } }];
      apps = [
        { name: "in-process runs", app: await startTestApp({ dialect, agents }) },
        { name: "durable queue", app: await startTestApp({ dialect, agents, queue: { durable: true, pollIntervalMs: 50 } }) },
      ];
    });
    afterAll(async () => {
      // The runs outlive the fires that gave up on them: let them end (unrecorded: their sessions are gone) before the databases close.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      for (const { app } of apps ?? []) await app.close();
      await server?.close();
    });

    const make = async (app: TestApp, owner: string): Promise<StoredSchedule> =>
      createSchedule(await app.db(), {
        scope: userScope(owner),
        schedule: {
          name: `unreadable-${++n}`,
          method: "POST",
          endpoint: "/agents/cron-agent/runs",
          payload: { message: "scheduled" },
          cron_expr: "0 0 1 1 *",
          timezone: "UTC",
          timeout_seconds: 3600,
          max_retries: 0,
          retry_delay_seconds: 1,
          next_run_at: null,
        },
      });

    it("a run whose session is deleted right after the submit fails the attempt at once", async () => {
      for (const { name, app } of apps) {
        const db = await app.db();
        const owner = `unreadable-gone-${dialect.name}-${++n}`;
        const real = endpointCallerFor(app.settings);
        const deleting: EndpointCaller = async (call) => {
          const result = await real(call);
          const accepted = result.body as { session_id?: string } | null;
          if (call.method === "POST" && result.status === 202 && accepted?.session_id) await deleteSessions(db, { scope: userScope(owner), sessionIds: [accepted.session_id] });
          return result;
        };
        const schedule = await make(app, owner);
        const started = Date.now();
        const fired = await executeFire({ db, settings: app.settings, schedule, slot: 7000, caller: deleting });
        expect(Date.now() - started, name).toBeLessThan(PROMPTLY_MS);
        expect(fired, name).toMatchObject({ status: "failed", error: RUN_UNREADABLE, attempt: 1 });
        expect(fired!.run_id, name).toEqual(expect.any(String));
        expect(RUN_UNREADABLE).toBe("the run is no longer readable");
      }
    });

    it("a run read answering 404 after the run was accepted fails the attempt at once, through the trigger route too", async () => {
      for (const { name, app } of apps) {
        const db = await app.db();
        const owner = `unreadable-404-${dialect.name}-${++n}`;
        const real = endpointCallerFor(app.settings);
        const reads: string[] = [];
        const notFound: EndpointCaller = async (call) => {
          if (call.method !== "GET") return real(call);
          reads.push(call.path);
          return { status: 404, body: { detail: "Run not found" }, text: '{"detail":"Run not found"}' };
        };
        const schedule = await make(app, owner);
        const started = Date.now();
        const fired = await executeFire({ db, settings: app.settings, schedule, slot: 8000, caller: notFound });
        expect(Date.now() - started, name).toBeLessThan(PROMPTLY_MS);
        expect(fired, name).toMatchObject({ status: "failed", status_code: 404, error: RUN_UNREADABLE });
        // It read once, and gave up.
        expect(reads, name).toHaveLength(1);
        expect(reads[0]).toMatch(new RegExp(`^/agents/cron-agent/runs/${fired!.run_id}\\?session_id=`));
        const { runs } = await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 });
        expect(runs.map((r) => [r.status, r.error])).toEqual([["failed", RUN_UNREADABLE]]);
      }
      // The trigger route answers promptly with the failed fire (the read made by the real route table,
      // after the run's session was deleted under it by the owner).
      const { app } = apps[0]!;
      const db = await app.db();
      const owner = `unreadable-trigger-${dialect.name}-${++n}`;
      const schedule = await make(app, owner);
      const member = { kind: "user" as const, userId: owner, scopes: ["schedules:read", "schedules:write", "agents:run"], authenticatedBy: "jwt" as const, isAdmin: false };
      const triggering = app.call("POST", `/schedules/${schedule.id}/trigger`, { principal: member });
      let sessionId: string | undefined;
      for (let i = 0; i < 200 && !sessionId; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        sessionId = (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs[0]?.session_id ?? undefined;
      }
      expect(sessionId).toEqual(expect.any(String));
      await deleteSessions(db, { scope: userScope(owner), sessionIds: [sessionId!] });
      const started = Date.now();
      const response = await triggering;
      expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
      expect(response.status).toBe(200);
      expect(ScheduleRunSchema.parse(await response.json())).toMatchObject({ status: "failed", error: RUN_UNREADABLE, session_id: sessionId });
    });
  });
}
