import type { StoredRun } from "../db/runs/runs.ts";
import type { RuntimeAgent } from "./agents.ts";
import { isPending } from "./run-loop.ts";
import { emptyMetrics, type AgnoMessage, type RunMetrics, type RunOutput, type RunRequirement, type ToolExecution } from "./run-output.ts";

import { ContinueError } from "./continue-error.ts";

export { ContinueError };

type Dict = Record<string, unknown>;

const isDict = (value: unknown): value is Dict => !!value && typeof value === "object" && !Array.isArray(value);
const dicts = (value: unknown): Dict[] => (Array.isArray(value) ? value.filter(isDict) : []);
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const number = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

function toolExecution(value: Dict, createdAt: number): ToolExecution | null {
  const id = text(value.tool_call_id);
  if (!id) return null;
  return {
    ...value,
    tool_call_id: id,
    tool_name: text(value.tool_name) ?? "",
    tool_args: isDict(value.tool_args) ? value.tool_args : {},
    created_at: number(value.created_at) ?? createdAt,
    user_input_schema: Array.isArray(value.user_input_schema)
      ? dicts(value.user_input_schema)
          .filter((f) => typeof f.name === "string")
          .map((f) => ({ ...f, name: f.name as string, field_type: text(f.field_type) ?? "str" }))
      : null,
  };
}

function metricsOf(value: unknown): RunMetrics {
  const metrics = emptyMetrics();
  if (!isDict(value)) return metrics;
  for (const key of Object.keys(metrics) as (keyof RunMetrics)[]) {
    const n = number(value[key]);
    if (n !== null) metrics[key] = n;
  }
  return metrics;
}

/**
 * The pending requirements of a paused run: its own `requirements` still waiting (as this runtime
 * and Agno 3.x store them), else built from the tool calls still waiting in `tools` (Agno 2.x paused runs
 * have no requirements; its clients continue them by sending the updated tools).
 */
function pendingRequirements(data: Dict, tools: ToolExecution[], createdAt: number): RunRequirement[] {
  const stored = dicts(data.requirements).flatMap((r): RunRequirement[] => {
    const execution = isDict(r.tool_execution) ? toolExecution(r.tool_execution, createdAt) : null;
    return execution && isPending(execution) ? [{ ...r, id: text(r.id) ?? execution.tool_call_id, tool_execution: execution, created_at: number(r.created_at) ?? createdAt }] : [];
  });
  if (stored.length > 0) return stored;
  return tools.filter(isPending).map((execution) => ({ id: execution.tool_call_id, tool_execution: execution, created_at: createdAt }));
}

/**
 * A paused run's output as continuing it needs it, from the row as any writer stored it (this
 * runtime, Agno 3.x, Agno 2.x, or one cut short with little more than its id): the row's ids,
 * owner and time; every list a list, metrics complete; `requirements` built from pending `tools`
 * where there are none; and an assistant message carrying each pending call, where the stored
 * messages lack it, so the model sees every tool result after its call. Throws ContinueError
 * (409) when nothing in it waits for a person's answer.
 */
export function pausedRunOutput(stored: StoredRun, agent: RuntimeAgent): RunOutput {
  const data: Dict = isDict(stored.run_data) ? stored.run_data : {};
  const createdAt = number(data.created_at) ?? stored.created_at;
  const tools = dicts(data.tools).flatMap((t) => toolExecution(t, createdAt) ?? []);
  const requirements = pendingRequirements(data, tools, createdAt);
  if (requirements.length === 0) {
    throw new ContinueError(`Run ${stored.run_id} cannot be continued: it is PAUSED but records no tool call waiting for a confirmation, user input or an external result`, 409);
  }
  const messages = dicts(data.messages).filter((m): m is Dict & AgnoMessage => typeof m.role === "string") as AgnoMessage[];
  const called = new Set(messages.flatMap((m) => (Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => c?.id) : [])));
  // A team member's requirement waits on the member's own run, whose messages hold its call.
  const uncalled = requirements
    .filter((r) => !r.member_run_id)
    .map((r) => r.tool_execution)
    .filter((e) => !called.has(e.tool_call_id));
  if (uncalled.length > 0) {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: uncalled.map((e) => ({ id: e.tool_call_id, type: "function", function: { name: e.tool_name, arguments: JSON.stringify(e.tool_args) } })),
      created_at: createdAt,
    });
  }
  const input = isDict(data.input) ? data.input : { input_content: data.input ?? null };
  return {
    ...data,
    run_id: stored.run_id,
    ...(agent.team
      ? { team_id: stored.team_id ?? agent.definition.id, team_name: text(data.team_name) ?? agent.definition.name, member_responses: dicts(data.member_responses) as unknown as RunOutput[] }
      : { agent_id: stored.agent_id ?? agent.definition.id, agent_name: text(data.agent_name) ?? agent.definition.name }),
    session_id: stored.session_id,
    user_id: stored.user_id,
    input: input as RunOutput["input"],
    content: data.content ?? null,
    content_type: text(data.content_type) ?? "str",
    model: text(data.model),
    model_provider: text(data.model_provider),
    messages,
    metrics: metricsOf(data.metrics),
    tools,
    status: "PAUSED",
    requirements,
    session_state: isDict(data.session_state) ? data.session_state : null,
    metadata: isDict(data.metadata) ? data.metadata : null,
    events: Array.isArray(data.events) ? dicts(data.events) : undefined,
    created_at: createdAt,
  };
}
