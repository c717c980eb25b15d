import type { RunState } from "./run-state.ts";
import type { ToolDefinition } from "./tools/types.ts";

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
