import { context, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanContext } from "@opentelemetry/api";
import { OpenInferenceSpanKind, SemanticConventions as SC } from "@arizeai/openinference-semantic-conventions";
import type { ModelSpec } from "../config/define.ts";
import type { RuntimeAgent } from "./agents.ts";
import type { RunOutput, ToolExecution } from "./run-output.ts";

/**
 * Runs recorded as OpenTelemetry spans with OpenInference attributes, through `@opentelemetry/api`
 * alone: with no tracer provider registered (tracing off, or a process that never installed it)
 * every call here is a no-op span and nothing is serialized. lib/tracing installs the provider,
 * turns spans into `agno_traces`/`agno_spans` rows and sends them over OTLP.
 *
 * Names and attributes are the ones Agno's OpenInference instrumentation writes: `<Name>.run`
 * (AGENT; a team's run carries `agno.team.id`; a workflow's is CHAIN), `<Model>.invoke` (LLM),
 * the tool's function name (TOOL). Agentry adds RETRIEVER spans for knowledge searches, MCP calls,
 * and `queue.wait` for a durable run's time between enqueue and claim.
 */

/** The instrumentation scope of every span Agentry makes; lib/tracing records this scope only. */
export const TRACER_NAME = "agentry";

export const tracer = () => trace.getTracer(TRACER_NAME);

/**
 * Now in epoch milliseconds at high resolution, one clock for every start and end: the SDK's
 * default start is Date.now(), whose millisecond steps (and per-span offset) would order a tool
 * call after the model call that followed it.
 */
export const spanClock = (): number => performance.timeOrigin + performance.now();

function startSpan(name: string, parent: Context = context.active(), startTime: number = spanClock()): Span {
  return tracer().startSpan(name, { startTime }, parent);
}

/** Where a paused run keeps its trace context (W3C traceparent) so its continuation joins the trace. */
export const TRACE_CONTEXT_METADATA_KEY = "agentry_trace_context";

/**
 * State this module shares with lib/tracing across Next's module graphs (each loads its own copy of
 * this module; the provider lives once per process): on `globalThis`.
 */
interface SharedTraceState {
  /** See takePendingTraceId. */
  pendingTraceId: string | null;
  /** See keepOutOfSpans. */
  secrets: Set<string>;
  /** See setSpanValueLimit. */
  valueLimit: number;
}
const SHARED = Symbol.for("agentry.run-trace");
function shared(): SharedTraceState {
  const holder = globalThis as { [SHARED]?: SharedTraceState };
  holder[SHARED] ??= { pendingTraceId: null, secrets: new Set(), valueLimit: 16 * 1024 };
  return holder[SHARED];
}

/**
 * Credentials obtained at run time (an MCP server's per-user token) that no span may carry: lib/tracing
 * redacts each from every string attribute before a span leaves the process. The most recent
 * MAX_RUNTIME_SECRETS are kept.
 */
const MAX_RUNTIME_SECRETS = 1000;
export function keepOutOfSpans(secret: string): void {
  if (secret.length < 8) return;
  const { secrets } = shared();
  secrets.delete(secret);
  secrets.add(secret);
  if (secrets.size > MAX_RUNTIME_SECRETS) secrets.delete(secrets.values().next().value!);
}
export function runtimeSecrets(): Iterable<string> {
  return shared().secrets;
}

/** Agentry's attribute naming a span that continues a paused run (a second root of its trace). */
export const CONTINUATION_ATTRIBUTE = "agentry.run.continuation";

/** A run's span and the context its children start in. */
export interface RunTrace {
  readonly span: Span;
  readonly context: Context;
}

/**
 * The trace id the next span started without a parent must take (a continuation joining its
 * paused run's trace as a second root). Set and taken synchronously around one `startSpan`; the
 * tracer provider's id generator (lib/tracing) asks for it.
 */
export function takePendingTraceId(): string | null {
  const state = shared();
  const id = state.pendingTraceId;
  state.pendingTraceId = null;
  return id;
}

/** Agno's span name for a component: spaces and dashes become underscores. */
export function spanNameOf(name: string | undefined, fallback: string): string {
  return (name?.trim() || fallback).replace(/[\s-]/g, "_");
}

