import { randomUUID } from "node:crypto";
import type { ExternalAgentEvent, ExternalHistoryMessage, ExternalRunInput } from "../../config/external-agent.ts";
import type { Db } from "../../db/open-database.ts";
import { getRuns, upsertRun, type StoredRun } from "../../db/runs/runs.ts";
import type { DataScope } from "../../db/scope.ts";
import { finishRun, registerRun, RunCancelledSignal } from "../../live-runs/run-registry.ts";
import { log } from "../../log.ts";
import { ensureSession, type StartedRun } from "../agent-run.ts";
import type { RuntimeAgent } from "../agents.ts";
import { emptyMetrics, type AgnoMessage, type RunOutput, type ToolExecution } from "../run-output.ts";
import { persist, runRow, settleFailure } from "../run-settle.ts";
import { checkpoint, emit, emitFinal, newRunState, now, type RunState } from "../run-state.ts";
import { NEW_TRACE, traceRun } from "../run-trace.ts";

/** What starting an external agent's run takes (a subset of startAgentRun's request). */
export interface ExternalRunRequest {
  db: Db;
  /** A runtime agent with `external` set (lib/runtime/external/external-agents.ts). */
  agent: RuntimeAgent;
  scope: DataScope;
  userId: string | null;
  message: string;
  /** Empty or absent: a new session. */
  sessionId?: string;
  metadata?: Record<string, unknown> | null;
  /** true: the adapter streams (text and tool calls as events); false: it answers whole. */
  stream: boolean;
}

/** Runs of the session kept in the history an adapter receives: the most recent ones. */
const HISTORY_RUNS = 100;

/**
 * Starts a run of an external agent: its session exists (created with Agno's external
 * `agent_data` — agent_id, agent_name, framework — when new) and its row is stored RUNNING before
 * the first event; the adapter then runs in the background of this call, its events published
 * through the run registry as an agent run's are. A streamed run's events are Agno's external
 * agents': RunStarted, RunContent, ToolCallStarted and ToolCallCompleted, then RunCompleted or
 * RunError. An adapter's exception ends the run ERROR with its text as `content` and `error`
 * (`error_type` the exception's `type` when it is a string, else its class name); a cancel (the
 * client of a streamed run went away) ends it CANCELLED.
 */
export async function startExternalRun(request: ExternalRunRequest): Promise<StartedRun> {
  const { db, agent, scope } = request;
  const external = agent.external;
  if (!external) throw new Error(`Agent '${agent.definition.id}' is not an external agent`);
  const sessionId = request.sessionId || randomUUID();
  const session = await ensureSession(db, { scope, agent, sessionId, isNew: !request.sessionId, userId: request.userId });
  const output: RunOutput = {
    run_id: randomUUID(),
    agent_id: agent.definition.id,
    agent_name: agent.definition.name,
    session_id: sessionId,
    user_id: session.user_id,
    input: { input_content: request.message },
    content: null,
    content_type: "str",
    model: null,
    model_provider: null,
    messages: [],
    metrics: emptyMetrics(),
    tools: [],
    status: "RUNNING",
    metadata: request.metadata ?? null,
    created_at: now(),
  };
  await upsertRun(db, { scope, run: runRow(output) });
  const live = registerRun({ runId: output.run_id, sessionId, componentType: "agent", componentId: agent.definition.id, userId: output.user_id });
  const state = newRunState({ db, agent, scope, live, output, startedAt: performance.now(), stream: request.stream });
  const firstEventIndex = live.nextIndex;
  const done = traceRun(state, request.message, { parent: NEW_TRACE }, () => runExternal(state, request));
  return { runId: output.run_id, sessionId, live, firstEventIndex, done };
}

async function runExternal(state: RunState, request: ExternalRunRequest): Promise<RunOutput> {
  const { output } = state;
  const adapter = state.agent.external!.adapter;
  const tools: ToolExecution[] = [];
  let content = "";
  try {
    emit(state, "RunStarted");
    const earlier = await earlierRuns(state);
    const input: ExternalRunInput = {
      input: request.message,
      history: historyOf(earlier),
      runId: output.run_id,
      sessionId: output.session_id,
      userId: output.user_id,
      signal: state.live.controller.signal,
      state: { ...lastAdapterState(earlier) },
    };
    if (request.stream) {
      for await (const event of adapter.stream(input)) {
        checkpoint(state);
        content += onEvent(state, event, tools);
        state.streamedContent = content;
      }
    } else {
      const answer = await adapter.invoke(input);
      content = typeof answer === "string" ? answer : answer === undefined || answer === null ? "" : JSON.stringify(answer);
    }
    checkpoint(state);
    output.external_state = Object.keys(input.state).length > 0 ? input.state : null;
    return await completeExternal(state, request.message, content, tools);
  } catch (error) {
    if (error instanceof RunCancelledSignal || state.live.controller.signal.aborted) return settleFailure(state, error);
    return failExternal(state, request.message, error, tools);
  }
}

