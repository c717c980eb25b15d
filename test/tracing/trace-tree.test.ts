import { describe, expect, it } from "vitest";
import { traceTime, type SpanRow, type TraceRow, type TraceSummaryRow } from "@/lib/db/traces/trace-rows.ts";
import { omitNullFields } from "@/lib/http/omit-nulls.ts";
import { TraceDetailSchema, TraceNodeSchema } from "@/lib/http/schemas/traces.ts";
import { traceFilterSchema } from "@/lib/tracing/filter-schema.ts";
import { buildSpanTree, formatDurationMs, spanNode, traceDetail, traceSessionStats, traceSummary, wireTime, type TraceNode } from "@/lib/tracing/trace-tree.ts";

/**
 * Agno's trace views from hand-built rows: an agent run, a team, a
 * workflow, an errored run and a trace with two roots (a paused run continued later).
 */

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const at = (ms: number) => traceTime(T0 + ms);

let counter = 0;
function span(over: Partial<SpanRow> & { start: number; end: number; kind?: string; attrs?: Record<string, unknown> }): SpanRow {
  const { start, end, kind, attrs, ...rest } = over;
  return {
    span_id: rest.span_id ?? `s${++counter}`,
    trace_id: "t1",
    parent_span_id: null,
    name: "span",
    span_kind: "INTERNAL",
    status_code: "OK",
    status_message: null,
    start_time: at(start),
    end_time: at(end),
    duration_ms: end - start,
    attributes: { ...(kind ? { "openinference.span.kind": kind } : {}), ...attrs },
    created_at: at(end),
    ...rest,
  };
}

function trace(spans: SpanRow[], over: Partial<TraceRow> = {}): TraceRow {
  const roots = spans.filter((s) => !s.parent_span_id);
  const start = spans.map((s) => s.start_time).sort()[0];
  const end = spans
    .map((s) => s.end_time)
    .sort()
    .at(-1)!;
  return {
    trace_id: "t1",
    name: roots[0]?.name ?? "trace",
    status: spans.some((s) => s.status_code === "ERROR") ? "ERROR" : "OK",
    start_time: start,
    end_time: end,
    duration_ms: Date.parse(end.replace("+00:00", "Z")) - Date.parse(start.replace("+00:00", "Z")),
    run_id: "run-1",
    session_id: "sess-1",
    user_id: "alice",
    agent_id: "assistant",
    team_id: null,
    workflow_id: null,
    created_at: end,
    ...over,
  };
}

/** An agent run: AGENT root → LLM (tool call), TOOL, LLM (answer). */
function agentRun(): SpanRow[] {
  const root = span({
    span_id: "root",
    name: "Assistant.run",
    start: 0,
    end: 2500,
    kind: "AGENT",
    attrs: { "input.value": "What is 17 * 23?", "output.value": "391", "agno.run.id": "run-1", "session.id": "sess-1", "user.id": "alice", "agno.agent.id": "assistant" },
  });
  return [
    // Out of order on purpose: children are sorted by start.
    span({
      span_id: "llm2",
      parent_span_id: "root",
      name: "gpt-4o-mini.invoke",
      start: 1500,
      end: 2400,
      kind: "LLM",
      attrs: { "llm.model_name": "gpt-4o-mini", "llm.token_count.prompt": 30, "llm.token_count.completion": 4, "output.value": "391" },
    }),
    root,
    span({
      span_id: "llm1",
      parent_span_id: "root",
      name: "gpt-4o-mini.invoke",
      start: 10,
      end: 900,
      kind: "LLM",
      attrs: { "llm.model_name": "gpt-4o-mini", "llm.token_count.prompt": 20, "llm.token_count.completion": 0, "input.value": '{"messages":[]}' },
    }),
    span({
      span_id: "tool",
      parent_span_id: "root",
      name: "multiply",
      start: 1000,
      end: 1012,
      kind: "TOOL",
      attrs: { "tool.name": "multiply", "tool.parameters": '{"a": 17, "b": 23}', "input.value": '{"a": 17, "b": 23}', "output.value": "391" },
    }),
  ];
}

const ids = (nodes: TraceNode[] | null): unknown => (nodes ?? []).map((n) => (n.spans ? { [n.id]: ids(n.spans) } : n.id));

