import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal.ts";
import { MEMBER_SCOPES } from "@/lib/auth/dashboard/member-scopes.ts";
import { defineExternalAgent } from "@/lib/config/external-agent.ts";
import { componentIdFromName, ownerDigest } from "@/lib/components/store.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { createSchedule } from "@/lib/db/schedules/schedules.ts";
import { nullsOmittedSchema } from "@/lib/http/omit-nulls.ts";
import { ComponentConfigResponseSchema, ComponentListSchema, ComponentResponseSchema } from "@/lib/http/schemas/components.ts";
import { calculatorToolkit } from "@/lib/runtime/tools/calculator/calculator.ts";
import { defineTool, defineToolkit } from "@/lib/runtime/tools/types.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Agno's Components API on both dialects, built from the reference: every route, its defaults,
 * statuses and error texts, null fields left out (exclude_none), the scopes, Studio's limits, and
 * isolation — a member reads its own components, shared ones and others' published ones (their
 * published versions only), never another member's drafts (404); changes only its own (403 for a
 * shared or another owner's); an admin reads and changes everything.
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the schemas
type Json = any;

/** A body checked against its wire schema (null fields left out), and returned as it came (extra keys included). */
const wire = <T>(schema: z.ZodType<T>) => ({
  parse(body: unknown): T {
    expect(schema.safeParse(body).error?.issues ?? []).toEqual([]);
    return body as T;
  },
});
const Component = wire(nullsOmittedSchema(ComponentResponseSchema));
const Config = wire(nullsOmittedSchema(ComponentConfigResponseSchema));
const List = wire(nullsOmittedSchema(ComponentListSchema));

const vault = defineToolkit({ id: "vault", name: "Vault", tools: [defineTool({ name: "open_vault", description: "Opens", parameters: z.object({}), execute: () => "open" })] });

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
const locs = (body: Json) => (body.detail as { loc: unknown[] }[]).map((d) => d.loc.join("."));

