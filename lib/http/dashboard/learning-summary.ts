import type { LearningConfig, LearningMode, LearningStoreName } from "../../config/learning-config.ts";
import { machineOf } from "../../learning/machine.ts";

/** What an agent or team learns, as the agents list and the playground show it (plain data: it crosses to the client). */
export interface LearningSummary {
  /** Each learning store that is on, with its mode (and, for shared stores, its namespace). */
  stores: { store: LearningStoreName; mode: LearningMode; namespace?: string }[];
  /** Agno's memory (agno_memories): the `update_user_memory` tool. Absent for a team. */
  agenticMemory?: boolean;
  /** Agno's memory: extracted from every run's input. Absent for a team. */
  memoryOnRun?: boolean;
}

/**
 * What `definition` learns (its learning machine's stores, lib/learning) and, for an agent, its
 * Agno memory settings; undefined when it keeps nothing about its users.
 */
export function learningSummaryOf(definition: { learning?: LearningConfig; enableAgenticMemory?: boolean; updateMemoryOnRun?: boolean }, { team = false } = {}): LearningSummary | undefined {
  const stores = machineOf(definition)?.describe() ?? [];
  const memory = team ? {} : { agenticMemory: !!definition.enableAgenticMemory, memoryOnRun: !!definition.updateMemoryOnRun };
  if (stores.length === 0 && !memory.agenticMemory && !memory.memoryOnRun) return undefined;
  return { stores, ...memory };
}