describe("formatDurationMs (Agno's format_duration_ms)", () => {
  it("writes milliseconds below a second and seconds with two decimals above, rounding as Python does", () => {
    expect(formatDurationMs(0)).toBe("0ms");
    expect(formatDurationMs(null)).toBe("0ms");
    expect(formatDurationMs(999)).toBe("999ms");
    expect(formatDurationMs(1000)).toBe("1.00s");
    expect(formatDurationMs(1234)).toBe("1.23s");
    expect(formatDurationMs(1500)).toBe("1.50s");
    expect(formatDurationMs(61_999)).toBe("62.00s");
    // Exact ties go to even, as Python's `:.2f` (1.125 and 1.375 are exact in binary).
    expect(formatDurationMs(1125)).toBe("1.12s");
    expect(formatDurationMs(1375)).toBe("1.38s");
    expect(formatDurationMs(2625)).toBe("2.62s");
    // 1.005 is below the tie in binary: down, in Python and here.
    expect(formatDurationMs(1005)).toBe("1.00s");
    expect(formatDurationMs(1015)).toBe("1.01s");
  });
});

describe("wireTime (a stored time as pydantic v2 writes a UTC datetime)", () => {
  it("writes Z, drops the fraction's trailing zeros (all of it on a whole second), converts other offsets", () => {
    expect(wireTime("2026-01-05T10:00:00.123456+00:00")).toBe("2026-01-05T10:00:00.123456Z");
    expect(wireTime("2026-01-05T10:00:00.120000+00:00")).toBe("2026-01-05T10:00:00.12Z");
    expect(wireTime("2026-01-05T10:00:00.000000+00:00")).toBe("2026-01-05T10:00:00Z");
    expect(wireTime("2026-01-05T10:00:00Z")).toBe("2026-01-05T10:00:00Z");
    expect(wireTime("2026-01-05T15:30:00.5+05:30")).toBe("2026-01-05T10:00:00.5Z");
    expect(wireTime("2026-01-05T00:30:00-01:00")).toBe("2026-01-05T01:30:00Z");
    expect(wireTime("not a time")).toBe("not a time");
  });
});

describe("an agent run: AGENT root → LLM, TOOL, LLM", () => {
  const spans = agentRun();
  const row = trace(spans);

  it("TraceDetail: input and output from the root, the root node with the trace's timing and token totals, children by start", () => {
    const detail = traceDetail(row, spans);
    expect(detail).toMatchObject({
      trace_id: "t1",
      name: "Assistant.run",
      status: "OK",
      duration: "2.50s",
      start_time: "2026-01-05T10:00:00Z",
      end_time: "2026-01-05T10:00:02.5Z",
      total_spans: 4,
      error_count: 0,
      input: "What is 17 * 23?",
      output: "391",
      error: null,
      run_id: "run-1",
      workflow_id: null,
    });
    expect(ids(detail.tree)).toEqual([{ root: ["llm1", "tool", "llm2"] }]);
    const [root] = detail.tree;
    expect(root).toEqual({
      id: "root",
      name: "Assistant.run",
      type: "AGENT",
      duration: "2.50s",
      start_time: "2026-01-05T10:00:00Z",
      end_time: "2026-01-05T10:00:02.5Z",
      status: "OK",
      input: null,
      output: null,
      error: null,
      spans: expect.any(Array),
      step_type: null,
      // Totals only: the root's own run_id/session/user are not repeated.
      metadata: { total_input_tokens: 50, total_output_tokens: 4 },
      extra_data: null,
    });
    const [llm1, tool, llm2] = root.spans!;
    expect(llm1).toMatchObject({ type: "LLM", duration: "890ms", input: '{"messages":[]}', output: null, spans: null, metadata: { model: "gpt-4o-mini", input_tokens: 20 } });
    // A 0 token count is not set, as Agno tests it.
    expect(llm1.metadata).not.toHaveProperty("output_tokens");
    expect(tool).toMatchObject({ type: "TOOL", name: "multiply", duration: "12ms", output: "391", metadata: { tool_name: "multiply", parameters: '{"a": 17, "b": 23}' } });
    expect(llm2.metadata).toEqual({ model: "gpt-4o-mini", input_tokens: 30, output_tokens: 4 });
  });

  it("TraceDetail's counts come from the row when it has them", () => {
    expect(traceDetail({ ...row, total_spans: 9, error_count: 2 }, spans)).toMatchObject({ total_spans: 9, error_count: 2 });
  });

  it("on the wire (excludeNone) every null is left out, the node's included", () => {
    const wire = omitNullFields(traceDetail(row, spans), TraceDetailSchema) as Record<string, unknown>;
    expect(wire).not.toHaveProperty("error");
    expect(wire).not.toHaveProperty("team_id");
    const root = (wire.tree as Record<string, unknown>[])[0];
    expect(Object.keys(root)).toEqual(["id", "name", "type", "duration", "start_time", "end_time", "status", "spans", "metadata"]);
    const tool = (root.spans as Record<string, unknown>[])[1];
    expect(tool).not.toHaveProperty("spans");
    expect(tool).not.toHaveProperty("extra_data");
    expect(TraceDetailSchema.safeParse(traceDetail(row, spans)).success).toBe(true);
  });

  it("one span as a TraceNode (the span_id view): its own input, output and metadata, no children", () => {
    const node = spanNode(spans[1]);
    expect(node).toMatchObject({ id: "root", type: "AGENT", input: "What is 17 * 23?", output: "391", spans: null, metadata: { run_id: "run-1", session_id: "sess-1", user_id: "alice" } });
    expect(TraceNodeSchema.safeParse(node).success).toBe(true);
  });

  it("TraceSummary: the row's fields, its input, the duration and times as Agno writes them", () => {
    const summaryRow: TraceSummaryRow = { ...row, total_spans: 4, error_count: 0, input: "What is 17 * 23?" };
    expect(traceSummary(summaryRow)).toEqual({
      trace_id: "t1",
      name: "Assistant.run",
      status: "OK",
      duration: "2.50s",
      start_time: "2026-01-05T10:00:00Z",
      end_time: "2026-01-05T10:00:02.5Z",
      total_spans: 4,
      error_count: 0,
      input: "What is 17 * 23?",
      run_id: "run-1",
      session_id: "sess-1",
      user_id: "alice",
      agent_id: "assistant",
      team_id: null,
      workflow_id: null,
      created_at: "2026-01-05T10:00:02.5Z",
    });
  });
});

