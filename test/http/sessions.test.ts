import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRuns, getSessionRow } from "@/lib/db/index.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { AgentSessionDetailSchema, SessionListSchema, TeamSessionDetailSchema, WorkflowSessionDetailSchema } from "@/lib/http/schemas/sessions.ts";
import { nullsOmittedSchema } from "@/lib/http/omit-nulls.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { openApiSuite, withScopes } from "../support/api.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope, userScope } from "../support/scopes.ts";

/** GET /sessions, POST /sessions and GET /sessions/{id} leave null fields out (excludeNone); rename and PATCH keep them. */
const Wire = {
  SessionList: nullsOmittedSchema(SessionListSchema),
  AgentSessionDetail: nullsOmittedSchema(AgentSessionDetailSchema),
  TeamSessionDetail: nullsOmittedSchema(TeamSessionDetailSchema),
  WorkflowSessionDetail: nullsOmittedSchema(WorkflowSessionDetailSchema),
};
const SESSION_SCOPES = ["sessions:read", "sessions:write", "sessions:delete"];
let suite: Awaited<ReturnType<typeof openApiSuite>>;
beforeAll(async () => {
  suite = await openApiSuite("sessions");
});
afterAll(() => suite.close());

const user = () => `u-${uid("x")}`;
const locs = (body: { detail: { loc: unknown[] }[] }) => body.detail.map((d) => d.loc.join("."));

describe("permissions (Agno's default scope map)", () => {
  it("declares sessions:* and memories:* scopes on every session and memory route", () => {
    const declared = Object.fromEntries(
      ROUTES.filter((r) => /^\/(sessions|memories|memory_topics|user_memory_stats|optimize-memories)/.test(r.path)).map((r) => [
        `${r.method} ${r.path}`,
        "permission" in r.access ? r.access.permission : "public",
      ]),
    );
    expect(declared).toEqual({
      "GET /sessions": "sessions:read",
      "POST /sessions": "sessions:write",
      "DELETE /sessions": "sessions:delete",
      "GET /sessions/{session_id}": "sessions:read",
      "PATCH /sessions/{session_id}": "sessions:write",
      "DELETE /sessions/{session_id}": "sessions:delete",
      "POST /sessions/{session_id}/rename": "sessions:write",
      "GET /sessions/{session_id}/runs": "sessions:read",
      "GET /sessions/{session_id}/runs/{run_id}": "sessions:read",
      "POST /memories": "memories:write",
      "GET /memories": "memories:read",
      "DELETE /memories": "memories:delete",
      "GET /memories/{memory_id}": "memories:read",
      "PATCH /memories/{memory_id}": "memories:write",
      "DELETE /memories/{memory_id}": "memories:delete",
      "GET /memory_topics": "memories:read",
      "GET /user_memory_stats": "memories:read",
      "POST /optimize-memories": "memories:write",
    });
  });
});

