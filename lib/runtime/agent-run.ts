import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError } from "../errors/domain-errors.ts";
import type { Db } from "../db/open-database.ts";
import { upsertRun } from "../db/runs/runs.ts";
import type { DataScope } from "../db/scope.ts";
import { getRecentRuns } from "../db/runs/runs.ts";
import { getSessionRow, upsertSession, type StoredSession } from "../db/sessions/sessions.ts";
import { sessionVersionOf, type SessionVersion } from "../db/sessions/session-data.ts";
import { componentOf, loadRuntimeTools, type RuntimeAgent } from "./agents.ts";
import type { RetryPolicy } from "./model-step.ts";
import { resolveModel } from "../models/resolve-model.ts";
import { addUsage, startBackgroundWork } from "./background-tasks.ts";
import { agenticMemoryTool } from "./memory/agentic-memory.ts";
import { memoriesSection } from "./memory/user-memories.ts";
import { reasonFirst } from "./reasoning.ts";
import { registerRun, type LiveRun } from "../live-runs/run-registry.ts";
import { emptyMetrics, type AgnoMessage, type RunOutput } from "./run-output.ts";
import { loop } from "./run-loop.ts";
import { runRow, settleFailure, storeRun } from "./run-settle.ts";
import type { RunWriter } from "./run-writer.ts";
import { emit, newRunState, now, type RunState } from "./run-state.ts";
import { pastSessionsTool } from "./tools/past-sessions.ts";
import { runExtensions } from "./run-extensions.ts";
import { userMessageContent, type Attachment } from "./user-content.ts";
import { context } from "@opentelemetry/api";
import { NEW_TRACE, traceRun, type StartRunTraceOptions } from "./run-trace.ts";
import type { ToolDefinition } from "./tools/types.ts";

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
  attachments?: Attachment[];
  /** Input metadata recorded on the run (names, types, sizes of uploads). */
  inputMedia?: { images?: unknown[]; files?: unknown[]; audios?: unknown[]; videos?: unknown[] };
  retry?: RetryPolicy;
  /** false when the client waits for the whole RunOutput (model calls need not stream). */
  stream?: boolean;
  /**
   * Background: the run is stored PENDING and `defer` decides when it executes (the background
   * limiter); without it the run starts at once.
   */
  defer?: (execute: () => Promise<RunOutput>, run: DeferredRun) => void;
  /** A run id chosen by the caller (a cancel may already be recorded for it); default a new UUID. */
  runId?: string;
  /** The run this one works for (a team member's run: the team's run). */
  parentRunId?: string;
  /** Aborting it aborts the run with its reason (an eval that is cancelled or times out). */
  signal?: AbortSignal;
  /** The run's span: its parent (default: a trace of its own), start, extra attributes (lib/runtime/run-trace.ts). */
  trace?: StartRunTraceOptions;
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

/**
 * Starts a run of a local agent: the session exists (created if new) and the run row is written
 * (RUNNING, or PENDING when `defer` holds it) before the first event, then the model/tool loop
 * runs in the background of this call. Events are published through the run registry, so any
 * route can stream, resume or cancel.
 */
export async function startAgentRun(request: StartRunRequest): Promise<StartedRun> {
  const output = await newRunOutput(request, request.defer ? "PENDING" : "RUNNING");
  await upsertRun(request.db, { scope: request.scope, run: runRow(output) });
  return runAgent({ ...request, output });
}

/**
 * Starts a run of `agent` for the run `parent` holds (a team member's, a workflow step's): in the
 * parent's session, as its user, with `parent_run_id` the parent's run, aborted when it is.
 */
export function startChildRun(parent: RunState, agent: RuntimeAgent, message: string): Promise<StartedRun> {
  return startAgentRun({
    db: parent.db,
    agent,
    scope: parent.scope,
    userId: parent.output.user_id,
    message,
    sessionId: parent.output.session_id,
    parentRunId: parent.output.run_id,
    dependencies: parent.dependencies,
    retry: parent.retry,
    stream: parent.stream,
    signal: parent.live.controller.signal,
    // Under the span active where it starts: the team's delegation tool, the workflow's step.
    trace: { parent: context.active() },
  });
}

/** The session row each new run's output was made with, as read (the run's end compares against it). */
const SESSION_VERSIONS = new WeakMap<RunOutput, SessionVersion>();

/**
 * The RunOutput a new run starts from, its session created if new (nothing else is written): a
 * durable submit stores it with its job in one transaction.
 */
