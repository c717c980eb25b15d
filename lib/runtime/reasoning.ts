import { toModelMessages } from "./messages.ts";
import { callModelStep } from "./model-step.ts";
import { resolveModel } from "../models/resolve-model.ts";
import type { AgnoMessage } from "./run-output.ts";
import { emit, type RunState } from "./run-state.ts";

const REASONING_PROMPT =
  "Think through the user's request step by step before anyone answers it. Write out your reasoning: " +
  "what is being asked, what you know, what to check or compute, and the plan. Do not write the final answer.";

/**
 * `reasoningModel`: a native reasoning model thinks first; its reasoning is streamed as
 * ReasoningContentDelta events, kept as the run's `reasoning_content`, and given to the main
 * model as context. (v3 removed `reasoning: true`; the reasoning model is always explicit.)
 */
export async function reasonFirst(state: RunState, userMessage: AgnoMessage): Promise<void> {
  const spec = state.agent.definition.reasoningModel;
  if (!spec) return;
  emit(state, "ReasoningStarted");
  const result = await callModelStep({
    model: resolveModel(state.agent.definition.id, spec),
    system: REASONING_PROMPT,
    messages: toModelMessages([userMessage]),
    tools: {},
    signal: state.live.controller.signal,
    retry: state.retry,
    stream: state.stream,
    onDelta: (text) => emit(state, "ReasoningContentDelta", { reasoning_content: text }),
  });
  const reasoning = [result.reasoning, result.text].filter(Boolean).join("\n");
  state.output.reasoning_content = reasoning;
  state.output.metrics.input_tokens += result.usage.inputTokens;
  state.output.metrics.output_tokens += result.usage.outputTokens;
  state.output.metrics.total_tokens = state.output.metrics.input_tokens + state.output.metrics.output_tokens;
  emit(state, "ReasoningCompleted", { reasoning_content: reasoning });
  const note = `Reasoning about the current request (from a reasoning model):\n${reasoning}`;
  const system = state.contextMessages.find((m) => m.role === "system");
  if (system) system.content = `${String(system.content)}\n\n${note}`;
  else state.contextMessages.unshift({ role: "system", content: note, created_at: Math.floor(Date.now() / 1000) });
}
