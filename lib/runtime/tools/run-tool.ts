import type { ToolExecution } from "../run-output.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";

/** Whether a call of this tool must wait for a human (or an external executor) before it runs. */
export function needsHuman(tool: ToolDefinition<unknown>): boolean {
  return needsConfirmation(tool) || (tool.userInputFields?.length ?? 0) > 0 || !!tool.externalExecution;
}

/** A confirmation is asked for, or implied by a required approval on a tool with no other human step (as Agno's `@approval`). */
function needsConfirmation(tool: ToolDefinition<unknown>): boolean {
  return !!tool.requiresConfirmation || (tool.approval === "required" && !tool.userInputFields?.length && !tool.externalExecution);
}

/** A fresh ToolExecution for a call the model made, flagged for the human steps its tool needs. */
export function newToolExecution(tool: ToolDefinition<unknown> | undefined, call: { toolCallId: string; toolName: string; input: unknown }): ToolExecution {
  const args = call.input && typeof call.input === "object" ? (call.input as Record<string, unknown>) : {};
  return {
    tool_call_id: call.toolCallId,
    tool_name: call.toolName,
    tool_args: args,
    created_at: Math.floor(Date.now() / 1000),
    stop_after_tool_call: tool?.stopAfterToolCall ?? false,
    ...(tool && needsConfirmation(tool) ? { requires_confirmation: true, confirmed: null } : {}),
    ...(tool?.userInputFields?.length
      ? { requires_user_input: true, answered: false, user_input_schema: tool.userInputFields.map((f) => ({ ...f, description: f.description ?? null, value: null })) }
      : {}),
    ...(tool?.externalExecution ? { external_execution_required: true } : {}),
    ...(tool?.approval ? { approval_type: tool.approval } : {}),
  };
}

/**
 * Runs one tool call: validates the model's arguments against the tool's schema, executes it, and
 * records the result (or the error, as text the model can read) on the execution. Never throws
 * for a tool failure; only cancellation propagates.
 */
export async function executeTool(tool: ToolDefinition<unknown> | undefined, execution: ToolExecution, ctx: ToolContext): Promise<ToolExecution> {
  const started = performance.now();
  const finish = (fields: Partial<ToolExecution>): ToolExecution => ({
    ...execution,
    ...fields,
    metrics: { duration: (performance.now() - started) / 1000 },
  });
  if (!tool) return finish({ tool_call_error: true, result: `Unknown tool '${execution.tool_name}'` });
  if (!tool.execute) {
    return finish({ tool_call_error: true, result: `Tool '${tool.name}' has no implementation in this process` });
  }
  const parsed = await tool.parameters.safeParseAsync(execution.tool_args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
    return finish({ tool_call_error: true, result: `Invalid arguments for ${tool.name}: ${problems}` });
  }
  try {
    const result = await tool.execute(parsed.data, ctx);
    return finish({ tool_call_error: false, result: result === undefined ? null : result });
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return finish({ tool_call_error: true, result: `Error running ${tool.name}: ${(error as Error).message ?? String(error)}` });
  }
}