export async function newRunOutput(request: Omit<StartRunRequest, "defer">, status: "PENDING" | "RUNNING"): Promise<RunOutput> {
  const { db, agent, scope } = request;
  const sessionId = request.sessionId || randomUUID();
  const session = await ensureSession(db, { scope, agent, sessionId, isNew: !request.sessionId, userId: request.userId, sessionState: request.sessionState });
  const spec = agent.definition.model;
  const version = sessionVersionOf(session);
  const owner = agent.workflow
    ? { workflow_id: agent.definition.id, workflow_name: agent.definition.name, step_results: [], step_executor_runs: [] }
    : agent.team
      ? { team_id: agent.definition.id, team_name: agent.definition.name, member_responses: [] }
      : { agent_id: agent.definition.id, agent_name: agent.definition.name };
  const output: RunOutput = {
    run_id: request.runId ?? randomUUID(),
    ...owner,
    ...(request.parentRunId ? { parent_run_id: request.parentRunId } : {}),
    session_id: sessionId,
    user_id: session.user_id,
    // A workflow's input is the message itself (Agno's WorkflowRunOutput.input).
    input: agent.workflow ? (request.message as unknown as RunOutput["input"]) : { input_content: request.message, ...request.inputMedia },
    content: null,
    content_type: "str",
    model: spec?.id ?? null,
    model_provider: spec?.provider ?? null,
    messages: [],
    metrics: emptyMetrics(),
    tools: [],
    status,
    session_state: request.sessionState ?? (session.session_data?.session_state as Record<string, unknown> | undefined) ?? null,
    metadata: request.metadata ?? null,
    created_at: now(),
  };
  if (version) SESSION_VERSIONS.set(output, version);
  return output;
}

export interface RunAgentRequest extends Omit<StartRunRequest, "runId" | "sessionId" | "userId" | "sessionState" | "metadata" | "inputMedia" | "parentRunId"> {
  /** The run as stored (PENDING or RUNNING). */
  output: RunOutput;
  /** How the run's rows are written (a durable job's fenced writer); default: directly. */
  writer?: RunWriter;
  /** Keep every event with the run (capped), whatever the agent's storeEvents says. */
  keepEvents?: boolean;
  /** Aborting it aborts the run with its reason (a worker's timeout or lost lease). */
  signal?: AbortSignal;
  /** event_index of the first event (a re-executed durable run continues its numbering). */
  firstEventIndex?: number;
}

/** What a deferred (background) run's scheduler knows of it. */
export interface DeferredRun {
  runId: string;
  sessionId: string;
  agentId: string;
  userId: string | null;
}

/** Executes a run whose row is stored: now, or when `defer` lets it. */
export function runAgent(request: RunAgentRequest): StartedRun {
  const { db, agent, scope, output } = request;
  const runId = output.run_id;
  const sessionId = output.session_id;
  const component = componentOf(agent);
  const live = registerRun({ runId, sessionId, componentType: component.type, componentId: component.id, userId: output.user_id, firstEventIndex: request.firstEventIndex });
  const firstEventIndex = live.nextIndex;
  if (request.signal) {
    const abort = () => live.controller.abort(request.signal!.reason);
    if (request.signal.aborted) abort();
    else request.signal.addEventListener("abort", abort, { once: true });
  }
  const state = newRunState({
    db,
    agent,
    scope,
    live,
    output,
    outputSchema: request.outputSchema,
    retry: request.retry,
    startedAt: performance.now(),
    dependencies: request.dependencies,
    stream: request.stream,
    writer: request.writer,
    keepEvents: request.keepEvents,
    sessionVersion: SESSION_VERSIONS.get(output),
  });
  const execute = (): Promise<RunOutput> => traceRun(state, request.message, { parent: NEW_TRACE, ...request.trace }, run);
  const run = async (): Promise<RunOutput> => {
    try {
      if (output.status === "PENDING") {
        output.status = "RUNNING";
        state.startedAt = performance.now();
        await storeRun(state);
      }
      if (agent.workflow) {
        emit(state, "RunStarted");
        return await agent.workflow.run(state, request.message);
      }
      emit(state, "RunStarted", { model: output.model, model_provider: output.model_provider });
      // prepare resolved the model, so the agent has one (else ModelNotConfiguredError).
      await prepare(state);
      const userMessage: AgnoMessage = {
        role: "user",
        content: request.attachments?.length ? userMessageContent(agent.definition.model!, request.message, request.attachments) : request.message,
        created_at: now(),
      };
      startBackgroundWork(state, [...state.contextMessages, userMessage], userMessage);
      await reasonFirst(state, userMessage);
      output.messages.push(...state.contextMessages.filter((m) => m.role === "system"), userMessage);
      return await loop(state);
    } catch (error) {
      return await settleFailure(state, error);
    }
  };
  const done = request.defer
    ? new Promise<RunOutput>((resolve) => request.defer!(() => execute().then((o) => (resolve(o), o)), { runId, sessionId, agentId: agent.definition.id, userId: output.user_id }))
    : execute();
  return { runId, sessionId, live, firstEventIndex, done };
}

/**
 * The run's session: a client-named one as it is (in the caller's scope), else a new one of the
 * component's type — a workflow's, a team's, or an agent's (an external agent's `agent_data` is
 * Agno's external one: agent_id, agent_name, name, framework). Another user's session id is
 * answered as missing. Also used by lib/runtime/external/external-run.ts.
 */