/**
 * The most UTF-8 bytes of `input.value`/`output.value` a span holds (lib/tracing sets the
 * configured limit): a value is cut when it is set, so a span waiting for export never holds a
 * whole prompt. The cut keeps SECRET_MARGIN bytes more, for lib/tracing to redact a secret the
 * cut would split before it cuts to the limit itself.
 */
export function setSpanValueLimit(bytes: number): void {
  shared().valueLimit = bytes;
}
const SECRET_MARGIN = 1024;

/** `text` cut to at most `maxBytes` UTF-8 bytes without splitting a character; null when it fits. */
export function cutUtf8(text: string, maxBytes: number): { text: string; bytes: number } | null {
  // A character is 1–4 bytes, so the first maxBytes characters hold at least maxBytes bytes.
  if (text.length <= maxBytes / 4) return null;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= maxBytes) return null;
  const buffer = Buffer.from(text.slice(0, maxBytes), "utf8");
  let end = Math.min(maxBytes, buffer.length);
  // Back up over continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end--;
  return { text: buffer.subarray(0, end).toString("utf8"), bytes };
}

const TRUNCATED_ATTRIBUTE: Record<string, string> = { [SC.INPUT_VALUE]: "agentry.truncated.input", [SC.OUTPUT_VALUE]: "agentry.truncated.output" };

/** A value attribute (and, when it was cut, its original byte length) as it is set on a span. */
function valueAttributes(key: string, text: string): Attributes {
  const cut = cutUtf8(text, shared().valueLimit + SECRET_MARGIN);
  return cut ? { [key]: cut.text, [TRUNCATED_ATTRIBUTE[key]!]: cut.bytes } : { [key]: text };
}

/** Uploaded bytes in a model's messages (an image's or a file's base64) are named, not copied, into a span. */
function elideBinary(key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
  if (value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (typeof value === "string" && value.length > 1024 && (key === "image" || key === "data" || value.startsWith("data:")) && /^(data:[^,]*,)?[A-Za-z0-9+/=]+$/.test(value.slice(0, 256))) {
    return `[base64, ${value.length} characters]`;
  }
  return value;
}

function json(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value ?? null, elideBinary);
  } catch {
    return String(value);
  }
}

export interface StartRunTraceOptions {
  /** The span's parent; default the active context (a team's tool, a workflow's step), else none. */
  parent?: Context;
  /** Start time in epoch milliseconds (a durable run's root starts at its enqueue). */
  startTime?: number;
  /** A durable run: its time between enqueue and claim as a first child `queue.wait`. */
  queueWait?: { enqueuedAt: number; claimedAt: number; jobId: string; attempt: number };
  /** A continuation: the paused run's traceparent; the span is a second root of that trace. */
  continues?: string | null;
  /** A root span's trace id, chosen ahead (a durable run's, at its enqueue: every attempt joins that trace). */
  traceId?: string;
  /** Extra attributes (an eval's `agno.eval.id`). */
  attributes?: Attributes;
}

/** A top-level run (HTTP, MCP, the workflow socket, a schedule, an eval, a worker) starts its own trace. */
export const NEW_TRACE: Context = ROOT_CONTEXT;

