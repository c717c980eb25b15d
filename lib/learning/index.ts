/**
 * The learning API for code (agentry.config.ts, scripts): the machine, its stores and their
 * configs, by the names Agno v3 gives them (`UserMemoryConfig`, `UserMemoryStore`, `DecisionLog`).
 */
export type {
  DecisionLogConfig,
  EntityMemoryConfig,
  LearnedKnowledgeConfig,
  LearningConfig,
  LearningMachineConfig,
  LearningMode,
  SessionContextConfig,
  UserMemoryConfig,
  UserProfileConfig,
} from "../config/learning-config.ts";
export { LearningMachine, machineOf } from "./machine.ts";
export { forgetUser, type Forgotten } from "./forget.ts";
export { DecisionLogStore, type DecisionLog } from "./stores/decision-log.ts";
export { EntityMemoryStore, EntityUserRequiredError, type EntityMemory } from "./stores/entity-memory.ts";
export { LearnedKnowledgeStore, type LearnedKnowledge } from "./stores/learned-knowledge.ts";
export { SessionContextStore, type SessionContext } from "./stores/session-context.ts";
export { UserMemoryStore, type MemoryEntry, type UserMemories } from "./stores/user-memory.ts";
export { UserProfileStore, type UserProfile } from "./stores/user-profile.ts";
