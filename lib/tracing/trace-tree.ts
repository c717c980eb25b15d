import type { SpanRow, TraceRow, TraceSummaryRow } from "../db/traces/trace-rows.ts";
import type { TraceSessionStatsRow } from "../db/traces/traces.ts";

/**
 * Agno's trace views (the Traces API's response shapes), as pure functions of the stored rows: the
 * list's TraceSummary, the TraceDetail with its span tree, one span's TraceNode, and the per-session
 * TraceSessionStats. Every field is present, null where Agno's is None; the routes send them with
 * `excludeNone` (Agno's `response_model_exclude_none=True`), so nulls never reach the wire.
 *
 * Times are sent as pydantic v2 writes a UTC datetime (`2025-11-19T10:30:00.1234Z`: `Z`, no
 * trailing zeros in the fraction, none at all on a whole second), since Agno's models hold them
 * as datetimes parsed from the stored ISO strings.
 */

export interface TraceNode {
  id: string;
  name: string;
  /** WORKFLOW (a CHAIN span), TEAM (an AGENT span of a team), AGENT, LLM, TOOL, RETRIEVER…; UNKNOWN without a kind. */
  type: string;
  duration: string;
  start_time: string;
  end_time: string;
  status: string;
  input: string | null;
  output: string | null;
  error: string | null;
  /** The children, by start time; null without any. */
  spans: TraceNode[] | null;
  /** A workflow step's type (a direct child of a workflow root), from the root's `agno.workflow.step_types`. */
  step_type: string | null;
  metadata: Record<string, unknown> | null;
  /** Always null (Agno's field for custom data). */
  extra_data: null;
}

interface TraceContextFields {
  run_id: string | null;
  session_id: string | null;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
}

export interface TraceSummary extends TraceContextFields {
  trace_id: string;
  name: string;
  status: string;
  duration: string;
  start_time: string;
  end_time: string;
  total_spans: number;
  error_count: number;
  input: string | null;
  created_at: string;
}

export interface TraceDetail extends TraceContextFields {
  trace_id: string;
  name: string;
  status: string;
  duration: string;
  start_time: string;
  end_time: string;
  total_spans: number;
  error_count: number;
  input: string | null;
  output: string | null;
  error: string | null;
  created_at: string;
  /** The root spans (by start time), each with its children. */
  tree: TraceNode[];
}

export interface TraceSessionStats {
  session_id: string;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  total_traces: number;
  first_trace_at: string;
  last_trace_at: string;
}

// ── formatting ──────────────────────────────────────────────────────────────────────────────

/**
 * A duration as Agno writes it: `"<n>ms"` below one second
 * (null is `"0ms"`), else seconds with two decimals (`"1.50s"`), rounded as Python's `:.2f` rounds
 * (the exact binary value; a true tie to even: 1125 ms is `"1.12s"`).
 */