describe.each(DIALECTS)("the Components API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    let db: Db;

    const call = async (method: string, path: string, { json, principal, raw }: { json?: unknown; principal?: Principal; raw?: string } = {}) => {
      const response =
        raw === undefined ? await app.call(method, path, { json, principal }) : await app.call(method, path, { principal, headers: { "content-type": "application/json" }, json: JSON.parse(raw) });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Json) : null };
    };
    /** A fresh pair of members (with the dashboard member's scopes) and the admin. */
    const people = () => {
      const who = mintPrincipals();
      return { a: withScopes(who.a, [...MEMBER_SCOPES]), b: withScopes(who.b, [...MEMBER_SCOPES]), admin: who.admin, userA: who.userA, userB: who.userB };
    };

    beforeAll(async () => {
      app = await startTestApp({
        dialect,
        env: { OPENAI_API_KEY: "sk-test" },
        agents: [
          { id: "assistant", name: "Assistant", model: null },
          defineExternalAgent({ id: "graph-agent", name: "Graph", adapter: { framework: "langgraph", invoke: async () => "", async *stream() {} } }),
        ],
        registry: { toolkits: [calculatorToolkit, { toolkit: vault, membersMayAttach: false }] },
        studio: { limits: { maxComponentsPerUser: 6, maxConfigBytes: 8192, maxInstructionsChars: 200 } },
      });
      db = await app.db();
    });
    afterAll(() => app?.close());

    describe("POST /components", () => {
      it("creates a draft v1 (201), minting the id from the name with a member's digest, leaving null fields out", async () => {
        const { a, userA } = people();
        const name = uid("Research Helper");
        const created = await call("POST", "/components", { principal: a, json: { name, component_type: "agent", config: { instructions: "Help." } } });
        expect(created.status).toBe(201);
        expect(Component.parse(created.body)).toEqual({
          component_id: `${componentIdFromName(name)}-${ownerDigest(userA)}`,
          component_type: "agent",
          name,
          user_id: userA,
          created_at: expect.any(Number),
        });
        const configs = await call("GET", `/components/${created.body.component_id}/configs`, { principal: a });
        expect(configs.body.map((c: Json) => Config.parse(c))).toEqual([
          { component_id: created.body.component_id, version: 1, stage: "draft", config: { instructions: "Help." }, created_at: expect.any(Number) },
        ]);

        // Published at once, with an explicit id, by an admin (auth off: no owner).
        const id = uid("explicit.id");
        const published = await call("POST", "/components", {
          json: {
            name: "Shared",
            component_id: id,
            component_type: "team",
            description: "d",
            metadata: { k: null },
            config: { members: [{ type: "agent", agent_id: "assistant" }] },
            label: "v1",
            stage: "published",
            notes: "n",
            set_current: false,
          },
        });
        expect(published.status).toBe(201);
        expect(Component.parse(published.body)).toEqual({
          component_id: id,
          component_type: "team",
          name: "Shared",
          description: "d",
          current_version: 1,
          metadata: { k: null },
          created_at: expect.any(Number),
        });
      });

      it("answers 422 for a body its schema refuses, 400 for a bad or taken id and a bad stage, 400 for unresolved members", async () => {
        expect(locs((await call("POST", "/components", { json: { component_type: "agent" } })).body)).toEqual(["body.name"]);
        const badType = await call("POST", "/components", { json: { name: "x", component_type: "robot" } });
        expect([badType.status, locs(badType.body)]).toEqual([422, ["body.component_type"]]);
        expect((await call("POST", "/components", { json: { name: "x", component_type: "agent", config: [] } })).status).toBe(422);
        expect((await call("POST", "/components", { json: { name: "x", component_type: "agent", stage: null } })).status).toBe(422);
        expect(await call("POST", "/components", { json: { name: "x", component_id: "a b", component_type: "agent" } })).toEqual({
          status: 400,
          body: { detail: "component_id must not contain whitespace" },
        });
        expect(await call("POST", "/components", { json: { name: "x", component_id: "..", component_type: "agent" } })).toEqual({
          status: 400,
          body: { detail: "component_id must not be a path segment" },
        });
        const id = uid("taken");
        expect((await call("POST", "/components", { json: { name: "x", component_id: id, component_type: "agent" } })).status).toBe(201);
        expect(await call("POST", "/components", { json: { name: "y", component_id: id, component_type: "workflow" } })).toEqual({
          status: 400,
          body: { detail: `Component ID ${id} is not available` },
        });
        // An external agent's id is served on the agents' routes, so Studio may not take it either.
        expect(await call("POST", "/components", { json: { name: "x", component_id: "graph-agent", component_type: "agent" } })).toEqual({
          status: 400,
          body: { detail: "Component ID graph-agent is not available" },
        });
        expect(await call("POST", "/components", { json: { name: "x", component_type: "agent", stage: "live" } })).toEqual({ status: 400, body: { detail: "Invalid stage: live" } });
        expect(await call("POST", "/components", { json: { name: "Desk", component_type: "team", config: { members: [{ type: "agent", agent_id: "ghost" }] } } })).toEqual({
          status: 400,
          body: {
            detail: "Cannot create team 'Desk': the following members could not be resolved: ghost. Referenced agents/teams must exist as components or be registered with the AgentOS instance.",
          },
        });
      });

      it("enforces Studio's limits and the registry: 422 per-member count, 413 config size, 422 instructions, 403 admin-only toolkit, 422 unknown tool", async () => {
        const { a } = people();
        for (let i = 0; i < 6; i++) expect((await call("POST", "/components", { principal: a, json: { name: uid("n"), component_type: "agent" } })).status).toBe(201);
        expect(await call("POST", "/components", { principal: a, json: { name: uid("n"), component_type: "agent" } })).toEqual({
          status: 422,
          body: { detail: "Component limit reached: you have 6 components and the limit is 6 per member (studio.limits.maxComponentsPerUser); archive one first" },
        });
        // Admins are not counted against a member's limit.
        expect((await call("POST", "/components", { json: { name: uid("n"), component_type: "agent" } })).status).toBe(201);
        const { b } = people();
        const big = await call("POST", "/components", { principal: b, json: { name: "big", component_type: "agent", config: { notes: "x".repeat(9000) } } });
        expect([big.status, big.body.detail]).toEqual([413, expect.stringMatching(/^The config is \d+ bytes; the limit is 8192 bytes \(studio\.limits\.maxConfigBytes\)$/)]);
        expect(await call("POST", "/components", { principal: b, json: { name: "long", component_type: "agent", config: { instructions: "y".repeat(201) } } })).toEqual({
          status: 422,
          body: { detail: "The instructions are 201 characters; the limit is 200 characters (studio.limits.maxInstructionsChars)" },
        });
        expect(await call("POST", "/components", { principal: b, json: { name: "vault", component_type: "agent", config: { tools: [{ name: "open_vault", toolkit: "Vault" }] } } })).toEqual({
          status: 403,
          body: { detail: "Cannot use in a agent: tools.0: toolkit 'Vault' is offered to admins only" },
        });
        expect(await call("POST", "/components", { principal: b, json: { name: "ghost", component_type: "agent", config: { tools: [{ name: "summon" }] } } })).toEqual({
          status: 422,
          body: { detail: "Cannot save this agent: tools.0: tool 'summon' is not a function of any toolkit in the registry" },
        });
        expect((await call("POST", "/components", { json: { name: "vault", component_type: "agent", config: { tools: [{ name: "open_vault", toolkit: "Vault" }] } } })).status).toBe(201);
      });
    });

    describe("GET /components", () => {
      it("pages newest first (page 1, limit 20 by default) with Agno's meta, filters by type and archived rows, and refuses bad queries (422)", async () => {
        const type = "workflow";
        const made: string[] = [];
        for (let i = 0; i < 3; i++) made.push((await call("POST", "/components", { json: { name: uid("flow"), component_type: type } })).body.component_id);
        const list = await call("GET", `/components?component_type=${type}`);
        expect(list.status).toBe(200);
        const parsed = List.parse(list.body);
        expect(parsed.meta).toEqual({ page: 1, limit: 20, total_pages: 1, total_count: parsed.data.length, search_time_ms: expect.any(Number) });
        expect(parsed.data.every((c) => c.component_type === type)).toBe(true);
        const page = await call("GET", `/components?component_type=${type}&limit=1&page=2`);
        expect([page.body.meta.page, page.body.meta.limit, page.body.meta.total_pages, page.body.data.length]).toEqual([2, 1, parsed.data.length, 1]);
        // Archived rows appear with include_deleted, marked by deleted_at.
        expect((await call("DELETE", `/components/${made[0]}`)).status).toBe(204);
        const ids = (q: string) => call("GET", `/components?component_type=${type}&limit=100${q}`).then((r) => r.body.data.map((c: Json) => c.component_id));
        expect(await ids("")).not.toContain(made[0]);
        expect(await ids("&include_deleted=true")).toContain(made[0]);
        for (const bad of ["limit=0", "limit=101", "page=0", "component_type=robot", "include_deleted=maybe"]) {
          const refused = await call("GET", `/components?${bad}`);
          expect([refused.status, locs(refused.body)], bad).toEqual([422, [`query.${bad.split("=")[0]}`]]);
        }
      });
    });

    describe("one component", () => {
      it("GET, PATCH (fields, guard, rollback), DELETE (204; guards), POST restore — with Agno's statuses and texts", async () => {
        const id = uid("one");
        const missing = uid("missing");
        expect(
          (await call("POST", "/components", { json: { name: "One", component_id: id, component_type: "agent", config: { name: "One v1", description: "first" }, stage: "published" } })).status,
        ).toBe(201);
        expect(await call("GET", `/components/${missing}`)).toEqual({ status: 404, body: { detail: `Component ${missing} not found` } });
        expect(Component.parse((await call("GET", `/components/${id}`)).body)).toMatchObject({ component_id: id, current_version: 1, name: "One" });

        const patched = await call("PATCH", `/components/${id}`, { json: { name: "Renamed", metadata: { team: "blue" } } });
        expect([patched.status, patched.body.name, patched.body.metadata, typeof patched.body.updated_at]).toEqual([200, "Renamed", { team: "blue" }, "number"]);
        expect(await call("PATCH", `/components/${id}`, { json: { name: "x", guard: { current_version: 3 } } })).toEqual({
          status: 409,
          body: { detail: `Component ${id} current version is 1, expected 3` },
        });
        expect(await call("PATCH", `/components/${id}`, { json: { guard: { latest_version: 1 } } })).toEqual({
          status: 400,
          body: { detail: "This route checks guard.current_version only; guard.latest_version is not honoured here. Remove it, or use the route that enforces it." },
        });
        expect(await call("PATCH", `/components/${id}`, { json: { component_type: "team" } })).toEqual({
          status: 400,
          body: { detail: `Cannot change component ${id} from agent to team; a component's type is fixed at creation.` },
        });
        expect(await call("PATCH", `/components/${missing}`, { json: {} })).toEqual({ status: 404, body: { detail: `Component ${missing} not found` } });
        // A rollback through PATCH projects the version's name and description.
        await call("POST", `/components/${id}/configs`, { json: { config: { name: "One v2" }, stage: "published" } });
        expect((await call("GET", `/components/${id}`)).body).toMatchObject({ current_version: 2, name: "One v2" });
        expect((await call("PATCH", `/components/${id}`, { json: { current_version: 1 } })).body).toMatchObject({ current_version: 1, name: "One v1", description: "first" });

        // DELETE: the guard from the query or the body (they must agree), 409 on a mismatch, 204 and then 404.
        expect(await call("DELETE", `/components/${id}?expected_current_version=1`, { json: { guard: { current_version: 2 } } })).toEqual({
          status: 400,
          body: { detail: "Conflicting guards: expected_current_version query param and guard.current_version disagree. Send one." },
        });
        expect(await call("DELETE", `/components/${id}`, { json: { guard: { latest_version: 2 } } })).toEqual({
          status: 400,
          body: { detail: "This route checks guard.current_version only; guard.latest_version is not honoured here. Remove it, or use the route that enforces it." },
        });
        expect(await call("DELETE", `/components/${id}?expected_current_version=2`)).toEqual({ status: 409, body: { detail: `Component ${id} current version is 1, expected 2` } });
        expect((await call("DELETE", `/components/${id}?expected_current_version=x`)).status).toBe(422);
        expect(await call("DELETE", `/components/${id}`, { json: { guard: { current_version: 1 } } })).toEqual({ status: 204, body: null });
        expect(await call("DELETE", `/components/${id}`)).toEqual({ status: 404, body: { detail: `Component ${id} not found` } });
        expect((await call("GET", `/components/${id}`)).status).toBe(404);
        expect((await call("GET", `/components/${id}?include_deleted=true`)).body.deleted_at).toEqual(expect.any(Number));
        expect(await call("PATCH", `/components/${id}`, { json: { name: "x" } })).toEqual({ status: 404, body: { detail: `Component ${id} not found` } });

        const restored = await call("POST", `/components/${id}/restore`);
        expect([restored.status, restored.body.deleted_at, restored.body.current_version]).toEqual([200, undefined, 1]);
        expect(await call("POST", `/components/${id}/restore`)).toEqual({ status: 409, body: { detail: "Component is not archived" } });
        expect(await call("POST", `/components/${missing}/restore`)).toEqual({ status: 404, body: { detail: `Component ${missing} not found` } });
      });

      it("archiving disables the component's schedules (disabled_reason target_archived:<type>:<id>)", async () => {
        const { a, userA } = people();
        const created = await call("POST", "/components", { principal: a, json: { name: uid("Scheduled"), component_type: "agent", stage: "published" } });
        const id = created.body.component_id;
        const schedule = await createSchedule(db, {
          scope: adminScope(),
          owner: userA,
          schedule: {
            name: uid("nightly"),
            method: "POST",
            endpoint: `/agents/${id}/runs`,
            cron_expr: "0 3 * * *",
            timezone: "UTC",
            timeout_seconds: 60,
            max_retries: 0,
            retry_delay_seconds: 60,
            next_run_at: null,
            target_type: "agent",
            target_id: id,
          },
        });
        expect((await call("DELETE", `/components/${id}`, { principal: a })).status).toBe(204);
        const stored = await call("GET", `/schedules/${schedule.id}`);
        expect([stored.body.enabled, stored.body.disabled_reason]).toEqual([false, `target_archived:agent:${id}`]);
      });
    });

    describe("config versions", () => {
      it("list (include_config), create (201; guard), current, one, PATCH (draft only; publish), DELETE (tombstone; 204), set-current — with Agno's texts", async () => {
        const id = uid("versions");
        await call("POST", "/components", { json: { name: "Versions", component_id: id, component_type: "agent", config: { instructions: "one" } } });
        expect(await call("GET", `/components/${id}/configs/current`)).toMatchObject({ status: 200, body: { version: 1, stage: "draft" } });
        const v2 = await call("POST", `/components/${id}/configs`, { json: { config: { instructions: "two" }, label: "second", notes: "wip", version: 99, set_current: true } });
        expect([v2.status, Config.parse(v2.body)]).toEqual([
          201,
          { component_id: id, version: 2, label: "second", stage: "draft", config: { instructions: "two" }, notes: "wip", created_at: expect.any(Number) },
        ]);
        expect(await call("POST", `/components/${id}/configs`, { json: { config: {}, guard: { latest_version: 1 } } })).toEqual({
          status: 409,
          body: { detail: `Component ${id} latest version is 2, expected 1` },
        });
        expect(await call("POST", `/components/${id}/configs`, { json: { config: {}, guard: { current_version: 1 } } })).toEqual({
          status: 400,
          body: { detail: "This route checks guard.latest_version only; guard.current_version is not honoured here. Remove it, or use the route that enforces it." },
        });
        expect(locs((await call("POST", `/components/${id}/configs`, { json: { label: "x" } })).body)).toEqual(["body.config"]);
        expect(await call("POST", `/components/${id}/configs`, { json: { config: {}, label: "second" } })).toEqual({ status: 400, body: { detail: `Label 'second' already exists for ${id}` } });

        const listed = await call("GET", `/components/${id}/configs`);
        expect(listed.body.map((c: Json) => [c.version, c.config])).toEqual([
          [2, { instructions: "two" }],
          [1, { instructions: "one" }],
        ]);
        const bare = await call("GET", `/components/${id}/configs?include_config=false`);
        expect(bare.body.map((c: Json) => Config.parse(c))).toEqual([
          { component_id: id, version: 2, label: "second", stage: "draft", notes: "wip", created_at: expect.any(Number) },
          { component_id: id, version: 1, stage: "draft", created_at: expect.any(Number) },
        ]);
        expect((await call("GET", `/components/${id}/configs/2`)).body.notes).toBe("wip");
        expect(await call("GET", `/components/${id}/configs/7`)).toEqual({ status: 404, body: { detail: `Config ${id} v7 not found` } });
        const notInt = await call("GET", `/components/${id}/configs/two`);
        expect([notInt.status, locs(notInt.body)]).toEqual([422, ["path.version"]]);

        const edited = await call("PATCH", `/components/${id}/configs/2`, { json: { config: { instructions: "two, edited", name: "Versions two" }, notes: "ready" } });
        expect([edited.status, edited.body.stage, edited.body.notes, typeof edited.body.updated_at]).toEqual([200, "draft", "ready", "number"]);
        const published = await call("PATCH", `/components/${id}/configs/2`, { json: { stage: "published" } });
        expect([published.status, published.body.stage]).toEqual([200, "published"]);
        expect((await call("GET", `/components/${id}`)).body).toMatchObject({ current_version: 2, name: "Versions two" });
        expect(await call("PATCH", `/components/${id}/configs/2`, { json: { notes: "x" } })).toEqual({ status: 400, body: { detail: `Cannot update published config ${id} v2` } });
        expect(await call("PATCH", `/components/${id}/configs/8`, { json: { notes: "x" } })).toEqual({ status: 400, body: { detail: `Config ${id} v8 not found` } });
        expect(await call("DELETE", `/components/${id}/configs/2`)).toEqual({ status: 400, body: { detail: `Cannot delete published config ${id} v2; only drafts are deletable` } });
        expect(await call("DELETE", `/components/${id}/configs/1`)).toEqual({ status: 204, body: null });
        expect(await call("DELETE", `/components/${id}/configs/1`)).toEqual({ status: 404, body: { detail: `Config ${id} v1 not found` } });
        const v3 = await call("POST", `/components/${id}/configs`, { json: { config: { name: "Versions three" }, stage: "published" } });
        expect(v3.body.version).toBe(3);

        // set-current: rollback among published versions; an empty POST works; a guard is checked.
        expect(await call("POST", `/components/${id}/configs/2/set-current`, { json: { guard: { current_version: 2 } } })).toEqual({
          status: 409,
          body: { detail: `Component ${id} current version is 3, expected 2` },
        });
        const rolled = await call("POST", `/components/${id}/configs/2/set-current`);
        expect([rolled.status, rolled.body.current_version, rolled.body.name]).toEqual([200, 2, "Versions two"]);
        expect(Component.parse(rolled.body).component_id).toBe(id);
        expect(await call("POST", `/components/${id}/configs/9/set-current`, { json: {} })).toEqual({ status: 404, body: { detail: `Component ${id} or config version 9 not found` } });
        // A deleted draft is refused as a draft, as Agno's stage check reads it.
        expect(await call("POST", `/components/${id}/configs/1/set-current`)).toEqual({
          status: 400,
          body: { detail: `Cannot set draft config ${id} v1 as current. Only published configs can be current.` },
        });
        await call("POST", `/components/${id}/configs`, { json: { config: {} } });
        expect(await call("POST", `/components/${id}/configs/4/set-current`, { json: { guard: null } })).toEqual({
          status: 400,
          body: { detail: `Cannot set draft config ${id} v4 as current. Only published configs can be current.` },
        });
        expect((await call("GET", `/components/${id}/configs/current`)).body.version).toBe(2);
        const fresh = uid("nothing");
        expect(await call("GET", `/components/${fresh}/configs/current`)).toEqual({ status: 404, body: { detail: `Component ${fresh} not found` } });
      });
    });

    describe("scopes", () => {
      it("reads need components:read, writes components:write, deletes and restores components:delete", async () => {
        const { a } = people();
        const only = (scopes: string[]) => withScopes(a, scopes);
        const id = (await call("POST", "/components", { principal: a, json: { name: uid("scoped"), component_type: "agent" } })).body.component_id;
        const cases: [string, string, string, unknown?][] = [
          ["GET", "/components", "components:read"],
          ["POST", "/components", "components:write", { name: "x", component_type: "agent" }],
          ["GET", `/components/${id}`, "components:read"],
          ["PATCH", `/components/${id}`, "components:write", {}],
          ["DELETE", `/components/${id}`, "components:delete"],
          ["POST", `/components/${id}/restore`, "components:delete"],
          ["GET", `/components/${id}/configs`, "components:read"],
          ["POST", `/components/${id}/configs`, "components:write", { config: {} }],
          ["GET", `/components/${id}/configs/current`, "components:read"],
          ["GET", `/components/${id}/configs/1`, "components:read"],
          ["PATCH", `/components/${id}/configs/1`, "components:write", {}],
          ["DELETE", `/components/${id}/configs/1`, "components:delete"],
          ["POST", `/components/${id}/configs/1/set-current`, "components:write"],
        ];
        for (const [method, path, scope, json] of cases) {
          const others = ["components:read", "components:write", "components:delete"].filter((s) => s !== scope);
          expect(await call(method, path, { principal: only(others), json }), `${method} ${path}`).toEqual({ status: 403, body: { detail: `Insufficient permissions. Required scope(s): ${scope}` } });
        }
        expect(MEMBER_SCOPES).toEqual(expect.arrayContaining(["components:read", "components:write", "components:delete"]));
      });
    });

    describe("isolation", () => {
      it("B never sees A's drafts, reads A's published versions only, changes nothing of A's or shared; an admin reads and changes all", async () => {
        const { a, b, admin, userA } = people();
        const draft = (await call("POST", "/components", { principal: a, json: { name: uid("A draft"), component_type: "agent", config: { instructions: "A's secret" } } })).body.component_id;
        const published = (await call("POST", "/components", { principal: a, json: { name: uid("A published"), component_type: "agent", config: { instructions: "v1" }, stage: "published" } })).body
          .component_id;
        await call("POST", `/components/${published}/configs`, { principal: a, json: { config: { instructions: "A's v2 draft" } } });
        const shared = (
          await call("POST", "/components", {
            principal: admin,
            json: { name: uid("Shared"), component_type: "agent", config: { db: { id: app.settings.database.id, type: "sqlite", db_file: "/secret/path.db", session_table: "s" } } },
          })
        ).body.component_id;

        // Reads.
        for (const path of [
          `/components/${draft}`,
          `/components/${draft}?include_deleted=true`,
          `/components/${draft}/configs`,
          `/components/${draft}/configs/current`,
          `/components/${draft}/configs/1`,
        ]) {
          expect(await call("GET", path, { principal: b }), path).toEqual({ status: 404, body: { detail: `Component ${draft} not found` } });
        }
        const listed = JSON.stringify((await call("GET", "/components?limit=100&include_deleted=true", { principal: b })).body);
        expect(listed).not.toContain(draft);
        expect(listed).toContain(published);
        expect(listed).toContain(shared);
        expect((await call("GET", `/components/${published}`, { principal: b })).body.user_id).toBe(userA);
        expect((await call("GET", `/components/${published}/configs`, { principal: b })).body.map((c: Json) => c.version)).toEqual([1]);
        expect(await call("GET", `/components/${published}/configs/2`, { principal: b })).toEqual({ status: 404, body: { detail: `Config ${published} v2 not found` } });
        expect((await call("GET", `/components/${published}/configs/2`, { principal: a })).body.config).toEqual({ instructions: "A's v2 draft" });
        expect((await call("GET", `/components/${shared}/configs/1`, { principal: b })).body.config.db).toEqual({ id: app.settings.database.id, type: "sqlite", session_table: "s" });
        expect((await call("GET", `/components/${shared}/configs/1`, { principal: admin })).body.config.db.db_file).toBe("/secret/path.db");
        expect(JSON.stringify((await call("GET", "/components?limit=100", { principal: admin })).body)).toContain(draft);
        expect((await call("GET", `/components/${draft}/configs/1`, { principal: admin })).status).toBe(200);

        // Writes.
        const owned = { status: 403, body: { detail: "Cannot modify component owned by another user" } };
        expect(await call("PATCH", `/components/${published}`, { principal: b, json: { name: "B's now" } })).toEqual(owned);
        expect(await call("POST", `/components/${published}/configs`, { principal: b, json: { config: {} } })).toEqual(owned);
        expect(await call("PATCH", `/components/${published}/configs/2`, { principal: b, json: { stage: "published" } })).toEqual(owned);
        expect(await call("POST", `/components/${published}/configs/1/set-current`, { principal: b })).toEqual(owned);
        expect(await call("DELETE", `/components/${published}/configs/2`, { principal: b })).toEqual({ status: 403, body: { detail: "Cannot delete component owned by another user" } });
        expect(await call("DELETE", `/components/${published}`, { principal: b })).toEqual({ status: 403, body: { detail: "Cannot delete component owned by another user" } });
        expect(await call("PATCH", `/components/${shared}`, { principal: b, json: { name: "x" } })).toEqual({ status: 403, body: { detail: "Cannot modify shared component" } });
        expect(await call("DELETE", `/components/${shared}`, { principal: b })).toEqual({ status: 403, body: { detail: "Cannot delete shared component" } });
        expect(await call("PATCH", `/components/${draft}`, { principal: b, json: { name: "x" } })).toEqual({ status: 404, body: { detail: `Component ${draft} not found` } });
        expect(await call("DELETE", `/components/${draft}`, { principal: b })).toEqual({ status: 404, body: { detail: `Component ${draft} not found` } });
        expect((await call("GET", `/components/${published}`, { principal: a })).body.name).not.toBe("B's now");
        expect((await call("GET", `/components/${published}`, { principal: a })).body.current_version).toBe(1);

        // An admin changes anyone's.
        expect((await call("PATCH", `/components/${draft}`, { principal: admin, json: { description: "seen by admin" } })).body.description).toBe("seen by admin");
        expect((await call("PATCH", `/components/${published}/configs/2`, { principal: admin, json: { stage: "published" } })).body.stage).toBe("published");
        expect((await call("DELETE", `/components/${draft}`, { principal: admin })).status).toBe(204);
        // A's archived draft stays gone for B, even with include_deleted; A sees it.
        expect((await call("GET", `/components/${draft}?include_deleted=true`, { principal: b })).status).toBe(404);
        expect((await call("GET", `/components/${draft}?include_deleted=true`, { principal: a })).status).toBe(200);
      });
    });
  });
});
