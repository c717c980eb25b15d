import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { getRun, updateSchedule, ScheduleUpdateError } from "@/lib/db/index.ts";
import { ScheduleListSchema, ScheduleRunListSchema, ScheduleRunSchema, ScheduleSchema, ScheduleStateSchema } from "@/lib/http/schemas/schedules.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { adminScope, userScope } from "../support/scopes.ts";

type Json = Record<string, unknown>;
const SCHEDULE_SCOPES = ["schedules:read", "schedules:write", "schedules:delete"];
let tag = 0;
const member = (id: string, scopes: string[] = [...SCHEDULE_SCOPES, "agents:run"]): Principal => ({ kind: "user", userId: id, scopes, authenticatedBy: "jwt", isAdmin: false });
const jwtAdmin = (id: string): Principal => ({ kind: "admin", userId: id, scopes: ["agent_os:admin"], authenticatedBy: "jwt", isAdmin: true });

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`Schedules API (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    let off: TestApp;
    let jwt: TestApp;
    beforeAll(async () => {
      server = await startModelServer({ respond: () => ({ text: "scheduled hello" }) });
      const agents = [{ id: "sched-agent", name: "Scheduled", model: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } }];
      app = await startTestApp({ dialect, agents });
      off = await startTestApp({ dialect, agents, scheduler: false });
      jwt = await startTestApp({ dialect, agents, env: { JWT_VERIFICATION_KEY: "a-test-secret-that-is-long-enough-123" } });
    });
    afterAll(async () => {
      await app.close();
      await off.close();
      await jwt.close();
      await server.close();
    });

    const call = async (method: string, path: string, init: { json?: unknown; principal?: Principal } = {}, target = app) => {
      const response = await target.call(method, path, init);
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as Json & { detail?: unknown } };
    };
    const users = () => {
      const t = `${dialect.name}-${++tag}`;
      return { a: member(`sched-a-${t}`), b: member(`sched-b-${t}`), t };
    };
    const definition = (name: string, extra: Json = {}) => ({ name, cron_expr: "0 3 * * *", endpoint: "/agents/sched-agent/runs", payload: { message: "hi" }, ...extra });
    const locs = (body: { detail?: unknown }) => (body.detail as { loc: unknown[] }[]).map((d) => d.loc.join("."));

    it("creates with Agno's defaults and next_run_at (201); a name is unique per owner, shared names among themselves (409)", async () => {
      const { a, b, t } = users();
      const before = Math.floor(Date.now() / 1000);
      const created = await call("POST", "/schedules", { json: definition(`daily-${t}`, { unknown_key: 1 }), principal: a });
      expect(created.status).toBe(201);
      const schedule = ScheduleSchema.parse(created.body);
      expect(schedule).toMatchObject({
        name: `daily-${t}`,
        method: "POST",
        timezone: "UTC",
        timeout_seconds: 3600,
        max_retries: 0,
        retry_delay_seconds: 60,
        enabled: true,
        user_id: a.userId,
        misfire_policy: "fire_once",
        allow_overlap: false,
      });
      expect(schedule.next_run_at).toBeGreaterThan(before);
      expect(new Date(schedule.next_run_at! * 1000).toISOString()).toMatch(/T03:00:00\.000Z$/);
      expect(await call("POST", "/schedules", { json: definition(`daily-${t}`), principal: a })).toEqual({ status: 409, body: { detail: `Schedule with name 'daily-${t}' already exists` } });
      expect((await call("POST", "/schedules", { json: definition(`daily-${t}`), principal: b })).status).toBe(201);
      // An admin with no identity makes shared schedules, whose names are unique among themselves.
      expect((await call("POST", "/schedules", { json: definition(`shared-${t}`) })).status).toBe(201);
      expect((await call("POST", "/schedules", { json: definition(`shared-${t}`) })).status).toBe(409);
    });

    it("refuses bad input with 422 naming the field, and Agno's texts for cron and time zone", async () => {
      const { a, t } = users();
      const bad = async (extra: Json) => call("POST", "/schedules", { json: definition(`bad-${t}`, extra), principal: a });
      expect(locs((await bad({ name: "-leading-dash" })).body)).toEqual(["body.name"]);
      expect(locs((await bad({ name: "has space" })).body)).toEqual(["body.name"]);
      expect(locs((await bad({ name: "x".repeat(256) })).body)).toEqual(["body.name"]);
      expect(locs((await bad({ endpoint: "agents/x/runs" })).body)).toEqual(["body.endpoint"]);
      expect(locs((await bad({ endpoint: "/http://evil.example/x" })).body)).toEqual(["body.endpoint"]);
      expect(locs((await bad({ method: "FETCH" })).body)).toEqual(["body.method"]);
      expect(locs((await bad({ timeout_seconds: 0 })).body)).toEqual(["body.timeout_seconds"]);
      expect(locs((await bad({ timeout_seconds: 86_401 })).body)).toEqual(["body.timeout_seconds"]);
      expect(locs((await bad({ max_retries: 11 })).body)).toEqual(["body.max_retries"]);
      expect(locs((await bad({ retry_delay_seconds: 0 })).body)).toEqual(["body.retry_delay_seconds"]);
      expect(locs((await bad({ jitter_seconds: 301 })).body)).toEqual(["body.jitter_seconds"]);
      expect(locs((await bad({ misfire_policy: "sometimes" })).body)).toEqual(["body.misfire_policy"]);
      for (const cron of ["0 3 * *", "0 0 3 * * *", "0 0 3 * * * 2027", "61 * * * *", "@daily"]) {
        const refused = await bad({ cron_expr: cron });
        expect(refused.status).toBe(422);
        expect(refused.body.detail).toMatch(new RegExp(`^Invalid cron expression: ${cron.replace(/[*]/g, "\\*")} \\(`));
      }
      expect(await bad({ timezone: "Mars/Olympus" })).toEqual({ status: 422, body: { detail: "Invalid timezone: Mars/Olympus" } });
      expect(locs((await call("GET", "/schedules?page=0", { principal: a })).body)).toEqual(["query.page"]);
      expect(locs((await call("GET", "/schedules?limit=1001", { principal: a })).body)).toEqual(["query.limit"]);
      expect((await bad({ method: "post", timezone: "Europe/Paris" })).status).toBe(201);
    });

    it("needs the caller's own <type>:run for a run endpoint and admin for anything else (403 naming it)", async () => {
      const { t } = users();
      const noRun = member(`sched-norun-${t}`, SCHEDULE_SCOPES);
      expect(await call("POST", "/schedules", { json: definition(`x-${t}`), principal: noRun })).toEqual({ status: 403, body: { detail: "Insufficient permissions. Required scope(s): agents:run" } });
      const perAgent = member(`sched-per-${t}`, [...SCHEDULE_SCOPES, "agents:sched-agent:run"]);
      expect((await call("POST", "/schedules", { json: definition(`x-${t}`), principal: perAgent })).status).toBe(201);
      const other = definition(`refresh-${t}`, { endpoint: "/metrics/refresh" });
      expect(await call("POST", "/schedules", { json: other, principal: member(`sched-m-${t}`) })).toEqual({
        status: 403,
        body: { detail: "Only admins can schedule an endpoint that is not a run endpoint" },
      });
      expect((await call("POST", "/schedules", { json: other, principal: jwtAdmin(`sched-admin-${t}`) })).status).toBe(201);
      // A GET of a run endpoint is not a run: admin-only too.
      expect((await call("POST", "/schedules", { json: definition(`get-${t}`, { method: "GET" }), principal: member(`sched-g-${t}`) })).status).toBe(403);
      // Re-pointing, enabling and triggering check again.
      const created = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`repoint-${t}`), principal: perAgent })).body);
      expect((await call("PATCH", `/schedules/${created.id}`, { json: { endpoint: "/agents/other/runs" }, principal: perAgent })).status).toBe(403);
      const revoked = member(perAgent.userId!, SCHEDULE_SCOPES);
      expect((await call("POST", `/schedules/${created.id}/enable`, { principal: revoked })).status).toBe(403);
      expect((await call("POST", `/schedules/${created.id}/trigger`, { principal: revoked })).status).toBe(403);
      // The scheduler's own identity and reserved subjects may not own a schedule.
      for (const owner of ["__scheduler__", "sa:robot"]) {
        expect((await call("POST", "/schedules", { json: definition(`reserved-${t}`), principal: member(owner) })).body).toEqual({ detail: "The scheduler executor may not own a schedule" });
      }
    });

    it("keeps each owner's schedules and runs to themselves; an admin sees all, or one user's", async () => {
      const { a, b, t } = users();
      const mine = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`mine-${t}`), principal: a })).body);
      const theirs = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`theirs-${t}`), principal: b })).body);
      const names = async (principal?: Principal, query = "") => ScheduleListSchema.parse((await call("GET", `/schedules?limit=1000${query}`, { principal })).body).data.map((s) => s.name);
      expect(await names(a)).toEqual([`mine-${t}`]);
      expect(await names(a, `&user_id=${b.userId}`)).toEqual([`mine-${t}`]);
      expect(await names(undefined, `&user_id=${b.userId}`)).toEqual([`theirs-${t}`]);
      expect(await names()).toEqual(expect.arrayContaining([`mine-${t}`, `theirs-${t}`]));
      for (const [method, path, json] of [
        ["GET", `/schedules/${theirs.id}`],
        ["PATCH", `/schedules/${theirs.id}`, { description: "mine now" }],
        ["DELETE", `/schedules/${theirs.id}`],
        ["POST", `/schedules/${theirs.id}/enable`],
        ["POST", `/schedules/${theirs.id}/disable`],
        ["POST", `/schedules/${theirs.id}/trigger`],
        ["GET", `/schedules/${theirs.id}/runs`],
      ] as [string, string, Json?][]) {
        expect(await call(method, path, { json, principal: a }), `${method} ${path}`).toEqual({ status: 404, body: { detail: "Schedule not found" } });
      }
      // B's schedule is untouched; A's own works.
      expect(ScheduleSchema.parse((await call("GET", `/schedules/${theirs.id}`, { principal: b })).body).description).toBeNull();
      expect((await call("GET", `/schedules/${mine.id}`, { principal: a })).status).toBe(200);
    });

    it("PATCH ignores unknown keys, refuses null for required fields, re-arms on a cron or time-zone change; enable/disable answer the state", async () => {
      const { a, t } = users();
      const created = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`patch-${t}`), principal: a })).body);
      expect(ScheduleSchema.parse((await call("PATCH", `/schedules/${created.id}`, { json: {}, principal: a })).body)).toEqual(created);
      const ignored = ScheduleSchema.parse((await call("PATCH", `/schedules/${created.id}`, { json: { user_id: "someone-else", locked_by: "x", managed_by: "studio" }, principal: a })).body);
      expect(ignored).toMatchObject({ user_id: a.userId, managed_by: null });
      expect(locs((await call("PATCH", `/schedules/${created.id}`, { json: { name: null }, principal: a })).body)).toEqual(["body.name"]);
      const moved = ScheduleSchema.parse((await call("PATCH", `/schedules/${created.id}`, { json: { cron_expr: "30 4 * * *", timezone: "America/New_York" }, principal: a })).body);
      expect(moved.next_run_at).not.toBe(created.next_run_at);
      const local = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(moved.next_run_at! * 1000));
      expect(local).toBe("04:30");
      const disabled = ScheduleStateSchema.strict().parse((await call("POST", `/schedules/${created.id}/disable`, { principal: a })).body);
      expect(disabled.enabled).toBe(false);
      expect(await call("POST", `/schedules/${created.id}/trigger`, { principal: a })).toEqual({ status: 409, body: { detail: "Schedule is disabled" } });
      const enabled = ScheduleStateSchema.strict().parse((await call("POST", `/schedules/${created.id}/enable`, { principal: a })).body);
      expect(enabled.enabled).toBe(true);
      expect(enabled.next_run_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
      expect((await call("DELETE", `/schedules/${created.id}`, { principal: a })).status).toBe(204);
      expect((await call("GET", `/schedules/${created.id}`, { principal: a })).status).toBe(404);
    });

    it("updateSchedule writes only the mutable columns: anything else throws naming the rejected keys", async () => {
      const { a, t } = users();
      const created = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`wl-${t}`), principal: a })).body);
      const db = await app.db();
      const attempt = () => updateSchedule(db, { scope: userScope(a.userId!), id: created.id, updates: { description: "ok", user_id: "b", managed_by: "x", locked_by: "w" } as never });
      await expect(attempt()).rejects.toThrow(ScheduleUpdateError);
      await expect(attempt()).rejects.toThrow(/^updateSchedule cannot modify locked_by, managed_by, user_id: only /);
      expect(ScheduleSchema.parse((await call("GET", `/schedules/${created.id}`, { principal: a })).body)).toMatchObject({ description: null, user_id: a.userId });
    });

    it("trigger fires now and returns the schedule run; its run belongs to the owner; 503 with the scheduler off", async () => {
      const { a, b, t } = users();
      const created = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`trigger-${t}`, { payload: { message: "run me", user_id: "someone-else" } }), principal: a })).body);
      const fired = await call("POST", `/schedules/${created.id}/trigger`, { principal: a });
      expect(fired.status).toBe(200);
      const run = ScheduleRunSchema.parse(fired.body);
      expect(run).toMatchObject({ schedule_id: created.id, attempt: 1, status: "success", status_code: 200, user_id: a.userId, error: null, scheduled_for: null });
      expect(run.output).toEqual({ content: "scheduled hello", content_type: "str" });
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: run.run_id! });
      expect(stored).toMatchObject({ status: "COMPLETED", user_id: a.userId, session_id: run.session_id });
      const list = ScheduleRunListSchema.parse((await call("GET", `/schedules/${created.id}/runs`, { principal: a })).body);
      expect(list.data.map((r) => r.id)).toEqual([run.id]);
      expect(list.meta).toMatchObject({ page: 1, limit: 100, total_count: 1, total_pages: 1 });
      expect((await call("GET", `/schedules/${created.id}/runs/${run.id}`, { principal: a })).body).toMatchObject({ id: run.id });
      expect((await call("GET", `/schedules/${created.id}/runs/${run.id}`, { principal: b })).status).toBe(404);
      const other = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`other-${t}`), principal: a })).body);
      expect(await call("GET", `/schedules/${other.id}/runs/${run.id}`, { principal: a })).toEqual({ status: 404, body: { detail: "Schedule run not found" } });
      // With the scheduler turned off nothing fires.
      const elsewhere = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`off-${t}`), principal: a }, off)).body);
      expect(await call("POST", `/schedules/${elsewhere.id}/trigger`, { principal: a }, off)).toEqual({ status: 503, body: { detail: "Scheduler is not running" } });
    });

    it("an admin-only target fires as an admin after the owner's standing is checked again", async () => {
      const { t } = users();
      const target = definition(`cfg-${t}`, { endpoint: "/config", method: "GET" });
      // With JWT auth, a subject the dashboard does not know as an admin cannot be confirmed at fire time.
      const created = ScheduleSchema.parse((await call("POST", "/schedules", { json: target, principal: jwtAdmin(`jwt-admin-${t}`) }, jwt)).body);
      const refused = ScheduleRunSchema.parse((await call("POST", `/schedules/${created.id}/trigger`, { principal: jwtAdmin(`jwt-admin-${t}`) }, jwt)).body);
      expect(refused).toMatchObject({ status: "failed", status_code: 403 });
      expect(refused.error).toBe(`The schedule's owner 'jwt-admin-${t}' is not an admin now: only admins may schedule an endpoint that is not a run endpoint`);
      // A dashboard admin's standing is confirmed; demoted, it is not.
      const db = await jwt.db();
      const email = `admin-${t}@example.test`;
      const [row] = await db.sql.query<{ id: string }>("INSERT INTO agentry_users (id, email, name, role, session_version, created_at, updated_at) VALUES (?, ?, 'A', 'admin', 1, 1, 1) RETURNING id", [
        `dash-admin-${t}`,
        email,
      ]);
      const owned = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`cfg2-${t}`, { endpoint: "/config", method: "GET" }), principal: jwtAdmin(row!.id) }, jwt)).body);
      expect(ScheduleRunSchema.parse((await call("POST", `/schedules/${owned.id}/trigger`, { principal: jwtAdmin(row!.id) }, jwt)).body)).toMatchObject({ status: "success", status_code: 200 });
      await db.sql.exec("UPDATE agentry_users SET role = 'member' WHERE id = ?", [row!.id]);
      expect(ScheduleRunSchema.parse((await call("POST", `/schedules/${owned.id}/trigger`, { principal: jwtAdmin(row!.id) }, jwt)).body)).toMatchObject({ status: "failed", status_code: 403 });
      // An owner-less schedule (made by an identity-less admin) fires as an admin.
      const keyHolder: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "security_key", isAdmin: true };
      const shared = ScheduleSchema.parse((await call("POST", "/schedules", { json: definition(`cfg-shared-${t}`, { endpoint: "/config", method: "GET" }), principal: keyHolder }, jwt)).body);
      expect(ScheduleRunSchema.parse((await call("POST", `/schedules/${shared.id}/trigger`, { principal: keyHolder }, jwt)).body)).toMatchObject({
        status: "success",
        status_code: 200,
        user_id: null,
      });
    });
  });
}

describe("ScheduleUpdateError", () => {
  it("is what a non-mutable key throws", () => {
    expect(new ScheduleUpdateError("x").name).toBe("ScheduleUpdateError");
  });
});
