import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import { defineTeam } from "@/lib/config/define.ts";
import { defineWorkflow } from "@/lib/config/workflow.ts";
import { createSchedule, listScheduleRuns, listSchedules, unsafeScheduleById, type StoredSchedule } from "@/lib/db/index.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { createScheduleAction, updateScheduleAction } from "@/lib/http/dashboard/schedule-actions.ts";
import { matchTemplate } from "@/lib/http/path-template.ts";
import { ScheduleSchema } from "@/lib/http/schemas/schedules.ts";
import { ENDPOINT_ORIGIN, endpointProblem, parseScheduleEndpoint } from "@/lib/scheduler/endpoint.ts";
import { endpointCallerFor } from "@/lib/scheduler/endpoint-port.ts";
import { executeFire } from "@/lib/scheduler/fire.ts";
import { runEndpointTarget } from "@/lib/scheduler/manage.ts";
import { wakeScheduler } from "@/lib/scheduler/scheduler.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

/**
 * A schedule's endpoint has one meaning: the text the permission check reads is the path a fire
 * calls. Every form below reads as an agent's run endpoint to a pattern over the text, but URL
 * parsing (which builds a fire's request) turns `\` into `/`, ends the path at `?` or `#`, and
 * resolves dot segments (`%2e` included): the fire would run a team or a workflow instead.
 */
const SMUGGLED = [
  "/agents/..\\..\\teams\\research-desk\\runs#/runs",
  "/agents/..\\..\\workflows\\brief\\runs#/runs",
  "/agents/x\\..\\..\\teams\\research-desk\\runs?/runs",
  "/agents/%2e%2e/%2e%2e/teams/research-desk/runs",
  "/agents/x/%2E%2E/.%2e/teams/research-desk/runs",
  "/agents/x/%2e%2E/%2e./workflows/brief/runs",
  "/agents/..%2f..%2fteams%2fresearch-desk/runs",
  "/agents/..%5C..%5Cteams%5Cresearch-desk/runs",
  "/agents/x/./../../teams/research-desk/runs",
];
/** Text a fire would not read as written for other reasons: a query, a fragment, control characters, an empty segment, a bad escape. */
const UNREADABLE = [
  "/agents/sched-agent/runs?user_id=someone-else",
  "/agents/sched-agent/runs#frag",
  "/agents/sched\tagent/runs",
  "/agents/sched\nagent/runs",
  "/agents/sched\u0001agent/runs",
  "/agents/sched%0Aagent/runs",
  "/agents/sched%00agent/runs",
  "/agents/sched agent/runs",
  "//evil.example/agents/sched-agent/runs",
  "/agents//runs",
  "/agents/sched%zzagent/runs",
];
const BAD = [...SMUGGLED, ...UNREADABLE];