describe("a team: AGENT with agno.team.id → member AGENT", () => {
  it("types the leader TEAM and the member AGENT; metadata run_id for both kinds", () => {
    const spans = [
      span({ span_id: "team", name: "Desk.run", start: 0, end: 800, kind: "AGENT", attrs: { "agno.team.id": "desk", "agno.run.id": "team-run", "input.value": "Plan it", "output.value": "Planned" } }),
      span({
        span_id: "member",
        parent_span_id: "team",
        name: "Writer.run",
        start: 100,
        end: 700,
        kind: "AGENT",
        attrs: { "agno.agent.id": "writer", "agno.run.id": "member-run", "output.value": "Draft" },
      }),
      span({ span_id: "llm", parent_span_id: "member", name: "claude.invoke", start: 150, end: 650, kind: "LLM", attrs: { "llm.model_name": "claude", "llm.token_count.completion": 7 } }),
    ];
    const detail = traceDetail(trace(spans, { team_id: "desk", agent_id: null }), spans);
    expect(detail).toMatchObject({ input: "Plan it", output: "Planned", team_id: "desk" });
    const [root] = detail.tree;
    expect(root).toMatchObject({ type: "TEAM", duration: "800ms", metadata: { total_output_tokens: 7 } });
    expect(root.metadata).not.toHaveProperty("total_input_tokens");
    const member = root.spans![0];
    expect(member).toMatchObject({ type: "AGENT", output: "Draft", metadata: { run_id: "member-run" }, step_type: null });
    expect(member.spans![0]).toMatchObject({ type: "LLM", metadata: { model: "claude", output_tokens: 7 } });
    // Agno also reads the bare team.id.
    expect(spanNode(span({ start: 0, end: 1, kind: "AGENT", attrs: { "team.id": "t" } })).type).toBe("TEAM");
  });
});

