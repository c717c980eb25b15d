import type { ModelPrice } from "../config/settings.ts";
import { traceTimeMicros, type SpanRow, type TraceRow } from "../db/traces/trace-rows.ts";
import { priceFor, priceTable, tokensCost } from "../models/prices.ts";
import { formatDurationMs, spanNode, traceDetail } from "./trace-tree.ts";

/**
 * A trace as the dashboard draws it: its spans in tree order (each after its parent, siblings by
 * start time) with their depth and their place on the trace's one time axis, for the span tree
 * beside a waterfall of bars, and what a span's panel shows. Pure, like trace-tree.ts (whose
 * nodes give each span its type, input, output, error and metadata); the model spans are priced
 * with lib/models' table. Plain data: it crosses to the browser as it is.
 */

export interface TimelineSpan {
  id: string;
  parentId: string | null;
  /** 0 for a root (a span whose parent is not in the trace), +1 per ancestor. */
  depth: number;
  /** Which root's subtree it is in (0: the first run; 1…: a paused run's continuations). */
  rootIndex: number;
  name: string;
  /** trace-tree's type: AGENT, TEAM, WORKFLOW, LLM, TOOL, RETRIEVER, CHAIN, UNKNOWN. */
  type: string;
  status: string;
  /** Milliseconds from the trace's first start to this span's start. */
  offsetMs: number;
  durationMs: number;
  /** As Agno writes it: `"12ms"`, `"1.50s"`. */
  duration: string;
  input: string | null;
  output: string | null;
  error: string | null;
  /** The span's attributes but its input and output (shown on their own). */
  attributes: Record<string, unknown>;
  /** A root that continues a paused run (`agentry.run.continuation`). */
  continuation: boolean;
  /** A model call: its model and provider, tokens, and their cost (null: no price for the model). */
  llm: { model: string | null; provider: string | null; inputTokens: number; outputTokens: number; cost: number | null } | null;
  /** A tool call: its name, arguments and result. */
  tool: { name: string; arguments: string | null; result: string | null } | null;
}

export interface TraceTimeline {
  traceId: string;
  name: string;
  status: string;
  /** From the first span's start to the last one's end. */
  durationMs: number;
  duration: string;
  /** The trace's start as stored (UTC ISO-8601). */
  startTime: string;
  runId: string | null;
  sessionId: string | null;
  userId: string | null;
  agentId: string | null;
  teamId: string | null;
  workflowId: string | null;
  /** traceDetail's: the first root's input, the last root's output or error. */
  input: string | null;
  output: string | null;
  error: string | null;
  totalSpans: number;
  errorCount: number;
  /** Root spans (more than one: a paused run continued later). */
  roots: number;
  tokens: { input: number; output: number };
  /** USD of the priced model spans; null when none has a price. */
  cost: number | null;
  /** Model spans whose model the price table has no price for. */
  unpricedModelSpans: number;
  spans: TimelineSpan[];
}

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const byStart = (a: SpanRow, b: SpanRow) => (a.start_time < b.start_time ? -1 : a.start_time > b.start_time ? 1 : a.span_id < b.span_id ? -1 : 1);

const micros = (time: string): number | null => traceTimeMicros(time);

/** The spans in tree order: roots (no parent, or a parent not stored) by start, each followed by its subtree. */
function treeOrder(spans: readonly SpanRow[]): { span: SpanRow; depth: number; rootIndex: number }[] {
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map<string, SpanRow[]>();
  const roots: SpanRow[] = [];
  for (const span of spans) {
    if (span.parent_span_id && ids.has(span.parent_span_id) && span.parent_span_id !== span.span_id) {
      const list = children.get(span.parent_span_id);
      if (list) list.push(span);
      else children.set(span.parent_span_id, [span]);
    } else roots.push(span);
  }
  const out: { span: SpanRow; depth: number; rootIndex: number }[] = [];
  const seen = new Set<string>();
  const walk = (span: SpanRow, depth: number, rootIndex: number) => {
    if (seen.has(span.span_id)) return;
    seen.add(span.span_id);
    out.push({ span, depth, rootIndex });
    for (const child of (children.get(span.span_id) ?? []).sort(byStart)) walk(child, depth + 1, rootIndex);
  };
  roots.sort(byStart).forEach((root, i) => {
    walk(root, 0, i);
  });
  // A cycle's spans reach no root: they are shown at the top level rather than dropped.
  for (const span of [...spans].sort(byStart)) if (!seen.has(span.span_id)) walk(span, 0, Math.max(0, roots.length - 1));
  return out;
}