describe("GET /sessions", () => {
  it("lists one user's sessions with Agno's fields, names and pagination meta", async () => {
    const owner = user();
    const scope = adminScope(owner);
    const named = await seedSession(suite.db, { scope, session: { userId: owner, sessionData: { session_name: "Trip plans", session_metrics: { total_tokens: 42 } }, createdAt: 1_700_000_300 } });
    const fromMessage = await seedSession(suite.db, { scope, session: { userId: owner, createdAt: 1_700_000_200 }, runs: [agnoRun({ sessionId: "", agentId: "assistant", input: "Hello there" })] });
    const fromInput = await seedSession(suite.db, {
      scope,
      session: { userId: owner, createdAt: 1_700_000_100 },
      runs: [agnoRun({ sessionId: "", agentId: "assistant", input: { city: "Oslo" }, messages: null })],
    });
    const empty = await seedSession(suite.db, { scope, session: { userId: owner, createdAt: 1_700_000_000 } });

    const { status, body } = await suite.api("GET", `/sessions?user_id=${owner}`);
    expect(status).toBe(200);
    const list = Wire.SessionList.parse(body);
    expect(list.data.map((s) => [s.session_id, s.session_name])).toEqual([
      [named.session_id, "Trip plans"],
      [fromMessage.session_id, "Hello there"],
      [fromInput.session_id, JSON.stringify({ city: "Oslo" }, null, 2)],
      [empty.session_id, ""],
    ]);
    expect(list.data[0]).toMatchObject({ session_type: "agent", user_id: owner, agent_id: "assistant", total_tokens: 42, created_at: "2023-11-14T22:18:20.000Z" });
    expect(list.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 4 });
  });

  it("filters by type, component and name, and pages and sorts", async () => {
    const owner = user();
    const scope = adminScope(owner);
    const a = await seedSession(suite.db, { scope, session: { userId: owner, sessionId: `a-${owner}`, sessionData: { session_name: "Alpha Report" } } });
    const b = await seedSession(suite.db, { scope, session: { userId: owner, sessionId: `b-${owner}`, sessionData: { session_name: "beta" }, agentId: "other" } });
    const t = await seedSession(suite.db, { scope, session: { userId: owner, sessionId: `c-${owner}`, sessionType: "team", agentId: null, teamId: "squad" } });
    const ids = async (query: string) => Wire.SessionList.parse((await suite.api("GET", `/sessions?user_id=${owner}&${query}`)).body).data.map((s) => s.session_id);
    expect(await ids("type=team")).toEqual([t.session_id]);
    expect(await ids("type=agent&component_id=other")).toEqual([b.session_id]);
    expect(await ids("component_id=squad")).toEqual([t.session_id]);
    expect(await ids("session_name=REPORT")).toEqual([a.session_id]);
    expect(await ids("sort_by=session_id&sort_order=asc")).toEqual([a.session_id, b.session_id, t.session_id]);
    const page2 = Wire.SessionList.parse((await suite.api("GET", `/sessions?user_id=${owner}&sort_by=session_id&sort_order=asc&limit=2&page=2`)).body);
    expect(page2.data.map((s) => s.session_id)).toEqual([t.session_id]);
    expect(page2.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 3 });
  });

  it("rejects bad parameters with 422 naming them, and bad database selection with 400/404", async () => {
    for (const [query, loc] of [
      ["type=robot", "query.type"],
      ["page=0", "query.page"],
      ["limit=0", "query.limit"],
      ["page=two", "query.page"],
      ["sort_by=name", "query.sort_by"],
      ["sort_order=up", "query.sort_order"],
    ] as const) {
      const { status, body } = await suite.api("GET", `/sessions?${query}`);
      expect(status, query).toBe(422);
      expect(locs(body), query).toEqual([loc]);
    }
    expect(await suite.api("GET", "/sessions?db_id=nope")).toEqual({ status: 404, body: { detail: "No database found with id 'nope'" } });
    expect(await suite.api("GET", "/sessions?table=agno_sessions")).toEqual({
      status: 400,
      body: { detail: "The db_id query parameter is required when passing a table" },
    });
    expect((await suite.api("GET", `/sessions?db_id=${suite.dbId}&table=agno_sessions`)).status).toBe(200);
    expect((await suite.api("GET", `/sessions?db_id=${suite.dbId}&table=nope`)).status).toBe(404);
  });
});

