/**
 * Run events as Agno clients parse them: every payload carries its own `event` name and the base
 * fields, with null fields dropped (Agno's `to_dict()`), so agent-ui — which scans raw text for
 * JSON objects with an `event` — and the Python client — which reads `data:` lines — both work.
 */
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

export type RunEvent = { event: RunEventName; created_at: number; [field: string]: unknown };

export interface EventBase {
  agent_id: string;
  agent_name: string;
  run_id: string;
  session_id: string;
  parent_run_id?: string | null;
}

/** Drops null/undefined fields, as Agno's event `to_dict()` does. */
function compact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined));
}

export function makeEvent(base: EventBase, event: RunEventName, fields: Record<string, unknown> = {}): RunEvent {
  return compact({ created_at: Math.floor(Date.now() / 1000), event, ...base, ...fields }) as RunEvent;
}
