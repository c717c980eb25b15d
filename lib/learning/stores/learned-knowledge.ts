import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import type { LearnedKnowledgeConfig, ResolvedStore } from "../../config/learning-config.ts";
import type { KnowledgeBase } from "../../knowledge/knowledge-base.ts";
import type { ChunkHit } from "../../knowledge/stores/vector-store.ts";
import { defineTool, type ToolDefinition } from "../../runtime/tools/types.ts";
import { extractFor, isoNow, namespaceOwner, type LearningRun } from "../learning-run.ts";

export const LEARNED_KNOWLEDGE_TYPE = "learned_knowledge";

/** Agno's LearnedKnowledge: a reusable insight, stored as one chunk of the agent's knowledge base (its text is this, as JSON). */
export interface LearnedKnowledge {
  title: string;
  learning: string;
  context: string | null;
  tags: string[];
  namespace: string;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  created_at: string;
}

const IN_CONTEXT = 3;
const SaveLearning = z.object({
  title: z.string().min(1).describe("A short descriptive title"),
  learning: z.string().min(1).describe("The insight itself, specific enough to apply"),
  context: z.string().optional().describe("When or why it applies"),
  tags: z.array(z.string()).optional(),
});

/**
 * Learned knowledge (Agno's LearnedKnowledgeStore): insights saved as chunks of the agent's
 * knowledge base — metadata `{namespace, learning_type: "learned_knowledge", …}`, no content row —
 * and found again by the base's search. Namespace `user`: each user's own, owned by them, so no
 * other user's search reaches them; `global` (the default) and custom namespaces are shared,
 * written owner-less on the system's behalf. Modes: `agentic` (`search_learnings`,
 * `save_learning`), `propose` (saving asks the user first: the run pauses for a confirmation),
 * `always` (extracted from each run's conversation, skipping what is already known).
 */
export class LearnedKnowledgeStore {
  readonly learningType = LEARNED_KNOWLEDGE_TYPE;
  constructor(
    readonly store: ResolvedStore<LearnedKnowledgeConfig>,
    readonly machineNamespace: string,
  ) {}

  get namespace(): string {
    return this.store.config.namespace ?? this.machineNamespace;
  }

  private where(run: LearningRun) {
    return namespaceOwner(this.namespace, run);
  }

  private filters(run: LearningRun): Record<string, unknown> {
    return { learning_type: LEARNED_KNOWLEDGE_TYPE, namespace: this.namespace, ...(this.namespace === "user" && run.userId ? { user_id: run.userId } : {}) };
  }

  async search(run: LearningRun, base: KnowledgeBase, query: string, limit: number): Promise<LearnedKnowledge[]> {
    const where = this.where(run);
    if (!where || !query.trim()) return [];
    const { hits } = await base.search({ scope: where.scope, query, maxResults: limit, filters: this.filters(run), signal: run.signal });
    return hits.filter((hit) => hit.userId === where.userId).flatMap(parseHit);
  }

  /** Saves one insight; "" when it was saved, else why not (a duplicate title, no user for namespace `user`). */
  async save(run: LearningRun, base: KnowledgeBase, args: { title: string; learning: string; context?: string; tags?: string[] }): Promise<string> {
    const where = this.where(run);
    if (!where) return "Learnings in the user namespace are kept per user, and this run has none: nothing was saved.";
    const existing = await this.search(run, base, args.title, 5);
    if (existing.some((l) => l.title.trim().toLowerCase() === args.title.trim().toLowerCase())) return `A learning titled '${args.title}' exists already: nothing was saved.`;
    const item: LearnedKnowledge = {
      title: args.title.trim(),
      learning: args.learning.trim(),
      context: args.context?.trim() || null,
      tags: args.tags ?? [],
      namespace: this.namespace,
      user_id: where.userId,
      agent_id: run.agentId,
      team_id: run.teamId,
      created_at: isoNow(),
    };
    const text = JSON.stringify(item);
    await base.ready(run.signal);
    const embedding = base.embedder ? (await base.embedder.embed([text], run.signal)).embeddings[0]! : null;
    const contentId = randomUUID();
    await base.store.replaceContent(contentId, [
      {
        id: randomUUID(),
        name: item.title,
        content: text,
        metadata: {
          ...this.filters(run),
          ...(run.agentId ? { agent_id: run.agentId } : {}),
          ...(run.teamId ? { team_id: run.teamId } : {}),
          ...(item.tags.length > 0 ? { tags: item.tags } : {}),
        },
        filters: null,
        contentId,
        contentHash: createHash("sha256").update(text).digest("hex"),
        userId: where.userId,
        embedding,
        usage: null,
      },
    ]);
    return "";
  }

