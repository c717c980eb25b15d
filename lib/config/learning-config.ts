import { z } from "zod";

/**
 * `learning` on an agent or team: what the agent learns, per store, and how (lib/learning runs
 * it). `true` is a user profile and user memory, both in `always` mode; an object turns each store
 * on (`true` or its config) or off. The names are Agno's LearningMachine's, camel-cased.
 *
 * Modes: `always` — extracted in the background from each run's input while the model answers;
 * `agentic` — the agent gets the store's tools and decides; `propose` — learned knowledge only:
 * the agent proposes an item and saves it once the user agrees.
 */
export const LEARNING_MODES = ["always", "agentic", "propose"] as const;
export type LearningMode = (typeof LEARNING_MODES)[number];

/** Each store's default mode and the modes it supports (Agno's stores refuse or ignore the others). */
export const STORE_MODES = {
  userProfile: { default: "always", supported: ["always", "agentic"] },
  userMemory: { default: "always", supported: ["always", "agentic"] },
  sessionContext: { default: "always", supported: ["always"] },
  entityMemory: { default: "agentic", supported: ["agentic"] },
  decisionLog: { default: "agentic", supported: ["agentic"] },
  learnedKnowledge: { default: "agentic", supported: ["always", "agentic", "propose"] },
} as const satisfies Record<string, { default: LearningMode; supported: readonly LearningMode[] }>;
export type LearningStoreName = keyof typeof STORE_MODES;
export const LEARNING_STORES = Object.keys(STORE_MODES) as LearningStoreName[];

const NAMESPACE = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, "namespace: letters, digits, '_', '.', ':' or '-' (at most 100)");

const base = {
  mode: z.enum(LEARNING_MODES).optional(),
  /** In `always` mode, give the agent the store's tools as well (Agno's `enable_agent_tools`). */
  enableAgentTools: z.boolean().optional(),
  /** Added to the extraction's instructions. */
  additionalInstructions: z.string().max(4000).optional(),
};

export const UserProfileConfigSchema = z.object({ ...base }).strict();
export const UserMemoryConfigSchema = z
  .object({
    ...base,
    /** The memories put in the prompt at most (newest first; default 50). */
    maxMemoriesInContext: z.number().int().min(0).max(500).optional(),
  })
  .strict();
export const SessionContextConfigSchema = z
  .object({
    ...base,
    /** Track the user's goal, plan and progress as well as the summary (default false). */
    enablePlanning: z.boolean().optional(),
  })
  .strict();
export const EntityMemoryConfigSchema = z
  .object({
    ...base,
    /** `user`: each user's own entities (the row key carries the user's digest); default the machine's namespace. */
    namespace: NAMESPACE.optional(),
    maxEntitiesInContext: z.number().int().min(0).max(100).optional(),
    maxFactsPerEntity: z.number().int().min(1).max(1000).optional(),
    maxEventsPerEntity: z.number().int().min(1).max(1000).optional(),
  })
  .strict();
export const DecisionLogConfigSchema = z.object({ ...base, maxDecisionsInContext: z.number().int().min(0).max(100).optional() }).strict();
export const LearnedKnowledgeConfigSchema = z
  .object({
    ...base,
    /** `global` (shared, the default), `user` (each user's own) or a custom shared namespace. */
    namespace: NAMESPACE.optional(),
  })
  .strict();

export type UserProfileConfig = z.infer<typeof UserProfileConfigSchema>;
export type UserMemoryConfig = z.infer<typeof UserMemoryConfigSchema>;
export type SessionContextConfig = z.infer<typeof SessionContextConfigSchema>;
export type EntityMemoryConfig = z.infer<typeof EntityMemoryConfigSchema>;
export type DecisionLogConfig = z.infer<typeof DecisionLogConfigSchema>;
export type LearnedKnowledgeConfig = z.infer<typeof LearnedKnowledgeConfigSchema>;

const store = <T extends z.ZodType>(schema: T) => z.union([z.boolean(), schema]).optional();

export const LearningMachineConfigSchema = z
  .object({
    /** A named machine: Studio components refer to it by this name. */
    name: z.string().min(1).max(100).optional(),
    /** The namespace shared stores write to (Agno's default `global`). */
    namespace: NAMESPACE.optional(),
    /** Tool calls one extraction may make at most (default 10). */
    maxUpdatesPerRun: z.number().int().min(1).max(100).optional(),
    /** Put what the stores know into the system prompt (default true). */
    addLearningsToContext: z.boolean().optional(),
    userProfile: store(UserProfileConfigSchema),
    userMemory: store(UserMemoryConfigSchema),
    sessionContext: store(SessionContextConfigSchema),
    entityMemory: store(EntityMemoryConfigSchema),
    decisionLog: store(DecisionLogConfigSchema),
    learnedKnowledge: store(LearnedKnowledgeConfigSchema),
  })
  .strict()
  .superRefine((machine, ctx) => {
    for (const name of LEARNING_STORES) {
      const value = machine[name];
      if (!value || value === true || !value.mode) continue;
      const supported: readonly string[] = STORE_MODES[name].supported;
      if (!supported.includes(value.mode)) {
        ctx.addIssue({ code: "custom", path: [name, "mode"], message: `${name} does not support mode '${value.mode}'; it supports ${supported.map((m) => `'${m}'`).join(", ")}` });
      }
    }
  });

export const LearningConfigSchema = z.union([z.boolean(), LearningMachineConfigSchema]);
export type LearningMachineConfig = z.infer<typeof LearningMachineConfigSchema>;
export type LearningConfig = z.infer<typeof LearningConfigSchema>;

/** One store as a run uses it: its mode and its own config (empty when given as `true`). */
export interface ResolvedStore<C> {
  readonly mode: LearningMode;
  readonly config: C;
}

/** A machine with every default applied; a store that is off is absent. */
export interface ResolvedLearning {
  readonly name?: string;
  readonly namespace: string;
  readonly maxUpdatesPerRun: number;
  readonly addLearningsToContext: boolean;
  readonly userProfile?: ResolvedStore<UserProfileConfig>;
  readonly userMemory?: ResolvedStore<UserMemoryConfig>;
  readonly sessionContext?: ResolvedStore<SessionContextConfig>;
  readonly entityMemory?: ResolvedStore<EntityMemoryConfig>;
  readonly decisionLog?: ResolvedStore<DecisionLogConfig>;
  readonly learnedKnowledge?: ResolvedStore<LearnedKnowledgeConfig>;
}

/** `learning` as a run uses it, or undefined when the agent learns nothing. */
export function resolveLearning(learning: LearningConfig | undefined): ResolvedLearning | undefined {
  if (!learning) return undefined;
  const machine: LearningMachineConfig = learning === true ? { userProfile: true, userMemory: true } : learning;
  const resolved: Record<string, unknown> = {
    name: machine.name,
    namespace: machine.namespace ?? "global",
    maxUpdatesPerRun: machine.maxUpdatesPerRun ?? 10,
    addLearningsToContext: machine.addLearningsToContext ?? true,
  };
  let any = false;
  for (const name of LEARNING_STORES) {
    const value = machine[name];
    if (!value) continue;
    const config = value === true ? {} : value;
    resolved[name] = { mode: (config as { mode?: LearningMode }).mode ?? STORE_MODES[name].default, config };
    any = true;
  }
  return any ? (resolved as unknown as ResolvedLearning) : undefined;
}

/** The tool a learning agent's user-memory store and `enableAgenticMemory` would both add. */
export const COLLIDING_MEMORY_TOOL = "update_user_memory";
