import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { MEMBER_SCOPES } from "@/lib/auth/dashboard/member-scopes.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { getRun } from "@/lib/db/runs/runs.ts";
import { startModelServer, type ChatCompletionRequest, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

/**
 * Stored (Studio) components run on every path as the caller: GET /agents (and /teams, /workflows)
 * list them with is_component, current_version and stage; HTTP runs (inline and durable) use the
 * current published version, a run's `version` targets a draft only for its owner or an admin, the
 * version used is stamped in the run's metadata (a client's value is stripped) and a continue uses
 * it; a publish, rollback or archive is what the next request runs; a config the registry cannot
 * satisfy is a 422 component_rehydration_error naming what is missing; evals run them; schedules
 * refuse archived and draft-only targets with Agno's 409s.
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
type Json = any;

/** The scripted model answers after the instruction marker in its system prompt: "SAY-<word>" → "said <word>". */
function answer(body: ChatCompletionRequest) {
  const system = body.messages
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
  const marker = /SAY-([A-Za-z0-9]+)/.exec(system);
  return { text: marker ? `said ${marker[1]}` : "said nothing" };
}

const agentConfig = (word: string, extra: Record<string, unknown> = {}) => ({
  model: { provider: "openai-compatible", id: "scripted" },
  instructions: [`Always SAY-${word}.`],
  ...extra,
});

describe.each(DIALECTS)("stored components run on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let model: ModelServer;
    let app: TestApp;
    let db: Db;
    const who = mintPrincipals();
    const member = (p: Principal) => withScopes(p, [...MEMBER_SCOPES]);
    const a = member(who.a);
    const b = member(who.b);
    const admin = who.admin;

    const json = async (response: Response) => ({ status: response.status, body: (await response.json().catch(() => null)) as Json });
    const call = async (method: string, path: string, init: { json?: unknown; form?: Record<string, string>; principal?: Principal } = {}) => json(await app.call(method, path, init));
    const run = (id: string, principal: Principal, form: Record<string, string> = {}) =>
      call("POST", `/agents/${encodeURIComponent(id)}/runs`, { principal, form: { message: "hello", stream: "false", session_id: `s-${Math.random().toString(36).slice(2)}`, ...form } });

    /** A published agent of `owner` answering "said <word>". */
    const publishedAgent = async (owner: Principal, name: string, word: string) => {
      const created = await call("POST", "/components", { principal: owner, json: { name, component_type: "agent", config: agentConfig(word), stage: "published" } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.current_version).toBe(1);
      return created.body.component_id as string;
    };

    beforeAll(async () => {
      model = await startModelServer({ respond: answer });
      app = await startTestApp({
        dialect,
        agents: [{ id: "coded", name: "Coded", model: { provider: "openai-compatible", id: "scripted", baseUrl: model.url, apiKey: "t" }, instructions: "Always SAY-code." }],
        env: { OPENAI_COMPATIBLE_BASE_URL: model.url, OPENAI_COMPATIBLE_MODEL: "scripted", OPENAI_COMPATIBLE_API_KEY: "t" },
        queue: { durable: true },
      });
      db = await app.db();
    }, 60_000);
    afterAll(async () => {
      await app?.close();
      await model?.close();
    });

    it("GET /agents lists code-defined agents, then the stored ones the caller may run, with is_component, current_version and stage", async () => {
      const id = await publishedAgent(a, "Lister", "list");
      const draftOnly = await call("POST", "/components", { principal: a, json: { name: "Drafty", component_type: "agent", config: agentConfig("draft") } });
      expect(draftOnly.status).toBe(201);
      const seenByB = await call("GET", "/agents", { principal: b });
      expect(seenByB.status).toBe(200);
      const ids = seenByB.body.map((x: Json) => x.id);
      expect(ids[0]).toBe("coded");
      expect(ids).toContain(id);
      expect(ids).not.toContain(draftOnly.body.component_id);
      const listed = seenByB.body.find((x: Json) => x.id === id);
      expect(listed).toMatchObject({ id, name: "Lister", is_component: true, current_version: 1, stage: "published" });
      expect(seenByB.body.find((x: Json) => x.id === "coded").is_component).toBe(false);
      // The one-agent route answers the same.
      expect((await call("GET", `/agents/${id}`, { principal: b })).body).toMatchObject({ id, is_component: true, current_version: 1, stage: "published" });
      // /config lists code-defined components only, as Agno's does.
      const config = await call("GET", "/config", { principal: admin });
      expect(config.body.agents.map((x: Json) => x.id)).toEqual(["coded"]);
    });

    it("a run of a shared component is the caller's: their session and run, the version stamped in the metadata (a client's value stripped)", async () => {
      const id = await publishedAgent(a, "Sharer", "one");
      const ran = await run(id, b, { metadata: JSON.stringify({ agno_component_version: 99, mine: true }) });
      expect(ran.status, JSON.stringify(ran.body)).toBe(200);
      expect(ran.body.content).toBe("said one");
      const stored = await getRun(db, { scope: adminScope(), runId: ran.body.run_id });
      expect(stored?.user_id).toBe(who.userB);
      expect(stored?.agent_id).toBe(id);
      expect(stored?.run_data.metadata).toEqual({ mine: true, agno_component_version: 1 });
      // The owner cannot read the other member's run.
      expect((await call("GET", `/agents/${id}/runs/${ran.body.run_id}?session_id=${ran.body.session_id}`, { principal: a })).status).toBe(404);
    });

    it("a draft version runs for its owner (and an admin) only; publish, rollback and archive are what the next run uses", async () => {
      const id = await publishedAgent(a, "Versions", "one");
      const v2 = await call("POST", `/components/${id}/configs`, { principal: a, json: { config: agentConfig("two") } });
      expect(v2.status, JSON.stringify(v2.body)).toBe(201);
      expect(v2.body).toMatchObject({ version: 2, stage: "draft" });
      expect((await run(id, a, { version: "2" })).body.content).toBe("said two");
      expect((await run(id, admin, { version: "2" })).body.content).toBe("said two");
      expect(await run(id, b, { version: "2" })).toMatchObject({ status: 404, body: { detail: "Agent not found" } });
      expect((await run(id, b, { version: "two" })).status).toBe(422);
      expect((await run(id, b)).body.content).toBe("said one");
      // Publishing v2 makes it current: the very next run uses it.
      const published = await call("PATCH", `/components/${id}/configs/2`, { principal: a, json: { stage: "published" } });
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      expect((await call("GET", `/components/${id}`, { principal: a })).body.current_version).toBe(2);
      expect((await run(id, b)).body.content).toBe("said two");
      // Rollback.
      expect((await call("POST", `/components/${id}/configs/1/set-current`, { principal: a })).status).toBe(200);
      expect((await run(id, b)).body.content).toBe("said one");
      // Archive: gone from runs and lists.
      expect((await call("DELETE", `/components/${id}`, { principal: a })).status).toBe(204);
      expect(await run(id, b)).toMatchObject({ status: 404, body: { detail: "Agent not found" } });
      expect((await call("GET", "/agents", { principal: b })).body.map((x: Json) => x.id)).not.toContain(id);
    });

    it("a durable background run carries the version resolved at the submit", async () => {
      const id = await publishedAgent(a, "Durable", "queued");
      const submitted = await run(id, b, { background: "true" });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
      await until("durable run COMPLETED", async () => (await getRun(db, { scope: adminScope(), runId: submitted.body.run_id }))?.status === "COMPLETED", 20_000);
      const stored = await getRun(db, { scope: adminScope(), runId: submitted.body.run_id });
      expect(stored?.run_data.content).toBe("said queued");
      expect(stored?.run_data.metadata).toMatchObject({ agno_component_version: 1 });
      const job = await db.sql.query<{ payload: unknown }>("SELECT payload FROM agno_jobs WHERE id = ?", [submitted.body.run_id]);
      const payload = typeof job[0]!.payload === "string" ? JSON.parse(job[0]!.payload) : job[0]!.payload;
      expect(payload).toMatchObject({ component_version: 1 });
    });

    it("a stored config the registry cannot satisfy answers 422 component_rehydration_error naming what is missing", async () => {
      const id = await publishedAgent(a, "Broken", "broken");
      // As Agno's Studio would have written it, with a toolkit this server does not offer.
      const config = { ...agentConfig("broken"), tools: [{ name: "fetch_page", description: "Fetch", parameters: { type: "object", properties: {} }, toolkit: "nowhere_toolkit" }] };
      await db.sql.exec("UPDATE agno_component_configs SET config = ? WHERE component_id = ? AND version = 1", [dialect.name === "sqlite" ? JSON.stringify(config) : config, id]);
      const ran = await run(id, b);
      expect(ran.status).toBe(422);
      expect(ran.body.error_type).toBe("component_rehydration_error");
      expect(ran.body.detail).toMatch(/fetch_page|nowhere_toolkit/);
    });

    it("an eval runs a stored agent as the caller", async () => {
      const id = await publishedAgent(a, "Evaluated", "graded");
      const posted = await call("POST", "/eval-runs", { principal: b, json: { agent_id: id, eval_type: "performance", input: "go", num_iterations: 1, warmup_runs: 0 } });
      expect(posted.status, JSON.stringify(posted.body)).toBe(200);
      expect(posted.body.agent_id).toBe(id);
      // In the background, the job carries the version resolved at the submit and evaluates that one.
      const queued = await call("POST", "/eval-runs?background=true", { principal: b, json: { agent_id: id, eval_type: "performance", input: "go", num_iterations: 1, warmup_runs: 0 } });
      expect(queued.status, JSON.stringify(queued.body)).toBe(202);
      const job = await db.sql.query<{ payload: unknown }>("SELECT payload FROM agno_jobs WHERE id = ?", [queued.body.id]);
      const payload = typeof job[0]!.payload === "string" ? JSON.parse(job[0]!.payload) : job[0]!.payload;
      expect(payload).toMatchObject({ component_version: 1 });
      await until("the eval job completes", async () => (await call("GET", `/eval-runs/${queued.body.id}`, { principal: b })).body.status === "COMPLETED", 20_000);
    });

    it("ids defined in code are not available, names are bounded, and a team of a stored agent archived since answers 422", async () => {
      expect(await call("POST", "/components", { principal: a, json: { name: "Squat", component_id: "coded", component_type: "agent", config: agentConfig("squat") } })).toMatchObject({
        status: 400,
        body: { detail: "Component ID coded is not available" },
      });
      expect((await call("POST", "/components", { principal: a, json: { name: "x".repeat(4000), component_type: "agent", config: agentConfig("long") } })).status).toBe(422);
      const member = await publishedAgent(a, "Member", "member");
      const team = await call("POST", "/components", {
        principal: b,
        json: {
          name: "Borrowing team",
          component_type: "team",
          stage: "published",
          config: { model: { provider: "openai-compatible", id: "scripted" }, instructions: "SAY-team", members: [{ type: "agent", agent_id: member }] },
        },
      });
      expect(team.status, JSON.stringify(team.body)).toBe(201);
      const runTeam = () => call("POST", `/teams/${team.body.component_id}/runs`, { principal: b, form: { message: "hi", stream: "false", session_id: `s-${Math.random().toString(36).slice(2)}` } });
      expect((await runTeam()).body.content).toBe("said team");
      // Its owner archives the member another's team pins: that team's runs now say so.
      expect((await call("DELETE", `/components/${member}`, { principal: a })).status).toBe(204);
      const refused = await runTeam();
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ error_type: "component_rehydration_error", detail: expect.stringContaining(`'${member}', which is archived`) });
    });

    it("a stored team does not let a caller confined to some agents run the others through it", async () => {
      const team = await call("POST", "/components", {
        principal: admin,
        json: {
          name: "Coded team",
          component_type: "team",
          stage: "published",
          config: { model: { provider: "openai-compatible", id: "scripted" }, instructions: "SAY-team", members: [{ type: "agent", agent_id: "coded" }] },
        },
      });
      expect(team.status, JSON.stringify(team.body)).toBe(201);
      const confined = withScopes(who.a, ["teams:read", "teams:run", "agents:read", "agents:other:run", "sessions:read", "sessions:write"]);
      const ran = await call("POST", `/teams/${team.body.component_id}/runs`, { principal: confined, form: { message: "hi", stream: "false", session_id: "s-confined" } });
      expect(ran).toMatchObject({ status: 403, body: { detail: expect.stringMatching(/^Insufficient permissions. Required scope\(s\): agents:run/) } });
      expect((await call("POST", `/teams/${team.body.component_id}/runs`, { principal: b, form: { message: "hi", stream: "false", session_id: "s-free" } })).status).toBe(200);
    });

    it("schedules refuse a draft-only or archived target with Agno's 409s", async () => {
      const draft = await call("POST", "/components", { principal: a, json: { name: "Unpublished", component_type: "agent", config: agentConfig("x") } });
      const draftId = draft.body.component_id as string;
      const schedule = (name: string, target: string) => ({ name, cron_expr: "0 * * * *", endpoint: `/agents/${target}/runs`, method: "POST", payload: { message: "tick" } });
      expect(await call("POST", "/schedules", { principal: a, json: schedule("early", draftId) })).toMatchObject({
        status: 409,
        body: { detail: `Cannot create schedule 'early': its target agent '${draftId}' has no published version. Publish it first.` },
      });
      const archived = await publishedAgent(a, "Retired", "x");
      const made = await call("POST", "/schedules", { principal: a, json: schedule("hourly", archived) });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      // A fire runs the stored agent for the schedule's owner.
      const fired = await call("POST", `/schedules/${made.body.id}/trigger`, { principal: a });
      expect(fired.body).toMatchObject({ status: "success", status_code: 200, user_id: who.userA, output: { content: "said x" } });
      expect((await call("DELETE", `/components/${archived}`, { principal: a })).status).toBe(204);
      // Archiving disabled the schedule in the same transaction.
      const after = await call("GET", `/schedules/${made.body.id}`, { principal: a });
      expect(after.body).toMatchObject({ enabled: false, disabled_reason: `target_archived:agent:${archived}` });
      expect(await call("POST", "/schedules", { principal: a, json: schedule("late", archived) })).toMatchObject({
        status: 409,
        body: { detail: `Cannot create schedule 'late': its target agent '${archived}' is archived. Restore the component first.` },
      });
      expect(await call("PATCH", `/schedules/${made.body.id}`, { principal: a, json: { endpoint: `/agents/${draftId}/runs` } })).toMatchObject({
        status: 409,
        body: { detail: `Cannot repoint schedule 'hourly' at agent '${draftId}': it has no published version. Publish it first.` },
      });
      // Another member's draft-only component reads as no component at all.
      expect((await call("POST", "/schedules", { principal: b, json: schedule("theirs", draftId) })).status).toBe(201);
    });
  });
});