/** Starts a run's span: `<Name>.run`, AGENT (CHAIN for a workflow), with the run's ids. */
export function startRunTrace(agent: RuntimeAgent, output: RunOutput, input: unknown, options: StartRunTraceOptions = {}): RunTrace {
  const definition = agent.definition;
  const kind = agent.workflow ? OpenInferenceSpanKind.CHAIN : OpenInferenceSpanKind.AGENT;
  const name = `${spanNameOf(definition.name, agent.workflow ? "Workflow" : agent.team ? "Team" : "Agent")}.run`;
  const continued = options.continues ? spanContextOf(options.continues) : null;
  let parent = options.parent ?? context.active();
  if (continued) {
    // A second root of the paused run's trace: no parent, the same trace id.
    parent = ROOT_CONTEXT;
    shared().pendingTraceId = continued.traceId;
  } else if (options.traceId && /^[0-9a-f]{32}$/.test(options.traceId) && !trace.getSpan(parent)?.isRecording()) {
    shared().pendingTraceId = options.traceId;
  }
  const span = startSpan(name, parent, options.startTime);
  shared().pendingTraceId = null;
  if (span.isRecording()) {
    const attributes: Attributes = {
      [SC.OPENINFERENCE_SPAN_KIND]: kind,
      ...valueAttributes(SC.INPUT_VALUE, json(input)),
      "agno.run.id": output.run_id,
      [SC.AGENT_NAME]: definition.name ?? definition.id,
      [SC.GRAPH_NODE_ID]: definition.id,
      [SC.GRAPH_NODE_NAME]: definition.name ?? definition.id,
      ...options.attributes,
    };
    if (output.session_id) attributes[SC.SESSION_ID] = output.session_id;
    if (output.user_id) attributes[SC.USER_ID] = output.user_id;
    if (output.parent_run_id) attributes["agno.parent_run.id"] = output.parent_run_id;
    if (continued) attributes[CONTINUATION_ATTRIBUTE] = true;
    if (agent.workflow) {
      const steps = agent.workflow.definition.steps;
      Object.assign(attributes, {
        "agno.workflow.id": definition.id,
        "agno.workflow.description": definition.description ?? "",
        "agno.workflow.steps_count": steps.length,
        "agno.workflow.steps": steps.map((s) => s.name),
        "agno.workflow.step_types": steps.map((s) => s.type),
      });
    } else if (agent.team) {
      attributes["agno.team.id"] = definition.id;
      attributes["agno.team.members"] = agent.team.members.map((m) => m.definition.id);
    } else {
      attributes["agno.agent.id"] = definition.id;
      attributes["agno.tools"] = agent.tools.map((t) => t.name);
    }
    span.setAttributes(attributes);
  }
  const ctx = trace.setSpan(parent, span);
  if (options.queueWait && span.isRecording()) {
    const wait = tracer().startSpan("queue.wait", { startTime: options.queueWait.enqueuedAt }, ctx);
    wait.setAttributes({ [SC.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.CHAIN, "agentry.job.id": options.queueWait.jobId, "agentry.job.attempt": options.queueWait.attempt });
    wait.end(options.queueWait.claimedAt);
  }
  return { span, context: ctx };
}

/** Ends a run's span with its outcome: the answer as `output.value`, ERROR with the error's message. */
export function endRunTrace(run: RunTrace | undefined, output: RunOutput): void {
  if (!run) return;
  const { span } = run;
  if (span.isRecording()) {
    span.setAttribute("agno.run.status", output.status);
    if (output.content !== null && output.content !== undefined) span.setAttributes(valueAttributes(SC.OUTPUT_VALUE, json(output.content)));
    if (output.status === "ERROR") {
      const message = output.error?.message ?? (typeof output.content === "string" ? output.content : "Run failed");
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      span.setAttribute("exception.message", message);
    } else {
      span.setStatus({ code: SpanStatusCode.OK });
    }
  }
  span.end(spanClock());
}

/** The W3C traceparent of a run's span, for a paused run's metadata. */
export function traceparentOf(run: RunTrace | undefined): string | null {
  if (!run) return null;
  const { traceId, spanId, traceFlags } = run.span.spanContext();
  if (!run.span.isRecording() || /^0+$/.test(traceId)) return null;
  return `00-${traceId}-${spanId}-0${traceFlags & 1}`;
}

function spanContextOf(traceparent: string): SpanContext | null {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent);
  return match ? { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true } : null;
}

/**
 * Where a continuation's span goes: under the active run's span when a running run continues it
 * (a team's paused member, a workflow's paused step agent), else — a person's continue — a second
 * root of the paused run's trace (`stored`, its traceparent).
 */
export function continuationTrace(stored: string | null): StartRunTraceOptions {
  const active = context.active();
  return trace.getSpan(active)?.isRecording() ? { parent: active } : { parent: NEW_TRACE, continues: stored };
}

/** Records the run's trace context in its metadata (a paused run: its continuation joins the trace). */
export function stampTraceContext(run: RunTrace | undefined, output: RunOutput): void {
  const traceparent = traceparentOf(run);
  if (traceparent) output.metadata = { ...output.metadata, [TRACE_CONTEXT_METADATA_KEY]: traceparent };
}

/** The stored traceparent of a paused run, if it has one. */
export function storedTraceContext(output: RunOutput): string | null {
  const value = output.metadata?.[TRACE_CONTEXT_METADATA_KEY];
  return typeof value === "string" ? value : null;
}

