import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvalRun } from "@/lib/db/evals/eval-runs.ts";
import { createScheduleRun, enqueueRunJob, type Db } from "@/lib/db/index.ts";
import { traceTime } from "@/lib/db/traces/trace-rows.ts";
import { writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { buildOpenApi } from "@/lib/http/openapi.ts";
import { nullsOmittedSchema, omitNullFields } from "@/lib/http/omit-nulls.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { wireResponseSchema, type AnyRoute } from "@/lib/http/route.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * The null-field rule, route by route. Agno declares `response_model_exclude_none=True` on some
 * routes: there a field whose value is null is left out of the JSON (nested declared objects
 * included), while free-form values (session_state, metadata, a run's metrics, chat messages)
 * keep their nulls; everywhere else a null is sent as null. A declaration without a response
 * model (Agno's run, cancel and continue endpoints) changes nothing, so those routes send nulls.
 *
 * The rule is applied where the handler's result is serialized, after storage: one SQLite app
 * covers it (the storage suites run both dialects).
 */

/** `METHOD /template` → whether Agno leaves null fields out there. Every route is listed. */
const EXCLUDE_NONE: Record<string, boolean> = {
  "GET /": false,
  "GET /health": false,
  "GET /info": false,
  "GET /config": true,
  "POST /databases/all/migrate": false,
  "POST /databases/{db_id}/migrate": false,
  "GET /agents": true,
  "GET /agents/{agent_id}": true,
  "POST /agents/{agent_id}/runs": false,
  "GET /agents/{agent_id}/runs": false,
  "GET /agents/{agent_id}/runs/{run_id}": false,
  "POST /agents/{agent_id}/runs/{run_id}/cancel": false,
  "POST /agents/{agent_id}/runs/{run_id}/continue": false,
  "POST /agents/{agent_id}/runs/{run_id}/resume": false,
  "GET /teams/{team_id}": true,
  "POST /teams/{team_id}/runs": false,
  "GET /teams/{team_id}/runs": false,
  "GET /teams/{team_id}/runs/{run_id}": false,
  "POST /teams/{team_id}/runs/{run_id}/cancel": false,
  "POST /teams/{team_id}/runs/{run_id}/continue": false,
  "POST /teams/{team_id}/runs/{run_id}/resume": false,
  "GET /workflows/{workflow_id}": true,
  "POST /workflows/{workflow_id}/runs": false,
  "GET /workflows/{workflow_id}/runs": false,
  "GET /workflows/{workflow_id}/runs/{run_id}": false,
  "POST /workflows/{workflow_id}/runs/{run_id}/cancel": false,
  "POST /workflows/{workflow_id}/runs/{run_id}/continue": false,
  "POST /workflows/{workflow_id}/runs/{run_id}/resume": false,
  "GET /teams": true,
  "GET /workflows": true,
  "GET /sessions": true,
  "POST /sessions": true,
  "DELETE /sessions": false,
  "GET /sessions/{session_id}": true,
  "PATCH /sessions/{session_id}": false,
  "DELETE /sessions/{session_id}": false,
  "POST /sessions/{session_id}/rename": false,
  "GET /sessions/{session_id}/runs": true,
  "GET /sessions/{session_id}/runs/{run_id}": false,
  "POST /memories": false,
  "GET /memories": false,
  "DELETE /memories": false,
  "GET /memories/{memory_id}": false,
  "PATCH /memories/{memory_id}": false,
  "DELETE /memories/{memory_id}": false,
  "GET /memory_topics": false,
  "GET /user_memory_stats": false,
  "POST /optimize-memories": false,
  "GET /learnings": false,
  "POST /learnings": false,
  "GET /learnings/users": false,
  "DELETE /learnings/users/{user_id}": false,
  "GET /learnings/{learning_id}": false,
  "PATCH /learnings/{learning_id}": false,
  "DELETE /learnings/{learning_id}": false,
  "GET /metrics": false,
  "POST /metrics/refresh": false,
  "GET /metrics/refresh/status": false,
  "POST /service-accounts": false,
  "GET /service-accounts": false,
  "DELETE /service-accounts/{service_account_id}": false,
  "GET /queue/jobs": false,
  "GET /queue/jobs/{job_id}": false,
  "POST /queue/jobs/{job_id}/requeue": false,
  "GET /queue/stats": false,
  "GET /approvals": false,
  "GET /approvals/count": false,
  "GET /approvals/{approval_id}": false,
  "GET /approvals/{approval_id}/status": false,
  "POST /approvals/{approval_id}/resolve": false,
  "DELETE /approvals/{approval_id}": false,
  "GET /schedules": false,
  "POST /schedules": false,
  "GET /schedules/{schedule_id}": false,
  "PATCH /schedules/{schedule_id}": false,
  "DELETE /schedules/{schedule_id}": false,
  "POST /schedules/{schedule_id}/enable": false,
  "POST /schedules/{schedule_id}/disable": false,
  "POST /schedules/{schedule_id}/trigger": false,
  "GET /schedules/{schedule_id}/runs": false,
  "GET /schedules/{schedule_id}/runs/{run_id}": false,
  "GET /eval-runs": false,
  "POST /eval-runs": false,
  "DELETE /eval-runs": false,
  "GET /eval-runs/{eval_run_id}": false,
  "PATCH /eval-runs/{eval_run_id}": false,
  "DELETE /eval-runs/{eval_run_id}": false,
  "POST /eval-runs/{eval_run_id}/cancel": false,
  "GET /openapi.json": false,
  "GET /docs": false,
  "GET /docs/{asset}": false,
  "GET /queue/{path*}": false,
  "POST /queue/{path*}": false,
  "PUT /queue/{path*}": false,
  "PATCH /queue/{path*}": false,
  "DELETE /queue/{path*}": false,
  "POST /knowledge/content": false,
  "GET /knowledge/content": false,
  "DELETE /knowledge/content": false,
  "GET /knowledge/content/{content_id}": false,
  "PATCH /knowledge/content/{content_id}": false,
  "DELETE /knowledge/content/{content_id}": true,
  "GET /knowledge/content/{content_id}/status": false,
  "POST /knowledge/search": false,
  "GET /knowledge/config": false,
  "GET /traces": true,
  "GET /traces/filter-schema": false,
  "GET /traces/{trace_id}": true,
  "GET /trace_session_stats": true,
  "POST /traces/search": true,
  "GET /registry": true,
  "GET /components": true,
  "POST /components": true,
  "GET /components/{component_id}": true,
  "PATCH /components/{component_id}": true,
  "DELETE /components/{component_id}": false,
  "POST /components/{component_id}/restore": true,
  "GET /components/{component_id}/configs": true,
  "POST /components/{component_id}/configs": true,
  "GET /components/{component_id}/configs/current": true,
  "GET /components/{component_id}/configs/{version}": true,
  "PATCH /components/{component_id}/configs/{version}": true,
  "DELETE /components/{component_id}/configs/{version}": false,
  "POST /components/{component_id}/configs/{version}/set-current": true,
};

type Path = (string | number)[];
interface Ids {
  sessionId: string;
  runId: string;
  memoryId: string;
  jobId: string;
  scheduleId: string;
  scheduleRunId: string;
  evalRunId: string;
  traceId: string;
  learningId: string;
  componentId: string;
}
interface Probe {
  request: (ids: Ids) => { method: string; path: string; json?: unknown };
  /** A declared field that is null in this response: omitted under the rule, null otherwise. */
  nullField: Path;
  /** Nulls inside free-form values: sent on every route, the rule's routes included. */
  keptNulls?: Path[];
}

/** A request per route whose response holds a null, naming where. */
const PROBES: Record<string, Probe> = {
  "GET /info": { request: () => ({ method: "GET", path: "/info" }), nullField: ["mcp", "path"] },
  "GET /config": { request: () => ({ method: "GET", path: "/config" }), nullField: ["agents", 0, "description"], keptNulls: [["agents", 0, "metadata", "tier"]] },
  "GET /agents": { request: () => ({ method: "GET", path: "/agents" }), nullField: [0, "knowledge"], keptNulls: [[0, "metadata", "tier"]] },
  "GET /agents/{agent_id}": { request: () => ({ method: "GET", path: "/agents/assistant" }), nullField: ["role"], keptNulls: [["metadata", "tier"]] },
  "GET /agents/{agent_id}/runs": { request: (i) => ({ method: "GET", path: `/agents/assistant/runs?session_id=${i.sessionId}` }), nullField: [0, "parent_run_id"] },
  "GET /sessions": {
    request: (i) => ({ method: "GET", path: `/sessions?session_name=${i.sessionId}` }),
    nullField: ["data", 0, "session_summary"],
    keptNulls: [["data", 0, "session_state", "pending"]],
  },
  "POST /sessions": {
    request: () => ({ method: "POST", path: "/sessions", json: { session_state: { pending: null }, metadata: { note: null } } }),
    nullField: ["session_summary"],
    keptNulls: [
      ["session_state", "pending"],
      ["metadata", "note"],
    ],
  },
  "GET /sessions/{session_id}": {
    request: (i) => ({ method: "GET", path: `/sessions/${i.sessionId}` }),
    nullField: ["session_summary"],
    keptNulls: [
      ["session_state", "pending"],
      ["chat_history", 1, "content"],
    ],
  },
  "PATCH /sessions/{session_id}": { request: (i) => ({ method: "PATCH", path: `/sessions/${i.sessionId}`, json: {} }), nullField: ["session_summary"], keptNulls: [["session_state", "pending"]] },
  "POST /sessions/{session_id}/rename": { request: (i) => ({ method: "POST", path: `/sessions/${i.sessionId}/rename`, json: { session_name: i.sessionId } }), nullField: ["session_summary"] },
  "GET /sessions/{session_id}/runs": {
    request: (i) => ({ method: "GET", path: `/sessions/${i.sessionId}/runs` }),
    nullField: [0, "parent_run_id"],
    keptNulls: [
      [0, "metrics", "cost"],
      [0, "messages", 1, "content"],
    ],
  },
  "GET /sessions/{session_id}/runs/{run_id}": { request: (i) => ({ method: "GET", path: `/sessions/${i.sessionId}/runs/${i.runId}` }), nullField: ["parent_run_id"], keptNulls: [["metrics", "cost"]] },
  "POST /memories": { request: () => ({ method: "POST", path: "/memories", json: { memory: "Likes tea", user_id: "owner-x" } }), nullField: ["agent_id"] },
  "GET /memories": { request: () => ({ method: "GET", path: "/memories?user_id=owner-x" }), nullField: ["data", 0, "agent_id"] },
  "GET /memories/{memory_id}": { request: (i) => ({ method: "GET", path: `/memories/${i.memoryId}` }), nullField: ["agent_id"] },
  "PATCH /memories/{memory_id}": { request: (i) => ({ method: "PATCH", path: `/memories/${i.memoryId}`, json: { memory: "Likes green tea", user_id: "owner-x" } }), nullField: ["team_id"] },
  "POST /learnings": {
    request: () => ({ method: "POST", path: "/learnings", json: { learning_type: "decision_log", user_id: "owner-x", content: { outcome: null } } }),
    nullField: ["agent_id"],
    keptNulls: [["content", "outcome"]],
  },
  "GET /learnings": {
    request: () => ({ method: "GET", path: "/learnings?user_id=owner-x&learning_type=user_profile" }),
    nullField: ["data", 0, "team_id"],
    keptNulls: [["data", 0, "metadata", "gone"]],
  },
  "GET /learnings/{learning_id}": { request: (i) => ({ method: "GET", path: `/learnings/${i.learningId}` }), nullField: ["namespace"], keptNulls: [["content", "preferred_name"]] },
  "PATCH /learnings/{learning_id}": {
    request: (i) => ({ method: "PATCH", path: `/learnings/${i.learningId}`, json: { metadata: { gone: null } } }),
    nullField: ["entity_id"],
    keptNulls: [["metadata", "gone"]],
  },
  "POST /service-accounts": {
    request: () => ({ method: "POST", path: "/service-accounts", json: { name: uid("bot"), scopes: [{ scope: "agents:read", effect: "allow" }], never_expires: true } }),
    nullField: ["expires_at"],
  },
  "GET /service-accounts": { request: () => ({ method: "GET", path: "/service-accounts" }), nullField: ["data", 0, "last_used_at"] },
  "GET /metrics": { request: () => ({ method: "GET", path: "/metrics?user_id=nobody-x" }), nullField: ["updated_at"] },
  "GET /metrics/refresh/status": { request: () => ({ method: "GET", path: "/metrics/refresh/status" }), nullField: ["started_at"] },
  "GET /queue/jobs": { request: () => ({ method: "GET", path: "/queue/jobs?status=queued" }), nullField: ["data", 0, "locked_by"] },
  "GET /queue/jobs/{job_id}": { request: (i) => ({ method: "GET", path: `/queue/jobs/${i.jobId}` }), nullField: ["locked_by"] },
  "GET /schedules": { request: () => ({ method: "GET", path: "/schedules" }), nullField: ["data", 0, "description"] },
  "POST /schedules": { request: () => ({ method: "POST", path: "/schedules", json: { name: uid("probe"), cron_expr: "0 3 * * *", endpoint: "/agents/assistant/runs" } }), nullField: ["description"] },
  "GET /schedules/{schedule_id}": { request: (i) => ({ method: "GET", path: `/schedules/${i.scheduleId}` }), nullField: ["description"] },
  "PATCH /schedules/{schedule_id}": { request: (i) => ({ method: "PATCH", path: `/schedules/${i.scheduleId}`, json: { timeout_seconds: 60 } }), nullField: ["description"] },
  "GET /schedules/{schedule_id}/runs": { request: (i) => ({ method: "GET", path: `/schedules/${i.scheduleId}/runs` }), nullField: ["data", 0, "status_code"] },
  "GET /schedules/{schedule_id}/runs/{run_id}": { request: (i) => ({ method: "GET", path: `/schedules/${i.scheduleId}/runs/${i.scheduleRunId}` }), nullField: ["status_code"] },
  "GET /eval-runs": { request: () => ({ method: "GET", path: "/eval-runs" }), nullField: ["data", 0, "team_id"], keptNulls: [["data", 0, "eval_input", "additional_context"]] },
  "GET /eval-runs/{eval_run_id}": { request: (i) => ({ method: "GET", path: `/eval-runs/${i.evalRunId}` }), nullField: ["team_id"], keptNulls: [["eval_input", "additional_context"]] },
  "PATCH /eval-runs/{eval_run_id}": { request: (i) => ({ method: "PATCH", path: `/eval-runs/${i.evalRunId}`, json: { name: "renamed" } }), nullField: ["workflow_id"] },
  "POST /eval-runs/{eval_run_id}/cancel": { request: (i) => ({ method: "POST", path: `/eval-runs/${i.evalRunId}/cancel` }), nullField: ["team_id"] },
  "GET /traces": { request: () => ({ method: "GET", path: "/traces?user_id=owner-x" }), nullField: ["data", 0, "team_id"] },
  "GET /traces/filter-schema": { request: () => ({ method: "GET", path: "/traces/filter-schema" }), nullField: ["fields", 1, "values"] },
  "GET /traces/{trace_id}": { request: (i) => ({ method: "GET", path: `/traces/${i.traceId}` }), nullField: ["tree", 0, "input"] },
  "GET /trace_session_stats": { request: () => ({ method: "GET", path: "/trace_session_stats?user_id=owner-x" }), nullField: ["data", 0, "workflow_id"] },
  "POST /traces/search": { request: (i) => ({ method: "POST", path: "/traces/search", json: { filter: { op: "EQ", key: "trace_id", value: i.traceId } } }), nullField: ["data", 0, "error"] },
  "GET /components": { request: () => ({ method: "GET", path: "/components" }), nullField: ["data", 0, "description"], keptNulls: [["data", 0, "metadata", "note"]] },
  "POST /components": {
    request: () => ({ method: "POST", path: "/components", json: { name: uid("Probe"), component_type: "agent", metadata: { note: null } } }),
    nullField: ["current_version"],
    keptNulls: [["metadata", "note"]],
  },
  "GET /components/{component_id}": { request: (i) => ({ method: "GET", path: `/components/${i.componentId}` }), nullField: ["description"], keptNulls: [["metadata", "note"]] },
  "PATCH /components/{component_id}": { request: (i) => ({ method: "PATCH", path: `/components/${i.componentId}`, json: {} }), nullField: ["deleted_at"], keptNulls: [["metadata", "note"]] },
  "GET /components/{component_id}/configs": { request: (i) => ({ method: "GET", path: `/components/${i.componentId}/configs` }), nullField: [0, "notes"], keptNulls: [[0, "config", "role"]] },
  "POST /components/{component_id}/configs": {
    request: (i) => ({ method: "POST", path: `/components/${i.componentId}/configs`, json: { config: { role: null } } }),
    nullField: ["label"],
    keptNulls: [["config", "role"]],
  },
  "GET /components/{component_id}/configs/current": {
    request: (i) => ({ method: "GET", path: `/components/${i.componentId}/configs/current` }),
    nullField: ["notes"],
    keptNulls: [["config", "role"]],
  },
  "GET /components/{component_id}/configs/{version}": {
    request: (i) => ({ method: "GET", path: `/components/${i.componentId}/configs/1` }),
    nullField: ["updated_at"],
    keptNulls: [["config", "role"]],
  },
  "PATCH /components/{component_id}/configs/{version}": {
    request: (i) => ({ method: "PATCH", path: `/components/${i.componentId}/configs/1`, json: {} }),
    nullField: ["label"],
    keptNulls: [["config", "role"]],
  },
};

/** Routes without a probe, and why none is needed. */
const UNPROBED: Record<string, string> = {
  "POST /knowledge/content": "the same ContentSchema as GET /knowledge/content/{content_id} (test/knowledge/knowledge-api.test.ts checks nulls are sent)",
  "GET /knowledge/content": "a page of ContentSchema rows (nulls sent; test/knowledge/knowledge-api.test.ts)",
  "DELETE /knowledge/content": 'answers the JSON string "success"',
  "GET /knowledge/content/{content_id}": "ContentSchema with access_count null, sent (test/knowledge/knowledge-api.test.ts)",
  "PATCH /knowledge/content/{content_id}": "the same ContentSchema as GET",
  "DELETE /knowledge/content/{content_id}": "answers {id}: no nullable field",
  "GET /knowledge/content/{content_id}/status": "no nullable field set to null for a stored content",
  "POST /knowledge/search": "hits' nullable fields are set for chunks this server stores",
  "GET /knowledge/config": "free-form records; the embedder is null without one (sent)",
  "GET /registry": "an entry without an id or description has no key for it (test/http/registry.test.ts); metadata is free-form",
  "GET /": "no nullable field",
  "GET /health": "no nullable field",
  "POST /databases/all/migrate": "no nullable field",
  "POST /databases/{db_id}/migrate": "no nullable field",
  "POST /agents/{agent_id}/runs": "the stored RunOutput dict (no response model in Agno); needs a model",
  "GET /agents/{agent_id}/runs/{run_id}": "the stored RunOutput dict, as the runtime wrote it (no response model in Agno)",
  "POST /agents/{agent_id}/runs/{run_id}/cancel": "answers {}",
  "POST /agents/{agent_id}/runs/{run_id}/continue": "the stored RunOutput dict or SSE (no response model in Agno)",
  "POST /agents/{agent_id}/runs/{run_id}/resume": "SSE",
  "GET /teams": "TeamResponse rows: the leader's fields as GET /agents (test/teams/team-runs.test.ts checks a null role is left out)",
  "GET /teams/{team_id}": "the same TeamResponse as GET /teams",
  "POST /teams/{team_id}/runs": "the stored TeamRunOutput dict (no response model in Agno); needs a model",
  "GET /teams/{team_id}/runs": "TeamRunSchema rows, nulls sent as GET /agents/{agent_id}/runs",
  "GET /teams/{team_id}/runs/{run_id}": "the stored TeamRunOutput dict (no response model in Agno)",
  "POST /teams/{team_id}/runs/{run_id}/cancel": "answers {}",
  "POST /teams/{team_id}/runs/{run_id}/continue": "the stored TeamRunOutput dict or SSE (no response model in Agno)",
  "POST /teams/{team_id}/runs/{run_id}/resume": "SSE",
  "GET /workflows": "WorkflowSummaryResponse rows: a null description is left out (test/workflows/workflow-runs.test.ts)",
  "GET /workflows/{workflow_id}": "WorkflowResponse: null input_schema, agent and team are left out",
  "POST /workflows/{workflow_id}/runs": "the stored WorkflowRunOutput dict (no response model in Agno)",
  "GET /workflows/{workflow_id}/runs": "WorkflowRunSchema rows, nulls sent as GET /agents/{agent_id}/runs",
  "GET /workflows/{workflow_id}/runs/{run_id}": "the stored WorkflowRunOutput dict (no response model in Agno)",
  "POST /workflows/{workflow_id}/runs/{run_id}/cancel": "answers {}",
  "POST /workflows/{workflow_id}/runs/{run_id}/continue": "the stored WorkflowRunOutput dict or SSE (no response model in Agno)",
  "POST /workflows/{workflow_id}/runs/{run_id}/resume": "SSE",
  "DELETE /sessions": "204",
  "DELETE /sessions/{session_id}": "204",
  "DELETE /memories": "204",
  "DELETE /memories/{memory_id}": "204",
  "GET /memory_topics": "a list of strings",
  "GET /user_memory_stats": "every field is set for a user with memories",
  "POST /optimize-memories": "501 until a model-backed memory manager exists",
  "GET /learnings/users": "last_learning_updated_at is set for every user with learnings",
  "DELETE /learnings/users/{user_id}": "204",
  "DELETE /learnings/{learning_id}": "204",
  "DELETE /service-accounts/{service_account_id}": "204",
  "POST /metrics/refresh": "the same DayMetricsSchema rows as GET /metrics, or Agno's {status, message}",
  "POST /queue/jobs/{job_id}/requeue": "the same JobSchema as GET /queue/jobs/{job_id}",
  "GET /queue/stats": "oldest_queued_age_seconds is a number while a job is queued",
  "DELETE /schedules/{schedule_id}": "204",
  "DELETE /components/{component_id}": "204",
  "DELETE /components/{component_id}/configs/{version}": "204",
  "POST /components/{component_id}/restore": "the same ComponentResponse as GET /components/{component_id}",
  "POST /components/{component_id}/configs/{version}/set-current": "the same ComponentResponse as GET /components/{component_id}",
  "GET /approvals": "ApprovalResponse rows sent with their nulls (expires_at null in test/approvals/approvals.test.ts)",
  "GET /approvals/count": "{count}: never null",
  "GET /approvals/{approval_id}": "the same ApprovalResponse as GET /approvals' rows",
  "GET /approvals/{approval_id}/status": "resolved_at and resolved_by are null while pending (test/approvals/approvals.test.ts)",
  "POST /approvals/{approval_id}/resolve": "the same ApprovalResponse, resolved",
  "DELETE /approvals/{approval_id}": "204",
  "POST /schedules/{schedule_id}/enable": "the state of a schedule just enabled: next_run_at and updated_at are set",
  "POST /schedules/{schedule_id}/disable": "the same ScheduleStateSchema as enable",
  "POST /schedules/{schedule_id}/trigger": "the same ScheduleRunSchema as GET /schedules/{schedule_id}/runs/{run_id}; needs a model",
  "POST /eval-runs": "the same EvalSchema as GET /eval-runs/{eval_run_id}; needs a model",
  "DELETE /eval-runs": "204",
  "DELETE /eval-runs/{eval_run_id}": "204",
  "GET /openapi.json": "the OpenAPI document",
  "GET /docs": "HTML",
  "GET /docs/{asset}": "static assets",
  "GET /queue/{path*}": "errors only",
  "POST /queue/{path*}": "errors only",
  "PUT /queue/{path*}": "errors only",
  "PATCH /queue/{path*}": "errors only",
  "DELETE /queue/{path*}": "errors only",
};

const keyOf = (route: AnyRoute) => `${route.method} ${route.path}`;
const routeFor = (key: string) => ROUTES.find((r) => keyOf(r) === key)!;

/** The parent of `path` inside `body`, and the last key. */
function locate(body: unknown, path: Path): { parent: Record<string | number, unknown>; key: string | number } {
  let parent = body as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    expect(parent, `path ${path.join(".")}`).toBeTypeOf("object");
    parent = parent[key] as Record<string | number, unknown>;
  }
  expect(parent, `parent of ${path.join(".")}`).toBeTypeOf("object");
  expect(parent).not.toBeNull();
  return { parent, key: path.at(-1)! };
}

describe("the route table", () => {
  it("declares Agno's null-field rule on every route", () => {
    const declared = Object.fromEntries(ROUTES.map((r) => [keyOf(r), r.excludeNone === true]));
    expect(declared).toEqual(EXCLUDE_NONE);
    // The rule needs a response schema: it follows the declared fields.
    for (const route of ROUTES.filter((r) => r.excludeNone)) expect(route.response, keyOf(route)).toBeDefined();
  });

  it("probes every route whose response can hold a null, and says why for the others", () => {
    for (const key of Object.keys(EXCLUDE_NONE)) {
      expect(key in PROBES !== key in UNPROBED, `${key}: probed or explained, exactly once`).toBe(true);
    }
    expect(Object.keys({ ...PROBES, ...UNPROBED }).sort()).toEqual(Object.keys(EXCLUDE_NONE).sort());
  });

  it("describes the wire shape in /openapi.json: a nullable field is optional only where nulls are left out", () => {
    const doc = buildOpenApi(ROUTES, sqliteApp.settings) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }>> };
    const schemaOf = (method: string, path: string, status = "200") => doc.paths[path][method].responses[status].content!["application/json"].schema;
    const required = (schema: Record<string, unknown>) => (schema.required as string[] | undefined) ?? [];
    const getDetail = schemaOf("get", "/sessions/{session_id}") as { anyOf: Record<string, unknown>[] };
    const patchDetail = schemaOf("patch", "/sessions/{session_id}") as { anyOf: Record<string, unknown>[] };
    expect(required(getDetail.anyOf[0])).not.toContain("session_summary");
    expect(required(getDetail.anyOf[0])).toContain("session_id");
    expect(required(patchDetail.anyOf[0])).toContain("session_summary");
    const list = schemaOf("get", "/sessions") as { properties: { data: { items: Record<string, unknown> } } };
    expect(required(list.properties.data.items)).not.toContain("session_state");
    expect(required(schemaOf("get", "/info"))).toContain("name");
  });
});

