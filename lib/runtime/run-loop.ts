import { log } from "../log.ts";
import { toModelMessages } from "./messages.ts";
import { callModelStep, modelTools, outputSpec } from "./model-step.ts";
import { providerOptionsFor } from "../models/resolve-model.ts";
import type { AgnoMessage, RunOutput, ToolExecution } from "./run-output.ts";
import { complete, pause } from "./run-settle.ts";
import { checkpoint, emit, now, type RunState } from "./run-state.ts";
import { executeTool, needsHuman, newToolExecution } from "./tools/run-tool.ts";
import type { ToolDefinition } from "./tools/types.ts";
import { endModelSpan, endToolSpan, startModelSpan, startToolSpan, withSpan } from "./run-trace.ts";

/** Model steps per run before it stops with an error (a model looping on tool calls). */
const MAX_STEPS = 25;

/** The model/tool loop: call the model, run the tools it asks for, repeat; pause for humans. */
export async function loop(state: RunState): Promise<RunOutput> {
  const { output } = state;
  const toolsByName = new Map(state.tools.map((t) => [t.name, t]));
  const offered = modelTools(state.tools);
  const output$ = outputSpec(state.outputSchema ?? (state.agent.definition.outputSchema as never));
  // A team in tasks mode gets the steps of one run per iteration.
  const steps = state.agent.team?.mode === "tasks" ? MAX_STEPS * (state.agent.team.definition.maxIterations ?? 10) : MAX_STEPS;
  for (let step = 0; step < steps; step++) {
    checkpoint(state);
    const context = modelContext(state);
    const system = context.find((m) => m.role === "system");
    const messages = toModelMessages(context.filter((m) => m.role !== "system"));
    emit(state, "ModelRequestStarted", { model: output.model, model_provider: output.model_provider });
    state.streamedContent = "";
    const systemText = typeof system?.content === "string" ? system.content : undefined;
    const span = startModelSpan(state.agent.definition.model, { messages, system: systemText, stream: state.stream !== false, tools: Object.keys(offered) });
    const result = await callModelStep({
      model: state.model!,
      system: systemText,
      messages,
      tools: offered,
      signal: state.live.controller.signal,
      output: output$,
      providerOptions: providerOptionsFor(state.agent.definition.model),
      retry: state.retry,
      stream: state.stream,
      onDelta: (text) => {
        state.streamedContent += text;
        emit(state, "RunContent", { content: text, content_type: "str" });
      },
      onRetry: (error, attempt, delayMs) => log.warn(`[run ${output.run_id}] ${error.kind} from the model provider; retry ${attempt} in ${Math.round(delayMs)} ms`),
    }).catch((error: unknown) => {
      endModelSpan(span, null, error);
      throw error;
    });
    endModelSpan(span, result);
    const metrics = output.metrics;
    metrics.input_tokens += result.usage.inputTokens;
    metrics.output_tokens += result.usage.outputTokens;
    metrics.total_tokens = metrics.input_tokens + metrics.output_tokens;
    metrics.cache_read_tokens += result.usage.cacheReadTokens;
    metrics.cache_write_tokens += result.usage.cacheWriteTokens;
    metrics.reasoning_tokens += result.usage.reasoningTokens;
    if (metrics.time_to_first_token === null && result.timeToFirstToken !== null) {
      metrics.time_to_first_token = (performance.now() - state.startedAt) / 1000;
    }
    emit(state, "ModelRequestCompleted", {
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      total_tokens: result.usage.inputTokens + result.usage.outputTokens,
      time_to_first_token: result.timeToFirstToken,
    });
    if (result.reasoning) output.reasoning_content = (output.reasoning_content ?? "") + result.reasoning;
    output.messages.push({
      role: "assistant",
      content: result.text || null,
      ...(result.toolCalls.length > 0
        ? { tool_calls: result.toolCalls.map((c) => ({ id: c.toolCallId, type: "function" as const, function: { name: c.toolName, arguments: JSON.stringify(c.input ?? {}) } })) }
        : {}),
      created_at: now(),
    });
    if (result.toolCalls.length === 0) {
      // A team in tasks mode may be sent back to work on its task list.
      const next = state.agent.team?.afterAnswer(state);
      if (next) {
        output.messages.push(next);
        continue;
      }
      if (result.output !== undefined) {
        output.content = result.output;
        output.content_type = typeof state.outputSchema?.title === "string" ? state.outputSchema.title : "dict";
      } else {
        output.content = result.text;
        output.content_type = "str";
      }
      return await complete(state);
    }
    const executions = result.toolCalls.map((call) => newToolExecution(toolsByName.get(call.toolName), call));
    const stop = await runTools(state, executions, toolsByName);
    if (stop === "paused" || state.memberRequirements?.length)
      return await pause(
        state,
        executions.filter((e) => isPending(e)),
      );
    if (stop === "stop") {
      output.content = output.tools[output.tools.length - 1]?.result ?? null;
      output.content_type = typeof output.content === "string" ? "str" : "dict";
      return await complete(state);
    }
  }
  throw new Error(`The model kept calling tools for ${steps} steps without answering`);
}