describe("POST /sessions", () => {
  it("creates an agent session (201, empty chat history) and refuses an existing id (409)", async () => {
    const owner = user();
    const sessionId = uid("new");
    const body = { session_id: sessionId, session_name: "Fresh", session_state: { step: 1 }, metadata: { source: "test" }, user_id: owner, agent_id: "assistant" };
    const created = await suite.api("POST", "/sessions?type=agent", { body });
    expect(created.status).toBe(201);
    const detail = Wire.AgentSessionDetail.parse(created.body);
    expect(detail).toMatchObject({ session_id: sessionId, agent_session_id: sessionId, session_name: "Fresh", session_state: { step: 1 }, user_id: owner, chat_history: [] });
    expect(detail.agent_data).toMatchObject({ agent_id: "assistant", name: "Assistant" });
    const again = await suite.api("POST", "/sessions", { body });
    expect(again).toEqual({ status: 409, body: { detail: `Session with ID ${sessionId} already exists` } });
  });

  it("creates a team session, generates an id, and validates the body and type", async () => {
    const created = await suite.api("POST", "/sessions?type=team", { body: { team_id: "squad" } });
    expect(created.status).toBe(201);
    expect(Wire.TeamSessionDetail.parse(created.body)).toMatchObject({ team_id: "squad", session_name: "", chat_history: [] });
    expect(created.body.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(locs((await suite.api("POST", "/sessions?type=robot", { body: {} })).body)).toEqual(["query.type"]);
    expect(locs((await suite.api("POST", "/sessions", { body: { session_state: "nope" } })).body)).toEqual(["body.session_state"]);
  });
});

describe("GET /sessions/{id}", () => {
  it("builds chat_history from the runs' messages without system or replayed messages", async () => {
    const s = await seedSession(suite.db, {
      scope: adminScope(),
      session: {},
      runs: [
        agnoRun({ sessionId: "", agentId: "assistant", input: "first", content: "one", createdAt: 1_750_000_000 }),
        agnoRun({
          sessionId: "",
          agentId: "assistant",
          messages: [
            { role: "system", content: "sys" },
            { role: "user", content: "first", from_history: true },
            { role: "user", content: "weather?" },
            { role: "assistant", content: null, tool_calls: [{ id: "t1" }] },
            { role: "tool", content: "sunny", tool_call_id: "t1" },
            { role: "assistant", content: "It is sunny." },
          ],
        }),
        agnoRun({ sessionId: "", agentId: "assistant", input: "no messages", content: "stored answer", messages: null, createdAt: 1_750_000_100 }),
      ],
    });
    const { status, body } = await suite.api("GET", `/sessions/${s.session_id}`);
    expect(status).toBe(200);
    const detail = Wire.AgentSessionDetail.parse(body);
    expect(detail.session_name).toBe("first");
    expect(detail.chat_history.map((m) => [m.role, m.content])).toEqual([
      ["user", "first"],
      ["assistant", "one"],
      ["user", "weather?"],
      ["assistant", null],
      ["tool", "sunny"],
      ["assistant", "It is sunny."],
      ["user", "no messages"],
      ["assistant", "stored answer"],
    ]);
  });

  it("auto-detects the type, honours ?type=, and answers 404 for a missing session", async () => {
    const team = await seedSession(suite.db, { scope: adminScope(), session: { sessionType: "team", agentId: null, teamId: "squad", teamData: { name: "Squad" } } });
    const wf = await seedSession(suite.db, { scope: adminScope(), session: { sessionType: "workflow", agentId: null, workflowId: "wf", workflowData: { name: "Pipeline" } } });
    expect(Wire.TeamSessionDetail.parse((await suite.api("GET", `/sessions/${team.session_id}`)).body).team_id).toBe("squad");
    const workflow = Wire.WorkflowSessionDetail.parse((await suite.api("GET", `/sessions/${wf.session_id}?type=workflow`)).body);
    expect(workflow).toMatchObject({ workflow_id: "wf", workflow_name: "Pipeline", session_name: "New Pipeline Session" });
    expect((await suite.api("GET", `/sessions/${team.session_id}?type=agent`)).status).toBe(404);
    expect(await suite.api("GET", "/sessions/missing-id")).toEqual({ status: 404, body: { detail: "Session with ID missing-id not found" } });
    expect(locs((await suite.api("GET", `/sessions/${team.session_id}?type=robot`)).body)).toEqual(["query.type"]);
  });
});

describe("renaming and updating", () => {
  it("POST /rename renames; PATCH changes state, metadata and summary and keeps the runs", async () => {
    const s = await seedSession(suite.db, {
      scope: adminScope(),
      session: { sessionData: { session_name: "old", session_metrics: { total_tokens: 7 } } },
      runs: [agnoRun({ sessionId: "", agentId: "assistant" }), agnoRun({ sessionId: "", agentId: "assistant" })],
    });
    const before = await getRuns(suite.db, { scope: adminScope(), sessionId: s.session_id });
    const renamed = await suite.api("POST", `/sessions/${s.session_id}/rename`, { body: { session_name: "new name" } });
    expect(renamed.status).toBe(200);
    expect(AgentSessionDetailSchema.parse(renamed.body).session_name).toBe("new name");

    const patch = { session_state: { cart: ["apple"] }, metadata: { tier: "gold" }, summary: { summary: "Talked about fruit", topics: ["fruit"] } };
    const patched = await suite.api("PATCH", `/sessions/${s.session_id}`, { body: patch });
    expect(patched.status).toBe(200);
    const detail = AgentSessionDetailSchema.parse(patched.body);
    expect(detail).toMatchObject({ session_name: "new name", session_state: patch.session_state, metadata: patch.metadata, session_summary: patch.summary, total_tokens: 7 });
    expect(detail.chat_history).toHaveLength(4);
    expect(await getRuns(suite.db, { scope: adminScope(), sessionId: s.session_id })).toEqual(before);
  });

  it("an empty PATCH changes nothing; bad bodies are 422; a missing session is 404", async () => {
    const s = await seedSession(suite.db, { scope: adminScope(), session: { sessionData: { session_name: "keep" }, metadata: { a: 1 } } });
    const row = await getSessionRow(suite.db, { scope: adminScope(), sessionId: s.session_id });
    const empty = await suite.api("PATCH", `/sessions/${s.session_id}`);
    expect(empty.status).toBe(200);
    expect(AgentSessionDetailSchema.parse(empty.body)).toMatchObject({ session_name: "keep", metadata: { a: 1 } });
    expect(await getSessionRow(suite.db, { scope: adminScope(), sessionId: s.session_id })).toEqual(row);
    expect(locs((await suite.api("PATCH", `/sessions/${s.session_id}`, { body: { metadata: "x" } })).body)).toEqual(["body.metadata"]);
    expect(locs((await suite.api("POST", `/sessions/${s.session_id}/rename`, { body: {} })).body)).toEqual(["body.session_name"]);
    expect((await suite.api("PATCH", "/sessions/nope", { body: { session_name: "x" } })).status).toBe(404);
    expect((await suite.api("POST", "/sessions/nope/rename", { body: { session_name: "x" } })).status).toBe(404);
  });
});

describe("deleting", () => {
  it("DELETE /sessions/{id} → 204 and the session and its runs are gone; again → 404", async () => {
    const s = await seedSession(suite.db, { scope: adminScope(), session: {}, runs: [agnoRun({ sessionId: "", agentId: "assistant" })] });
    expect(await suite.api("DELETE", `/sessions/${s.session_id}`)).toEqual({ status: 204, body: null });
    expect((await suite.api("GET", `/sessions/${s.session_id}`)).status).toBe(404);
    expect(await getRuns(suite.db, { scope: adminScope(), sessionId: s.session_id })).toEqual([]);
    expect((await suite.api("DELETE", `/sessions/${s.session_id}`)).status).toBe(404);
  });

  it("DELETE /sessions deletes several; mismatched lengths → 400; empty lists or bad types → 422", async () => {
    const one = await seedSession(suite.db, { scope: adminScope(), session: {} });
    const two = await seedSession(suite.db, { scope: adminScope(), session: { sessionType: "team", teamId: "squad" } });
    const mismatched = await suite.api("DELETE", "/sessions", { body: { session_ids: [one.session_id, two.session_id], session_types: ["agent"] } });
    expect(mismatched).toEqual({ status: 400, body: { detail: "session_ids and session_types must have the same length" } });
    expect(locs((await suite.api("DELETE", "/sessions", { body: { session_ids: [], session_types: [] } })).body)).toEqual(["body.session_ids", "body.session_types"]);
    expect(locs((await suite.api("DELETE", "/sessions", { body: { session_ids: ["x"], session_types: ["robot"] } })).body)).toEqual(["body.session_types.0"]);
    const ok = await suite.api("DELETE", "/sessions", { body: { session_ids: [one.session_id, two.session_id], session_types: ["agent", "team"] } });
    expect(ok.status).toBe(204);
    expect((await suite.api("GET", `/sessions/${one.session_id}`)).status).toBe(404);
    expect((await suite.api("GET", `/sessions/${two.session_id}`)).status).toBe(404);
  });
});

describe("isolation: user A cannot see or change user B's sessions", () => {
  it("answers 404 for every read and write of B's session by A, and lists only A's own", async () => {
    const p = mintPrincipals();
    const a = withScopes(p.a, SESSION_SCOPES);
    const b = withScopes(p.b, SESSION_SCOPES);
    const mine = await seedSession(suite.db, { scope: userScope(p.userA), session: { sessionData: { session_name: "A's" } } });
    const theirs = await seedSession(suite.db, {
      scope: userScope(p.userB),
      session: { sessionData: { session_name: "B's" } },
      runs: [agnoRun({ sessionId: "", agentId: "assistant", runId: `run-${p.userB}` })],
    });
    const id = theirs.session_id;

    const listed = Wire.SessionList.parse((await suite.api("GET", `/sessions?user_id=${p.userB}`, { as: a })).body);
    expect(listed.data.map((s) => s.session_id)).toEqual([mine.session_id]);
    for (const [method, path, body] of [
      ["GET", `/sessions/${id}`],
      ["GET", `/sessions/${id}/runs`],
      ["GET", `/sessions/${id}/runs/run-${p.userB}`],
      ["POST", `/sessions/${id}/rename`, { session_name: "hijacked" }],
      ["PATCH", `/sessions/${id}?user_id=${p.userB}`, { metadata: { hijacked: true } }],
      ["DELETE", `/sessions/${id}?user_id=${p.userB}`],
    ] as const) {
      const response = await suite.api(method, path, { as: a, body });
      expect(response, `${method} ${path}`).toEqual({ status: 404, body: { detail: `Session with ID ${id} not found` } });
    }
    expect((await suite.api("DELETE", "/sessions", { as: a, body: { session_ids: [id], session_types: ["agent"] } })).status).toBe(204);

    const still = Wire.AgentSessionDetail.parse((await suite.api("GET", `/sessions/${id}`, { as: b })).body);
    expect(still).toMatchObject({ session_name: "B's", user_id: p.userB });
    expect(still).not.toHaveProperty("metadata");
    expect(still.chat_history).toHaveLength(2);
  });

  it("stamps a non-admin's new session with its own id, and checks scopes (403)", async () => {
    const p = mintPrincipals();
    const created = await suite.api("POST", "/sessions", { as: withScopes(p.a, SESSION_SCOPES), body: { user_id: p.userB } });
    expect(created.status).toBe(201);
    expect(created.body.user_id).toBe(p.userA);
    const reader = withScopes(p.a, ["sessions:read"]);
    expect((await suite.api("GET", "/sessions", { as: reader })).status).toBe(200);
    expect(await suite.api("POST", "/sessions", { as: reader, body: {} })).toEqual({
      status: 403,
      body: { detail: "Insufficient permissions. Required scope(s): sessions:write" },
    });
    expect((await suite.api("DELETE", `/sessions/${created.body.session_id}`, { as: reader })).status).toBe(403);
  });
});
