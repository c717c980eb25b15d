import { z } from "zod";
import type { ResolvedStore, UserMemoryConfig } from "../../config/learning-config.ts";
import { getLearning, userMemoryLearningId } from "../../db/index.ts";
import type { ExtractionTool } from "../../runtime/memory/extraction.ts";
import { defineTool, type ToolDefinition } from "../../runtime/tools/types.ts";
import { changeOwnRow, extractFor, isoNow, itemId, toolUser, userLearningScope, type LearningRun } from "../learning-run.ts";

/** One remembered fact (Agno's memory entry). */
export interface MemoryEntry {
  id: string;
  content: string;
  created_at: string;
  updated_at: string;
  [extra: string]: unknown;
}

/** Agno's Memories content: everything remembered about one user, in one row (`memories_<user_id>`). */
export interface UserMemories {
  user_id: string;
  memories: MemoryEntry[];
  agent_id: string | null;
  team_id: string | null;
  created_at: string | null;
  updated_at: string | null;
}

const DEFAULT_IN_CONTEXT = 50;

/**
 * The user memory store (Agno's UserMemoryStore): `always` extracts memories from each run's
 * input (add, update, delete through the extraction's tools); `agentic` gives the agent
 * `update_user_memory(task)`, which runs the same extraction on the task.
 */
export class UserMemoryStore {
  readonly learningType = "user_memory";
  constructor(readonly store: ResolvedStore<UserMemoryConfig>) {}

  async get(run: Pick<LearningRun, "db">, userId: string): Promise<UserMemories | undefined> {
    const row = await getLearning(run.db, { scope: userLearningScope(userId), learningId: userMemoryLearningId(userId) });
    if (!row) return undefined;
    const content = row.content as Partial<UserMemories>;
    return { ...(content as UserMemories), memories: Array.isArray(content.memories) ? content.memories : [] };
  }