/** What the model sees: one system message (the run's own, once stored), earlier runs, this run. */
function modelContext(state: RunState): AgnoMessage[] {
  const stored = state.output.messages.filter((m) => m.role === "system");
  const system = stored.length > 0 ? stored.slice(0, 1) : state.contextMessages.filter((m) => m.role === "system");
  const history = state.contextMessages.filter((m) => m.role !== "system");
  return [...system, ...history, ...state.output.messages.filter((m) => m.role !== "system")];
}

/** Whether a tool call still waits for a person (or an external executor); a stored null result (Python None) is no result. */
export function isPending(execution: ToolExecution): boolean {
  return (
    (execution.requires_confirmation === true && execution.confirmed == null) ||
    (execution.requires_user_input === true && !execution.answered) ||
    (execution.external_execution_required === true && execution.result == null)
  );
}

/**
 * Runs the calls that need no human now; leaves the others pending. Returns "paused" when any
 * call waits for a human, "stop" when a tool asked to end the run, "continue" otherwise.
 */
export async function runTools(state: RunState, executions: ToolExecution[], toolsByName: Map<string, ToolDefinition<unknown>>): Promise<"paused" | "stop" | "continue"> {
  let stop = false;
  for (const [i, execution] of executions.entries()) {
    checkpoint(state);
    const tool = toolsByName.get(execution.tool_name);
    if (isPending(execution)) continue;
    if (tool && needsHuman(tool) && execution.requires_confirmation && execution.confirmed === false) {
      executions[i] = { ...execution, result: `The user rejected this tool call.${execution.confirmation_note ? ` Note: ${execution.confirmation_note}` : ""}` };
    } else if (execution.external_execution_required) {
      executions[i] = { ...execution, tool_call_error: false };
    } else {
      emit(state, "ToolCallStarted", { tool: execution });
      const args = { ...execution.tool_args, ...userInputValues(execution) };
      const span = startToolSpan({ ...execution, tool_args: args }, tool?.description);
      // The tool runs in its span: a member run, a knowledge search or an MCP call it makes nests under it.
      executions[i] = await withSpan(span, () =>
        executeTool(
          tool,
          { ...execution, tool_args: args },
          {
            runId: state.output.run_id,
            sessionId: state.output.session_id,
            agentId: state.agent.definition.id,
            userId: state.output.user_id,
            signal: state.live.controller.signal,
          },
        ),
      ).catch((error: unknown) => {
        endToolSpan(span, { ...execution, tool_call_error: true, result: error instanceof Error ? error.message : String(error) });
        throw error;
      });
      endToolSpan(span, executions[i]!);
    }
    const done = executions[i];
    emit(state, done.tool_call_error ? "ToolCallError" : "ToolCallCompleted", {
      tool: done,
      content: typeof done.result === "string" ? done.result : JSON.stringify(done.result ?? null),
      ...(done.tool_call_error ? { error: String(done.result) } : {}),
    });
    state.output.tools.push(done);
    state.output.messages.push({
      role: "tool",
      content: done.result ?? null,
      tool_call_id: done.tool_call_id,
      tool_name: done.tool_name,
      tool_args: done.tool_args,
      tool_call_error: !!done.tool_call_error,
      created_at: now(),
    });
    if (done.stop_after_tool_call) stop = true;
  }
  if (executions.some(isPending)) return "paused";
  return stop ? "stop" : "continue";
}

function userInputValues(execution: ToolExecution): Record<string, unknown> {
  return Object.fromEntries((execution.user_input_schema ?? []).filter((f) => f.value !== undefined && f.value !== null).map((f) => [f.name, f.value]));
}