/** Publishes one adapter event as Agno's run event; returns the answer text it adds. */
function onEvent(state: RunState, event: ExternalAgentEvent, tools: ToolExecution[]): string {
  if (event.type === "content") {
    if (!event.content) return "";
    emit(state, "RunContent", { content: event.content, content_type: "str" });
    return event.content;
  }
  if (event.type === "tool_call_started") {
    const tool: ToolExecution = { tool_call_id: event.toolCallId, tool_name: event.toolName, tool_args: event.toolArgs, created_at: now() };
    tools.push(tool);
    emit(state, "ToolCallStarted", { tool });
    return "";
  }
  // A completed call merges into its start (its result); one that never started is added whole.
  let tool = tools.find((t) => t.tool_call_id === event.toolCallId);
  if (tool) tool.result = event.result;
  else {
    tool = { tool_call_id: event.toolCallId, tool_name: event.toolName ?? "", tool_args: event.toolArgs ?? {}, result: event.result, created_at: now() };
    tools.push(tool);
  }
  emit(state, "ToolCallCompleted", { tool, content: event.result });
  return "";
}

/** The run's messages as Agno's external agents store them: the user's, each tool call and its result, the answer. */
function messagesOf(input: string, tools: readonly ToolExecution[], answer: string): AgnoMessage[] {
  const at = now();
  return [
    { role: "user", content: input, created_at: at },
    ...tools.flatMap((tool): AgnoMessage[] => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: tool.tool_call_id, type: "function", function: { name: tool.tool_name, arguments: JSON.stringify(tool.tool_args ?? {}) } }],
        created_at: at,
      },
      { role: "tool", content: String(tool.result ?? ""), tool_call_id: tool.tool_call_id, created_at: at },
    ]),
    { role: "assistant", content: answer, created_at: at },
  ];
}

async function completeExternal(state: RunState, input: string, content: string, tools: ToolExecution[]): Promise<RunOutput> {
  const { output } = state;
  output.content = content;
  output.tools = tools;
  output.messages = messagesOf(input, tools, content);
  await emitFinal(state, "RunCompleted", { content, content_type: "str", metrics: output.metrics, metadata: output.metadata, tools: tools.length > 0 ? tools : null }, () =>
    persist(state, "COMPLETED", { withSession: true }),
  );
  finishRun(state.live, "COMPLETED");
  return output;
}

/** Agno's `error_type_of`: an exception's `type` when it is a non-empty string, else its class name. */
function errorTypeOf(error: unknown): string {
  const type = (error as { type?: unknown } | null)?.type;
  if (typeof type === "string" && type) return type;
  return (error as { constructor?: { name?: string } } | null)?.constructor?.name || "Error";
}

async function failExternal(state: RunState, input: string, error: unknown, tools: ToolExecution[]): Promise<RunOutput> {
  const { output } = state;
  const message = error instanceof Error ? error.message : String(error);
  const errorType = errorTypeOf(error);
  log.warn(`[run ${output.run_id}] ${state.agent.external!.framework} agent '${state.agent.definition.id}' failed: ${(error as Error)?.stack ?? message}`);
  output.content = message;
  output.error = { message, error_type: errorType };
  output.tools = tools;
  output.messages = messagesOf(input, tools, message);
  try {
    await emitFinal(state, "RunError", { content: message, error_type: errorType }, () => persist(state, "ERROR"));
    finishRun(state.live, "ERROR");
  } catch (persistError) {
    log.error(`[run ${output.run_id}] could not record the run's end: ${(persistError as Error).message}`);
    output.status = "ERROR";
    finishRun(state.live, "ERROR");
  }
  return output;
}

/** The session's earlier runs of this agent that ended, oldest first (at most HISTORY_RUNS). */
async function earlierRuns(state: RunState): Promise<StoredRun[]> {
  const { db, scope, output } = state;
  const runs = await getRuns(db, { scope, sessionId: output.session_id, agentId: output.agent_id });
  return runs.filter((r) => r.run_id !== output.run_id && r.status !== "PENDING" && r.status !== "RUNNING" && r.run_type !== "team").slice(-HISTORY_RUNS);
}

/** A stored message's text: a string as it is, text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === "object" && typeof part.text === "string" ? part.text : "")).join("");
  return content === null || content === undefined ? "" : JSON.stringify(content);
}

/**
 * The user, assistant and tool messages of earlier runs, as Agno's external agents pass them:
 * an assistant's tool calls with its text (or ""), a tool result with its call id, any other
 * user or assistant message that has text.
 */
function historyOf(runs: readonly StoredRun[]): ExternalHistoryMessage[] {
  const history: ExternalHistoryMessage[] = [];
  for (const run of runs) {
    const messages: unknown = run.run_data.messages;
    for (const message of Array.isArray(messages) ? (messages as AgnoMessage[]) : []) {
      if (!message || typeof message !== "object") continue;
      const text = textOf(message.content);
      if (message.role === "assistant" && message.tool_calls?.length) history.push({ role: "assistant", content: text, tool_calls: message.tool_calls });
      else if (message.role === "tool" && text) history.push({ role: "tool", content: text, tool_call_id: message.tool_call_id ?? "" });
      else if ((message.role === "user" || message.role === "assistant") && text) history.push({ role: message.role, content: text });
    }
  }
  return history;
}

/** What the adapter kept after the latest earlier run that kept anything. */
function lastAdapterState(runs: readonly StoredRun[]): Record<string, unknown> {
  for (const run of [...runs].reverse()) {
    const kept = run.run_data.external_state;
    if (kept && typeof kept === "object" && !Array.isArray(kept)) return kept as Record<string, unknown>;
  }
  return {};
}
