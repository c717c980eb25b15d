/**
 * Run events as Agno clients parse them: every payload carries its own `event` name and the base
 * fields, with null fields dropped (Agno's `to_dict()`), so agent-ui — which scans raw text for
 * JSON objects with an `event` — and the Python client — which reads `data:` lines — both work.
 */
/**
 * The last events of a run's stream (an agent's, a team's or a workflow's). A cancelled run's
 * stream ends with its RunCompleted after its RunCancelled (as Agno's does, so that every stream
 * has one end sentinel); that RunCompleted does not mean the run succeeded: it is stored CANCELLED.
 */
export const FINAL_EVENT_NAMES: ReadonlySet<string> = new Set([
  "RunCompleted",
  "RunError",
  "RunPaused",
  "TeamRunCompleted",
  "TeamRunError",
  "TeamRunPaused",
  "WorkflowCompleted",
  "WorkflowError",
  "WorkflowPaused",
]);

/** The events that say a run was cancelled. */
export const CANCELLED_EVENT_NAMES: ReadonlySet<string> = new Set(["RunCancelled", "TeamRunCancelled", "WorkflowCancelled"]);

const ofRun = (event: { run_id?: unknown }, runId: string) => event.run_id === undefined || event.run_id === runId;

/**
 * Whether `event` is the last event of run `runId`'s stream (a team's stream forwards its members'
 * final events, which are not). A cancel event is not: see isCancelledEventOf.
 */
export function isFinalEventOf(event: { event: unknown; run_id?: unknown }, runId: string): boolean {
  return FINAL_EVENT_NAMES.has(String(event.event)) && ofRun(event, runId);
}

/**
 * Whether `event` says run `runId` was cancelled. Its stream then ends with the run's completed
 * event — except a workflow's whose step a person rejected (its WorkflowCancelled is its last
 * event, as in Agno). A reader that wants the run's outcome keeps this event: the completed
 * event after it does not change it.
 */
export function isCancelledEventOf(event: { event: unknown; run_id?: unknown }, runId: string): boolean {
  return CANCELLED_EVENT_NAMES.has(String(event.event)) && ofRun(event, runId);
}

/** Whether `event` records how run `runId` ended (its final event or its cancel). */
export function endsRunOf(event: { event: unknown; run_id?: unknown }, runId: string): boolean {
  return isFinalEventOf(event, runId) || isCancelledEventOf(event, runId);
}

export type RunEventName =
  | "RunStarted"
  | "RunContent"
  | "RunContentCompleted"
  | "RunCompleted"
  | "RunError"
  | "RunCancelled"
  | "RunPaused"
  | "RunContinued"
  | "ToolCallStarted"
  | "ToolCallCompleted"
  | "ToolCallError"
  | "ModelRequestStarted"
  | "ModelRequestCompleted"
  | "MemoryUpdateStarted"
  | "MemoryUpdateCompleted"
  | "ReasoningStarted"
  | "ReasoningContentDelta"
  | "ReasoningCompleted";

/** A team run's events: the agent events' names with a `Team` prefix (TeamRunStarted, TeamToolCallStarted, ...), plus the team's own. */
export type TeamRunEventName = `Team${RunEventName}` | TeamOnlyEventName;

/** A workflow run's events (its own; the agents and teams of its steps send theirs). */
export type WorkflowEventName =
  | "WorkflowStarted"
  | "WorkflowCompleted"
  | "WorkflowCancelled"
  | "WorkflowError"
  | "WorkflowPaused"
  | "StepStarted"
  | "StepCompleted"
  | "StepPaused"
  | "StepContinued"
  | "StepExecutorPaused"
  | "StepExecutorContinued"
  | "StepOutputReview"
  | "StepError"
  | "StepOutput"
  | "StepsExecutionStarted"
  | "StepsExecutionCompleted"
  | "LoopExecutionStarted"
  | "LoopIterationStarted"
  | "LoopIterationCompleted"
  | "LoopExecutionCompleted"
  | "ParallelExecutionStarted"
  | "ParallelExecutionCompleted"
  | "ConditionExecutionStarted"
  | "ConditionExecutionCompleted"
  | "RouterExecutionStarted"
  | "RouterExecutionCompleted"
  | "RouterPaused";

/** Events only team runs have (tasks mode's list and iterations). */
export type TeamOnlyEventName = "TeamRunIntermediateContent" | "TeamTaskCreated" | "TeamTaskUpdated" | "TeamTaskStateUpdated" | "TeamTaskIterationStarted" | "TeamTaskIterationCompleted";

export type RunEvent = { event: RunEventName | TeamRunEventName | WorkflowEventName; created_at: number; [field: string]: unknown };

export interface EventBase {
  agent_id?: string;
  agent_name?: string;
  team_id?: string;
  team_name?: string;
  workflow_id?: string;
  workflow_name?: string;
  run_id: string;
  session_id: string;
  parent_run_id?: string | null;
}

/** Builds an event, dropping null/undefined fields as Agno's event `to_dict()` does (on the hot path: no intermediate arrays). */
export function makeEvent(base: EventBase, event: RunEventName | TeamRunEventName | WorkflowEventName, fields: Record<string, unknown> = {}): RunEvent {
  const out: Record<string, unknown> = { created_at: Math.floor(Date.now() / 1000), event };
  for (const source of [base, fields] as Record<string, unknown>[]) {
    for (const name in source) {
      const value = source[name];
      if (value !== null && value !== undefined) out[name] = value;
    }
  }
  return out as RunEvent;
}