let sqliteApp: TestApp;
let db: Db;
const ids = {} as Ids;

beforeAll(async () => {
  sqliteApp = await startTestApp({
    dialect: sqliteDialect,
    agents: [{ id: "assistant", name: "Assistant", model: null, metadata: { tier: null } }],
    env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false" },
  });
  db = await sqliteApp.db();
  const scope = adminScope("owner-x");
  const run: Record<string, unknown> = {
    ...agnoRun({
      sessionId: "",
      agentId: "assistant",
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: null, tool_calls: [{ id: "t1" }] },
      ],
    }),
    metrics: { total_tokens: 12, cost: null },
  };
  const session = await seedSession(db, { scope, session: { userId: "owner-x", sessionData: { session_state: { pending: null } } }, runs: [run] });
  ids.sessionId = session.session_id;
  ids.runId = String(run.run_id);
  // Named after itself, so GET /sessions can select exactly this one.
  await sqliteApp.call("POST", `/sessions/${ids.sessionId}/rename`, { json: { session_name: ids.sessionId } });
  const memory = await sqliteApp.call("POST", "/memories", { json: { memory: "Has a cat", user_id: "owner-x" } });
  ids.memoryId = ((await memory.json()) as { memory_id: string }).memory_id;
  const learning = await sqliteApp.call("POST", "/learnings", {
    json: { learning_type: "user_profile", user_id: "owner-x", content: { name: "Ada", preferred_name: null }, metadata: { gone: null } },
  });
  ids.learningId = ((await learning.json()) as { learning_id: string }).learning_id;
  await sqliteApp.call("POST", "/service-accounts", { json: { name: uid("listed"), scopes: [{ scope: "agents:read", effect: "allow" }], never_expires: true } });
  const schedule = await sqliteApp.call("POST", "/schedules", { json: { name: uid("listed"), cron_expr: "0 3 * * *", endpoint: "/agents/assistant/runs" } });
  ids.scheduleId = ((await schedule.json()) as { id: string }).id;
  const skipped = await createScheduleRun(db, { scope: adminScope(null), run: { scheduleId: ids.scheduleId, attempt: 1, scheduledFor: 1, status: "skipped" } });
  ids.scheduleRunId = skipped.id;
  const evalRun = await createEvalRun(db, {
    scope,
    run: { evalType: "accuracy", evalData: { avg_score: 9 }, evalInput: { input: "2+2", additional_context: null }, agentId: "assistant", userId: "owner-x" },
  });
  ids.evalRunId = evalRun.run_id;
  ids.traceId = uid("trace");
  const now = Date.now();
  const [start, end] = [traceTime(now - 500), traceTime(now)];
  await writeTraceBatch(db, {
    traces: [
      {
        trace_id: ids.traceId,
        name: "Assistant.run",
        status: "OK",
        start_time: start,
        end_time: end,
        duration_ms: 500,
        run_id: ids.runId,
        session_id: ids.sessionId,
        user_id: "owner-x",
        agent_id: "assistant",
        team_id: null,
        workflow_id: null,
        created_at: end,
      },
    ],
    spans: [
      {
        span_id: `${ids.traceId}-root`,
        trace_id: ids.traceId,
        parent_span_id: null,
        name: "Assistant.run",
        span_kind: "INTERNAL",
        status_code: "OK",
        status_message: null,
        start_time: start,
        end_time: end,
        duration_ms: 500,
        attributes: { "openinference.span.kind": "AGENT", "input.value": "weather?", "output.value": "sunny" },
        created_at: end,
      },
    ],
  });
  const component = await sqliteApp.call("POST", "/components", { json: { name: uid("Probed"), component_type: "agent", metadata: { note: null }, config: { role: null } } });
  ids.componentId = ((await component.json()) as { component_id: string }).component_id;
  const job = await seedSession(db, { scope, session: { userId: "owner-x" } });
  ids.jobId = uid("job-run");
  await enqueueRunJob(db, {
    scope,
    run: { runId: ids.jobId, sessionId: job.session_id, runType: "agent", agentId: "assistant", runData: { run_id: ids.jobId, session_id: job.session_id } },
    job: { componentType: "agent", componentId: "assistant", jobType: "run", payload: { input: "hi" }, stream: false, maxAttempts: 1, deploymentId: uid("dep") },
  });
});
afterAll(() => sqliteApp?.close());

