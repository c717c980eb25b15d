import type { LanguageModelUsage } from "ai";
import type { AgnoMessage } from "./run-output.ts";
import type { RunState } from "./run-state.ts";
import type { ToolDefinition } from "./tools/types.ts";

/** What a background task sees of the run it works beside: its input as the model gets it. */
export interface BackgroundInput {
  /** The system prompt, the history replayed and the user's message, as sent to the model first. */
  readonly messages: readonly AgnoMessage[];
  /** The user's message as text ("" when it has none). */
  readonly userMessage: string;
  /** Aborted when the run is cancelled, or ends another way before the task is awaited (a failure, a lost lease). */
  readonly signal: AbortSignal;
}

/**
 * The runtime's socket for features: a feature (knowledge search, schedule management, …) adds
 * prompt context and tools to the runs of the agents it applies to through a `RunExtension`,
 * registered once per process by the composition root (lib/server/features.ts). The runtime
 * imports no feature; each extension decides from the run's agent whether it applies.
 */
export interface RunExtension {
  /** Unique per extension: registering the same name again (another Next module graph) keeps the first. */
  readonly name: string;
  /**
   * A prompt-context provider: sections added to the run's system prompt, after the agent's
   * instructions, dependencies and session state and before its history. Called as the run is
   * prepared (again for a continuation); empty strings add nothing.
   */
  promptContext?(state: RunState): Promise<readonly string[]> | readonly string[];
  /** A toolkit provider: tools offered to the run, after the agent's own and the past-sessions tool. */
  tools?(state: RunState): readonly ToolDefinition<unknown>[];
  /**
   * A background task (lib/runtime/background-tasks.ts): started as the run's model is first
   * called, from the run's input, and running while the model answers; the run waits for it
   * before RunCompleted or RunPaused and adds the usage it returns (each of its own model calls)
   * to the run's metrics. It should stop when `input.signal` aborts; a failure is logged and
   * never fails the run. undefined: nothing to do for this run.
   */
  backgroundTask?(state: RunState, input: BackgroundInput): Promise<readonly LanguageModelUsage[]> | undefined;
}

const key = Symbol.for("agentry.runExtensions");
type Holder = { [key]?: Map<string, RunExtension> };

/** The process's extensions, in registration order (on `globalThis`: Next bundles several module graphs). */
function extensionMap(): Map<string, RunExtension> {
  const holder = globalThis as Holder;
  holder[key] ??= new Map();
  return holder[key];
}

/** Adds extensions to every run of this process; a name already registered is left as it is. */
export function registerRunExtensions(extensions: readonly RunExtension[]): void {
  const map = extensionMap();
  for (const extension of extensions) if (!map.has(extension.name)) map.set(extension.name, extension);
}

export function runExtensions(): readonly RunExtension[] {
  return [...extensionMap().values()];
}