export function formatDurationMs(durationMs: number | null | undefined): string {
  if (durationMs === null || durationMs === undefined || durationMs < 1000) return `${durationMs || 0}ms`;
  // A whole number of ms is an exact tie at two decimals only when ms/1000 is exact in binary
  // (ms a multiple of 125) and its last digit is 5; there Python rounds half to even, JS up.
  if (Number.isInteger(durationMs) && durationMs % 125 === 0 && durationMs % 10 === 5) {
    const down = (durationMs - 5) / 10;
    const hundredths = down % 2 === 0 ? down : down + 1;
    return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}s`;
  }
  return `${(durationMs / 1000).toFixed(2)}s`;
}

const ISO = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/i;

/**
 * A stored ISO-8601 time as pydantic v2 serializes the UTC datetime Agno parses from it:
 * `2025-11-19T10:30:00.1234Z`. Offsets other than UTC are converted; text that is not such a
 * time is returned unchanged.
 */
export function wireTime(stored: string): string {
  const match = ISO.exec(stored.trim());
  if (!match) return stored;
  const [, date, time, rawFraction = "", zone = "Z"] = match;
  let base = `${date}T${time}`;
  const offset = zone.toUpperCase() === "Z" ? 0 : (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  if (offset !== 0) {
    const shifted = new Date(Date.parse(`${base}Z`) - offset * 60_000);
    if (Number.isNaN(shifted.getTime())) return stored;
    base = shifted.toISOString().slice(0, 19);
  }
  const fraction = rawFraction.slice(0, 6).padEnd(6, "0").replace(/0+$/, "");
  return `${base}${fraction ? `.${fraction}` : ""}Z`;
}

// ── attributes ──────────────────────────────────────────────────────────────────────────────

type Attributes = Record<string, unknown>;

const attributesOf = (span: SpanRow): Attributes => (span.attributes && typeof span.attributes === "object" ? span.attributes : {});

/** Python's truthiness of an attribute value (`if x := attributes.get(k)`). */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return !(typeof value === "number" && Number.isNaN(value));
}

/** An attribute as Agno's `Optional[str]` fields take it: text as is, other values as JSON. */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

const kindOf = (span: SpanRow): string => {
  const kind = attributesOf(span)["openinference.span.kind"];
  return typeof kind === "string" && kind ? kind : "UNKNOWN";
};

/** Agno's `_derive_span_type`: CHAIN is a workflow, an AGENT span carrying a team id a team. */
export function spanType(span: SpanRow): string {
  const kind = kindOf(span);
  if (kind === "CHAIN") return "WORKFLOW";
  if (kind === "AGENT") {
    const attributes = attributesOf(span);
    return truthy(attributes["agno.team.id"]) || truthy(attributes["team.id"]) ? "TEAM" : "AGENT";
  }
  return kind;
}

/** Copies the attributes that are set (truthy, as Agno tests them) under their metadata names. */
function pick(into: Record<string, unknown>, attributes: Attributes, pairs: readonly (readonly [string, string])[]): void {
  for (const [key, attribute] of pairs) {
    const value = attributes[attribute];
    if (truthy(value)) into[key] = value;
  }
}

const WORKFLOW_METADATA = [
  ["description", "agno.workflow.description"],
  ["steps_count", "agno.workflow.steps_count"],
  ["steps", "agno.workflow.steps"],
  ["step_types", "agno.workflow.step_types"],
] as const;

/**
 * The attributes a RETRIEVER span (Agentry's knowledge search; not an Agno kind) shows as
 * metadata: the query (else its `input.value`) and the search type.
 */
export const RETRIEVER_ATTRIBUTES = { query: "retrieval.query", searchType: "retrieval.search_type" } as const;

function spanMetadata(span: SpanRow): Record<string, unknown> | null {
  const attributes = attributesOf(span);
  const metadata: Record<string, unknown> = {};
  switch (kindOf(span)) {
    case "AGENT":
      pick(metadata, attributes, [["run_id", "agno.run.id"]]);
      break;
    case "LLM":
      pick(metadata, attributes, [
        ["model", "llm.model_name"],
        ["input_tokens", "llm.token_count.prompt"],
        ["output_tokens", "llm.token_count.completion"],
      ]);
      break;
    case "TOOL":
      pick(metadata, attributes, [
        ["tool_name", "tool.name"],
        ["parameters", "tool.parameters"],
      ]);
      break;
    case "CHAIN":
      pick(metadata, attributes, WORKFLOW_METADATA);
      break;
    case "RETRIEVER":
      pick(metadata, attributes, [["query", truthy(attributes[RETRIEVER_ATTRIBUTES.query]) ? RETRIEVER_ATTRIBUTES.query : "input.value"]]);
      pick(metadata, attributes, [["search_type", RETRIEVER_ATTRIBUTES.searchType]]);
      break;
  }
  pick(metadata, attributes, [
    ["session_id", "session.id"],
    ["user_id", "user.id"],
  ]);
  return Object.keys(metadata).length > 0 ? metadata : null;
}

// ── nodes ───────────────────────────────────────────────────────────────────────────────────

/**
 * One span as a node (Agno's `TraceNode.from_span`): input and output from `input.value` and
 * `output.value`; an ERROR span has its `status_message` (else `exception.message`) as `error`
 * and no output; metadata by kind. `spans` are its children (null: none, or not asked for).
 */
export function spanNode(span: SpanRow, spans: TraceNode[] | null = null): TraceNode {
  const attributes = attributesOf(span);
  const errored = span.status_code === "ERROR";
  return {
    id: span.span_id,
    name: span.name,
    type: spanType(span),
    duration: formatDurationMs(span.duration_ms),
    start_time: wireTime(span.start_time),
    end_time: wireTime(span.end_time),
    status: span.status_code,
    input: text(attributes["input.value"]),
    output: errored ? null : text(attributes["output.value"]),
    error: errored ? span.status_message || text(attributes["exception.message"]) : null,
    spans,
    step_type: null,
    metadata: spanMetadata(span),
    extra_data: null,
  };
}

const byStart = (a: SpanRow, b: SpanRow) => (a.start_time < b.start_time ? -1 : a.start_time > b.start_time ? 1 : 0);
const byEndDescending = (a: SpanRow, b: SpanRow) => (a.end_time < b.end_time ? 1 : a.end_time > b.end_time ? -1 : 0);

/** The spans without a parent, by start time. */
export function rootSpans(spans: readonly SpanRow[]): SpanRow[] {
  return spans.filter((s) => !s.parent_span_id).sort(byStart);
}

/** Input and output tokens of the LLM spans among `spans` (Agno sums the set ones). */
function tokenTotals(spans: readonly SpanRow[]): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const span of spans) {
    if (kindOf(span) !== "LLM") continue;
    const attributes = attributesOf(span);
    const prompt = attributes["llm.token_count.prompt"];
    const completion = attributes["llm.token_count.completion"];
    if (typeof prompt === "number" && Number.isFinite(prompt)) input += prompt;
    if (typeof completion === "number" && Number.isFinite(completion)) output += completion;
  }
  return { input, output };
}

function stepTypesOf(span: SpanRow): unknown[] {
  if (kindOf(span) !== "CHAIN") return [];
  const types = attributesOf(span)["agno.workflow.step_types"];
  return Array.isArray(types) ? types : [];
}

/**
 * The span tree (Agno's `_build_span_tree`): roots by start time, each span's children by start
 * time. A root node carries no input, output or error (the trace has them), the trace's timing and,
 * as metadata, the LLM spans' token totals (`total_input_tokens`, `total_output_tokens`, when
 * above 0) and a workflow's description, steps and step types; the direct children of a root get
 * `step_type` from the workflow's `step_types` by position.
 *
 * Several roots (Agentry: a paused run continued later is a second root of its trace) each keep
 * their own timing, tokens of their own subtree, and their own step types (else the first
 * workflow root's, as Agno does); with one root this is exactly Agno's tree.
 */
export function buildSpanTree(trace: Pick<TraceRow, "start_time" | "end_time" | "duration_ms">, spans: readonly SpanRow[]): TraceNode[] {
  const children = new Map<string, SpanRow[]>();
  for (const span of spans) {
    if (!span.parent_span_id) continue;
    const list = children.get(span.parent_span_id);
    if (list) list.push(span);
    else children.set(span.parent_span_id, [span]);
  }
  for (const list of children.values()) list.sort(byStart);
  const roots = rootSpans(spans);
  const single = roots.length === 1;
  const firstWorkflowSteps = roots.map(stepTypesOf).find((types) => types.length > 0) ?? [];

  const build = (span: SpanRow, seen: Set<string>): TraceNode => {
    seen.add(span.span_id);
    const kids = (children.get(span.span_id) ?? []).filter((child) => !seen.has(child.span_id));
    return spanNode(span, kids.length > 0 ? kids.map((child) => build(child, seen)) : null);
  };

  const subtree = (root: SpanRow): SpanRow[] => {
    const out: SpanRow[] = [];
    const stack = [root];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const span = stack.pop()!;
      if (seen.has(span.span_id)) continue;
      seen.add(span.span_id);
      out.push(span);
      stack.push(...(children.get(span.span_id) ?? []));
    }
    return out;
  };

  return roots.map((root) => {
    const seen = new Set<string>([root.span_id]);
    const own = stepTypesOf(root);
    const stepTypes = own.length > 0 ? own : firstWorkflowSteps;
    const kids = (children.get(root.span_id) ?? []).map((child, index) => {
      const node = build(child, seen);
      if (index < stepTypes.length && stepTypes[index] !== null && stepTypes[index] !== undefined) node.step_type = String(stepTypes[index]);
      return node;
    });
    const tokens = tokenTotals(single ? spans : subtree(root));
    const metadata: Record<string, unknown> = {};
    if (tokens.input > 0) metadata.total_input_tokens = tokens.input;
    if (tokens.output > 0) metadata.total_output_tokens = tokens.output;
    if (kindOf(root) === "CHAIN") pick(metadata, attributesOf(root), WORKFLOW_METADATA);
    const timing = single ? trace : root;
    return {
      id: root.span_id,
      name: root.name,
      type: spanType(root),
      duration: formatDurationMs(timing.duration_ms),
      start_time: wireTime(timing.start_time),
      end_time: wireTime(timing.end_time),
      status: root.status_code,
      input: null,
      output: null,
      error: null,
      spans: kids.length > 0 ? kids : null,
      step_type: null,
      metadata: Object.keys(metadata).length > 0 ? metadata : null,
      extra_data: null,
    };
  });
}

// ── traces ──────────────────────────────────────────────────────────────────────────────────

/** The fields a summary and a detail share, in Agno's order: the trace's own, its counts, its input and output, its context. */
function traceFields<T extends object>(trace: TraceRow, counts: { total_spans: number; error_count: number }, io: T) {
  return {
    trace_id: trace.trace_id,
    name: trace.name,
    status: trace.status,
    duration: formatDurationMs(trace.duration_ms),
    start_time: wireTime(trace.start_time),
    end_time: wireTime(trace.end_time),
    ...counts,
    ...io,
    run_id: trace.run_id,
    session_id: trace.session_id,
    user_id: trace.user_id,
    agent_id: trace.agent_id,
    team_id: trace.team_id,
    workflow_id: trace.workflow_id,
    created_at: wireTime(trace.created_at),
  };
}

/** A trace of the list (Agno's `TraceSummary.from_trace`); `input` is its root span's `input.value`. */
export function traceSummary(trace: TraceSummaryRow): TraceSummary {
  return traceFields(trace, { total_spans: trace.total_spans, error_count: trace.error_count }, { input: trace.input });
}

/** Python's test of an empty output: none, empty, or the text "None". */
const emptyOutput = (output: string | null) => !output || output.trim() === "None";

/**
 * A trace with its span tree (Agno's `TraceDetail.from_trace_and_spans`). Input from the root
 * span's `input.value`; output from its `output.value`, except on an ERROR trace or root, where
 * `error` is the root's `status_message` (else `exception.message`) and there is no output; a
 * workflow (CHAIN) root without output takes the output of its direct child that ended last.
 * With several roots, input is the first root's and output or error the last root's (the run as
 * it ended). `total_spans`/`error_count` are the row's when it has them, else counted here.
 */
export function traceDetail(trace: TraceRow & Partial<Pick<TraceSummaryRow, "total_spans" | "error_count">>, spans: readonly SpanRow[]): TraceDetail {
  const roots = rootSpans(spans);
  const first = roots[0];
  const last = roots.at(-1);
  let input: string | null = null;
  let output: string | null = null;
  let error: string | null = null;
  if (first && last) {
    input = text(attributesOf(first)["input.value"]);
    if (trace.status === "ERROR" || last.status_code === "ERROR") {
      error = last.status_message || text(attributesOf(last)["exception.message"]);
    } else {
      output = text(attributesOf(last)["output.value"]);
    }
    if (kindOf(last) === "CHAIN" && emptyOutput(output) && trace.status !== "ERROR") {
      const steps = spans.filter((s) => s.parent_span_id === last.span_id).sort(byEndDescending);
      if (steps.length > 0) output = text(attributesOf(steps[0])["output.value"]);
    }
  }
  const counts = { total_spans: trace.total_spans ?? spans.length, error_count: trace.error_count ?? spans.filter((s) => s.status_code === "ERROR").length };
  return { ...traceFields(trace, counts, { input, output, error }), tree: buildSpanTree(trace, spans) };
}

/** A session's trace statistics (Agno's `TraceSessionStats`). */
export function traceSessionStats(row: TraceSessionStatsRow): TraceSessionStats {
  return {
    session_id: row.session_id,
    user_id: row.user_id,
    agent_id: row.agent_id,
    team_id: row.team_id,
    workflow_id: row.workflow_id,
    total_traces: row.total_traces,
    first_trace_at: wireTime(row.first_trace_at),
    last_trace_at: wireTime(row.last_trace_at),
  };
}
