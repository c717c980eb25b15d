/**
 * The stored and returned shape of a run: Agno's RunOutput dict (`RunOutput.to_dict()`), field
 * for field, so Agno's clients and an Agno database read it as their own.
 */
export type RunStatus = "PENDING" | "RUNNING" | "COMPLETED" | "PAUSED" | "CANCELLED" | "ERROR";

/** A chat message as Agno stores it in `RunOutput.messages`. */
export interface AgnoMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: unknown;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  tool_name?: string;
  tool_args?: Record<string, unknown>;
  tool_call_error?: boolean;
  /** Set on messages replayed from earlier runs; they are not this run's own. */
  from_history?: boolean;
  created_at: number;
}

export interface UserInputFieldValue {
  name: string;
  field_type: string;
  description?: string | null;
  value?: unknown;
}

/** Agno's ToolExecution. */
export interface ToolExecution {
  tool_call_id: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  tool_call_error?: boolean | null;
  result?: unknown;
  metrics?: { duration?: number } | null;
  stop_after_tool_call?: boolean;
  created_at: number;
  requires_confirmation?: boolean | null;
  confirmed?: boolean | null;
  confirmation_note?: string | null;
  requires_user_input?: boolean | null;
  user_input_schema?: UserInputFieldValue[] | null;
  answered?: boolean | null;
  external_execution_required?: boolean | null;
  /** Agno's approval type of the tool ("required" | "audit"), when it has one. */
  approval_type?: string | null;
  /** The agno_approvals row a required approval wrote for this call. */
  approval_id?: string | null;
}

/** A person's decision for one pending tool call, as a continue sends it. */
export interface Resolution {
  tool_call_id: string;
  confirmed?: boolean | null;
  confirmation_note?: string | null;
  user_input?: Record<string, unknown>;
  external_result?: unknown;
}

/** Agno's RunRequirement: one pending human decision on a paused run. */
export interface RunRequirement {
  id: string;
  tool_execution: ToolExecution;
  created_at: number;
  confirmation?: boolean | null;
  confirmation_note?: string | null;
  user_input_schema?: UserInputFieldValue[] | null;
  external_execution_result?: unknown;
  /** A team run's requirement that a member's paused run waits on: the member and its run. */
  member_agent_id?: string | null;
  member_agent_name?: string | null;
  member_run_id?: string | null;
}

export interface RunMetrics {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** USD, from the price table (lib/models/prices.ts); absent for a model it has no price for. */
  cost?: number;
  time_to_first_token: number | null;
  duration: number | null;
}

export const emptyMetrics = (): RunMetrics => ({
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  time_to_first_token: null,
  duration: null,
});

export interface RunOutput {
  run_id: string;
  /** An agent's run: the agent. A team's run (Agno's TeamRunOutput) has team_id/team_name instead. */
  agent_id?: string;
  agent_name?: string;
  team_id?: string;
  team_name?: string;
  session_id: string;
  parent_run_id?: string | null;
  user_id: string | null;
  input: { input_content: unknown; images?: unknown[]; files?: unknown[]; audios?: unknown[]; videos?: unknown[] };
  content: unknown;
  content_type: string;
  reasoning_content?: string | null;
  model: string | null;
  model_provider: string | null;
  messages: AgnoMessage[];
  metrics: RunMetrics;
  tools: ToolExecution[];
  status: RunStatus;
  requirements?: RunRequirement[] | null;
  session_state?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  /** A team run's member runs (their RunOutputs), in delegation order (lib/runtime/team/). */
  member_responses?: RunOutput[];
  /** A workflow's run (Agno's WorkflowRunOutput; lib/runtime/workflow/): the workflow, its steps' outputs and executor runs, its pause. */
  workflow_id?: string;
  workflow_name?: string;
  step_results?: Record<string, unknown>[];
  step_executor_runs?: RunOutput[];
  step_requirements?: Record<string, unknown>[] | null;
  paused_step_index?: number | null;
  paused_step_name?: string | null;
  pause_kind?: "step" | "executor" | null;
  cancellation_stage?: string | null;
  /** A step's agent or team run: the step it ran for. */
  workflow_step_id?: string | null;
  /** Knowledge the run looked up: one entry per search (lib/knowledge/tools/knowledge-search.ts). */
  references?: { query: string; references: { name?: string; meta_data?: Record<string, unknown>; content: string }[]; time: number }[] | null;
  events?: Record<string, unknown>[];
  created_at: number;
  /** Why the run failed or was cancelled, for clients that poll. */
  error?: { message: string; error_type: string } | null;
  /** An external agent's run (lib/runtime/external/): what its adapter kept for the session's next run, e.g. the Claude Agent SDK's session id. */
  external_state?: Record<string, unknown> | null;
}
