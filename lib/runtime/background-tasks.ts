import type { LanguageModelUsage } from "ai";
import { log } from "../log.ts";
import { extractMemories } from "./memory/user-memories.ts";
import type { AgnoMessage, RunMetrics } from "./run-output.ts";
import { runExtensions, type BackgroundInput } from "./run-extensions.ts";
import { emit, type RunState } from "./run-state.ts";

// A run's background work, as Agno v3 runs it: memory extraction (`updateMemoryOnRun`) and each
// extension's background task (learning) start from the run's input as its model is first
// called, run while the model answers, and are awaited before RunCompleted or RunPaused; their
// model usage is added to the run's metrics (and so to its session's and its user's).

/** Text of a message's content ("" for none; the text parts of a multi-part message). */
export function messageText(message: AgnoMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

/** Starts the run's background work; nothing when no task applies. */
export function startBackgroundWork(state: RunState, messages: readonly AgnoMessage[], userMessage: AgnoMessage): void {
  const { output } = state;
  // Its own signal: aborted with the run, and when the run ends without awaiting it.
  const controller = new AbortController();
  const runSignal = state.live.controller.signal;
  const abort = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) abort();
  else runSignal.addEventListener("abort", abort, { once: true });
  const input: BackgroundInput = { messages: [...messages], userMessage: messageText(userMessage), signal: controller.signal };
  const memory =
    state.agent.definition.updateMemoryOnRun && output.user_id && state.model
      ? extractMemories({
          db: state.db,
          model: state.model,
          userId: output.user_id,
          agentId: state.agent.definition.id,
          userMessage: input.userMessage,
          signal: controller.signal,
        })
      : undefined;
  // Settled at once so a run that fails first leaves no unhandled rejection behind.
  memory?.catch(() => undefined);
  const tasks: Promise<readonly LanguageModelUsage[]>[] = [];
  for (const extension of runExtensions()) {
    const task = extension.backgroundTask?.(state, input);
    if (!task) continue;
    tasks.push(
      task.catch((error: unknown) => {
        if (!controller.signal.aborted) log.warn(`[run ${output.run_id}] ${extension.name} failed: ${(error as Error).message}`);
        return [];
      }),
    );
  }
  if (memory || tasks.length > 0) {
    state.background = {
      memory,
      tasks,
      abort: () => {
        runSignal.removeEventListener("abort", abort);
        controller.abort(new Error("the run ended"));
      },
    };
  } else runSignal.removeEventListener("abort", abort);
}

/**
 * Waits for the run's background work (once): MemoryUpdateStarted and MemoryUpdateCompleted
 * around the memory extraction, then the other tasks; their usage joins the run's metrics.
 */
export async function awaitBackgroundWork(state: RunState): Promise<void> {
  const work = state.background;
  if (!work) return;
  state.background = undefined;
  const usages: (LanguageModelUsage | undefined)[] = [];
  if (work.memory) {
    emit(state, "MemoryUpdateStarted");
    let added: string[] = [];
    try {
      const result = await work.memory;
      added = result.added;
      usages.push(result.usage);
    } catch (error) {
      if (!state.live.controller.signal.aborted) log.warn(`[run ${state.output.run_id}] memory update failed: ${(error as Error).message}`);
    }
    emit(state, "MemoryUpdateCompleted", { memories: added });
  }
  for (const taskUsages of await Promise.all(work.tasks)) usages.push(...taskUsages);
  for (const usage of usages) if (usage) addUsage(state.output.metrics, usage);
}

/** Stops background work the run will not await (it failed, or lost its lease). */
export function abandonBackgroundWork(state: RunState): void {
  state.background?.abort();
  state.background = undefined;
}

/** Adds a model call's usage to a run's token counts. */
export function addUsage(metrics: RunMetrics, usage: LanguageModelUsage): void {
  metrics.input_tokens += usage.inputTokens ?? 0;
  metrics.output_tokens += usage.outputTokens ?? 0;
  metrics.total_tokens = metrics.input_tokens + metrics.output_tokens;
  metrics.cache_read_tokens += usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens ?? 0;
  metrics.cache_write_tokens += usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  metrics.reasoning_tokens += usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens ?? 0;
}