export async function ensureSession(
  db: Db,
  {
    scope,
    agent,
    sessionId,
    isNew,
    userId,
    sessionState,
  }: { scope: DataScope; agent: RuntimeAgent; sessionId: string; isNew: boolean; userId: string | null; sessionState?: Record<string, unknown> | null },
): Promise<StoredSession> {
  // A client-named session may exist already; a new id cannot.
  if (!isNew) {
    const existing = await getSessionRow(db, { scope, sessionId });
    if (existing) return existing;
  }
  try {
    const model = agent.definition.model ? { id: agent.definition.model.id, provider: agent.definition.model.provider } : null;
    const created = await upsertSession(db, {
      scope,
      session: {
        sessionId,
        userId,
        sessionData: sessionState ? { session_state: sessionState } : {},
        ...(agent.workflow
          ? {
              sessionType: "workflow" as const,
              workflowId: agent.definition.id,
              workflowData: {
                workflow_id: agent.definition.id,
                name: agent.definition.name,
                steps: agent.workflow.definition.steps.map((s) => ({ name: s.name, description: s.description ?? null, type: s.type })),
              },
            }
          : agent.team
            ? { sessionType: "team" as const, teamId: agent.definition.id, teamData: { name: agent.definition.name, team_id: agent.definition.id, model } }
            : { sessionType: "agent" as const, agentId: agent.definition.id, agentData: agentDataOf(agent, model) }),
      },
    });
    return created;
  } catch (error) {
    // Another user's session id: answer as if it did not exist, so existence never leaks.
    if (error instanceof ConflictError) throw new NotFoundError(`Session ${sessionId} not found`);
    throw error;
  }
}

/** A new agent session's `agent_data`: an external agent's names its framework instead of a model. */
function agentDataOf(agent: RuntimeAgent, model: { id: string; provider: string } | null): Record<string, unknown> {
  const { id, name } = agent.definition;
  if (agent.external) return { agent_id: id, agent_name: name, name, framework: agent.external.framework };
  return { name, agent_id: id, model };
}

/** Resolves the model and builds the context: instructions, memories, history, tools. */
export async function prepare(state: RunState): Promise<void> {
  const { agent, db, output } = state;
  const definition = agent.definition;
  state.model = resolveModel(definition.id, definition.model);
  const instructions = Array.isArray(definition.instructions) ? definition.instructions.join("\n") : (definition.instructions ?? "");
  const sections = [agent.team?.context ?? "", definition.description ?? "", instructions];
  if ((definition.updateMemoryOnRun || definition.enableAgenticMemory) && output.user_id) sections.push(await memoriesSection(db, output.user_id));
  if (state.dependencies && Object.keys(state.dependencies).length > 0) {
    sections.push(`Additional context:\n${JSON.stringify(state.dependencies, null, 2)}`);
  }
  if (output.session_state && Object.keys(output.session_state).length > 0) {
    sections.push(`Session state:\n${JSON.stringify(output.session_state)}`);
  }
  const extensions = runExtensions();
  for (const extension of extensions) if (extension.promptContext) sections.push(...(await extension.promptContext(state)));
  const system = sections.filter(Boolean).join("\n\n");
  state.contextMessages = system ? [{ role: "system", content: system, created_at: now() }] : [];
  if (definition.addHistoryToContext) {
    const previous = await getRecentRuns(db, {
      scope: state.scope,
      sessionId: output.session_id,
      status: "COMPLETED",
      limit: definition.numHistoryRuns ?? 3,
      excludeRunId: output.run_id,
      // A team session holds the team's runs and its members': each replays only its own.
      component: agent.team ? { column: "team_id", id: definition.id, topLevel: true } : output.parent_run_id ? { column: "agent_id", id: definition.id } : undefined,
    });
    for (const run of previous) {
      // A run another writer stored may hold anything under `messages`: only message objects replay.
      const messages: unknown = run.run_data.messages;
      for (const message of Array.isArray(messages) ? (messages as AgnoMessage[]) : []) {
        if (message && typeof message === "object" && message.role !== "system" && !message.from_history) state.contextMessages.push({ ...message, from_history: true });
      }
    }
  }
  state.tools = [...agent.tools, ...(agent.team?.tools(state) ?? [])];
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
  if (definition.enableAgenticMemory && output.user_id && state.model) {
    state.tools.push(
      agenticMemoryTool({
        db,
        model: state.model,
        agentId: definition.id,
        teamId: agent.team ? definition.id : undefined,
        onUsage: (usage) => addUsage(output.metrics, usage),
      }) as ToolDefinition<unknown>,
    );
  }
  for (const extension of extensions) if (extension.tools) state.tools.push(...extension.tools(state));
  // MCP servers' tools, listed on the run's user's connection (never failing the run's start).
  if (agent.runtimeToolkits) state.tools.push(...(await loadRuntimeTools(agent, state.tools, { userId: output.user_id, signal: state.live.controller.signal })));
}