describe("a schedule's endpoint, read as a fire reads it", () => {
  it("the smuggled forms parse to another component's run endpoint, and are refused", () => {
    for (const endpoint of SMUGGLED.slice(0, 6)) {
      expect(new URL(endpoint, ENDPOINT_ORIGIN).pathname, endpoint).toMatch(/^\/(teams\/research-desk|workflows\/brief)\/runs$/);
    }
    for (const endpoint of BAD) {
      const parsed = parseScheduleEndpoint(endpoint, "POST");
      expect(parsed.ok, JSON.stringify(endpoint)).toBe(false);
      expect(endpointProblem(endpoint), JSON.stringify(endpoint)).toMatch(/^Endpoint /);
      expect(runEndpointTarget(endpoint, "POST"), JSON.stringify(endpoint)).toBeNull();
    }
  });

  it("accepts plain paths, decoding a run endpoint's id as the route table does", () => {
    expect(parseScheduleEndpoint("/agents/sched-agent/runs", "post")).toEqual({ ok: true, path: "/agents/sched-agent/runs", run: { type: "agents", id: "sched-agent" } });
    expect(parseScheduleEndpoint("/teams/research-desk/runs/", "POST")).toEqual({ ok: true, path: "/teams/research-desk/runs/", run: { type: "teams", id: "research-desk" } });
    expect(parseScheduleEndpoint("/agents/my%20agent/runs", "POST")).toMatchObject({ ok: true, run: { type: "agents", id: "my agent" } });
    expect(parseScheduleEndpoint("/agents/v1.2/runs", "POST")).toMatchObject({ ok: true, run: { id: "v1.2" } });
    // Not a run: a GET of a run endpoint, or any other path (admins only).
    expect(parseScheduleEndpoint("/agents/sched-agent/runs", "GET")).toEqual({ ok: true, path: "/agents/sched-agent/runs", run: null });
    expect(parseScheduleEndpoint("/metrics/refresh", "POST")).toEqual({ ok: true, path: "/metrics/refresh", run: null });
  });

  it("whatever the text, an accepted endpoint parses to itself and the route table reads the same run target from it", () => {
    const pieces = ["/", "/", "\\", ".", "..", "%2e", "%2E", "%2f", "%5c", "#", "?", "agents", "teams", "runs", "x", "%", "%41", "%25", " ", "\t", "é", ";"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      let endpoint = "/";
      const length = 1 + (next() % 8);
      for (let j = 0; j < length; j++) endpoint += pieces[next() % pieces.length];
      const parsed = parseScheduleEndpoint(endpoint, "POST");
      if (!parsed.ok) continue;
      accepted++;
      const url = new URL(endpoint, ENDPOINT_ORIGIN);
      expect([url.origin, url.pathname, url.search, url.hash], JSON.stringify(endpoint)).toEqual([ENDPOINT_ORIGIN, endpoint, "", ""]);
      for (const type of ["agents", "teams", "workflows"] as const) {
        const params = matchTemplate(`/${type}/{id}/runs`, url.pathname);
        const viaTemplate = params && !params.id!.includes("/") ? { type, id: params.id } : null;
        if (parsed.run?.type === type || viaTemplate) expect(parsed.run, JSON.stringify(endpoint)).toEqual(viaTemplate);
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });
});

const SECRET = "schedule-endpoints-secret-of-sufficient-length";
const mint = (sub: string, scopes: string[]) => new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));
let tag = 0;

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`schedule endpoints (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    let member: Principal;
    let admin: Principal;
    beforeAll(async () => {
      server = await startModelServer({ respond: () => ({ text: "ran" }) });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const agent = { id: "sched-agent", name: "Scheduled", model };
      app = await startTestApp({
        dialect,
        agents: [agent],
        teams: [defineTeam({ id: "research-desk", name: "Research desk", model, members: [agent] })],
        workflows: [defineWorkflow({ id: "brief", name: "Brief", steps: [agent] })],
        env: { JWT_VERIFICATION_KEY: SECRET },
        scheduler: { pollIntervalMs: 100 },
      });
      const db = await app.db();
      member = principalForUser(await createUser(db), app.settings);
      admin = principalForUser(await createUser(db, { role: "admin" }), app.settings);
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    const unique = (label: string) => `${label}-${dialect.name}-${++tag}`;
    /** The API as a JWT bearer holding `scopes`. */
    const asBearer = async (sub: string, scopes: string[], method: string, path: string, json?: unknown) => {
      const response = await app.call(method, path, { json, headers: { authorization: `Bearer ${await mint(sub, scopes)}` } });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as { detail?: unknown } & Record<string, unknown> };
    };
    const MEMBER_SCOPES = ["schedules:read", "schedules:write", "schedules:delete", "agents:run"];
    const ADMIN_SCOPES = ["agent_os:admin"];
    const definition = (name: string, endpoint: string) => ({ name, cron_expr: "0 3 * * *", endpoint, payload: { message: "hi" } });
    const endpointIssue = (body: { detail?: unknown }) => {
      const issues = body.detail as { loc: string[]; msg: string }[];
      expect(issues.map((i) => i.loc.join("."))).toEqual(["body.endpoint"]);
      return issues[0]!.msg;
    };
    const runsOf = async (userId: string) => Number((await (await app.db()).sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs WHERE user_id = ?", [userId]))[0]!.n);

    it("the API refuses each form at create and PATCH with a 422 naming `endpoint`, for a member holding only agents:run and for an admin", async () => {
      const sub = unique("jwt-member");
      const root = unique("jwt-admin");
      for (const [who, scopes] of [
        [sub, MEMBER_SCOPES],
        [root, ADMIN_SCOPES],
      ] as const) {
        const good = await asBearer(who, [...scopes], "POST", "/schedules", definition(unique("good"), "/agents/sched-agent/runs"));
        expect(good.status).toBe(201);
        const id = ScheduleSchema.parse(good.body).id;
        for (const endpoint of BAD) {
          const created = await asBearer(who, [...scopes], "POST", "/schedules", definition(unique("bad"), endpoint));
          expect(created.status, `${who} POST ${JSON.stringify(endpoint)}`).toBe(422);
          expect(endpointIssue(created.body)).toMatch(/^endpoint: Endpoint /);
          const patched = await asBearer(who, [...scopes], "PATCH", `/schedules/${id}`, { endpoint });
          expect(patched.status, `${who} PATCH ${JSON.stringify(endpoint)}`).toBe(422);
          expect(endpointIssue(patched.body)).toMatch(/^endpoint: Endpoint /);
        }
        // Nothing was stored or re-pointed.
        const listed = await asBearer(who, [...scopes], "GET", `/schedules?limit=1000${scopes === ADMIN_SCOPES ? `&user_id=${who}` : ""}`);
        expect((listed.body.data as { endpoint: string }[]).map((s) => s.endpoint)).toEqual(["/agents/sched-agent/runs"]);
      }
      // The messages say what is wrong.
      const refused = await asBearer(sub, MEMBER_SCOPES, "POST", "/schedules", definition(unique("bs"), SMUGGLED[0]!));
      expect(endpointIssue(refused.body)).toBe("endpoint: Endpoint must not contain '\\': URL parsing reads it as '/'");
      const dots = await asBearer(sub, MEMBER_SCOPES, "POST", "/schedules", definition(unique("dots"), SMUGGLED[3]!));
      expect(endpointIssue(dots.body)).toBe("endpoint: Endpoint must not contain a '.' or '..' segment (nor one written with %2E)");
      const encoded = await asBearer(sub, MEMBER_SCOPES, "POST", "/schedules", definition(unique("enc"), SMUGGLED[6]!));
      expect(endpointIssue(encoded.body)).toBe("endpoint: Endpoint must not contain a percent-encoded '/' or '\\' (%2F, %5C)");
      expect(endpointIssue((await asBearer(sub, MEMBER_SCOPES, "POST", "/schedules", definition(unique("q"), UNREADABLE[0]!))).body)).toBe(
        "endpoint: Endpoint must not contain '?': URL parsing ends the path there",
      );
      // The member's plain run endpoint, and no team run, is all there is.
      expect(await runsOf(sub)).toBe(0);
    });

    it("the dashboard's create and edit refuse each form with a 422 naming `endpoint`, for a member and an admin", async () => {
      const db = await app.db();
      const call = (action: DashboardAction, principal: Principal, fields: Record<string, string>) =>
        action.run({ principal, formData: formOf(fields), db, settings: app.settings, origin: ACTION_ORIGIN });
      const form = (name: string, endpoint: string) => ({ name, target: "endpoint", method: "POST", endpoint, payload: '{"message": "hi"}', cron_expr: "0 9 * * 1-5" });
      for (const principal of [member, admin]) {
        const goodName = unique("dash-good");
        expect(await call(createScheduleAction, principal, form(goodName, "/agents/sched-agent/runs"))).toMatchObject({ ok: true });
        const [stored] = (await listSchedules(db, { scope: dataScopeFor(principal), page: 1, limit: 1000 })).schedules.filter((s) => s.name === goodName);
        for (const endpoint of BAD) {
          const created = await call(createScheduleAction, principal, form(unique("dash-bad"), endpoint));
          expect(created, `${principal.userId} create ${JSON.stringify(endpoint)}`).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^endpoint: Endpoint /) });
          const edited = await call(updateScheduleAction, principal, { ...form(goodName, endpoint), scheduleId: stored!.id });
          expect(edited, `${principal.userId} edit ${JSON.stringify(endpoint)}`).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^endpoint: Endpoint /) });
        }
        const mine = (await listSchedules(db, { scope: adminScope(principal.userId!), page: 1, limit: 1000 })).schedules;
        expect(mine.map((s) => s.endpoint)).toEqual(["/agents/sched-agent/runs"]);
      }
    });

    /** A row as one created before the endpoint check would be: written straight through lib/db. */
    const storedRow = async (owner: string | null, endpoint: string, extra: Partial<Parameters<typeof createSchedule>[1]["schedule"]> = {}): Promise<StoredSchedule> =>
      createSchedule(await app.db(), {
        scope: owner === null ? adminScope(null) : userScope(owner),
        owner,
        schedule: {
          name: unique("legacy"),
          method: "POST",
          endpoint,
          payload: { message: "smuggled" },
          cron_expr: "0 0 1 1 *",
          timezone: "UTC",
          timeout_seconds: 60,
          max_retries: 2,
          retry_delay_seconds: 1,
          next_run_at: null,
          ...extra,
        },
      });

    it("a stored row with such an endpoint fails its fire, runs nothing and is disabled; enable and trigger refuse it", async () => {
      const db = await app.db();
      const caller = endpointCallerFor(app.settings);
      for (const endpoint of SMUGGLED.slice(0, 6)) {
        const owner = unique("legacy-owner");
        const schedule = await storedRow(owner, endpoint);
        const fired = await executeFire({ db, settings: app.settings, schedule, slot: 6000, caller });
        expect(fired, JSON.stringify(endpoint)).toMatchObject({ status: "failed", attempt: 1, run_id: null, scheduled_for: 6000 });
        expect(fired!.error).toBe(`Schedule ${schedule.id} endpoint '${endpoint}' cannot be fired: ${endpointProblem(endpoint)}; refusing to execute`);
        // One attempt, no retries: the endpoint will not change between them.
        expect((await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs).toHaveLength(1);
        expect(await unsafeScheduleById(db, schedule.id)).toMatchObject({ enabled: false, disabled_reason: `invalid_endpoint: ${endpointProblem(endpoint)}` });
        expect(await runsOf(owner)).toBe(0);
      }
      // Through the API: re-enabling or triggering such a row is a 422 too, for its owner and for an admin.
      const owner = unique("legacy-api");
      const schedule = await storedRow(owner, SMUGGLED[0]!);
      for (const [who, scopes, query] of [
        [owner, MEMBER_SCOPES, ""],
        [unique("root"), ADMIN_SCOPES, `?user_id=${owner}`],
      ] as const) {
        const enabled = await asBearer(who, [...scopes], "POST", `/schedules/${schedule.id}/enable${query}`);
        expect(enabled).toEqual({ status: 422, body: { detail: "Endpoint must not contain '\\': URL parsing reads it as '/'" } });
        const triggered = await asBearer(who, [...scopes], "POST", `/schedules/${schedule.id}/trigger${query}`);
        expect(triggered).toEqual({ status: 422, body: { detail: "Endpoint must not contain '\\': URL parsing reads it as '/'" } });
      }
      expect(await runsOf(owner)).toBe(0);
    });

    it("the scheduler's own fire of a due stored row refuses it the same way (and an owner-less admin target too)", async () => {
      const db = await app.db();
      const owner = unique("legacy-due");
      const due = await storedRow(owner, SMUGGLED[2]!, { cron_expr: "* * * * *", next_run_at: Math.floor(Date.now() / 1000) - 1 });
      // An admin-only target with a query: it used to fire as an admin with the query in its path.
      const shared = await storedRow(null, "/config?x=1", { method: "GET", cron_expr: "* * * * *", next_run_at: Math.floor(Date.now() / 1000) - 1 });
      wakeScheduler(app.settings);
      for (const schedule of [due, shared]) {
        // The schedule is disabled and its run row ended in two writes: wait for both (a loaded machine can read between them).
        const settled = async () => (await listScheduleRuns(db, { scope: adminScope(), scheduleId: schedule.id, page: 1, limit: 10 })).runs;
        await until(`the fire of ${schedule.endpoint} was refused`, async () => (await unsafeScheduleById(db, schedule.id))?.enabled === false && (await settled())[0]?.status !== "running");
        const runs = await settled();
        expect(runs).toHaveLength(1);
        expect(runs[0]).toMatchObject({ status: "failed", run_id: null, status_code: null });
        expect(runs[0]!.error).toMatch(/cannot be fired: Endpoint must not contain '[\\?]'/);
        expect((await unsafeScheduleById(db, schedule.id))!.disabled_reason).toMatch(/^invalid_endpoint: /);
      }
      expect(await runsOf(owner)).toBe(0);
    });
  });
}
