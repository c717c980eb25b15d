import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { MEMBER_SCOPES } from "@/lib/auth/dashboard/member-scopes.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { userEntityKey } from "@/lib/db/learnings/learning-ids.ts";
import { insertLearning, type LearningInput } from "@/lib/db/learnings/learnings.ts";
import { LearningListSchema, LearningResponseSchema, LearningUserListSchema } from "@/lib/http/schemas/learnings.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Agno's Learnings API on both dialects: every route, its
 * defaults, statuses and texts, and isolation — a member reads its own and the shared rows, never
 * another user's (404), changes only its own (a shared row's change is a 403), and naming another
 * user is a 403; an admin reads and changes everything.
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the schemas
type Json = any;

const SCOPES = ["learnings:read", "learnings:write", "learnings:delete"];
const T0 = 1_700_000_000;
let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}-${Math.random().toString(36).slice(2, 6)}`;
const locs = (body: Json) => (body.detail as { loc: unknown[] }[]).map((d) => d.loc.join("."));

describe.each(DIALECTS)("learnings API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    let db: Db;
    const who = mintPrincipals();
    const a = withScopes(who.a, SCOPES);
    const b = withScopes(who.b, SCOPES);

    const call = async (method: string, path: string, { json, principal }: { json?: unknown; principal?: Principal } = {}) => {
      const response = await app.call(method, path, { json, principal });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Json) : null };
    };
    /** A row written straight to storage (an admin's write for `owner`; null: shared). */
    const seed = (owner: string | null, learning: Partial<LearningInput> & { learningId?: string }, now = T0) =>
      insertLearning(db, { scope: adminScope(owner), learning: { learningId: uid("seed"), learningType: "decision_log", content: { decision: "x" }, ...learning }, now });

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [{ id: "assistant", name: "Assistant", model: null }] });
      db = await app.db();
    });
    afterAll(() => app?.close());

    describe("POST /learnings", () => {
      it("creates identity-keyed rows at their deterministic ids (201, nulls sent, no workflow_id), and 409s a second create", async () => {
        const user = uid("u");
        const session = uid("s");
        const cases: [Json, string][] = [
          [{ learning_type: "user_profile", user_id: user, content: { name: "Ada" } }, `user_profile_${user}`],
          [{ learning_type: "user_memory", user_id: user, content: { memories: [] } }, `memories_${user}`],
          [{ learning_type: "session_context", session_id: session, content: { summary: "s" } }, `session_context_${session}`],
          [{ learning_type: "entity_memory", entity_id: `acme_${session}`, entity_type: "company", content: { name: "Acme" } }, `entity_global_company_acme_${session}`],
          [{ learning_type: "entity_memory", namespace: "team_x", entity_id: `acme_${session}`, entity_type: "company", content: {} }, `entity_team_x_company_acme_${session}`],
          [{ learning_type: "entity_memory", namespace: "user", user_id: user, entity_id: "bob", entity_type: "person", content: {} }, userEntityKey(user, "person", "bob")],
        ];
        for (const [body, id] of cases) {
          const created = await call("POST", "/learnings", { json: body });
          expect(created.status, id).toBe(201);
          expect(LearningResponseSchema.strict().parse(created.body)).toMatchObject({ learning_id: id, learning_type: body.learning_type, content: body.content });
          expect(created.body).not.toHaveProperty("workflow_id");
          expect(created.body.created_at).toBe(created.body.updated_at);
          expect(created.body.created_at).toBeGreaterThan(1_700_000_000);
          const again = await call("POST", "/learnings", { json: { ...body, content: { other: true } } });
          expect(again).toEqual({
            status: 409,
            body: { detail: `A '${body.learning_type}' learning already exists for this identity (id '${id}'). Use PATCH /learnings/${id} to update it.` },
          });
          expect((await call("GET", `/learnings/${id}`)).body.content).toEqual(body.content);
        }
        const entity = (await call("GET", `/learnings/entity_global_company_acme_${session}`)).body;
        // An entity with no namespace is stored in the default one, the key's; nulls are sent as null.
        expect(entity).toMatchObject({ namespace: "global", user_id: null, agent_id: null, team_id: null, session_id: null, metadata: null, entity_id: `acme_${session}`, entity_type: "company" });
      });

      it("gives other types a uuid, keeps every field given, and lets an admin create a shared row", async () => {
        const body = { learning_type: "decision_log", content: { decision: "ship" }, agent_id: "assistant", team_id: "t", session_id: "s", metadata: { tags: ["a"], gone: null }, namespace: "ns" };
        const first = await call("POST", "/learnings", { json: body });
        const second = await call("POST", "/learnings", { json: body });
        expect([first.status, second.status]).toEqual([201, 201]);
        expect(first.body.learning_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(first.body.learning_id).not.toBe(second.body.learning_id);
        expect(first.body).toMatchObject({ ...body, user_id: null, entity_id: null, entity_type: null });
      });

      it("refuses missing identity fields and a reserved namespace with Agno's 422s, and bad bodies with FastAPI's", async () => {
        const generic = (type: string) =>
          `learning_type '${type}' is keyed by its identity fields; provide the required field(s) (user_id, session_id, or entity_id + entity_type) so the record reconciles with the agent's store.`;
        for (const body of [
          { learning_type: "user_profile", content: {} },
          { learning_type: "user_memory", user_id: "", content: {} },
          { learning_type: "session_context", user_id: "u", content: {} },
          { learning_type: "entity_memory", entity_id: "acme", content: {} },
          { learning_type: "entity_memory", namespace: "global", entity_type: "company", content: {} },
        ]) {
          expect(await call("POST", "/learnings", { json: body }), JSON.stringify(body)).toEqual({ status: 422, body: { detail: generic(body.learning_type) } });
        }
        const userNamespace =
          'entity_memory under namespace="user" is keyed by the owning user as well as the entity; provide user_id together with entity_id + entity_type so the record reconciles with the agent\'s store.';
        expect(await call("POST", "/learnings", { json: { learning_type: "entity_memory", namespace: "user", entity_id: "bob", entity_type: "person", content: {} } })).toEqual({
          status: 422,
          body: { detail: userNamespace },
        });
        expect(await call("POST", "/learnings", { json: { learning_type: "entity_memory", namespace: "user", user_id: "u", content: {} } })).toEqual({ status: 422, body: { detail: userNamespace } });
        for (const namespace of ["user_0123456789abcdef", "user_0123456789abcdef_person"]) {
          expect(await call("POST", "/learnings", { json: { learning_type: "entity_memory", namespace, entity_id: "x", entity_type: "y", content: {} } })).toEqual({
            status: 422,
            body: {
              detail: `namespace '${namespace}' is reserved: it has the key shape entity_memory uses for namespace="user" records, so a record stored under it would occupy another user's key. Choose a different namespace.`,
            },
          });
        }
        // The reserved shape matters for entity rows only.
        expect((await call("POST", "/learnings", { json: { learning_type: "decision_log", namespace: "user_0123456789abcdef", content: {} } })).status).toBe(201);
        for (const [body, expected] of [
          [{ learning_type: "user_profile", user_id: "u" }, ["body.content"]],
          [{ learning_type: "user_profile", user_id: "u", content: null }, ["body.content"]],
          [{ learning_type: "user_profile", user_id: "u", content: ["x"] }, ["body.content"]],
          [{ content: {} }, ["body.learning_type"]],
          [{ learning_type: 7, content: {}, user_id: 5, metadata: "m" }, ["body.learning_type", "body.user_id", "body.metadata"]],
        ] as const) {
          const response = await call("POST", "/learnings", { json: body });
          expect(response.status, JSON.stringify(body)).toBe(422);
          expect(locs(response.body), JSON.stringify(body)).toEqual(expected);
        }
        expect((await call("POST", "/learnings")).status).toBe(422);
      });

      it("a member creates its own rows only: another user is a 403, and a row naming no user is still the member's", async () => {
        expect(await call("POST", "/learnings", { json: { learning_type: "user_profile", user_id: who.userB, content: {} }, principal: a })).toEqual({
          status: 403,
          body: { detail: "Cannot create learnings for another user" },
        });
        const own = await call("POST", "/learnings", { json: { learning_type: "user_profile", user_id: who.userA, content: { name: "A" } }, principal: a });
        expect(own).toMatchObject({ status: 201, body: { learning_id: `user_profile_${who.userA}`, user_id: who.userA } });
        const decision = await call("POST", "/learnings", { json: { learning_type: "decision_log", content: { decision: "d" } }, principal: a });
        expect(decision).toMatchObject({ status: 201, body: { user_id: who.userA } });
        // An identity the key needs is never filled in from the caller (Agno's 422).
        expect((await call("POST", "/learnings", { json: { learning_type: "user_memory", content: {} }, principal: a })).status).toBe(422);
        // A shared entity's key is not a member's to take, whether or not it exists (Agno lets any
        // caller create it; the agents of every user write there): a 403, and the row is unchanged.
        const shared = await seed(null, { learningId: `entity_global_person_${uid("p")}`, learningType: "entity_memory", entityId: "p", entityType: "person", namespace: "global" });
        const entityId = shared.learning_id.replace("entity_global_person_", "");
        const clash = await call("POST", "/learnings", { json: { learning_type: "entity_memory", entity_id: entityId, entity_type: "person", content: { name: "mine" } }, principal: a });
        expect(clash).toEqual({ status: 403, body: { detail: "Only admins can create entity learnings in a shared namespace ('global'); use namespace 'user' for your own" } });
        expect(
          (await call("POST", "/learnings", { json: { learning_type: "entity_memory", entity_id: uid("fresh"), entity_type: "person", namespace: "acme", content: {} }, principal: a })).status,
        ).toBe(403);
        expect((await call("GET", `/learnings/${shared.learning_id}`)).body.content).toEqual({ decision: "x" });
        // In namespace user the entity is the member's own.
        const mine = await call("POST", "/learnings", {
          json: { learning_type: "entity_memory", entity_id: "p", entity_type: "person", namespace: "user", user_id: who.userA, content: {} },
          principal: a,
        });
        expect(mine).toMatchObject({ status: 201, body: { user_id: who.userA, namespace: "user" } });
        // A session's context: only a session of the member's own (another's, or none, the same 403).
        expect(await call("POST", "/learnings", { json: { learning_type: "session_context", session_id: uid("not-mine"), content: {} }, principal: a })).toEqual({
          status: 403,
          body: { detail: "Cannot create learnings for another user's session" },
        });
        const reader = withScopes(who.a, ["learnings:read"]);
        expect((await call("POST", "/learnings", { json: { learning_type: "decision_log", content: {} }, principal: reader })).status).toBe(403);
      });
    });

    describe("GET /learnings", () => {
      it("lists with Agno's defaults, filters, sorting (an unknown sort_by ignored) and paging", async () => {
        const agent = uid("agent");
        const owner = uid("owner");
        const l1 = await seed(owner, { agentId: agent, learningType: "user_profile", namespace: "n1" }, T0 + 30);
        const l2 = await seed(owner, { agentId: agent, learningType: "user_memory", sessionId: "s2" }, T0 + 10);
        const l3 = await seed(null, { agentId: agent, learningType: "entity_memory", namespace: "global", entityId: "acme", entityType: "company", teamId: "t3" }, T0 + 20);
        const list = await call("GET", `/learnings?agent_id=${agent}`);
        expect(list.status).toBe(200);
        const parsed = LearningListSchema.parse(list.body);
        expect(parsed.data.map((l) => l.learning_id)).toEqual([l1.learning_id, l3.learning_id, l2.learning_id]);
        expect(parsed.meta).toMatchObject({ page: 1, limit: 100, total_pages: 1, total_count: 3 });
        expect(parsed.data[0]).not.toHaveProperty("workflow_id");
        expect(parsed.data[1]).toMatchObject({ user_id: null, session_id: null, metadata: null });
        const ids = async (query: string) => (await call("GET", `/learnings?agent_id=${agent}&${query}`)).body.data.map((l: Json) => l.learning_id);
        expect(await ids("sort_order=asc")).toEqual([l2.learning_id, l3.learning_id, l1.learning_id]);
        expect(await ids("sort_by=created_at&sort_order=asc")).toEqual([l2.learning_id, l3.learning_id, l1.learning_id]);
        expect(await ids("sort_by=no_such_field")).toEqual([l1.learning_id, l3.learning_id, l2.learning_id]);
        expect(await ids("learning_type=user_memory")).toEqual([l2.learning_id]);
        expect(await ids(`user_id=${owner}`)).toEqual([l1.learning_id, l2.learning_id]);
        expect(await ids("namespace=n1")).toEqual([l1.learning_id]);
        expect(await ids("session_id=s2")).toEqual([l2.learning_id]);
        expect(await ids("team_id=t3")).toEqual([l3.learning_id]);
        expect(await ids("entity_id=acme&entity_type=company")).toEqual([l3.learning_id]);
        const page = LearningListSchema.parse((await call("GET", `/learnings?agent_id=${agent}&limit=2&page=2`)).body);
        expect(page.data.map((l) => l.learning_id)).toEqual([l2.learning_id]);
        expect(page.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 3 });
        expect((await call("GET", `/learnings?agent_id=${agent}&limit=1000`)).status).toBe(200);
      });

      it("refuses bad parameters with 422 naming them, and a bad database selection with 400/404", async () => {
        for (const [query, loc] of [
          ["limit=0", "query.limit"],
          ["limit=1001", "query.limit"],
          ["limit=x", "query.limit"],
          ["page=0", "query.page"],
          ["sort_order=sideways", "query.sort_order"],
        ] as const) {
          const response = await call("GET", `/learnings?${query}`);
          expect(response.status, query).toBe(422);
          expect(locs(response.body), query).toEqual([loc]);
        }
        expect(await call("GET", "/learnings?db_id=nope")).toEqual({ status: 404, body: { detail: "No database found with id 'nope'" } });
        expect(await call("GET", "/learnings?table=agno_learnings")).toEqual({ status: 400, body: { detail: "The db_id query parameter is required when passing a table" } });
        const dbId = app.settings.database.id;
        expect((await call("GET", `/learnings?db_id=${dbId}&table=agno_learnings`)).status).toBe(200);
        expect((await call("GET", `/learnings?db_id=${dbId}&table=agno_memories`)).status).toBe(404);
      });
    });

    describe("GET /learnings/users and DELETE /learnings/users/{user_id}", () => {
      it("lists owners with their last change (limit 20 by default), and deletes a user's rows (204 even when none)", async () => {
        const type = uid("type");
        const [u1, u2] = [uid("u1"), uid("u2")];
        await seed(u1, { learningType: type }, T0 + 10);
        await seed(u1, { learningType: type }, T0 + 40);
        await seed(u2, { learningType: type }, T0 + 20);
        const shared = await seed(null, { learningType: type }, T0 + 90);
        const users = await call("GET", `/learnings/users?learning_type=${type}`);
        expect(users.status).toBe(200);
        const parsed = LearningUserListSchema.strict().parse(users.body);
        expect(parsed.data).toEqual([
          { user_id: u1, last_learning_updated_at: T0 + 40 },
          { user_id: u2, last_learning_updated_at: T0 + 20 },
        ]);
        expect(parsed.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 2 });
        expect((await call("GET", `/learnings/users?learning_type=${type}&sort_by=user_id&sort_order=asc`)).body.data.map((u: Json) => u.user_id)).toEqual([u1, u2].sort());
        expect((await call("GET", `/learnings/users?learning_type=${type}&user_id=${u2}`)).body.data).toEqual([{ user_id: u2, last_learning_updated_at: T0 + 20 }]);
        expect(locs((await call("GET", "/learnings/users?limit=1001")).body)).toEqual(["query.limit"]);

        expect(await call("DELETE", `/learnings/users/${u1}?learning_type=other`)).toEqual({ status: 204, body: null });
        expect((await call("GET", `/learnings?learning_type=${type}&user_id=${u1}`)).body.meta.total_count).toBe(2);
        expect(await call("DELETE", `/learnings/users/${u1}?learning_type=${type}`)).toEqual({ status: 204, body: null });
        expect((await call("GET", `/learnings?learning_type=${type}&user_id=${u1}`)).body.meta.total_count).toBe(0);
        expect(await call("DELETE", `/learnings/users/${u1}`)).toEqual({ status: 204, body: null });
        expect((await call("GET", `/learnings/${shared.learning_id}`)).status).toBe(200);
      });
    });

    describe("one learning", () => {
      it("GET, PATCH (full replace of what is given; {} changes nothing; content null is a 422) and DELETE, with 404s", async () => {
        const row = await seed(uid("o"), { learningType: "user_profile", content: { name: "Ada", langs: ["en"] }, metadata: { v: 1 } });
        const path = `/learnings/${row.learning_id}`;
        expect((await call("GET", path)).body).toEqual({ ...row, workflow_id: undefined, created_at: T0, updated_at: T0 });
        const unchanged = await call("PATCH", path, { json: {} });
        expect(unchanged).toMatchObject({ status: 200, body: { content: { name: "Ada", langs: ["en"] }, metadata: { v: 1 }, updated_at: T0 } });
        const content = await call("PATCH", path, { json: { content: { name: "Ada L." } } });
        expect(content.status).toBe(200);
        expect(content.body).toMatchObject({ content: { name: "Ada L." }, metadata: { v: 1 }, created_at: T0 });
        expect(content.body.updated_at).toBeGreaterThan(T0);
        expect((await call("PATCH", path, { json: { metadata: null } })).body).toMatchObject({ content: { name: "Ada L." }, metadata: null });
        expect(await call("PATCH", path, { json: { content: null, metadata: {} } })).toEqual({ status: 422, body: { detail: "content cannot be null; omit the field to leave it unchanged" } });
        expect(locs((await call("PATCH", path, { json: { content: "text" } })).body)).toEqual(["body.content"]);
        expect((await call("PATCH", path)).status).toBe(422);
        expect((await call("GET", path)).body.content).toEqual({ name: "Ada L." });
        // Identity fields are not part of the update.
        expect((await call("PATCH", path, { json: { user_id: "someone", learning_type: "x", content: { n: 1 } } })).body).toMatchObject({ user_id: row.user_id, learning_type: "user_profile" });
        expect(await call("DELETE", path)).toEqual({ status: 204, body: null });
        for (const [method, json] of [["GET"], ["PATCH", { content: {} }], ["DELETE"]] as const) {
          expect(await call(method, path, { json }), method).toEqual({ status: 404, body: { detail: "Learning not found" } });
        }
      });
    });

    describe("isolation", () => {
      it("a member reads its own and shared rows, never another user's; changes only its own; an admin does everything", async () => {
        const agent = uid("iso-agent");
        const mine = await seed(who.userA, { agentId: agent, learningType: "user_profile", content: { name: "A" } }, T0 + 3);
        const theirs = await seed(who.userB, { agentId: agent, learningType: "user_profile", content: { name: "B's secret" } }, T0 + 2);
        const shared = await seed(null, { agentId: agent, learningType: "entity_memory", content: { name: "Shared" } }, T0 + 1);

        // Lists: own + shared; naming another user is a 403; naming itself is allowed.
        const listed = await call("GET", `/learnings?agent_id=${agent}`, { principal: a });
        expect(listed.body.data.map((l: Json) => l.learning_id)).toEqual([mine.learning_id, shared.learning_id]);
        expect((await call("GET", `/learnings?agent_id=${agent}&user_id=${who.userA}`, { principal: a })).body.meta.total_count).toBe(2);
        expect(await call("GET", `/learnings?user_id=${who.userB}`, { principal: a })).toEqual({ status: 403, body: { detail: "Cannot list learnings for another user" } });
        expect(await call("GET", `/learnings/users?user_id=${who.userB}`, { principal: a })).toEqual({ status: 403, body: { detail: "Cannot list learning users for another user" } });
        expect((await call("GET", "/learnings/users", { principal: a })).body.data.map((u: Json) => u.user_id)).toEqual([who.userA]);
        // The 403 comes before the database is chosen, as in Agno.
        expect((await call("GET", `/learnings?user_id=${who.userB}&db_id=nope`, { principal: a })).status).toBe(403);

        // One row: another user's is a 404, a shared one readable but not changeable (403).
        for (const [method, json] of [["GET"], ["PATCH", { content: { name: "hijacked" } }], ["DELETE"]] as const) {
          expect(await call(method, `/learnings/${theirs.learning_id}`, { json, principal: a }), method).toEqual({ status: 404, body: { detail: "Learning not found" } });
        }
        expect((await call("GET", `/learnings/${shared.learning_id}`, { principal: a })).body.content).toEqual({ name: "Shared" });
        for (const [method, json] of [["PATCH", { content: { name: "hijacked" } }], ["PATCH", {}], ["DELETE"]] as const) {
          expect(await call(method, `/learnings/${shared.learning_id}`, { json, principal: a }), method).toEqual({
            status: 403,
            body: { detail: "Only admins can modify learnings that have no owner (user_id is null)" },
          });
        }
        expect(await call("DELETE", `/learnings/users/${who.userB}`, { principal: a })).toEqual({ status: 403, body: { detail: "Cannot delete learnings for another user" } });
        expect((await call("GET", `/learnings/${theirs.learning_id}`, { principal: b })).body.content).toEqual({ name: "B's secret" });
        expect((await call("GET", `/learnings/${shared.learning_id}`)).body.content).toEqual({ name: "Shared" });

        // Its own rows: changed and deleted; its user deletion leaves the shared row.
        expect((await call("PATCH", `/learnings/${mine.learning_id}`, { json: { content: { name: "A2" } }, principal: a })).body.content).toEqual({ name: "A2" });
        expect(await call("DELETE", `/learnings/users/${who.userA}`, { principal: a })).toEqual({ status: 204, body: null });
        expect((await call("GET", `/learnings/${mine.learning_id}`)).status).toBe(404);
        expect((await call("GET", `/learnings/${shared.learning_id}`)).status).toBe(200);
        expect((await call("GET", `/learnings/${theirs.learning_id}`)).status).toBe(200);

        // An admin: everyone's rows, the shared one changed and deleted.
        expect((await call("GET", `/learnings?agent_id=${agent}`)).body.data.map((l: Json) => l.learning_id)).toEqual([theirs.learning_id, shared.learning_id]);
        expect((await call("GET", `/learnings?agent_id=${agent}&user_id=${who.userB}`)).body.data.map((l: Json) => l.learning_id)).toEqual([theirs.learning_id]);
        expect((await call("PATCH", `/learnings/${shared.learning_id}`, { json: { content: { name: "S2" } } })).body.content).toEqual({ name: "S2" });
        expect((await call("PATCH", `/learnings/${theirs.learning_id}`, { json: { metadata: { by: "admin" } } })).body).toMatchObject({ user_id: who.userB, metadata: { by: "admin" } });
        expect(await call("DELETE", `/learnings/${shared.learning_id}`)).toEqual({ status: 204, body: null });
        expect(await call("DELETE", `/learnings/users/${who.userB}`)).toEqual({ status: 204, body: null });
        expect((await call("GET", `/learnings/${theirs.learning_id}`)).status).toBe(404);
      });

      it("a dashboard member holds the learnings scopes; a caller without them is a 403", async () => {
        expect(MEMBER_SCOPES).toEqual(expect.arrayContaining(SCOPES));
        const none = withScopes(who.a, ["memories:read"]);
        for (const [method, path] of [
          ["GET", "/learnings"],
          ["GET", "/learnings/users"],
          ["GET", "/learnings/x"],
          ["PATCH", "/learnings/x"],
          ["DELETE", "/learnings/x"],
          ["DELETE", `/learnings/users/${who.userA}`],
        ] as const) {
          expect((await call(method, path, { json: method === "PATCH" ? {} : undefined, principal: none })).status, `${method} ${path}`).toBe(403);
        }
      });
    });

    it("GET /config lists the learnings table of the database", async () => {
      const config = (await call("GET", "/config")).body;
      expect(config.learning).toEqual({ dbs: [{ db_id: app.settings.database.id, domain_config: {}, tables: ["agno_learnings"] }] });
    });
  });
});