/** Agno's model class names, which its LLM span names carry (`OpenAIChat.invoke`). */
const MODEL_CLASS: Record<ModelSpec["provider"], string> = {
  openai: "OpenAIChat",
  anthropic: "Claude",
  "openai-compatible": "OpenAILike",
  mistral: "MistralChat",
  cerebras: "Cerebras",
  groq: "Groq",
  google: "Gemini",
};

/** Starts a model call's span (LLM) under the active context. */
export function startModelSpan(
  spec: ModelSpec | null | undefined,
  { messages, system, stream, tools, parent }: { messages: unknown[]; system?: string; stream: boolean; tools: string[]; parent?: Context },
): Span {
  const name = `${(spec && MODEL_CLASS[spec.provider]) ?? spec?.provider ?? "Model"}.${stream ? "invoke_stream" : "invoke"}`;
  const span = startSpan(name, parent);
  if (span.isRecording()) {
    span.setAttributes({
      [SC.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.LLM,
      [SC.LLM_MODEL_NAME]: spec?.id ?? "unknown",
      [SC.LLM_PROVIDER]: spec?.provider ?? "unknown",
      // The options the call was made with; never the key or the endpoint's credentials.
      [SC.LLM_INVOCATION_PARAMETERS]: json({ stream, ...(spec?.options ?? {}) }),
      ...valueAttributes(SC.INPUT_VALUE, json({ messages: system ? [{ role: "system", content: system }, ...messages] : messages })),
      "agno.tools": tools,
    });
  }
  return span;
}

export interface ModelSpanResult {
  text: string;
  toolCalls: { toolName: string; input: unknown }[];
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; reasoningTokens: number };
}

export function endModelSpan(span: Span, result: ModelSpanResult | null, error?: unknown): void {
  if (span.isRecording()) {
    if (result) {
      const { usage } = result;
      span.setAttributes({
        ...valueAttributes(
          SC.OUTPUT_VALUE,
          result.toolCalls.length > 0 ? json({ content: result.text || null, tool_calls: result.toolCalls.map((c) => ({ name: c.toolName, arguments: c.input })) }) : result.text,
        ),
        [SC.LLM_TOKEN_COUNT_PROMPT]: usage.inputTokens,
        [SC.LLM_TOKEN_COUNT_COMPLETION]: usage.outputTokens,
        [SC.LLM_TOKEN_COUNT_TOTAL]: usage.inputTokens + usage.outputTokens,
        [SC.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ]: usage.cacheReadTokens,
        [SC.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_WRITE]: usage.cacheWriteTokens,
        [SC.LLM_TOKEN_COUNT_COMPLETION_DETAILS_REASONING]: usage.reasoningTokens,
      });
      span.setStatus({ code: SpanStatusCode.OK });
    } else failSpan(span, error);
  }
  span.end(spanClock());
}

/** Marks a span failed with the error's message (as `exception.message` too, which Agno's tree reads). */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute("exception.message", message);
  if (error instanceof Error) span.setAttribute("exception.type", error.name);
}