  tools(run: LearningRun, base: KnowledgeBase): ToolDefinition<unknown>[] {
    // Namespace `user` without a user: nothing to offer (user-scoped stores expose no tools then).
    if ((this.store.mode === "always" && !this.store.config.enableAgentTools) || !this.where(run)) return [];
    return [
      defineTool({
        name: "search_learnings",
        description: "Search reusable insights learned from earlier conversations. Search before answering questions they may help with, and before saving.",
        parameters: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(20).default(5) }),
        execute: async ({ query, limit }) => {
          const found = await this.search(run, base, query, limit);
          return found.length > 0 ? found.map(describeLearning).join("\n\n") : "No relevant learnings found.";
        },
      }),
      defineTool({
        name: "save_learning",
        description:
          this.store.mode === "propose"
            ? "Propose a reusable insight to save: the user is asked to approve it before it is saved."
            : "Save a reusable, non-obvious, actionable insight (search first: never save a duplicate).",
        parameters: SaveLearning,
        // Propose mode: the run pauses and the user confirms (or rejects) the save.
        requiresConfirmation: this.store.mode === "propose",
        execute: async (args) => (await this.save(run, base, args)) || `Learning saved: ${args.title}`,
      }),
    ] as ToolDefinition<unknown>[];
  }

  /** `always` mode: the insights of the run's conversation, saved through `save_learning`. */
  async extract(run: LearningRun, base: KnowledgeBase, conversation: string): Promise<void> {
    if (!this.where(run) || !conversation.trim()) return;
    await extractFor(run, {
      system:
        "You collect reusable insights from conversations: non-obvious, actionable knowledge that would help with a category of " +
        "future problems (team goals, constraints, policies, lessons learned). Call save_learning for each one; save nothing for " +
        "small talk, common knowledge or personal details about the user." +
        (this.store.config.additionalInstructions ? `\n\n${this.store.config.additionalInstructions}` : ""),
      prompt: `Review this conversation for reusable insights:\n\n${conversation}`,
      tools: [
        {
          name: "save_learning",
          description: "Save one reusable insight.",
          parameters: SaveLearning,
          execute: async (args) => (await this.save(run, base, args as z.infer<typeof SaveLearning>)) || "Learning saved",
        },
      ],
    });
  }

  /** The insights most relevant to the run's input. */
  async context(run: LearningRun, base: KnowledgeBase): Promise<string> {
    const guidance =
      this.store.mode === "always"
        ? ""
        : "<learning_system>\nYou have a knowledge base of reusable learnings: call search_learnings before answering questions they may help with, and save_learning for new, reusable insights" +
          (this.store.mode === "propose" ? " (the user approves each one before it is saved)" : "") +
          ".\n</learning_system>";
    const relevant = run.input.trim() ? await this.search(run, base, run.input, IN_CONTEXT).catch(() => []) : [];
    const found = relevant.length > 0 ? `<relevant_learnings>\n${relevant.map(describeLearning).join("\n\n")}\n</relevant_learnings>` : "";
    return [guidance, found].filter(Boolean).join("\n\n");
  }
}

function parseHit(hit: ChunkHit): LearnedKnowledge[] {
  try {
    const parsed = JSON.parse(hit.content) as LearnedKnowledge;
    return parsed && typeof parsed.title === "string" ? [parsed] : [];
  } catch {
    return [];
  }
}

function describeLearning(l: LearnedKnowledge): string {
  return [`**${l.title}**`, l.learning, l.context ? `Context: ${l.context}` : ""].filter(Boolean).join("\n");
}
