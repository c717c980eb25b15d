import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, TeamDefinition } from "@/lib/config/define.ts";
import { defineWorkflow, step } from "@/lib/config/workflow.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { traceTime } from "@/lib/db/traces/trace-rows.ts";
import { writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

/**
 * The isolation matrix: every route of the table is either listed here with a request that
 * touches user A's data, or explicitly declared as not touching owned data. A new route that is
 * neither makes the first test fail, so it joins the matrix. Requests are authenticated for real
 * (JWT mode, tokens signed with the configured secret); only "anonymous" sends no token.
 */
const SECRET = "isolation-matrix-secret-of-sufficient-length";
const FULL = [
  "agents:read",
  "agents:run",
  "teams:read",
  "teams:run",
  "workflows:read",
  "workflows:run",
  "sessions:read",
  "sessions:write",
  "sessions:delete",
  "memories:read",
  "memories:write",
  "memories:delete",
  "config:read",
  "schedules:read",
  "schedules:write",
  "schedules:delete",
  "metrics:read",
  "metrics:write",
  "evals:read",
  "evals:write",
  "evals:delete",
  "knowledge:read",
  "knowledge:write",
  "knowledge:delete",
  "approvals:read",
  "approvals:write",
  "approvals:delete",
  "traces:read",
  "learnings:read",
  "learnings:write",
  "learnings:delete",
  "components:read",
  "components:write",
  "components:delete",
  "registry:read",
];

type Json = Record<string, unknown>;
interface Ids {
  sessionId: string;
  runId: string;
  pausedRunId: string;
  pausedSessionId: string;
  memoryId: string;
  requirement: Json;
  scheduleId: string;
  scheduleRunId: string;
  evalRunId: string;
  contentId: string;
  teamSessionId: string;
  teamRunId: string;
  workflowSessionId: string;
  workflowRunId: string;
  approvalId: string;
  traceId: string;
  learningId: string;
  componentId: string;
}
interface Case {
  method: string;
  path: (ids: Ids) => string;
  init?: (ids: Ids) => { form?: Record<string, string>; json?: unknown };
  /** "denied": B gets no 2xx. "list": B gets 2xx without any of A's ids in the body. "stream-error": an SSE error event only. */
  forB: "denied" | "list" | "stream-error";
}

const MATRIX: Record<string, Case> = {
  "GET /approvals": { method: "GET", path: () => "/approvals?user_id=alice", forB: "list" },
  "GET /approvals/count": { method: "GET", path: () => "/approvals/count?user_id=alice", forB: "list" },
  "GET /approvals/{approval_id}": { method: "GET", path: (i) => `/approvals/${i.approvalId}`, forB: "denied" },
  "GET /approvals/{approval_id}/status": { method: "GET", path: (i) => `/approvals/${i.approvalId}/status`, forB: "denied" },
  "POST /approvals/{approval_id}/resolve": { method: "POST", path: (i) => `/approvals/${i.approvalId}/resolve`, init: () => ({ json: { status: "approved", resolved_by: "alice" } }), forB: "denied" },
  "DELETE /approvals/{approval_id}": { method: "DELETE", path: (i) => `/approvals/${i.approvalId}`, forB: "denied" },
  "GET /sessions": { method: "GET", path: () => "/sessions", forB: "list" },
  "DELETE /sessions": { method: "DELETE", path: () => "/sessions", init: (i) => ({ json: { session_ids: [i.sessionId], session_types: ["agent"] } }), forB: "list" },
  "GET /sessions/{session_id}": { method: "GET", path: (i) => `/sessions/${i.sessionId}`, forB: "denied" },
  "PATCH /sessions/{session_id}": { method: "PATCH", path: (i) => `/sessions/${i.sessionId}`, init: () => ({ json: { session_name: "hijacked" } }), forB: "denied" },
  "DELETE /sessions/{session_id}": { method: "DELETE", path: (i) => `/sessions/${i.sessionId}`, forB: "denied" },
  "POST /sessions/{session_id}/rename": { method: "POST", path: (i) => `/sessions/${i.sessionId}/rename`, init: () => ({ json: { session_name: "hijacked" } }), forB: "denied" },
  "GET /sessions/{session_id}/runs": { method: "GET", path: (i) => `/sessions/${i.sessionId}/runs`, forB: "denied" },
  "GET /sessions/{session_id}/runs/{run_id}": { method: "GET", path: (i) => `/sessions/${i.sessionId}/runs/${i.runId}`, forB: "denied" },
  // Metrics rows are per user: B (naming A or not) gets its own only, and a refresh answers B's own days.
  "GET /metrics": { method: "GET", path: () => "/metrics?user_id=alice", forB: "list" },
  "POST /metrics/refresh": { method: "POST", path: () => "/metrics/refresh?user_id=alice", forB: "list" },
  "GET /memories": { method: "GET", path: () => "/memories", forB: "list" },
  "DELETE /memories": { method: "DELETE", path: () => "/memories", init: (i) => ({ json: { memory_ids: [i.memoryId] } }), forB: "list" },
  "GET /memories/{memory_id}": { method: "GET", path: (i) => `/memories/${i.memoryId}`, forB: "denied" },
  "PATCH /memories/{memory_id}": { method: "PATCH", path: (i) => `/memories/${i.memoryId}`, init: () => ({ json: { memory: "hijacked" } }), forB: "denied" },
  "DELETE /memories/{memory_id}": { method: "DELETE", path: (i) => `/memories/${i.memoryId}`, forB: "denied" },
  "GET /memory_topics": { method: "GET", path: () => "/memory_topics", forB: "list" },
  "GET /user_memory_stats": { method: "GET", path: () => "/user_memory_stats", forB: "list" },
  "POST /agents/{agent_id}/runs": { method: "POST", path: () => "/agents/iso/runs", init: (i) => ({ form: { message: "hi", session_id: i.sessionId, stream: "false" } }), forB: "denied" },
  "GET /agents/{agent_id}/runs": { method: "GET", path: (i) => `/agents/iso/runs?session_id=${i.sessionId}`, forB: "denied" },
  "GET /agents/{agent_id}/runs/{run_id}": { method: "GET", path: (i) => `/agents/iso/runs/${i.runId}?session_id=${i.sessionId}`, forB: "denied" },
  "POST /agents/{agent_id}/runs/{run_id}/cancel": { method: "POST", path: (i) => `/agents/iso/runs/${i.runId}/cancel?session_id=${i.sessionId}`, forB: "denied" },
  "POST /agents/{agent_id}/runs/{run_id}/continue": {
    method: "POST",
    path: (i) => `/agents/iso/runs/${i.pausedRunId}/continue`,
    init: (i) => ({ form: { requirements: JSON.stringify([{ ...i.requirement, confirmation: true }]), session_id: i.pausedSessionId, stream: "false" } }),
    forB: "denied",
  },
  "POST /agents/{agent_id}/runs/{run_id}/resume": { method: "POST", path: (i) => `/agents/iso/runs/${i.runId}/resume`, init: (i) => ({ form: { session_id: i.sessionId } }), forB: "stream-error" },
  "POST /teams/{team_id}/runs": { method: "POST", path: () => "/teams/isoteam/runs", init: (i) => ({ form: { message: "hi", session_id: i.teamSessionId, stream: "false" } }), forB: "denied" },
  "GET /teams/{team_id}/runs": { method: "GET", path: (i) => `/teams/isoteam/runs?session_id=${i.teamSessionId}`, forB: "denied" },
  "GET /teams/{team_id}/runs/{run_id}": { method: "GET", path: (i) => `/teams/isoteam/runs/${i.teamRunId}?session_id=${i.teamSessionId}`, forB: "denied" },
  "POST /teams/{team_id}/runs/{run_id}/cancel": { method: "POST", path: (i) => `/teams/isoteam/runs/${i.teamRunId}/cancel?session_id=${i.teamSessionId}`, forB: "denied" },
  "POST /teams/{team_id}/runs/{run_id}/continue": {
    method: "POST",
    path: (i) => `/teams/isoteam/runs/${i.teamRunId}/continue`,
    init: (i) => ({ form: { requirements: "[]", session_id: i.teamSessionId, stream: "false" } }),
    forB: "denied",
  },
  "POST /teams/{team_id}/runs/{run_id}/resume": {
    method: "POST",
    path: (i) => `/teams/isoteam/runs/${i.teamRunId}/resume`,
    init: (i) => ({ form: { session_id: i.teamSessionId } }),
    forB: "stream-error",
  },
  "POST /workflows/{workflow_id}/runs": {
    method: "POST",
    path: () => "/workflows/isoflow/runs",
    init: (i) => ({ form: { message: "hi", session_id: i.workflowSessionId, stream: "false" } }),
    forB: "denied",
  },
  "GET /workflows/{workflow_id}/runs": { method: "GET", path: (i) => `/workflows/isoflow/runs?session_id=${i.workflowSessionId}`, forB: "denied" },
  "GET /workflows/{workflow_id}/runs/{run_id}": { method: "GET", path: (i) => `/workflows/isoflow/runs/${i.workflowRunId}?session_id=${i.workflowSessionId}`, forB: "denied" },
  "POST /workflows/{workflow_id}/runs/{run_id}/cancel": { method: "POST", path: (i) => `/workflows/isoflow/runs/${i.workflowRunId}/cancel?session_id=${i.workflowSessionId}`, forB: "denied" },
  "POST /workflows/{workflow_id}/runs/{run_id}/continue": {
    method: "POST",
    path: (i) => `/workflows/isoflow/runs/${i.workflowRunId}/continue`,
    init: (i) => ({ form: { step_requirements: JSON.stringify([{ step_id: "x", confirmed: true }]), session_id: i.workflowSessionId, stream: "false" } }),
    forB: "denied",
  },
  "POST /workflows/{workflow_id}/runs/{run_id}/resume": {
    method: "POST",
    path: (i) => `/workflows/isoflow/runs/${i.workflowRunId}/resume`,
    init: (i) => ({ form: { session_id: i.workflowSessionId } }),
    forB: "stream-error",
  },
  "GET /schedules": { method: "GET", path: () => "/schedules", forB: "list" },
  "GET /schedules/{schedule_id}": { method: "GET", path: (i) => `/schedules/${i.scheduleId}`, forB: "denied" },
  "PATCH /schedules/{schedule_id}": { method: "PATCH", path: (i) => `/schedules/${i.scheduleId}`, init: () => ({ json: { description: "hijacked" } }), forB: "denied" },
  "DELETE /schedules/{schedule_id}": { method: "DELETE", path: (i) => `/schedules/${i.scheduleId}`, forB: "denied" },
  "POST /schedules/{schedule_id}/enable": { method: "POST", path: (i) => `/schedules/${i.scheduleId}/enable`, forB: "denied" },
  "POST /schedules/{schedule_id}/disable": { method: "POST", path: (i) => `/schedules/${i.scheduleId}/disable`, forB: "denied" },
  "POST /schedules/{schedule_id}/trigger": { method: "POST", path: (i) => `/schedules/${i.scheduleId}/trigger`, forB: "denied" },
  "GET /schedules/{schedule_id}/runs": { method: "GET", path: (i) => `/schedules/${i.scheduleId}/runs`, forB: "denied" },
  "GET /schedules/{schedule_id}/runs/{run_id}": { method: "GET", path: (i) => `/schedules/${i.scheduleId}/runs/${i.scheduleRunId}`, forB: "denied" },
  "GET /eval-runs": { method: "GET", path: () => "/eval-runs?user_id=alice", forB: "list" },
  "DELETE /eval-runs": { method: "DELETE", path: () => "/eval-runs", init: (i) => ({ json: { eval_run_ids: [i.evalRunId] } }), forB: "list" },
  "GET /eval-runs/{eval_run_id}": { method: "GET", path: (i) => `/eval-runs/${i.evalRunId}`, forB: "denied" },
  "PATCH /eval-runs/{eval_run_id}": { method: "PATCH", path: (i) => `/eval-runs/${i.evalRunId}`, init: () => ({ json: { name: "hijacked" } }), forB: "denied" },
  "DELETE /eval-runs/{eval_run_id}": { method: "DELETE", path: (i) => `/eval-runs/${i.evalRunId}`, forB: "denied" },
  "POST /eval-runs/{eval_run_id}/cancel": { method: "POST", path: (i) => `/eval-runs/${i.evalRunId}/cancel`, forB: "denied" },
  "GET /knowledge/content": { method: "GET", path: () => "/knowledge/content", forB: "list" },
  "DELETE /knowledge/content": { method: "DELETE", path: () => "/knowledge/content", forB: "list" },
  "GET /knowledge/content/{content_id}": { method: "GET", path: (i) => `/knowledge/content/${i.contentId}`, forB: "denied" },
  "PATCH /knowledge/content/{content_id}": { method: "PATCH", path: (i) => `/knowledge/content/${i.contentId}`, init: () => ({ form: { name: "hijacked" } }), forB: "denied" },
  "DELETE /knowledge/content/{content_id}": { method: "DELETE", path: (i) => `/knowledge/content/${i.contentId}`, forB: "denied" },
  // Agno answers an unknown content's status with a 200 saying it failed: B learns nothing of A's.
  "GET /knowledge/content/{content_id}/status": { method: "GET", path: (i) => `/knowledge/content/${i.contentId}/status`, forB: "list" },
  "POST /knowledge/search": { method: "POST", path: () => "/knowledge/search", init: () => ({ json: { query: "alpaca grooming secrets" } }), forB: "list" },
  "GET /knowledge/config": { method: "GET", path: () => "/knowledge/config", forB: "list" },
  // A member's traces are its own: B's list, statistics and search (naming A or not) hold only B's; A's trace is B's 404.
  "GET /traces": { method: "GET", path: () => "/traces?user_id=alice", forB: "list" },
  "GET /traces/{trace_id}": { method: "GET", path: (i) => `/traces/${i.traceId}`, forB: "denied" },
  "GET /trace_session_stats": { method: "GET", path: () => "/trace_session_stats?user_id=alice", forB: "list" },
  "POST /traces/search": { method: "POST", path: () => "/traces/search", init: () => ({ json: { filter: { op: "EQ", key: "user_id", value: "alice" } } }), forB: "list" },
  // A member's learnings are its own (plus the shared ones): naming A is a 403, A's row B's 404.
  "GET /learnings": { method: "GET", path: () => "/learnings", forB: "list" },
  "POST /learnings": {
    method: "POST",
    path: () => "/learnings",
    init: () => ({ json: { learning_type: "user_profile", user_id: "alice", content: { name: "hijacked" } } }),
    forB: "denied",
  },
  "GET /learnings/users": { method: "GET", path: () => "/learnings/users", forB: "list" },
  "DELETE /learnings/users/{user_id}": { method: "DELETE", path: () => "/learnings/users/alice", forB: "denied" },
  "GET /learnings/{learning_id}": { method: "GET", path: (i) => `/learnings/${i.learningId}`, forB: "denied" },
  "PATCH /learnings/{learning_id}": { method: "PATCH", path: (i) => `/learnings/${i.learningId}`, init: () => ({ json: { content: { name: "hijacked" } } }), forB: "denied" },
  "DELETE /learnings/{learning_id}": { method: "DELETE", path: (i) => `/learnings/${i.learningId}`, forB: "denied" },
  // A's draft component is A's alone: B's list leaves it out, and every route naming it is B's 404 (a 403 once B could see it).
  "GET /components": { method: "GET", path: () => "/components?include_deleted=true", forB: "list" },
  "GET /components/{component_id}": { method: "GET", path: (i) => `/components/${i.componentId}?include_deleted=true`, forB: "denied" },
  "PATCH /components/{component_id}": { method: "PATCH", path: (i) => `/components/${i.componentId}`, init: () => ({ json: { name: "hijacked" } }), forB: "denied" },
  "DELETE /components/{component_id}": { method: "DELETE", path: (i) => `/components/${i.componentId}`, forB: "denied" },
  "POST /components/{component_id}/restore": { method: "POST", path: (i) => `/components/${i.componentId}/restore`, forB: "denied" },
  "GET /components/{component_id}/configs": { method: "GET", path: (i) => `/components/${i.componentId}/configs`, forB: "denied" },
  "POST /components/{component_id}/configs": { method: "POST", path: (i) => `/components/${i.componentId}/configs`, init: () => ({ json: { config: { instructions: "hijacked" } } }), forB: "denied" },
  "GET /components/{component_id}/configs/current": { method: "GET", path: (i) => `/components/${i.componentId}/configs/current`, forB: "denied" },
  "GET /components/{component_id}/configs/{version}": { method: "GET", path: (i) => `/components/${i.componentId}/configs/1`, forB: "denied" },
  "PATCH /components/{component_id}/configs/{version}": { method: "PATCH", path: (i) => `/components/${i.componentId}/configs/1`, init: () => ({ json: { stage: "published" } }), forB: "denied" },
  "DELETE /components/{component_id}/configs/{version}": { method: "DELETE", path: (i) => `/components/${i.componentId}/configs/1`, forB: "denied" },
  "POST /components/{component_id}/configs/{version}/set-current": { method: "POST", path: (i) => `/components/${i.componentId}/configs/1/set-current`, forB: "denied" },
};

/** Routes that touch no user-owned rows (or only the caller's own new rows), and why. */
const NOT_OWNED: Record<string, string> = {
  "GET /": "public landing",
  "GET /health": "public",
  "GET /info": "public metadata",
  "GET /config": "configuration, no user data",
  "GET /openapi.json": "public docs",
  "GET /docs": "public docs",
  "GET /docs/{asset}": "public docs",
  "POST /databases/all/migrate": "schema operation, config:write",
  "POST /databases/{db_id}/migrate": "schema operation, config:write",
  "GET /agents": "configured agents",
  "GET /agents/{agent_id}": "a configured agent",
  "GET /teams": "configured teams",
  "GET /teams/{team_id}": "a configured team",
  "GET /workflows/{workflow_id}": "a configured workflow",
  "GET /workflows": "configured workflows",
  "GET /metrics/refresh/status": "the database's refresh state (no user's rows)",
  "GET /traces/filter-schema": "the fields a trace search filters on (no user's rows)",
  "GET /registry": "what Studio's components may use: configured toolkits, models, knowledge bases (no user's rows)",
  "POST /sessions": "creates a session owned by the caller",
  "POST /memories": "creates a memory owned by the caller",
  "POST /schedules": "creates a schedule owned by the caller",
  "POST /eval-runs": "runs an eval owned by the caller",
  "POST /knowledge/content": "adds a content owned by the caller",
  "POST /components": "creates a component owned by the caller",
  "POST /optimize-memories": "acts on the caller's own memories",
  "POST /service-accounts": "creates the caller's own account (covered in service-accounts tests)",
  "GET /service-accounts": "lists the caller's own accounts (covered in service-accounts tests)",
  "DELETE /service-accounts/{service_account_id}": "revokes the caller's own account (covered in service-accounts tests)",
};

const IGNORED_PREFIXES = ["/queue/"];

describe("the isolation matrix covers every route", () => {
  it("lists each route either with an owned-data case or as not touching owned data", () => {
    const unclassified = ROUTES.map((r) => `${r.method} ${r.path}`)
      .filter((key) => !IGNORED_PREFIXES.some((p) => key.split(" ")[1].startsWith(p)))
      .filter((key) => !(key in MATRIX) && !(key in NOT_OWNED));
    expect(unclassified, "add these routes to the isolation matrix").toEqual([]);
  });
});

describe("user B, anonymous and admin against user A's data", () => {
  let server: ModelServer;
  let app: TestApp;
  let ids: Ids;
  const tokens: Record<"a" | "b" | "admin" | "saOfB", string> = { a: "", b: "", admin: "", saOfB: "" };
  const mint = (sub: string, scopes: string[]) => new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));
  const as = (who: keyof typeof tokens | "anonymous"): Record<string, string> => (who === "anonymous" ? {} : { authorization: `Bearer ${tokens[who]}` });

  beforeAll(async () => {
    server = await startModelServer({ respond: () => ({ text: "ok" }) });
    const guarded = defineTool({ name: "guarded", description: "needs confirmation", parameters: z.object({}), requiresConfirmation: true, execute: () => "done" });
    const approved = defineTool({ name: "approved", description: "needs an approver", parameters: z.object({}), approval: "required", execute: () => "done" });
    const agents: AgentDefinition[] = [{ id: "iso", name: "Iso", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" }, tools: [guarded, approved] }];
    const teams: TeamDefinition[] = [{ id: "isoteam", name: "Iso team", model: agents[0]!.model, members: agents }];
    const workflows = [defineWorkflow({ id: "isoflow", name: "Iso flow", steps: [step({ name: "echo", executor: (input) => `echo ${String(input.input)}` })] })];
    app = await startTestApp({ dialect: sqliteDialect, agents, teams, workflows, env: { JWT_VERIFICATION_KEY: SECRET } });
    tokens.a = await mint("alice", FULL);
    tokens.b = await mint("bob", [...FULL, "service_accounts:write"]);
    tokens.admin = await mint("root", ["agent_os:admin"]);
    const account = (await (await app.call("POST", "/service-accounts", { json: { name: "bobs-bot", scopes: FULL.map((scope) => ({ scope, effect: "allow" })) }, headers: as("b") })).json()) as Json;
    expect(String(account.token)).toMatch(/^agno_pat_/);
    tokens.saOfB = String(account.token);
    const run = (await (await app.call("POST", "/agents/iso/runs", { form: { message: "A's question", stream: "false" }, headers: as("a") })).json()) as Json;
    server.enqueue({ toolCalls: [{ name: "guarded", arguments: {} }] });
    const paused = (await (await app.call("POST", "/agents/iso/runs", { form: { message: "A's paused run", stream: "false" }, headers: as("a") })).json()) as Json;
    server.enqueue({ toolCalls: [{ name: "approved", arguments: {} }] });
    const waiting = (await (await app.call("POST", "/agents/iso/runs", { form: { message: "A's approval run", stream: "false" }, headers: as("a") })).json()) as Json;
    const approvalId = String(((waiting.requirements as Json[])[0]!.tool_execution as Json).approval_id);
    expect(approvalId).toMatch(/^[0-9a-f-]{36}$/);
    const teamRun = (await (await app.call("POST", "/teams/isoteam/runs", { form: { message: "A's team question", stream: "false" }, headers: as("a") })).json()) as Json;
    const workflowRun = (await (await app.call("POST", "/workflows/isoflow/runs", { form: { message: "A's workflow input", stream: "false" }, headers: as("a") })).json()) as Json;
    expect([workflowRun.status, workflowRun.user_id]).toEqual(["COMPLETED", "alice"]);
    const memory = (await (await app.call("POST", "/memories", { json: { memory: "A likes tea", topics: ["drinks"] }, headers: as("a") })).json()) as Json;
    const learning = (await (
      await app.call("POST", "/learnings", { json: { learning_type: "user_profile", user_id: "alice", content: { name: "A's learned profile" } }, headers: as("a") })
    ).json()) as Json;
    expect([learning.learning_id, learning.user_id]).toEqual(["user_profile_alice", "alice"]);
    const component = (await (
      await app.call("POST", "/components", {
        json: { name: "Alices secret helper", component_type: "agent", config: { instructions: "A's secret instructions" }, notes: "A's draft notes" },
        headers: as("a"),
      })
    ).json()) as Json;
    expect([component.user_id, component.current_version]).toEqual(["alice", undefined]);
    const schedule = (await (
      await app.call("POST", "/schedules", { json: { name: "alices-report", cron_expr: "0 6 * * *", endpoint: "/agents/iso/runs", payload: { message: "A's report" } }, headers: as("a") })
    ).json()) as Json;
    const fired = (await (await app.call("POST", `/schedules/${schedule.id}/trigger`, { headers: as("a") })).json()) as Json;
    const evalRun = (await (await app.call("POST", "/eval-runs", { json: { agent_id: "iso", eval_type: "performance", input: "A's eval", name: "alices-eval" }, headers: as("a") })).json()) as Json;
    const content = (await (
      await app.call("POST", "/knowledge/content", {
        form: { text_content: "Alpaca grooming secrets of the A team", name: "alices-handbook", metadata: JSON.stringify({ alices_key: "x" }) },
        headers: as("a"),
      })
    ).json()) as Json;
    // A's traced run, as the exporter writes it (whatever the runs above recorded themselves).
    const traceId = `alices-trace-${Date.now().toString(36)}`;
    const now = Date.now();
    await writeTraceBatch(await app.db(), {
      traces: [
        {
          trace_id: traceId,
          name: "Iso.run",
          status: "OK",
          start_time: traceTime(now - 1000),
          end_time: traceTime(now),
          duration_ms: 1000,
          run_id: String(run.run_id),
          session_id: String(run.session_id),
          user_id: "alice",
          agent_id: "iso",
          team_id: null,
          workflow_id: null,
          created_at: traceTime(now),
        },
      ],
      spans: [
        {
          span_id: `${traceId}-root`,
          trace_id: traceId,
          parent_span_id: null,
          name: "Iso.run",
          span_kind: "INTERNAL",
          status_code: "OK",
          status_message: null,
          start_time: traceTime(now - 1000),
          end_time: traceTime(now),
          duration_ms: 1000,
          attributes: { "openinference.span.kind": "AGENT", "input.value": "A's traced question", "output.value": "A's traced answer", "user.id": "alice" },
          created_at: traceTime(now),
        },
      ],
    });
    await until("A's content is processed", async () => ((await (await app.call("GET", `/knowledge/content/${content.id}/status`, { headers: as("a") })).json()) as Json).status === "completed");
    expect([teamRun.status, teamRun.user_id]).toEqual(["COMPLETED", "alice"]);
    expect([run.status, paused.status, memory.user_id, schedule.user_id, fired.status, evalRun.user_id, evalRun.status]).toEqual([
      "COMPLETED",
      "PAUSED",
      "alice",
      "alice",
      "success",
      "alice",
      "COMPLETED",
    ]);
    ids = {
      sessionId: String(run.session_id),
      runId: String(run.run_id),
      pausedRunId: String(paused.run_id),
      pausedSessionId: String(paused.session_id),
      memoryId: String(memory.memory_id),
      requirement: (paused.requirements as Json[])[0],
      scheduleId: String(schedule.id),
      scheduleRunId: String(fired.id),
      evalRunId: String(evalRun.id),
      contentId: String(content.id),
      teamSessionId: String(teamRun.session_id),
      teamRunId: String(teamRun.run_id),
      workflowSessionId: String(workflowRun.session_id),
      workflowRunId: String(workflowRun.run_id),
      approvalId,
      traceId,
      learningId: String(learning.learning_id),
      componentId: String(component.component_id),
    };
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  const snapshot = async () => {
    const session = await (await app.call("GET", `/sessions/${ids.sessionId}`, { headers: as("admin") })).json();
    const memory = await (await app.call("GET", `/memories/${ids.memoryId}`, { headers: as("admin") })).json();
    const paused = await (await app.call("GET", `/agents/iso/runs/${ids.pausedRunId}?session_id=${ids.pausedSessionId}`, { headers: as("admin") })).json();
    const schedule = await (await app.call("GET", `/schedules/${ids.scheduleId}`, { headers: as("admin") })).json();
    const scheduleRuns = await (await app.call("GET", `/schedules/${ids.scheduleId}/runs`, { headers: as("admin") })).json();
    const evalRun = await (await app.call("GET", `/eval-runs/${ids.evalRunId}`, { headers: as("admin") })).json();
    const content = await (await app.call("GET", `/knowledge/content/${ids.contentId}`, { headers: as("admin") })).json();
    const chunks = await (await app.call("POST", "/knowledge/search", { json: { query: "alpaca grooming" }, headers: as("admin") })).json();
    const approval = await (await app.call("GET", `/approvals/${ids.approvalId}`, { headers: as("admin") })).json();
    const learning = await (await app.call("GET", `/learnings/${ids.learningId}`, { headers: as("admin") })).json();
    const component = await (await app.call("GET", `/components/${ids.componentId}?include_deleted=true`, { headers: as("admin") })).json();
    const componentConfigs = await (await app.call("GET", `/components/${ids.componentId}/configs`, { headers: as("admin") })).json();
    return JSON.stringify({
      session,
      memory,
      paused: (paused as Json).status,
      schedule,
      scheduleRuns: (scheduleRuns as { data: unknown[] }).data.length,
      evalRun,
      content,
      chunks: (chunks as { data: unknown[] }).data.length,
      approval,
      learning,
      component,
      componentConfigs,
    });
  };

  it("B, B's service account and anonymous never see or change A's rows", async () => {
    const before = await snapshot();
    const mine = [
      ids.sessionId,
      ids.runId,
      ids.memoryId,
      ids.pausedRunId,
      ids.teamRunId,
      ids.teamSessionId,
      ids.workflowRunId,
      ids.workflowSessionId,
      "A's workflow input",
      "A's team question",
      "A's question",
      "A likes tea",
      "drinks",
      ids.scheduleId,
      "alices-report",
      ids.evalRunId,
      "alices-eval",
      "A's eval",
      '"alice"',
      "alices-handbook",
      "Alpaca grooming",
      "alices_key",
      ids.approvalId,
      ids.traceId,
      "A's traced question",
      "A's traced answer",
      ids.learningId,
      "A's learned profile",
      ids.componentId,
      "Alices secret helper",
      "A's secret instructions",
      "A's draft notes",
    ];
    for (const [key, c] of Object.entries(MATRIX)) {
      const init = c.init?.(ids) ?? {};
      const anonymous = await app.call(c.method, c.path(ids), { ...init, headers: as("anonymous") });
      expect(anonymous.status, `anonymous ${key}`).toBe(401);
      for (const who of ["b", "saOfB"] as const) {
        const response = await app.call(c.method, c.path(ids), { ...init, headers: as(who) });
        const body = await response.text();
        if (c.forB === "stream-error") {
          expect(body, `${who} ${key}`).toMatch(/^event: error\ndata: \{"event":"error","error":"Run [^"]+ not found in buffer or database"\}\n\n$/);
        } else if (c.forB === "denied") {
          expect(response.status, `${who} ${key}: ${body}`).toBeGreaterThanOrEqual(400);
          expect(response.status, `${who} ${key}`).not.toBe(500);
        } else {
          expect(response.status, `${who} ${key}: ${body}`).toBeLessThan(500);
          for (const secret of mine) expect(body, `${who} ${key} leaked ${secret}`).not.toContain(secret);
        }
      }
    }
    expect(await snapshot(), "A's data changed through B's requests").toBe(before);
  });

  it("an admin can read and act on A's rows", async () => {
    const reads = [
      "GET /sessions/{session_id}",
      "GET /sessions/{session_id}/runs",
      "GET /sessions/{session_id}/runs/{run_id}",
      "GET /memories/{memory_id}",
      "GET /agents/{agent_id}/runs/{run_id}",
      "GET /schedules/{schedule_id}",
      "GET /schedules/{schedule_id}/runs/{run_id}",
      "GET /eval-runs/{eval_run_id}",
      "GET /knowledge/content/{content_id}",
      "GET /approvals/{approval_id}",
      "GET /approvals/{approval_id}/status",
      "GET /traces/{trace_id}",
      "GET /learnings/{learning_id}",
      "GET /components/{component_id}",
      "GET /components/{component_id}/configs",
      "GET /components/{component_id}/configs/{version}",
      "GET /components/{component_id}/configs/current",
    ];
    for (const key of reads) {
      const c = MATRIX[key];
      const response = await app.call(c.method, c.path(ids), { ...(c.init?.(ids) ?? {}), headers: as("admin") });
      expect(response.status, `admin ${key}`).toBe(200);
    }
    const listed = await (await app.call("GET", "/sessions?user_id=alice", { headers: as("admin") })).text();
    expect(listed).toContain(ids.sessionId);
    const traces = await (await app.call("GET", "/traces?user_id=alice", { headers: as("admin") })).text();
    expect(traces).toContain(ids.traceId);
    const c = MATRIX["POST /agents/{agent_id}/runs/{run_id}/continue"];
    const continued = await app.call(c.method, c.path(ids), { ...c.init!(ids), headers: as("admin") });
    expect(continued.status).toBe(200);
    expect(((await continued.json()) as Json).status).toBe("COMPLETED");
    const deleted = await app.call("DELETE", `/memories/${ids.memoryId}`, { headers: as("admin") });
    expect(deleted.status).toBe(204);
  });
});