/** Starts a tool call's span (TOOL), named by the function, under the active context. */
export function startToolSpan(execution: ToolExecution, description: string | undefined): Span {
  const span = startSpan(execution.tool_name);
  if (span.isRecording()) {
    const args = json(execution.tool_args ?? {});
    span.setAttributes({
      [SC.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.TOOL,
      [SC.TOOL_NAME]: execution.tool_name,
      [SC.TOOL_DESCRIPTION]: description ?? "",
      [SC.TOOL_PARAMETERS]: cutUtf8(args, shared().valueLimit + SECRET_MARGIN)?.text ?? args,
      ...valueAttributes(SC.INPUT_VALUE, args),
      "agno.tool.call_id": execution.tool_call_id,
    });
  }
  return span;
}

export function endToolSpan(span: Span, done: ToolExecution): void {
  if (span.isRecording()) {
    span.setAttributes(valueAttributes(SC.OUTPUT_VALUE, json(done.result ?? null)));
    if (done.tool_call_error) failSpan(span, new Error(typeof done.result === "string" ? done.result : "Tool call failed"));
    else span.setStatus({ code: SpanStatusCode.OK });
  }
  span.end(spanClock());
}

/** Runs `fn` with `span` as the active span (its children nest under it). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Runs `fn` in a run's trace context. */
export function inRunTrace<T>(run: RunTrace | undefined, fn: () => T): T {
  return run ? context.with(run.context, fn) : fn();
}

/**
 * Runs a run's (or a continuation's) execution inside its span: the span starts now (or at
 * `options.startTime`), is the run state's `trace`, is the active context of everything the run
 * does, and ends with the run's outcome. `body` settles every failure into the RunOutput.
 */
export async function traceRun(state: { agent: RuntimeAgent; output: RunOutput; trace?: RunTrace }, input: unknown, options: StartRunTraceOptions, body: () => Promise<RunOutput>): Promise<RunOutput> {
  const run = startRunTrace(state.agent, state.output, input, options);
  state.trace = run;
  let result: RunOutput | undefined;
  try {
    result = await context.with(run.context, body);
    return result;
  } finally {
    endRunTrace(run, result ?? state.output);
  }
}

/** Starts a workflow step's span (`<step>.run`, CHAIN) under the active context. */
export function startStepSpan(name: string, type: string, input: unknown): Span {
  const span = startSpan(`${spanNameOf(name, "Step")}.run`);
  if (span.isRecording())
    span.setAttributes({ [SC.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.CHAIN, ...valueAttributes(SC.INPUT_VALUE, json(input)), "agno.step.name": name, "agno.step.type": type });
  return span;
}

export function endStepSpan(span: Span, output: { content?: unknown; success?: boolean; error?: string | null }): void {
  if (span.isRecording()) {
    if (output.content !== undefined && output.content !== null) span.setAttributes(valueAttributes(SC.OUTPUT_VALUE, json(output.content)));
    if (output.success === false && output.error) failSpan(span, new Error(output.error));
    else span.setStatus({ code: SpanStatusCode.OK });
  }
  span.end(spanClock());
}

/** Starts a knowledge search's span (RETRIEVER, Agentry's own) under the active context. */
export function startRetrieverSpan(knowledge: { id: string; name: string }, query: string): Span {
  const span = startSpan(`${spanNameOf(knowledge.name, "Knowledge")}.search`);
  if (span.isRecording())
    span.setAttributes({
      [SC.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.RETRIEVER,
      ...valueAttributes(SC.INPUT_VALUE, query),
      "agno.knowledge.id": knowledge.id,
      "agno.knowledge.name": knowledge.name,
    });
  return span;
}

/** Ends a knowledge search's span with the search type and each chunk's id and score (OpenInference's `retrieval.documents.<i>.document.*`). */
export function endRetrieverSpan(span: Span, result: { searchType: string; hits: readonly { id: string; score: number }[] } | null, error?: unknown): void {
  if (span.isRecording()) {
    if (result) {
      const attributes: Attributes = { "retrieval.search_type": result.searchType, ...valueAttributes(SC.OUTPUT_VALUE, json(result.hits.map((h) => ({ id: h.id, score: h.score })))) };
      result.hits.forEach((hit, i) => {
        attributes[`${SC.RETRIEVAL_DOCUMENTS}.${i}.${SC.DOCUMENT_ID}`] = hit.id;
        attributes[`${SC.RETRIEVAL_DOCUMENTS}.${i}.${SC.DOCUMENT_SCORE}`] = hit.score;
      });
      span.setAttributes(attributes);
      span.setStatus({ code: SpanStatusCode.OK });
    } else failSpan(span, error);
  }
  span.end(spanClock());
}

/** Starts an MCP tool call's span (the call to the server, under the tool's span), with the server's id. */
export function startMcpSpan(server: { id: string; name: string }, toolName: string, args: unknown): Span {
  const span = startSpan(`mcp.${spanNameOf(server.id, "server")}.${toolName}`);
  if (span.isRecording())
    span.setAttributes({
      [SC.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.TOOL,
      [SC.TOOL_NAME]: toolName,
      ...valueAttributes(SC.INPUT_VALUE, json(args)),
      "mcp.server.id": server.id,
      "mcp.server.name": server.name,
    });
  return span;
}

export function endSpan(span: Span, output: unknown, error?: unknown): void {
  if (span.isRecording()) {
    if (error !== undefined) failSpan(span, error);
    else {
      span.setAttributes(valueAttributes(SC.OUTPUT_VALUE, json(output)));
      span.setStatus({ code: SpanStatusCode.OK });
    }
  }
  span.end(spanClock());
}
