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

/** Builds an event, dropping null/undefined fields as Agno's event `to_dict()` does (on the hot path: no intermediate arrays). */
export function makeEvent(base: EventBase, event: RunEventName, fields: Record<string, unknown> = {}): RunEvent {
  const out: Record<string, unknown> = { created_at: Math.floor(Date.now() / 1000), event };
  for (const source of [base, fields] as Record<string, unknown>[]) {
    for (const name in source) {
      const value = source[name];
      if (value !== null && value !== undefined) out[name] = value;
    }
  }
  return out as RunEvent;
}
