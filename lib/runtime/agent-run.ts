import { randomUUID } from "node:crypto";
import type { LanguageModel } from "ai";
import { ConflictError, NotFoundError } from "../db/errors.ts";
import type { Db } from "../db/open-database.ts";
import { getRun, upsertRun } from "../db/runs/runs.ts";
import type { DataScope } from "../db/scope.ts";
import { addSessionMetrics } from "../db/sessions/session-data.ts";
import { getSession, upsertSession, type SessionWithRuns } from "../db/sessions/sessions.ts";
import { log } from "../log.ts";
import type { RuntimeAgent } from "./agents.ts";
import { makeEvent, type EventBase, type RunEvent, type RunEventName } from "./events.ts";
import { toModelMessages } from "./messages.ts";
import { callModelStep, modelTools, outputSpec, type RetryPolicy } from "./model-step.ts";
import { ModelProviderError } from "./models/model-provider-error.ts";
import { providerOptionsFor, resolveModel } from "./models/resolve-model.ts";
import { extractMemories, memoriesSection } from "./memory/user-memories.ts";
import { finishRun, publish, registerRun, RunCancelledSignal, type LiveRun } from "./run-registry.ts";
import { emptyMetrics, type AgnoMessage, type RunOutput, type RunRequirement, type RunStatus, type ToolExecution } from "./run-output.ts";
import { pastSessionsTool } from "./tools/past-sessions.ts";
import { executeTool, needsHuman, newToolExecution } from "./tools/run-tool.ts";
import type { ToolDefinition } from "./tools/types.ts";

/** Model steps per run before it stops with an error (a model looping on tool calls). */
const MAX_STEPS = 25;
const MAX_STORED_EVENTS = 10_000;

export interface StartRunRequest {
  db: Db;
  agent: RuntimeAgent;
  /** The scope writes happen in (built from the principal). */
  scope: DataScope;
  /** The run's owner: the principal's id, or the user an admin named. */
  userId: string | null;
  message: string;
  /** Empty or absent: a new session. */
  sessionId?: string;
  sessionState?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  dependencies?: Record<string, unknown> | null;
  /** A JSON schema for structured output (the form's `output_schema`). */
  outputSchema?: Record<string, unknown>;
  /** Extra user-message parts (uploaded images and documents). */
  attachments?: { kind: "image" | "file"; data: Uint8Array; mediaType: string; filename: string }[];
  /** Input metadata recorded on the run (names, types, sizes of uploads). */
  inputMedia?: { images?: unknown[]; files?: unknown[]; audios?: unknown[]; videos?: unknown[] };
  retry?: RetryPolicy;
  /** A run id chosen by the caller (a cancel may already be recorded for it); default a new UUID. */
  runId?: string;
}

export interface StartedRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly live: LiveRun;
  /** event_index of this start's (or continuation's) first event: a stream starts there. */
  readonly firstEventIndex: number;
  /** Settles with the final RunOutput (COMPLETED, PAUSED, CANCELLED or ERROR); never rejects for run failures. */
  readonly done: Promise<RunOutput>;
}