describe("a workflow: CHAIN root with step_types → step CHAIN → AGENT", () => {
  const workflow = {
    "agno.workflow.id": "pipeline",
    "agno.workflow.description": "Two steps.",
    "agno.workflow.steps_count": 2,
    "agno.workflow.steps": ["research", "write"],
    "agno.workflow.step_types": ["Step", "Agent"],
  };
  const spans = () => [
    span({ span_id: "wf", name: "Pipeline.run", start: 0, end: 3000, kind: "CHAIN", attrs: { ...workflow, "input.value": "Topic", "output.value": "None" } }),
    span({ span_id: "write", parent_span_id: "wf", name: "write.execute", start: 1600, end: 2900, kind: "CHAIN", attrs: { "output.value": "The article" } }),
    span({ span_id: "research", parent_span_id: "wf", name: "research.execute", start: 10, end: 1500, kind: "CHAIN", attrs: { "output.value": "Notes" } }),
    span({ span_id: "agent", parent_span_id: "research", name: "Researcher.run", start: 20, end: 1400, kind: "AGENT", attrs: { "agno.run.id": "r-run" } }),
  ];

  it("types WORKFLOW, gives the steps their step_type by position and the root the workflow's metadata", () => {
    const detail = traceDetail(trace(spans(), { workflow_id: "pipeline", agent_id: null }), spans());
    expect(ids(detail.tree)).toEqual([{ wf: [{ research: ["agent"] }, "write"] }]);
    const [root] = detail.tree;
    expect(root).toMatchObject({ type: "WORKFLOW", duration: "3.00s", metadata: { description: "Two steps.", steps_count: 2, steps: ["research", "write"], step_types: ["Step", "Agent"] } });
    const [research, write] = root.spans!;
    expect([research.step_type, write.step_type]).toEqual(["Step", "Agent"]);
    expect(research).toMatchObject({ type: "WORKFLOW", output: "Notes" });
    expect(research.spans![0]).toMatchObject({ type: "AGENT", step_type: null, metadata: { run_id: "r-run" } });
    // A step span's own workflow attributes are its metadata too.
    expect(spanNode(spans()[0]).metadata).toMatchObject({ description: "Two steps.", steps_count: 2 });
  });

  it("a workflow root without output ('None' included) takes the output of the direct child that ended last", () => {
    expect(traceDetail(trace(spans()), spans()).output).toBe("The article");
    const withOutput = spans();
    withOutput[0].attributes["output.value"] = "Final";
    expect(traceDetail(trace(withOutput), withOutput).output).toBe("Final");
  });
});

describe("an errored run", () => {
  it("the root's status_message (else exception.message) is the error and there is no output; an errored span likewise", () => {
    const spans = [
      span({
        span_id: "root",
        name: "Assistant.run",
        start: 0,
        end: 400,
        kind: "AGENT",
        status_code: "ERROR",
        status_message: "Model unavailable",
        attrs: { "input.value": "Hi", "output.value": "partial" },
      }),
      span({
        span_id: "llm",
        parent_span_id: "root",
        name: "gpt.invoke",
        start: 10,
        end: 390,
        kind: "LLM",
        status_code: "ERROR",
        attrs: { "exception.message": "503 from provider", "output.value": "x" },
      }),
    ];
    const detail = traceDetail(trace(spans), spans);
    expect(detail).toMatchObject({ status: "ERROR", input: "Hi", output: null, error: "Model unavailable", error_count: 2 });
    expect(detail.tree[0]).toMatchObject({ status: "ERROR", error: null, output: null });
    expect(detail.tree[0].spans![0]).toMatchObject({ status: "ERROR", error: "503 from provider", output: null });
    const noMessage = [{ ...spans[0], status_message: null, attributes: { ...spans[0].attributes, "exception.message": "boom" } }];
    expect(traceDetail(trace(noMessage), noMessage).error).toBe("boom");
    // An ERROR trace whose root span is fine still has no output.
    const ok = [{ ...spans[0], status_code: "OK" as const, status_message: null }];
    expect(traceDetail(trace(ok, { status: "ERROR" }), ok)).toMatchObject({ output: null, error: null });
  });
});