describe("each route's JSON", () => {
  for (const [key, probe] of Object.entries(PROBES)) {
    const omits = EXCLUDE_NONE[key];
    it(`${key}: a null field is ${omits ? "left out" : "sent as null"}; free-form values keep their nulls`, async () => {
      const { method, path, json } = probe.request(ids);
      const response = await sqliteApp.call(method, path, json === undefined ? {} : { json });
      const text = await response.text();
      expect(response.status, `${key}: ${text.slice(0, 300)}`).toBeLessThan(300);
      const body: unknown = JSON.parse(text);
      const { parent, key: field } = locate(body, probe.nullField);
      if (omits) expect(parent, `${key}: ${probe.nullField.join(".")}`).not.toHaveProperty(String(field));
      else expect(parent[field], `${key}: ${probe.nullField.join(".")}`).toBeNull();
      for (const kept of probe.keptNulls ?? []) {
        const at = locate(body, kept);
        expect(at.parent, `${key}: ${kept.join(".")}`).toHaveProperty(String(at.key));
        expect(at.parent[at.key], `${key}: ${kept.join(".")}`).toBeNull();
      }
      // The body is what the route's (wire) response schema describes.
      const schema = wireResponseSchema(routeFor(key));
      if (schema) expect(schema.safeParse(body).error?.issues ?? [], key).toEqual([]);
    });
  }
});