function withoutInputOutput(attributes: Record<string, unknown>): Record<string, unknown> {
  const { "input.value": _input, "output.value": _output, ...rest } = attributes;
  return rest;
}

/**
 * The timeline of a trace: its spans (as getTraceSpans reads them, at most its limit) in tree
 * order with offsets from the first start, and the header's figures — tokens summed over the
 * model spans and their cost at `prices` (settings.metrics.prices, over the built-in table).
 */
export function traceTimeline(trace: TraceRow, spans: readonly SpanRow[], prices: Readonly<Record<string, ModelPrice>> = {}): TraceTimeline {
  const table = priceTable(prices);
  const detail = traceDetail(trace, spans);
  const starts = spans.map((s) => micros(s.start_time)).filter((m): m is number => m !== null);
  const ends = spans.map((s) => micros(s.end_time)).filter((m): m is number => m !== null);
  const first = starts.length > 0 ? Math.min(...starts) : (micros(trace.start_time) ?? 0);
  const last = ends.length > 0 ? Math.max(...ends) : (micros(trace.end_time) ?? first);
  const durationMs = Math.max(trace.duration_ms, (last - first) / 1000);
  let cost: number | null = null;
  let unpriced = 0;
  const tokens = { input: 0, output: 0 };
  const ordered = treeOrder(spans).map(({ span, depth, rootIndex }): TimelineSpan => {
    const node = spanNode(span);
    const attributes = span.attributes ?? {};
    const start = micros(span.start_time);
    let llm: TimelineSpan["llm"] = null;
    if (node.type === "LLM") {
      const model = str(attributes["llm.model_name"]);
      const inputTokens = num(attributes["llm.token_count.prompt"]);
      const outputTokens = num(attributes["llm.token_count.completion"]);
      const price = priceFor(model, table);
      const spanCost = price ? tokensCost({ input_tokens: inputTokens, output_tokens: outputTokens, cache_read_tokens: num(attributes["llm.token_count.prompt_details.cache_read"]) }, price) : null;
      if (spanCost === null) unpriced++;
      else cost = (cost ?? 0) + spanCost;
      tokens.input += inputTokens;
      tokens.output += outputTokens;
      llm = { model, provider: str(attributes["llm.provider"]), inputTokens, outputTokens, cost: spanCost };
    }
    const tool = node.type === "TOOL" ? { name: str(attributes["tool.name"]) ?? span.name, arguments: str(attributes["tool.parameters"]) ?? node.input, result: node.output } : null;
    return {
      id: span.span_id,
      parentId: span.parent_span_id,
      depth,
      rootIndex,
      name: span.name,
      type: node.type,
      status: span.status_code,
      offsetMs: start === null ? 0 : Math.max(0, (start - first) / 1000),
      durationMs: Math.max(0, span.duration_ms),
      duration: formatDurationMs(span.duration_ms),
      input: node.input,
      output: node.output,
      error: node.error,
      attributes: withoutInputOutput(attributes),
      continuation: depth === 0 && attributes["agentry.run.continuation"] === true,
      llm,
      tool,
    };
  });
  return {
    traceId: trace.trace_id,
    name: trace.name,
    status: trace.status,
    durationMs,
    duration: formatDurationMs(Math.round(durationMs)),
    startTime: trace.start_time,
    runId: trace.run_id,
    sessionId: trace.session_id,
    userId: trace.user_id,
    agentId: trace.agent_id,
    teamId: trace.team_id,
    workflowId: trace.workflow_id,
    input: detail.input,
    output: detail.output,
    error: detail.error,
    totalSpans: spans.length,
    errorCount: spans.filter((s) => s.status_code === "ERROR").length,
    roots: ordered.filter((s) => s.depth === 0).length,
    tokens,
    cost: cost === null ? null : Math.round(cost * 1e10) / 1e10,
    unpricedModelSpans: unpriced,
    spans: ordered,
  };
}
