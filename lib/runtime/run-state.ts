import type { LanguageModel } from "ai";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import type { RuntimeAgent } from "./agents.ts";
import { makeEvent, type EventBase, type RunEvent, type RunEventName, type TeamOnlyEventName, type TeamRunEventName, type WorkflowEventName } from "../live-runs/events.ts";
import type { RetryPolicy } from "./model-step.ts";
import { publish, RunCancelledSignal, type LiveRun } from "../live-runs/run-registry.ts";
import type { AgnoMessage, RunOutput, RunRequirement } from "./run-output.ts";
import type { ToolDefinition } from "./tools/types.ts";
import type { RunWriter } from "./run-writer.ts";
import type { SessionVersion } from "../db/sessions/session-data.ts";
import type { RunTrace } from "./run-trace.ts";
import type { LanguageModelUsage } from "ai";

/**
 * A run's background work (lib/runtime/background-tasks.ts): memory extraction and extensions'
 * tasks, started from the run's input and awaited before it completes or pauses.
 */
export interface BackgroundWork {
  readonly memory?: Promise<{ added: string[]; usage: LanguageModelUsage | undefined }>;
  readonly tasks: readonly Promise<readonly LanguageModelUsage[]>[];
  /** Stops the work: the run ended without awaiting it (a failure, a lost lease). */
  abort(): void;
}

/** Everything one run (or one continuation of it) works with while it executes. */
export const MAX_STORED_EVENTS = 10_000;

export interface RunState {
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
  /** false when the client waits for the RunOutput: model calls need not stream. */
  stream?: boolean;
  /** How the run's rows are written; default directly (upsertRun). */
  writer?: RunWriter;
  /** Keep events with the run whatever the agent's storeEvents says (durable runs). */
  keepEvents?: boolean;
  /** A team run: what its paused members wait on (lib/runtime/team/team-tools.ts); the team pauses after its tools. */
  memberRequirements?: RunRequirement[];
  /** A team run in tasks mode: the leader's current iteration (lib/runtime/team/team-tasks.ts). */
  taskIteration?: number;
  /** The session row as the run read it at its start: its end's session update compares against it instead of reading again. */
  sessionVersion?: SessionVersion;
  /** The run's span (lib/runtime/run-trace.ts), while it executes. */
  trace?: RunTrace;
  /** The answer the model call in flight has streamed so far: a run cancelled meanwhile keeps it as its content. */
  streamedContent?: string;
  /** Memory extraction and extensions' background tasks started with the run, awaited before it completes or pauses. */
  background?: BackgroundWork;
}

/** A run's state with its event base fields filled in from the output. */
export function newRunState(fields: Omit<RunState, "base" | "contextMessages" | "tools" | "model">): RunState {
  const { output } = fields;
  return {
    ...fields,
    base: output.workflow_id
      ? { workflow_id: output.workflow_id, workflow_name: output.workflow_name, run_id: output.run_id, session_id: output.session_id, parent_run_id: output.parent_run_id }
      : output.team_id
        ? { team_id: output.team_id, team_name: output.team_name, run_id: output.run_id, session_id: output.session_id, parent_run_id: output.parent_run_id }
        : { agent_id: output.agent_id, agent_name: output.agent_name, run_id: output.run_id, session_id: output.session_id, parent_run_id: output.parent_run_id },
    contextMessages: [],
    tools: [],
    model: null,
  };
}

export const now = () => Math.floor(Date.now() / 1000);

/** A workflow run's start and end events, by the agent run's names they stand for. */
const WORKFLOW_NAMES: Partial<Record<RunEventName, WorkflowEventName>> = {
  RunStarted: "WorkflowStarted",
  RunCompleted: "WorkflowCompleted",
  RunError: "WorkflowError",
  RunCancelled: "WorkflowCancelled",
  RunPaused: "WorkflowPaused",
};

/** A team run's events carry Agno's Team* names (TeamRunStarted, TeamToolCallStarted, ...); a workflow's, Workflow* names. */
function nameOf(state: RunState, name: RunEventName): RunEventName | TeamRunEventName | WorkflowEventName {
  if (state.agent.workflow) {
    const mapped = WORKFLOW_NAMES[name];
    if (!mapped) throw new Error(`A workflow run has no ${name} event`);
    return mapped;
  }
  return state.agent.team ? `Team${name}` : name;
}

export function emit(state: RunState, name: RunEventName, fields: Record<string, unknown> = {}): RunEvent {
  const event = publish(state.live, makeEvent(state.base, nameOf(state, name), fields));
  keep(state, event);
  return event;
}

/** Emits an event only team or workflow runs have, by its own name. */
export function emitNamed(state: RunState, name: TeamOnlyEventName | WorkflowEventName, fields: Record<string, unknown> = {}): RunEvent {
  const event = publish(state.live, makeEvent(state.base, name, fields));
  keep(state, event);
  return event;
}

/** Publishes an event of another run (a team member's) in this run's stream, as a copy numbered in this stream. */
export function forward(state: RunState, event: RunEvent): RunEvent {
  const { event_index: _, ...copy } = event;
  const forwarded = publish(state.live, { ...copy, parent_run_id: copy.parent_run_id ?? state.output.run_id } as RunEvent);
  keep(state, forwarded);
  return forwarded;
}

function keep(state: RunState, event: RunEvent): void {
  if ((state.keepEvents || state.agent.definition.storeEvents) && (state.output.events ??= []).length < MAX_STORED_EVENTS) {
    state.output.events!.push(event);
  }
}

/**
 * Emits a run's final event around the write that ends it: the event is numbered and kept with
 * the run before `write` stores it (so a replay from the database ends the way the live stream
 * did), and reaches subscribers only after, so a client that sees it reads the run as ended.
 * Nothing else is emitted meanwhile: the run is finishing.
 */
export async function emitFinal(state: RunState, name: RunEventName, fields: Record<string, unknown>, write: () => Promise<void>): Promise<RunEvent> {
  const [event] = await emitFinalEvents(state, [[name, fields]], write);
  return event;
}

/** As emitFinal, for a run that ends with more than one event (a cancelled run: RunCancelled, then RunCompleted), numbered and sent in order. */
export async function emitFinalEvents(state: RunState, events: readonly (readonly [RunEventName, Record<string, unknown>])[], write: () => Promise<void>): Promise<RunEvent[]> {
  const built = events.map(([name, fields], i) => {
    const event = makeEvent(state.base, nameOf(state, name), fields);
    event.event_index = state.live.nextIndex + i;
    keep(state, event);
    return event;
  });
  try {
    await write();
  } catch (error) {
    const unsent = new Set<unknown>(built);
    state.output.events = state.output.events?.filter((e) => !unsent.has(e));
    throw error;
  }
  return built.map((event) => publish(state.live, event));
}

export function checkpoint(state: RunState): void {
  if (state.live.controller.signal.aborted) throw state.live.controller.signal.reason ?? new RunCancelledSignal();
}