describe("omitNullFields", () => {
  const Inner = z.object({ a: z.string().nullable(), b: z.number() });
  const Outer = z.object({
    name: z.string().nullable(),
    inner: Inner.nullable(),
    list: z.array(Inner),
    nulls: z.array(z.string().nullable()),
    state: z.record(z.string(), z.unknown()).nullable(),
    anything: z.unknown(),
    either: z.union([z.object({ kind: z.literal("x"), x: z.string().nullable() }), z.record(z.string(), z.unknown())]),
    extra: z.looseObject({ id: z.string() }),
  });

  it("drops null fields of declared objects at any depth and keeps free-form values whole", () => {
    const value = {
      name: null,
      inner: { a: null, b: 1 },
      list: [{ a: null, b: 2 }],
      nulls: [null, "s"],
      state: { k: null, deep: { q: null } },
      anything: { z: null },
      either: { free: null },
      extra: { id: "e", more: null, kept: { n: null } },
    };
    expect(omitNullFields(value, Outer)).toEqual({
      inner: { b: 1 },
      list: [{ b: 2 }],
      nulls: [null, "s"],
      state: { k: null, deep: { q: null } },
      anything: { z: null },
      either: { free: null },
      extra: { id: "e", kept: { n: null } },
    });
    expect(omitNullFields({ ...value, either: { kind: "x", x: null } }, Outer)).toMatchObject({ either: { kind: "x" } });
    // The handler's value is left as it was.
    expect(value.inner.a).toBeNull();
  });

  it("describes the result: a nullable declared field is optional and never null", () => {
    const Wire = nullsOmittedSchema(Outer);
    expect(Wire.safeParse(omitNullFields({ name: null, inner: null, list: [], nulls: [], state: null, anything: null, either: {}, extra: { id: "e" } }, Outer)).success).toBe(true);
    expect(Wire.safeParse({ name: null, list: [], nulls: [], either: {}, extra: { id: "e" } }).success).toBe(false);
    expect(Wire.safeParse({ list: [], nulls: [null], state: { k: null }, either: {}, extra: { id: "e" } }).success).toBe(true);
  });
});

describe("an agent without a model", () => {
  it("has no `model` in GET /agents and GET /agents/{id} (Agno builds none from an empty model), and the dashboard still says no model is configured", async () => {
    const list = (await (await sqliteApp.call("GET", "/agents")).json()) as Record<string, unknown>[];
    expect(list[0]).not.toHaveProperty("model");
    expect(list[0].model_configured).toBe(false);
    expect(await (await sqliteApp.call("GET", "/agents/assistant")).json()).not.toHaveProperty("model");
  });
});