describe("a trace with two roots (a paused run continued later)", () => {
  const spans = [
    span({ span_id: "second", name: "Assistant.continue_run", start: 60_000, end: 61_500, kind: "AGENT", attrs: { "output.value": "Done after approval", "agno.run.id": "run-1" } }),
    span({ span_id: "first", name: "Assistant.run", start: 0, end: 2000, kind: "AGENT", attrs: { "input.value": "Delete the file", "agno.run.id": "run-1" } }),
    span({ span_id: "llm-a", parent_span_id: "first", start: 10, end: 1900, kind: "LLM", attrs: { "llm.token_count.prompt": 11, "llm.token_count.completion": 2 } }),
    span({ span_id: "llm-b", parent_span_id: "second", start: 60_010, end: 61_400, kind: "LLM", attrs: { "llm.token_count.prompt": 40, "llm.token_count.completion": 9 } }),
  ];

  it("roots by start, each with its own timing and tokens; input from the first, output from the last", () => {
    const row = trace(spans);
    const detail = traceDetail(row, spans);
    expect(detail).toMatchObject({ duration: "61.50s", input: "Delete the file", output: "Done after approval" });
    expect(detail.tree.map((n) => [n.id, n.duration, n.start_time, n.metadata])).toEqual([
      ["first", "2.00s", "2026-01-05T10:00:00Z", { total_input_tokens: 11, total_output_tokens: 2 }],
      ["second", "1.50s", "2026-01-05T10:01:00Z", { total_input_tokens: 40, total_output_tokens: 9 }],
    ]);
  });

  it("an orphan span (its parent missing) is in no tree; a span that is its own ancestor does not loop", () => {
    const odd = [
      ...spans,
      span({ span_id: "orphan", parent_span_id: "gone", start: 5, end: 6 }),
      span({ span_id: "loop-a", parent_span_id: "loop-b", start: 1, end: 2 }),
      span({ span_id: "loop-b", parent_span_id: "loop-a", start: 1, end: 2 }),
    ];
    expect(ids(buildSpanTree(trace(odd), odd))).toEqual([{ first: ["llm-a"] }, { second: ["llm-b"] }]);
    expect(buildSpanTree(trace(odd), [])).toEqual([]);
  });
});

describe("other kinds", () => {
  it("a RETRIEVER span passes through with its query and search type; a span without a kind is UNKNOWN", () => {
    expect(spanNode(span({ start: 0, end: 5, kind: "RETRIEVER", attrs: { "retrieval.query": "alpacas", "retrieval.search_type": "hybrid", "input.value": "alpacas" } }))).toMatchObject({
      type: "RETRIEVER",
      metadata: { query: "alpacas", search_type: "hybrid" },
    });
    expect(spanNode(span({ start: 0, end: 5, kind: "RETRIEVER", attrs: { "input.value": "llamas" } })).metadata).toEqual({ query: "llamas" });
    expect(spanNode(span({ start: 0, end: 5 }))).toMatchObject({ type: "UNKNOWN", metadata: null });
  });

  it("TraceSessionStats: the row with its times as pydantic writes them", () => {
    expect(traceSessionStats({ session_id: "s", user_id: "alice", agent_id: "a", team_id: null, workflow_id: null, total_traces: 3, first_trace_at: at(0), last_trace_at: at(1500) })).toEqual({
      session_id: "s",
      user_id: "alice",
      agent_id: "a",
      team_id: null,
      workflow_id: null,
      total_traces: 3,
      first_trace_at: "2026-01-05T10:00:00Z",
      last_trace_at: "2026-01-05T10:00:01.5Z",
    });
  });
});

describe("the filter schema (Agno's TRACE_FILTER_SCHEMA)", () => {
  it("lists Agno's fields in its order with their operators, and AND/OR", () => {
    const schema = traceFilterSchema();
    expect(schema.fields.map((f) => [f.key, f.label, f.type])).toEqual([
      ["status", "Status", "enum"],
      ["user_id", "User ID", "string"],
      ["agent_id", "Agent ID", "string"],
      ["team_id", "Team ID", "string"],
      ["workflow_id", "Workflow ID", "string"],
      ["session_id", "Session ID", "string"],
      ["run_id", "Run ID", "string"],
      ["name", "Trace Name", "string"],
      ["trace_id", "Trace ID", "string"],
      ["duration_ms", "Duration (ms)", "number"],
      ["start_time", "Start Time", "datetime"],
      ["end_time", "End Time", "datetime"],
      ["created_at", "Created At", "datetime"],
    ]);
    expect(schema.fields[0]).toEqual({ key: "status", label: "Status", type: "enum", operators: ["EQ", "NEQ", "IN"], values: ["OK", "ERROR"] });
    expect(schema.fields.find((f) => f.key === "name")?.operators).toEqual(["EQ", "NEQ", "CONTAINS", "STARTSWITH"]);
    expect(schema.fields.find((f) => f.key === "duration_ms")?.operators).toEqual(["EQ", "NEQ", "GT", "GTE", "LT", "LTE"]);
    expect(schema.fields.find((f) => f.key === "created_at")).toEqual({ key: "created_at", label: "Created At", type: "datetime", operators: ["GT", "GTE", "LT", "LTE"], values: null });
    expect(schema.logical_operators).toEqual(["AND", "OR"]);
  });
});
