import { LEARNING_STORES, resolveLearning, type LearningConfig, type LearningMode, type LearningStoreName, type ResolvedLearning } from "../config/learning-config.ts";
import type { ToolDefinition } from "../runtime/tools/types.ts";
import { conversationText, type LearningRun } from "./learning-run.ts";
import { DecisionLogStore } from "./stores/decision-log.ts";
import { EntityMemoryStore } from "./stores/entity-memory.ts";
import { LearnedKnowledgeStore } from "./stores/learned-knowledge.ts";
import { SessionContextStore } from "./stores/session-context.ts";
import { UserMemoryStore } from "./stores/user-memory.ts";
import { UserProfileStore } from "./stores/user-profile.ts";

/**
 * Agno's LearningMachine for one agent or team: its stores, built once from `learning`
 * (lib/config/learning-config.ts). For a run it gives the prompt context, the agent's tools
 * (`agentic` stores, or `enableAgentTools`), and the `always` stores' extraction, which the
 * runtime runs beside the model (lib/learning/extension.ts).
 */
export class LearningMachine {
  readonly userProfile?: UserProfileStore;
  readonly userMemory?: UserMemoryStore;
  readonly sessionContext?: SessionContextStore;
  readonly entityMemory?: EntityMemoryStore;
  readonly decisionLog?: DecisionLogStore;
  readonly learnedKnowledge?: LearnedKnowledgeStore;

  constructor(readonly learning: ResolvedLearning) {
    if (learning.userProfile) this.userProfile = new UserProfileStore(learning.userProfile);
    if (learning.userMemory) this.userMemory = new UserMemoryStore(learning.userMemory);
    if (learning.sessionContext) this.sessionContext = new SessionContextStore(learning.sessionContext);
    if (learning.entityMemory) this.entityMemory = new EntityMemoryStore(learning.entityMemory, learning.namespace);
    if (learning.decisionLog) this.decisionLog = new DecisionLogStore(learning.decisionLog);
    if (learning.learnedKnowledge) this.learnedKnowledge = new LearnedKnowledgeStore(learning.learnedKnowledge, learning.namespace);
  }

  /** Each store that is on, with its mode (the agents page and /agents show them). */
  describe(): { store: LearningStoreName; mode: LearningMode; namespace?: string }[] {
    return LEARNING_STORES.flatMap((store) => {
      const resolved = this.learning[store];
      if (!resolved) return [];
      const namespace = store === "entityMemory" ? this.entityMemory!.namespace : store === "learnedKnowledge" ? this.learnedKnowledge!.namespace : undefined;
      return [{ store, mode: resolved.mode, ...(namespace ? { namespace } : {}) }];
    });
  }

  /** What the stores know, as system-prompt sections (within each store's limits). */
  async context(run: LearningRun): Promise<string[]> {
    if (!this.learning.addLearningsToContext) return [];
    const sections = await Promise.all([
      this.userProfile?.context(run),
      this.userMemory?.context(run),
      this.sessionContext?.context(run),
      this.entityMemory?.context(run),
      this.decisionLog?.context(run),
      run.knowledge ? this.learnedKnowledge?.context(run, run.knowledge) : undefined,
    ]);
    return sections.filter((s): s is string => !!s);
  }

  /** The agent's learning tools for this run. User-scoped stores offer none to a run without a user. */
  tools(run: LearningRun): ToolDefinition<unknown>[] {
    return [
      ...(this.userProfile?.tools(run) ?? []),
      ...(this.userMemory?.tools(run) ?? []),
      ...(this.entityMemory?.tools(run) ?? []),
      ...(this.decisionLog?.tools(run) ?? []),
      ...(run.knowledge && this.learnedKnowledge ? this.learnedKnowledge.tools(run, run.knowledge) : []),
    ];
  }

  /** Whether a run of this machine has `always` work to do. */
  hasBackgroundWork(run: Pick<LearningRun, "userId">): boolean {
    const user = !!run.userId;
    return (user && this.userProfile?.store.mode === "always") || (user && this.userMemory?.store.mode === "always") || !!this.sessionContext || this.learnedKnowledge?.store.mode === "always";
  }

  /** The `always` stores' extraction from the run's messages, each store at once. */
  async process(run: LearningRun, messages: readonly { role: string; text: string }[]): Promise<void> {
    const conversation = conversationText(messages);
    if (!conversation) return;
    const userId = run.userId;
    // Each store on its own: one failing leaves the others to finish (the run awaits them all).
    const results = await Promise.allSettled([
      userId && this.userProfile?.store.mode === "always" ? this.userProfile.extract(run, conversation) : undefined,
      userId && this.userMemory?.store.mode === "always" ? this.userMemory.extract(run, userId, conversation) : undefined,
      this.sessionContext?.extract(run, conversation),
      run.knowledge && this.learnedKnowledge?.store.mode === "always" ? this.learnedKnowledge.extract(run, run.knowledge, conversation) : undefined,
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }
}

const machines = new WeakMap<object, LearningMachine | null>();

/** The machine of an agent's or team's definition (built once per definition); undefined when it learns nothing. */
export function machineOf(definition: { learning?: LearningConfig }): LearningMachine | undefined {
  let machine = machines.get(definition);
  if (machine === undefined) {
    const resolved = resolveLearning(definition.learning);
    machine = resolved ? new LearningMachine(resolved) : null;
    machines.set(definition, machine);
  }
  return machine ?? undefined;
}
