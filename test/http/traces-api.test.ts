import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { traceTime, type SpanRow, type TraceRow } from "@/lib/db/traces/trace-rows.ts";
import { writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { nullsOmittedSchema } from "@/lib/http/omit-nulls.ts";
import { TraceListSchema, TraceSearchSchema, TraceSessionStatsListSchema, TraceDetailSchema, TraceNodeSchema } from "@/lib/http/schemas/traces.ts";
import { traceFilterSchema } from "@/lib/tracing/filter-schema.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Agno's Traces API over real rows on both dialects: the shapes as
 * sent (nulls left out), order and paging, filters, the filter DSL's 400s, the 404s, and
 * isolation (a member sees only its own traces; another user's or an owner-less trace is its 404;
 * an admin sees every trace).
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the wire schemas
type Json = any;

/** An hour ago on a whole second (recent: the retention task keeps it). */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const at = (ms: number) => traceTime(T0 + ms);
/** A stored time as the API writes it (pydantic v2: `Z`, no trailing zeros). */
const wire = (ms: number) =>
  new Date(T0 + ms)
    .toISOString()
    .replace(/\.000Z$/, "Z")
    .replace(/(\.\d*?)0+Z$/, "$1Z");

async function json(response: Response): Promise<{ status: number; body: Json }> {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

interface SeedSpan {
  id: string;
  parent?: string;
  name: string;
  kind: string;
  start: number;
  end: number;
  error?: string;
  attrs?: Record<string, unknown>;
}

/** A trace and its spans as the exporter writes them (times relative to T0). */
function traceOf(traceId: string, context: Partial<TraceRow>, seed: SeedSpan[]): { trace: TraceRow; spans: SpanRow[] } {
  const spans: SpanRow[] = seed.map((s) => ({
    span_id: `${traceId}-${s.id}`,
    trace_id: traceId,
    parent_span_id: s.parent ? `${traceId}-${s.parent}` : null,
    name: s.name,
    span_kind: "INTERNAL",
    status_code: s.error ? "ERROR" : "OK",
    status_message: s.error ?? null,
    start_time: at(s.start),
    end_time: at(s.end),
    duration_ms: s.end - s.start,
    attributes: { "openinference.span.kind": s.kind, ...s.attrs },
    created_at: at(s.end),
  }));
  const start = Math.min(...seed.map((s) => s.start));
  const end = Math.max(...seed.map((s) => s.end));
  const root = seed.find((s) => !s.parent)!;
  return {
    trace: {
      trace_id: traceId,
      name: root.name,
      status: seed.some((s) => s.error) ? "ERROR" : "OK",
      start_time: at(start),
      end_time: at(end),
      duration_ms: end - start,
      run_id: null,
      session_id: null,
      user_id: null,
      agent_id: null,
      team_id: null,
      workflow_id: null,
      created_at: at(end),
      ...context,
    },
    spans,
  };
}

describe.each(DIALECTS)("traces API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    const who = mintPrincipals();
    const tag = Math.random().toString(36).slice(2, 8);
    const id = (name: string) => `${name}-${tag}`;
    const reader = (p: Principal) => withScopes(p, ["traces:read"]);
    const get = async (path: string, principal: Principal) => json(await app.call("GET", path, { principal }));
    const search = async (body: unknown, principal: Principal, query = "") => json(await app.call("POST", `/traces/search${query}`, { json: body, principal }));
    const listIds = (body: Json) => body.data.map((t: Json) => t.trace_id);

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [{ id: "assistant", name: "Assistant", model: null }] });
      const db = await app.db();
      const seeds = [
        // A's agent run: AGENT → LLM, TOOL, LLM.
        traceOf(id("a-run"), { run_id: id("run-a1"), session_id: id("sess-a"), user_id: who.userA, agent_id: "assistant" }, [
          { id: "root", name: "Assistant.run", kind: "AGENT", start: 1000, end: 3500, attrs: { "input.value": "What is 17 * 23?", "output.value": "391", "agno.run.id": id("run-a1") } },
          {
            id: "llm1",
            parent: "root",
            name: "gpt-4o-mini.invoke",
            kind: "LLM",
            start: 1010,
            end: 1900,
            attrs: { "llm.model_name": "gpt-4o-mini", "llm.token_count.prompt": 20, "llm.token_count.completion": 5 },
          },
          { id: "tool", parent: "root", name: "multiply", kind: "TOOL", start: 2000, end: 2012, attrs: { "tool.name": "multiply", "tool.parameters": '{"a": 17, "b": 23}', "output.value": "391" } },
          {
            id: "llm2",
            parent: "root",
            name: "gpt-4o-mini.invoke",
            kind: "LLM",
            start: 2100,
            end: 3400,
            attrs: { "llm.model_name": "gpt-4o-mini", "llm.token_count.prompt": 30, "llm.token_count.completion": 4 },
          },
        ]),
        // A's errored run, same session, later.
        traceOf(id("a-error"), { run_id: id("run-a2"), session_id: id("sess-a"), user_id: who.userA, agent_id: "assistant" }, [
          { id: "root", name: "Assistant.run", kind: "AGENT", start: 5000, end: 5400, error: "Model unavailable", attrs: { "input.value": "Again?" } },
        ]),
        // A's workflow run in another session, latest.
        traceOf(id("a-flow"), { run_id: id("run-a3"), session_id: id("sess-a2"), user_id: who.userA, workflow_id: "pipeline" }, [
          { id: "root", name: "Pipeline.run", kind: "CHAIN", start: 9000, end: 9800, attrs: { "input.value": "Topic", "agno.workflow.step_types": ["Step"], "agno.workflow.steps_count": 1 } },
          { id: "step", parent: "root", name: "write.execute", kind: "CHAIN", start: 9010, end: 9790, attrs: { "output.value": "The article" } },
        ]),
        // B's run.
        traceOf(id("b-run"), { run_id: id("run-b1"), session_id: id("sess-b"), user_id: who.userB, agent_id: "assistant" }, [
          { id: "root", name: "Assistant.run", kind: "AGENT", start: 3000, end: 3300, attrs: { "input.value": "B's secret question" } },
        ]),
        // A trace without an owner.
        traceOf(id("nobody"), { run_id: id("run-n"), session_id: id("sess-n"), agent_id: "assistant" }, [
          { id: "root", name: "Assistant.run", kind: "AGENT", start: 7000, end: 7100, attrs: { "input.value": "Shared question" } },
        ]),
      ];
      await writeTraceBatch(db, { traces: seeds.map((s) => s.trace), spans: seeds.flatMap((s) => s.spans) });
    });
    afterAll(() => app?.close());

    it("GET /traces: a member's own traces, newest first, as Agno's TraceSummary with nulls left out", async () => {
      const { status, body } = await get("/traces", reader(who.a));
      expect(status).toBe(200);
      expect(nullsOmittedSchema(TraceListSchema).safeParse(body).error?.issues ?? []).toEqual([]);
      expect(listIds(body)).toEqual([id("a-flow"), id("a-error"), id("a-run")]);
      expect(body.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 3 });
      expect(body.meta.search_time_ms).toBeTypeOf("number");
      expect(body.data[2]).toEqual({
        trace_id: id("a-run"),
        name: "Assistant.run",
        status: "OK",
        duration: "2.50s",
        start_time: wire(1000),
        end_time: wire(3500),
        total_spans: 4,
        error_count: 0,
        input: "What is 17 * 23?",
        run_id: id("run-a1"),
        session_id: id("sess-a"),
        user_id: who.userA,
        agent_id: "assistant",
        created_at: wire(3500),
      });
      expect(body.data[1]).toMatchObject({ status: "ERROR", duration: "400ms", error_count: 1, input: "Again?" });
      expect(body.data[0]).toMatchObject({ workflow_id: "pipeline", total_spans: 2 });
      expect(body.data[0]).not.toHaveProperty("agent_id");
    });

    it("GET /traces: naming another user changes nothing for a member; an admin sees every trace, or one user's", async () => {
      expect(listIds((await get(`/traces?user_id=${who.userB}`, reader(who.a))).body)).toEqual([id("a-flow"), id("a-error"), id("a-run")]);
      expect(listIds((await get("/traces", reader(who.b))).body)).toEqual([id("b-run")]);
      const all = (await get("/traces", who.admin)).body;
      expect(listIds(all)).toEqual([id("a-flow"), id("nobody"), id("a-error"), id("b-run"), id("a-run")]);
      expect(listIds((await get(`/traces?user_id=${who.userB}`, who.admin)).body)).toEqual([id("b-run")]);
    });

    it("GET /traces: pages (page 0 is the first page, as in Agno), filters and time ranges", async () => {
      const second = (await get("/traces?limit=2&page=2", reader(who.a))).body;
      expect(listIds(second)).toEqual([id("a-run")]);
      expect(second.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 3 });
      // Paging has no upper bound: far past the end is an empty page, never an overflow.
      for (const path of [`/traces?limit=${Number.MAX_SAFE_INTEGER}&page=${Number.MAX_SAFE_INTEGER}`, `/trace_session_stats?limit=${Number.MAX_SAFE_INTEGER}&page=3`]) {
        const far = await get(path, reader(who.a));
        expect(far.status, path).toBe(200);
        expect(far.body.data, path).toEqual([]);
      }
      expect((await get(`/traces?limit=${Number.MAX_SAFE_INTEGER}`, reader(who.a))).body.meta).toMatchObject({ total_pages: 1, total_count: 3 });
      expect((await search({ page: Number.MAX_SAFE_INTEGER, limit: 100 }, reader(who.a))).body.data).toEqual([]);
      const zero = (await get("/traces?limit=2&page=0", reader(who.a))).body;
      expect(listIds(zero)).toEqual([id("a-flow"), id("a-error")]);
      expect(zero.meta.page).toBe(0);
      expect(listIds((await get("/traces?status=ERROR", reader(who.a))).body)).toEqual([id("a-error")]);
      expect(listIds((await get(`/traces?session_id=${id("sess-a")}`, reader(who.a))).body)).toEqual([id("a-error"), id("a-run")]);
      expect(listIds((await get(`/traces?run_id=${id("run-a1")}`, reader(who.a))).body)).toEqual([id("a-run")]);
      expect(listIds((await get("/traces?workflow_id=pipeline", reader(who.a))).body)).toEqual([id("a-flow")]);
      expect(listIds((await get("/traces?agent_id=assistant&status=", reader(who.a))).body)).toEqual([id("a-error"), id("a-run")]);
      // start_time: traces starting at or after it; the offset is converted to UTC.
      const fourSeconds = new Date(T0 + 4000).toISOString();
      expect(listIds((await get(`/traces?start_time=${encodeURIComponent(fourSeconds)}`, reader(who.a))).body)).toEqual([id("a-flow"), id("a-error")]);
      const shifted = `${new Date(T0 + 4000 + 330 * 60_000).toISOString().slice(0, 19)}+05:30`;
      expect(listIds((await get(`/traces?start_time=${encodeURIComponent(shifted)}`, reader(who.a))).body)).toEqual([id("a-flow"), id("a-error")]);
      // end_time: traces ending at or before it.
      expect(listIds((await get(`/traces?end_time=${encodeURIComponent(new Date(T0 + 5400).toISOString())}`, reader(who.a))).body)).toEqual([id("a-error"), id("a-run")]);
    });

    it("GET /traces: a bad time is Agno's 400; bad paging is a 422", async () => {
      const bad = await get("/traces?start_time=yesterday", reader(who.a));
      expect(bad).toEqual({
        status: 400,
        body: { detail: "Invalid start_time format. Use ISO 8601 format (e.g., '2025-11-19T10:00:00Z' or '2025-11-19T10:00:00+05:30'): Invalid isoformat string: 'yesterday'" },
      });
      expect((await get("/traces?end_time=2026-13-01T00:00:00Z", reader(who.a))).body.detail).toMatch(/^Invalid end_time format\. Use ISO 8601 format \(e\.g\., /);
      for (const query of ["limit=0", "page=-1", "limit=x"]) expect((await get(`/traces?${query}`, reader(who.a))).status, query).toBe(422);
      expect((await get("/traces?db_id=elsewhere", who.admin)).status).toBe(404);
      expect((await get(`/traces?db_id=${app.settings.database.id}`, who.admin)).status).toBe(200);
    });

    it("GET /traces/{trace_id}: the TraceDetail with its tree; another user's or an owner-less trace is 404 to a member, not to an admin", async () => {
      const { status, body } = await get(`/traces/${id("a-run")}`, reader(who.a));
      expect(status).toBe(200);
      expect(nullsOmittedSchema(TraceDetailSchema).safeParse(body).error?.issues ?? []).toEqual([]);
      expect(body).toMatchObject({ trace_id: id("a-run"), input: "What is 17 * 23?", output: "391", duration: "2.50s", total_spans: 4, error_count: 0 });
      expect(body).not.toHaveProperty("error");
      const [root] = body.tree;
      expect(root).toEqual({
        id: `${id("a-run")}-root`,
        name: "Assistant.run",
        type: "AGENT",
        duration: "2.50s",
        start_time: wire(1000),
        end_time: wire(3500),
        status: "OK",
        spans: expect.any(Array),
        metadata: { total_input_tokens: 50, total_output_tokens: 9 },
      });
      expect(root.spans.map((s: Json) => [s.type, s.duration])).toEqual([
        ["LLM", "890ms"],
        ["TOOL", "12ms"],
        ["LLM", "1.30s"],
      ]);
      expect(root.spans[1]).toEqual({
        id: `${id("a-run")}-tool`,
        name: "multiply",
        type: "TOOL",
        duration: "12ms",
        start_time: wire(2000),
        end_time: wire(2012),
        status: "OK",
        output: "391",
        metadata: { tool_name: "multiply", parameters: '{"a": 17, "b": 23}' },
      });

      const flow = (await get(`/traces/${id("a-flow")}`, reader(who.a))).body;
      expect(flow).toMatchObject({ output: "The article", workflow_id: "pipeline" });
      expect(flow.tree[0]).toMatchObject({ type: "WORKFLOW", metadata: { steps_count: 1, step_types: ["Step"] } });
      expect(flow.tree[0].spans[0]).toMatchObject({ type: "WORKFLOW", step_type: "Step", output: "The article" });
      const failed = (await get(`/traces/${id("a-error")}`, reader(who.a))).body;
      expect(failed).toMatchObject({ status: "ERROR", error: "Model unavailable", input: "Again?" });
      expect(failed).not.toHaveProperty("output");

      for (const [trace, principal] of [
        [id("a-run"), reader(who.b)],
        [id("nobody"), reader(who.a)],
        [id("b-run"), reader(who.a)],
        ["no-such-trace", who.admin],
      ] as const) {
        expect(await get(`/traces/${trace}`, principal), `${trace}`).toEqual({ status: 404, body: { detail: "Trace not found" } });
      }
      expect((await get(`/traces/${id("nobody")}`, who.admin)).body).toMatchObject({ trace_id: id("nobody"), input: "Shared question" });
      expect((await get(`/traces/${id("a-run")}`, who.admin)).body.user_id).toBe(who.userA);
    });

    it("GET /traces/{trace_id}?span_id=: one TraceNode; Agno's 404s for a missing span and another trace's", async () => {
      const node = await get(`/traces/${id("a-run")}?span_id=${id("a-run")}-llm2`, reader(who.a));
      expect(node.status).toBe(200);
      expect(nullsOmittedSchema(TraceNodeSchema).safeParse(node.body).error?.issues ?? []).toEqual([]);
      expect(node.body).toEqual({
        id: `${id("a-run")}-llm2`,
        name: "gpt-4o-mini.invoke",
        type: "LLM",
        duration: "1.30s",
        start_time: wire(2100),
        end_time: wire(3400),
        status: "OK",
        metadata: { model: "gpt-4o-mini", input_tokens: 30, output_tokens: 4 },
      });
      // The root span as a node keeps its own input and output.
      expect((await get(`/traces/${id("a-run")}?span_id=${id("a-run")}-root`, reader(who.a))).body).toMatchObject({ input: "What is 17 * 23?", output: "391", metadata: { run_id: id("run-a1") } });
      expect(await get(`/traces/${id("a-run")}?span_id=nope`, reader(who.a))).toEqual({ status: 404, body: { detail: "Span not found" } });
      expect(await get(`/traces/${id("a-run")}?span_id=${id("a-error")}-root`, reader(who.a))).toEqual({
        status: 404,
        body: { detail: `Span ${id("a-error")}-root does not belong to trace ${id("a-run")}` },
      });
      // The trace is checked first: B learns nothing of A's spans.
      expect(await get(`/traces/${id("a-run")}?span_id=${id("a-run")}-llm2`, reader(who.b))).toEqual({ status: 404, body: { detail: "Trace not found" } });
      expect(await get(`/traces/${id("b-run")}?span_id=${id("b-run")}-root`, reader(who.a))).toEqual({ status: 404, body: { detail: "Trace not found" } });
    });

    it("GET /trace_session_stats: a member's sessions, latest activity first; an admin's every session or one user's", async () => {
      const { status, body } = await get("/trace_session_stats", reader(who.a));
      expect(status).toBe(200);
      expect(nullsOmittedSchema(TraceSessionStatsListSchema).safeParse(body).error?.issues ?? []).toEqual([]);
      expect(body.data).toEqual([
        { session_id: id("sess-a2"), user_id: who.userA, workflow_id: "pipeline", total_traces: 1, first_trace_at: wire(9800), last_trace_at: wire(9800) },
        { session_id: id("sess-a"), user_id: who.userA, agent_id: "assistant", total_traces: 2, first_trace_at: wire(3500), last_trace_at: wire(5400) },
      ]);
      expect(body.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 2 });
      expect((await get(`/trace_session_stats?user_id=${who.userB}`, reader(who.a))).body.data.map((s: Json) => s.session_id)).toEqual([id("sess-a2"), id("sess-a")]);
      expect((await get("/trace_session_stats", reader(who.b))).body.data.map((s: Json) => s.session_id)).toEqual([id("sess-b")]);
      const all = (await get("/trace_session_stats", who.admin)).body;
      expect(all.data.map((s: Json) => s.session_id)).toEqual([id("sess-a2"), id("sess-n"), id("sess-a"), id("sess-b")]);
      expect((await get(`/trace_session_stats?user_id=${who.userB}`, who.admin)).body.data.map((s: Json) => s.session_id)).toEqual([id("sess-b")]);
      // start_time/end_time compare created_at; agent_id filters.
      const since = encodeURIComponent(new Date(T0 + 5000).toISOString());
      expect((await get(`/trace_session_stats?start_time=${since}`, reader(who.a))).body.data.map((s: Json) => [s.session_id, s.total_traces])).toEqual([
        [id("sess-a2"), 1],
        [id("sess-a"), 1],
      ]);
      expect((await get("/trace_session_stats?workflow_id=pipeline", reader(who.a))).body.data.map((s: Json) => s.session_id)).toEqual([id("sess-a2")]);
      expect((await get("/trace_session_stats?limit=1&page=2", reader(who.a))).body).toMatchObject({ data: [{ session_id: id("sess-a") }], meta: { page: 2, total_pages: 2 } });
      expect((await get("/trace_session_stats?start_time=soon", reader(who.a))).status).toBe(400);
      expect((await get("/trace_session_stats?page=0", reader(who.a))).status).toBe(422);
    });

    it("POST /traces/search: full traces by run, statistics by session, a member always within its own traces", async () => {
      const runs = await search({ filter: { op: "EQ", key: "status", value: "OK" } }, reader(who.a));
      expect(runs.status).toBe(200);
      expect(nullsOmittedSchema(TraceSearchSchema).safeParse(runs.body).error?.issues ?? []).toEqual([]);
      expect(listIds(runs.body)).toEqual([id("a-flow"), id("a-run")]);
      expect(runs.body.data[1].tree[0].spans).toHaveLength(3);
      expect(runs.body.data[1]).toMatchObject({ input: "What is 17 * 23?", output: "391" });
      expect(runs.body.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 2 });
      expect(runs.body.meta.search_time_ms).toBeTypeOf("number");
      // A member naming another user finds nothing; an admin finds B's.
      expect(listIds((await search({ filter: { op: "EQ", key: "user_id", value: who.userB } }, reader(who.a))).body)).toEqual([]);
      expect(listIds((await search({ filter: { op: "EQ", key: "user_id", value: who.userB } }, who.admin)).body)).toEqual([id("b-run")]);
      // No filter, null or {}: everything in the scope; paging.
      expect(listIds((await search({}, reader(who.a))).body)).toEqual([id("a-flow"), id("a-error"), id("a-run")]);
      expect(listIds((await search({ filter: null }, reader(who.b))).body)).toEqual([id("b-run")]);
      expect(listIds((await search({ filter: {} }, who.admin)).body)).toHaveLength(5);
      expect((await search({ limit: 1, page: 3 }, reader(who.a))).body).toMatchObject({ data: [{ trace_id: id("a-run") }], meta: { page: 3, limit: 1, total_pages: 3, total_count: 3 } });
      const composed = {
        op: "AND",
        conditions: [
          { op: "CONTAINS", key: "name", value: "assistant" },
          { op: "NOT", condition: { op: "IN", key: "status", values: ["ERROR"] } },
        ],
      };
      expect(listIds((await search({ filter: composed }, who.admin)).body)).toEqual([id("nobody"), id("b-run"), id("a-run")]);

      const sessions = await search({ filter: { op: "STARTSWITH", key: "session_id", value: "sess-" }, group_by: "session" }, reader(who.a));
      expect(sessions.status).toBe(200);
      expect(sessions.body.data.map((s: Json) => [s.session_id, s.total_traces])).toEqual([
        [id("sess-a2"), 1],
        [id("sess-a"), 2],
      ]);
      expect(sessions.body.data[0]).not.toHaveProperty("agent_id");
      expect((await search({ group_by: "session" }, who.admin)).body.meta.total_count).toBe(4);
    });

    it("POST /traces/search: a bad filter is Agno's 400; a bad body a 422", async () => {
      const field = await search({ filter: { op: "EQ", key: "nope", value: 1 } }, reader(who.a));
      expect(field.status).toBe(400);
      expect(field.body.detail).toMatch(/^Invalid filter expression: Invalid filter field: 'nope'\. Allowed: \['agent_id', /);
      expect(await search({ filter: { op: "LIKE", key: "name", value: "x" } }, reader(who.a))).toEqual({ status: 400, body: { detail: "Invalid filter expression: Unknown filter operator: LIKE" } });
      expect((await search({ filter: { op: "AND", conditions: [] } }, reader(who.a))).body.detail).toMatch(/^Invalid filter expression: AND filter requires 'conditions' field\. Got: /);
      expect((await search({ filter: { key: "name" } }, reader(who.a))).body.detail).toMatch(/^Invalid filter expression: Invalid filter: must be a dict with 'op' key\. Got: /);
      let deep: Json = { op: "EQ", key: "status", value: "OK" };
      for (let i = 0; i < 11; i++) deep = { op: "NOT", condition: deep };
      expect(await search({ filter: deep }, reader(who.a))).toEqual({ status: 400, body: { detail: "Invalid filter expression: Filter expression exceeds maximum nesting depth of 10" } });
      for (const body of [{ limit: 101 }, { limit: 0 }, { page: 0 }, { group_by: "agent" }, { filter: ["EQ"] }, { filter: "status" }]) {
        expect((await search(body, reader(who.a))).status, JSON.stringify(body)).toBe(422);
      }
      expect((await search({}, who.admin, "?db_id=elsewhere")).status).toBe(404);
    });

    it("GET /traces/filter-schema: Agno's fields, nulls sent as null", async () => {
      const { status, body } = await get("/traces/filter-schema", reader(who.a));
      expect(status).toBe(200);
      expect(body).toEqual(traceFilterSchema());
      expect(body.fields[1]).toEqual({ key: "user_id", label: "User ID", type: "string", operators: ["EQ", "NEQ", "CONTAINS", "STARTSWITH", "IN"], values: null });
    });

    it("every route needs traces:read; /config lists the traces database as Agno does", async () => {
      const none = withScopes(who.a, ["sessions:read"]);
      for (const [method, path] of [
        ["GET", "/traces"],
        ["GET", "/traces/filter-schema"],
        ["GET", `/traces/${id("a-run")}`],
        ["GET", "/trace_session_stats"],
        ["POST", "/traces/search"],
      ] as const) {
        expect((await app.call(method, path, { principal: none, ...(method === "POST" ? { json: {} } : {}) })).status, `${method} ${path}`).toBe(403);
      }
      const config = (await get("/config", who.admin)).body;
      expect(config.traces).toEqual({ dbs: [{ db_id: app.settings.database.id, domain_config: { display_name: app.settings.database.id } }] });
    });
  });
});