interface RunState {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  live: LiveRun;
  output: RunOutput;
  base: EventBase;
  /** System prompt and earlier runs' messages: sent to the model, not stored with this run. */
  contextMessages: AgnoMessage[];
  tools: ToolDefinition<unknown>[];
  model: LanguageModel | null;
  outputSchema?: Record<string, unknown>;
  retry?: RetryPolicy;
  startedAt: number;
  dependencies?: Record<string, unknown> | null;
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * Starts a run of a local agent: the session exists (created if new) and the run row is written
 * as RUNNING before the first event, then the model/tool loop runs in the background of this
 * call. Events are published through the run registry, so any route can stream, resume or cancel.
 */
export async function startAgentRun(request: StartRunRequest): Promise<StartedRun> {
  const { db, agent, scope } = request;
  const sessionId = request.sessionId || randomUUID();
  const runId = request.runId ?? randomUUID();
  const session = await ensureSession(db, { scope, agent, sessionId, userId: request.userId, sessionState: request.sessionState });
  const spec = agent.definition.model;
  const output: RunOutput = {
    run_id: runId,
    agent_id: agent.definition.id,
    agent_name: agent.definition.name,
    session_id: sessionId,
    user_id: session.user_id,
    input: { input_content: request.message, ...request.inputMedia },
    content: null,
    content_type: "str",
    model: spec?.id ?? null,
    model_provider: spec?.provider ?? null,
    messages: [],
    metrics: emptyMetrics(),
    tools: [],
    status: "RUNNING",
    session_state: request.sessionState ?? (session.session_data?.session_state as Record<string, unknown> | undefined) ?? null,
    metadata: request.metadata ?? null,
    created_at: now(),
  };
  await upsertRun(db, { scope, run: runRow(output) });
  const live = registerRun({ runId, sessionId, agentId: agent.definition.id, userId: session.user_id });
  const state: RunState = {
    db,
    agent,
    scope,
    live,
    output,
    base: { agent_id: agent.definition.id, agent_name: agent.definition.name, run_id: runId, session_id: sessionId },
    contextMessages: [],
    tools: [],
    model: null,
    outputSchema: request.outputSchema,
    retry: request.retry,
    startedAt: performance.now(),
    dependencies: request.dependencies,
  };
  const done = (async () => {
    try {
      emit(state, "RunStarted", { model: output.model, model_provider: output.model_provider });
      await prepare(state, session);
      const userMessage: AgnoMessage = {
        role: "user",
        content: request.attachments?.length ? attachmentContent(request.message, request.attachments) : request.message,
        created_at: now(),
      };
      output.messages.push(...state.contextMessages.filter((m) => m.role === "system"), userMessage);
      return await loop(state);
    } catch (error) {
      return await settleFailure(state, error);
    }
  })();
  return { runId, sessionId, live, firstEventIndex: 0, done };
}

function attachmentContent(text: string, attachments: NonNullable<StartRunRequest["attachments"]>) {
  return [
    { type: "text", text },
    ...attachments.map((a) =>
      a.kind === "image"
        ? { type: "image", image: a.data, mediaType: a.mediaType }
        : { type: "file", data: a.data, mediaType: a.mediaType, filename: a.filename },
    ),
  ];
}

async function ensureSession(
  db: Db,
  { scope, agent, sessionId, userId, sessionState }: { scope: DataScope; agent: RuntimeAgent; sessionId: string; userId: string | null; sessionState?: Record<string, unknown> | null },
): Promise<SessionWithRuns> {
  const existing = await getSession(db, { scope, sessionId });
  if (existing) return existing;
  try {
    await upsertSession(db, {
      scope,
      session: {
        sessionId,
        sessionType: "agent",
        agentId: agent.definition.id,
        userId,
        sessionData: sessionState ? { session_state: sessionState } : {},
        agentData: { name: agent.definition.name, agent_id: agent.definition.id, model: agent.definition.model ? { id: agent.definition.model.id, provider: agent.definition.model.provider } : null },
      },
    });
  } catch (error) {
    // Another user's session id: answer as if it did not exist, so existence never leaks.
    if (error instanceof ConflictError) throw new NotFoundError(`Session ${sessionId} not found`);
    throw error;
  }
  return (await getSession(db, { scope, sessionId }))!;
}

/** Resolves the model and builds the context: instructions, memories, history, tools. */
async function prepare(state: RunState, session: SessionWithRuns): Promise<void> {
  const { agent, db, output } = state;
  const definition = agent.definition;
  state.model = resolveModel(definition.id, definition.model);
  const instructions = Array.isArray(definition.instructions) ? definition.instructions.join("\n") : (definition.instructions ?? "");
  const sections = [definition.description ?? "", instructions];
  if (definition.updateMemoryOnRun && output.user_id) sections.push(await memoriesSection(db, output.user_id));
  if (state.dependencies && Object.keys(state.dependencies).length > 0) {
    sections.push(`Additional context:\n${JSON.stringify(state.dependencies, null, 2)}`);
  }
  if (output.session_state && Object.keys(output.session_state).length > 0) {
    sections.push(`Session state:\n${JSON.stringify(output.session_state)}`);
  }
  const system = sections.filter(Boolean).join("\n\n");
  state.contextMessages = system ? [{ role: "system", content: system, created_at: now() }] : [];
  if (definition.addHistoryToContext) {
    const previous = session.runs.filter((r) => r.run_id !== output.run_id && r.status === "COMPLETED").slice(-(definition.numHistoryRuns ?? 3));
    for (const run of previous) {
      for (const message of (run.messages as AgnoMessage[] | undefined) ?? []) {
        if (message.role !== "system" && !message.from_history) state.contextMessages.push({ ...message, from_history: true });
      }
    }
  }
  state.tools = [...agent.tools];
  if (definition.searchPastSessions) {
    state.tools.push(
      pastSessionsTool({
        db,
        agentId: definition.id,
        numSessions: definition.numPastSessionsToSearch ?? 3,
        numRuns: definition.numPastSessionRunsInSearch ?? 3,
      }) as ToolDefinition<unknown>,
    );
  }
}

function emit(state: RunState, name: RunEventName, fields: Record<string, unknown> = {}): RunEvent {
  const event = publish(state.live, makeEvent(state.base, name, fields));
  if (state.agent.definition.storeEvents && (state.output.events ??= []).length < MAX_STORED_EVENTS) {
    state.output.events!.push(event);
  }
  return event;
}

function checkpoint(state: RunState): void {
  if (state.live.controller.signal.aborted) throw state.live.controller.signal.reason ?? new RunCancelledSignal();
}

/** The model/tool loop: call the model, run the tools it asks for, repeat; pause for humans. */
async function loop(state: RunState): Promise<RunOutput> {
  const { output } = state;
  const toolsByName = new Map(state.tools.map((t) => [t.name, t]));
  const offered = modelTools(state.tools);
  const output$ = outputSpec(state.outputSchema ?? (state.agent.definition.outputSchema as never));
  for (let step = 0; step < MAX_STEPS; step++) {
    checkpoint(state);
    const context = modelContext(state);
    const system = context.find((m) => m.role === "system");
    const messages = toModelMessages(context.filter((m) => m.role !== "system"));
    emit(state, "ModelRequestStarted", { model: output.model, model_provider: output.model_provider });
    const result = await callModelStep({
      model: state.model!,
      system: typeof system?.content === "string" ? system.content : undefined,
      messages,
      tools: offered,
      signal: state.live.controller.signal,
      output: output$,
      providerOptions: providerOptionsFor(state.agent.definition.model),
      retry: state.retry,
      onDelta: (text) => emit(state, "RunContent", { content: text, content_type: "str" }),
      onRetry: (error, attempt, delayMs) => log.warn(`[run ${output.run_id}] ${error.kind} from the model provider; retry ${attempt} in ${Math.round(delayMs)} ms`),
    });
    const metrics = output.metrics;
    metrics.input_tokens += result.usage.inputTokens;
    metrics.output_tokens += result.usage.outputTokens;
    metrics.total_tokens = metrics.input_tokens + metrics.output_tokens;
    metrics.cache_read_tokens += result.usage.cacheReadTokens;
    metrics.cache_write_tokens += result.usage.cacheWriteTokens;
    metrics.reasoning_tokens += result.usage.reasoningTokens;
    if (metrics.time_to_first_token === null && result.timeToFirstToken !== null) {
      metrics.time_to_first_token = (performance.now() - state.startedAt) / 1000;
    }
    emit(state, "ModelRequestCompleted", {
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      total_tokens: result.usage.inputTokens + result.usage.outputTokens,
      time_to_first_token: result.timeToFirstToken,
    });
    if (result.reasoning) output.reasoning_content = (output.reasoning_content ?? "") + result.reasoning;
    output.messages.push({
      role: "assistant",
      content: result.text || null,
      ...(result.toolCalls.length > 0
        ? { tool_calls: result.toolCalls.map((c) => ({ id: c.toolCallId, type: "function" as const, function: { name: c.toolName, arguments: JSON.stringify(c.input ?? {}) } })) }
        : {}),
      created_at: now(),
    });
    if (result.toolCalls.length === 0) {
      if (result.output !== undefined) {
        output.content = result.output;
        output.content_type = typeof state.outputSchema?.title === "string" ? state.outputSchema.title : "dict";
      } else {
        output.content = result.text;
        output.content_type = "str";
      }
      return await complete(state);
    }
    const executions = result.toolCalls.map((call) => newToolExecution(toolsByName.get(call.toolName), call));
    const stop = await runTools(state, executions, toolsByName);
    if (stop === "paused") return await pause(state, executions.filter((e) => isPending(e)));
    if (stop === "stop") {
      output.content = output.tools[output.tools.length - 1]?.result ?? null;
      output.content_type = typeof output.content === "string" ? "str" : "dict";
      return await complete(state);
    }
  }
  throw new Error(`The model kept calling tools for ${MAX_STEPS} steps without answering`);
}

/** What the model sees: one system message (the run's own, once stored), earlier runs, this run. */
function modelContext(state: RunState): AgnoMessage[] {
  const stored = state.output.messages.filter((m) => m.role === "system");
  const system = stored.length > 0 ? stored.slice(0, 1) : state.contextMessages.filter((m) => m.role === "system");
  const history = state.contextMessages.filter((m) => m.role !== "system");
  return [...system, ...history, ...state.output.messages.filter((m) => m.role !== "system")];
}

function isPending(execution: ToolExecution): boolean {
  return (
    (execution.requires_confirmation === true && execution.confirmed == null) ||
    (execution.requires_user_input === true && !execution.answered) ||
    (execution.external_execution_required === true && execution.result === undefined)
  );
}

/**
 * Runs the calls that need no human now; leaves the others pending. Returns "paused" when any
 * call waits for a human, "stop" when a tool asked to end the run, "continue" otherwise.
 */
async function runTools(state: RunState, executions: ToolExecution[], toolsByName: Map<string, ToolDefinition<unknown>>): Promise<"paused" | "stop" | "continue"> {
  let stop = false;
  for (const [i, execution] of executions.entries()) {
    checkpoint(state);
    const tool = toolsByName.get(execution.tool_name);
    if (isPending(execution)) continue;
    if (tool && needsHuman(tool) && execution.requires_confirmation && execution.confirmed === false) {
      executions[i] = { ...execution, result: `The user rejected this tool call.${execution.confirmation_note ? ` Note: ${execution.confirmation_note}` : ""}` };
    } else if (execution.external_execution_required) {
      executions[i] = { ...execution, tool_call_error: false };
    } else {
      emit(state, "ToolCallStarted", { tool: execution });
      const args = { ...execution.tool_args, ...userInputValues(execution) };
      executions[i] = await executeTool(tool, { ...execution, tool_args: args }, {
        runId: state.output.run_id,
        sessionId: state.output.session_id,
        agentId: state.agent.definition.id,
        userId: state.output.user_id,
        signal: state.live.controller.signal,
      });
    }
    const done = executions[i];
    emit(state, done.tool_call_error ? "ToolCallError" : "ToolCallCompleted", {
      tool: done,
      content: typeof done.result === "string" ? done.result : JSON.stringify(done.result ?? null),
      ...(done.tool_call_error ? { error: String(done.result) } : {}),
    });
    state.output.tools.push(done);
    state.output.messages.push({
      role: "tool",
      content: done.result ?? null,
      tool_call_id: done.tool_call_id,
      tool_name: done.tool_name,
      tool_args: done.tool_args,
      tool_call_error: !!done.tool_call_error,
      created_at: now(),
    });
    if (done.stop_after_tool_call) stop = true;
  }
  if (executions.some(isPending)) return "paused";
  return stop ? "stop" : "continue";
}

function userInputValues(execution: ToolExecution): Record<string, unknown> {
  return Object.fromEntries((execution.user_input_schema ?? []).filter((f) => f.value !== undefined && f.value !== null).map((f) => [f.name, f.value]));
}

async function persist(state: RunState, status: RunStatus): Promise<void> {
  const { output } = state;
  output.status = status;
  output.metrics.duration = (performance.now() - state.startedAt) / 1000;
  await upsertRun(state.db, { scope: state.scope, run: runRow(output) });
}

function runRow(output: RunOutput) {
  return {
    runId: output.run_id,
    sessionId: output.session_id,
    runType: "agent" as const,
    agentId: output.agent_id,
    parentRunId: output.parent_run_id ?? null,
    status: output.status,
    runData: output as unknown as Record<string, unknown>,
    createdAt: output.created_at,
  };
}

async function pause(state: RunState, pending: ToolExecution[]): Promise<RunOutput> {
  const { output } = state;
  output.requirements = pending.map(
    (execution): RunRequirement => ({
      id: execution.tool_call_id,
      tool_execution: execution,
      created_at: now(),
      ...(execution.requires_confirmation ? { confirmation: null, confirmation_note: null } : {}),
      ...(execution.requires_user_input ? { user_input_schema: execution.user_input_schema ?? [] } : {}),
      ...(execution.external_execution_required ? { external_execution_result: null } : {}),
    }),
  );
  output.tools.push(...pending.filter((p) => !output.tools.some((t) => t.tool_call_id === p.tool_call_id)));
  await persist(state, "PAUSED");
  await recordSessionMetrics(state);
  emit(state, "RunPaused", { tools: pending, requirements: output.requirements, content: output.content });
  finishRun(state.live, "PAUSED");
  return output;
}

async function complete(state: RunState): Promise<RunOutput> {
  const { output } = state;
  output.requirements = null;
  emit(state, "RunContentCompleted");
  if (state.agent.definition.updateMemoryOnRun && output.user_id && state.model) {
    emit(state, "MemoryUpdateStarted");
    try {
      const added = await extractMemories({
        db: state.db,
        model: state.model,
        userId: output.user_id,
        agentId: state.agent.definition.id,
        userMessage: String(output.input.input_content ?? ""),
        answer: typeof output.content === "string" ? output.content : JSON.stringify(output.content),
        signal: state.live.controller.signal,
      });
      emit(state, "MemoryUpdateCompleted", { memories: added });
    } catch (error) {
      checkpoint(state);
      log.warn(`[run ${output.run_id}] memory update failed: ${(error as Error).message}`);
      emit(state, "MemoryUpdateCompleted", { memories: [] });
    }
  }
  await persist(state, "COMPLETED");
  await recordSessionMetrics(state);
  emit(state, "RunCompleted", {
    content: output.content,
    content_type: output.content_type,
    metrics: output.metrics,
    session_state: output.session_state,
    metadata: output.metadata,
    tools: output.tools.length > 0 ? output.tools : null,
  });
  finishRun(state.live, "COMPLETED");
  return output;
}

async function recordSessionMetrics(state: RunState): Promise<void> {
  const { metrics } = state.output;
  await addSessionMetrics(state.db, {
    scope: state.scope,
    sessionId: state.output.session_id,
    metrics: {
      input_tokens: metrics.input_tokens,
      output_tokens: metrics.output_tokens,
      total_tokens: metrics.total_tokens,
      cache_read_tokens: metrics.cache_read_tokens,
      cache_write_tokens: metrics.cache_write_tokens,
      reasoning_tokens: metrics.reasoning_tokens,
    },
    sessionState: state.output.session_state ?? undefined,
  });
}

/** CANCELLED for a cancel request, ERROR (with a classified provider error) for anything else. */
async function settleFailure(state: RunState, error: unknown): Promise<RunOutput> {
  const { output } = state;
  const cancelled = error instanceof RunCancelledSignal || state.live.controller.signal.aborted;
  try {
    if (cancelled) {
      const reason = error instanceof Error ? error.message : "Run cancelled";
      output.error = { message: reason, error_type: "run_cancelled" };
      await persist(state, "CANCELLED");
      emit(state, "RunCancelled", { reason });
      finishRun(state.live, "CANCELLED");
      return output;
    }
    const classified = ModelProviderError.classify(error);
    const providerFailure = error instanceof ModelProviderError || classified.kind !== "unknown";
    const message = providerFailure ? classified.message : (error as Error)?.message ?? String(error);
    const errorType = providerFailure ? classified.errorType : "run_error";
    if (!providerFailure) log.error(`[run ${output.run_id}] ${(error as Error)?.stack ?? String(error)}`);
    output.error = { message, error_type: errorType };
    output.content = message;
    await persist(state, "ERROR");
    emit(state, "RunError", { content: message, error_type: errorType });
    finishRun(state.live, "ERROR");
    return output;
  } catch (persistError) {
    log.error(`[run ${output.run_id}] could not record the run's end: ${(persistError as Error).message}`);
    output.status = cancelled ? "CANCELLED" : "ERROR";
    finishRun(state.live, output.status);
    return output;
  }
}

export interface Resolution {
  tool_call_id: string;
  confirmed?: boolean | null;
  confirmation_note?: string | null;
  user_input?: Record<string, unknown>;
  external_result?: unknown;
}

export class ContinueError extends Error {
  override readonly name = "ContinueError";
  constructor(
    message: string,
    readonly status: 400 | 404 | 409,
  ) {
    super(message);
  }
}

/**
 * Continues a PAUSED run with the human decisions for its requirements, as the same run id:
 * confirmed tools run, rejected ones tell the model so, user input is merged into the arguments,
 * external results are used as given. The PAUSED → RUNNING move is a compare-and-set, so a second
 * continue of the same run gets 409.
 */
export async function continueAgentRun({
  db,
  agent,
  scope,
  runId,
  sessionId,
  resolutions,
  claim,
  retry,
}: {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  runId: string;
  sessionId: string;
  resolutions: Resolution[];
  /** Moves the run PAUSED → RUNNING; false when it was not paused (or another continue won). */
  claim: () => Promise<boolean>;
  retry?: RetryPolicy;
}): Promise<StartedRun> {
  const stored = await getRun(db, { scope, runId, sessionId });
  if (!stored || stored.agent_id !== agent.definition.id) throw new ContinueError("Run not found", 404);
  const output = stored.run_data as unknown as RunOutput;
  if (stored.status !== "PAUSED") throw new ContinueError(`Run ${runId} is ${stored.status}, not PAUSED: only a paused run can be continued`, 409);
  const pending = output.requirements ?? [];
  const byId = new Map(resolutions.map((r) => [r.tool_call_id, r]));
  const resolved: ToolExecution[] = [];
  for (const requirement of pending) {
    const execution = requirement.tool_execution;
    const decision = byId.get(execution.tool_call_id);
    const next = { ...execution };
    if (execution.requires_confirmation) {
      if (typeof decision?.confirmed !== "boolean") throw new ContinueError(`Requirement ${requirement.id} (${execution.tool_name}) needs confirmed: true or false`, 400);
      next.confirmed = decision.confirmed;
      next.confirmation_note = decision.confirmation_note ?? null;
    }
    if (execution.requires_user_input) {
      const values = decision?.user_input ?? {};
      const missing = (execution.user_input_schema ?? []).filter((f) => values[f.name] === undefined || values[f.name] === null).map((f) => f.name);
      if (missing.length > 0) throw new ContinueError(`Requirement ${requirement.id} (${execution.tool_name}) needs user input for: ${missing.join(", ")}`, 400);
      next.user_input_schema = (execution.user_input_schema ?? []).map((f) => ({ ...f, value: values[f.name] }));
      next.answered = true;
    }
    if (execution.external_execution_required) {
      if (decision?.external_result === undefined) throw new ContinueError(`Requirement ${requirement.id} (${execution.tool_name}) needs the external execution's result`, 400);
      next.result = decision.external_result;
    }
    resolved.push(next);
  }
  if (!(await claim())) throw new ContinueError(`Run ${runId} is no longer PAUSED (already continued?)`, 409);
  output.status = "RUNNING";
  output.requirements = null;
  output.tools = output.tools.filter((t) => !resolved.some((r) => r.tool_call_id === t.tool_call_id));
  const session = await getSession(db, { scope, sessionId });
  const live = registerRun({ runId, sessionId, agentId: agent.definition.id, userId: output.user_id });
  const firstEventIndex = live.nextIndex;
  const state: RunState = {
    db,
    agent,
    scope,
    live,
    output,
    base: { agent_id: agent.definition.id, agent_name: agent.definition.name, run_id: runId, session_id: sessionId },
    contextMessages: [],
    tools: [],
    model: null,
    retry,
    startedAt: performance.now() - (output.metrics?.duration ?? 0) * 1000,
  };
  const done = (async () => {
    try {
      await prepare(state, session!);
      emit(state, "RunContinued", { tools: resolved });
      const toolsByName = new Map(state.tools.map((t) => [t.name, t]));
      const stop = await runTools(state, resolved, toolsByName);
      if (stop === "stop") {
        output.content = output.tools[output.tools.length - 1]?.result ?? null;
        return await complete(state);
      }
      return await loop(state);
    } catch (error) {
      return await settleFailure(state, error);
    }
  })();
  return { runId, sessionId, live, firstEventIndex, done };
}
