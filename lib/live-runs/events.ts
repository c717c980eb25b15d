/**
 * Run events as Agno clients parse them: every payload carries its own `event` name and the base
 * fields, with null fields dropped (Agno's `to_dict()`), so agent-ui — which scans raw text for
 * JSON objects with an `event` — and the Python client — which reads `data:` lines — both work.
 */
/** The final events of a run's stream (an agent's or a team's). */
export const FINAL_EVENT_NAMES: ReadonlySet<string> = new Set([
  "RunCompleted",
  "RunError",
  "RunCancelled",
  "RunPaused",
  "TeamRunCompleted",
  "TeamRunError",
  "TeamRunCancelled",
  "TeamRunPaused",
  "WorkflowCompleted",
  "WorkflowError",
  "WorkflowCancelled",
  "WorkflowPaused",
]);

/** Whether `event` ends the stream of run `runId` (a team's stream forwards its members' final events, which do not). */
export function isFinalEventOf(event: { event: unknown; run_id?: unknown }, runId: string): boolean {
  return FINAL_EVENT_NAMES.has(String(event.event)) && (event.run_id === undefined || event.run_id === runId);
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