  /**
   * Runs one extraction over `material` (a run's conversation, or the agent's task): the model
   * adds, updates or deletes the user's memories with its tools. What changed, as text.
   */
  async extract(run: LearningRun, userId: string, material: string, { task = false } = {}): Promise<string> {
    if (!material.trim()) return "No updates needed";
    const empty = (): UserMemories => ({ user_id: userId, memories: [], agent_id: null, team_id: null, created_at: null, updated_at: null });
    const memories = (await this.get(run, userId)) ?? empty();
    // Each change applies to the row as stored at that moment and writes only over it
    // (changeOwnRow): a deletion made meanwhile (the dashboard, "Forget everything") stays
    // deleted, and two runs adding memories at once each keep theirs.
    const change = async (apply: (current: UserMemories) => UserMemories | undefined): Promise<boolean> => {
      const key = { learningId: userMemoryLearningId(userId), learningType: this.learningType, agentId: run.agentId, teamId: run.teamId };
      const written = await changeOwnRow(run, userId, key, (stored) => {
        const current = stored ? { ...(stored as unknown as UserMemories), memories: Array.isArray(stored.memories) ? (stored.memories as MemoryEntry[]) : [] } : empty();
        const next = apply(current);
        if (!next) return undefined;
        const now = isoNow();
        return { ...next, agent_id: run.agentId, team_id: run.teamId, created_at: next.created_at ?? now, updated_at: now } as unknown as Record<string, unknown>;
      });
      return written !== undefined;
    };
    const changes: string[] = [];
    const source = material.slice(0, 200);
    const stamp = run.agentId ? { added_by_agent: run.agentId } : run.teamId ? { added_by_team: run.teamId } : {};
    const tools: ExtractionTool[] = [
      {
        name: "add_memory",
        description: "Save a new memory about the user: a concise, factual statement in the third person.",
        parameters: z.object({ memory: z.string().min(1) }),
        execute: async ({ memory }) => {
          const now = isoNow();
          const content = String(memory).trim();
          await change((current) => ({ ...current, memories: [...current.memories, { id: itemId(), content, created_at: now, updated_at: now, source, ...stamp }] }));
          changes.push(`Memory saved: ${content}`);
          return `Memory saved: ${content}`;
        },
      },
      {
        name: "update_memory",
        description: "Replace an existing memory (its id is shown in brackets) with corrected or extended content.",
        parameters: z.object({ memory_id: z.string().min(1), memory: z.string().min(1) }),
        execute: async ({ memory_id, memory }) => {
          const content = String(memory).trim();
          const found = await change((current) =>
            current.memories.some((m) => m.id === memory_id)
              ? { ...current, memories: current.memories.map((m) => (m.id === memory_id ? { ...m, content, source, updated_at: isoNow() } : m)) }
              : undefined,
          );
          if (!found) return `Memory ${String(memory_id)} not found`;
          changes.push(`Memory updated: ${content}`);
          return `Memory updated: ${content}`;
        },
      },
      {
        name: "delete_memory",
        description: "Remove a memory (by its id) that is outdated, wrong or no longer relevant.",
        parameters: z.object({ memory_id: z.string().min(1) }),
        execute: async ({ memory_id }) => {
          const found = await change((current) => (current.memories.some((m) => m.id === memory_id) ? { ...current, memories: current.memories.filter((m) => m.id !== memory_id) } : undefined));
          if (!found) return `Memory ${String(memory_id)} not found`;
          changes.push(`Memory ${String(memory_id)} deleted`);
          return `Memory ${String(memory_id)} deleted`;
        },
      },
    ];
    const known = memories.memories.map((m) => `[${m.id}] ${m.content}`).join("\n");
    await extractFor(run, {
      system:
        "You maintain long-term memories about a user: durable facts that help personalize future conversations (preferences, " +
        "personal details, work, goals). Add a memory only for genuinely new information, update one the material extends or " +
        "corrects, delete one it shows is wrong. Ignore small talk and anything not about the user.\n\n" +
        `Current memories:\n${known || "(none)"}` +
        (this.store.config.additionalInstructions ? `\n\n${this.store.config.additionalInstructions}` : ""),
      prompt: task ? `Task: ${material}` : `Extract memories about the user from this conversation:\n\n${material}`,
      tools,
    });
    return changes.length > 0 ? changes.join("; ") : "No updates needed";
  }

  /** `update_user_memory(task)` in `agentic` mode (or with `enableAgentTools`). */
  tools(run: LearningRun): ToolDefinition<unknown>[] {
    const userId = toolUser(run, this.store);
    if (!userId) return [];
    return [
      defineTool({
        name: "update_user_memory",
        description:
          "Save or update information about this user for future conversations. task: what to save, update or remove, specific " +
          "and factual (e.g. 'User is a senior engineer at Stripe', 'Remove the memory about their old job').",
        parameters: z.object({ task: z.string().min(1) }),
        execute: ({ task }) => this.extract(run, userId, task, { task: true }),
      }) as ToolDefinition<unknown>,
    ];
  }

  /** The user's memories as a system-prompt section, newest last, at most `maxMemoriesInContext`. */
  async context(run: LearningRun): Promise<string> {
    if (!run.userId) return "";
    const memories = await this.get(run, run.userId);
    const shown = (memories?.memories ?? []).slice(-(this.store.config.maxMemoriesInContext ?? DEFAULT_IN_CONTEXT));
    const withTools = this.store.mode === "agentic" || !!this.store.config.enableAgentTools;
    if (shown.length === 0 || (this.store.config.maxMemoriesInContext ?? DEFAULT_IN_CONTEXT) === 0) {
      return withTools ? "<user_memories>\nNo memories saved about this user yet.\n</user_memories>" : "";
    }
    return `<user_memories>\n${shown.map((m) => `- ${m.content}`).join("\n")}\n\nUse what you know naturally; the current conversation takes precedence.\n</user_memories>`;
  }
}
