import type { LanguageModel, LanguageModelUsage } from "ai";
import { z } from "zod";
import type { Db } from "../../db/open-database.ts";
import { deleteMemories, getMemory, listMemories, updateMemoryContent, upsertMemory } from "../../db/memories/memories.ts";
import { unsafeSystemScope } from "../../db/scope.ts";
import { defineTool, type ToolDefinition } from "../tools/types.ts";
import { runExtraction, type ExtractionTool } from "./extraction.ts";

const MAX_MEMORIES_SHOWN = 200;
const MAX_UPDATES = 10;

/**
 * `enableAgenticMemory`: the agent's `update_user_memory(task)` tool (Agno's agentic memory). The
 * task goes to a memory model that adds, updates or deletes the run's user's memories in
 * agno_memories through its own tools; the tool answers with what it did. `onUsage` receives
 * that model's usage (the run adds it to its metrics).
 */
export function agenticMemoryTool({
  db,
  model,
  agentId,
  teamId,
  onUsage,
}: {
  db: Db;
  model: LanguageModel;
  agentId: string;
  teamId?: string;
  onUsage: (usage: LanguageModelUsage) => void;
}): ToolDefinition<{ task: string }> {
  return defineTool({
    name: "update_user_memory",
    description:
      "Save, update or remove information about this user for future conversations. Use it when you learn something durable " +
      "about the user (a preference, a personal detail, a goal) or when something you know changed. " +
      "task: what to save, update or remove, specific and factual (e.g. 'User moved from NYC to London').",
    parameters: z.object({ task: z.string().min(1) }),
    async execute({ task }, ctx) {
      if (!ctx.userId) return "Memories are kept only for runs with a user.";
      const scope = unsafeSystemScope("the run's memory tool changes its own user's memories", { actingAs: ctx.userId });
      const { memories } = await listMemories(db, { scope, limit: MAX_MEMORIES_SHOWN, page: 1 });
      const changed: string[] = [];
      const tools: ExtractionTool[] = [
        {
          name: "add_memory",
          description: "Save a new memory about the user: a concise, factual statement in the third person.",
          parameters: z.object({ memory: z.string().min(1), topics: z.array(z.string()).optional() }),
          async execute(args) {
            const memory = String(args.memory).trim();
            await upsertMemory(db, { scope, memory: { memory, topics: (args.topics as string[] | undefined) ?? [], agentId, teamId, input: task } });
            changed.push(`added: ${memory}`);
            return `Memory saved: ${memory}`;
          },
        },
        {
          name: "update_memory",
          description: "Replace an existing memory (by its id, shown in brackets) with corrected or extended content.",
          parameters: z.object({ memory_id: z.string().min(1), memory: z.string().min(1), topics: z.array(z.string()).optional() }),
          async execute(args) {
            const id = String(args.memory_id);
            const existing = await getMemory(db, { scope, memoryId: id });
            if (!existing) return `Memory ${id} not found`;
            const memory = String(args.memory).trim();
            await updateMemoryContent(db, { scope, memoryId: id, memory, topics: (args.topics as string[] | undefined) ?? existing.topics ?? [] });
            changed.push(`updated: ${memory}`);
            return `Memory updated: ${memory}`;
          },
        },
        {
          name: "delete_memory",
          description: "Remove a memory (by its id) that is outdated, wrong or no longer relevant.",
          parameters: z.object({ memory_id: z.string().min(1) }),
          async execute(args) {
            const id = String(args.memory_id);
            const deleted = await deleteMemories(db, { scope, memoryIds: [id] });
            if (deleted === 0) return `Memory ${id} not found`;
            changed.push(`deleted: ${id}`);
            return `Memory ${id} deleted`;
          },
        },
      ];
      const known = memories.map((m) => `[${m.memory_id}] ${typeof m.memory === "string" ? m.memory : JSON.stringify(m.memory)}`).join("\n");
      const { usage } = await runExtraction({
        model,
        system:
          "You manage long-term memories about a user. Carry out the task with your tools: add a memory for new information, " +
          "update one that the task extends or corrects, delete one the task says is wrong or obsolete.\n\n" +
          `Current memories:\n${known || "(none)"}`,
        prompt: `Task: ${task}`,
        tools,
        maxToolCalls: MAX_UPDATES,
        signal: ctx.signal,
      });
      onUsage(usage);
      return changed.length > 0 ? `Memories changed: ${changed.join("; ")}` : "No memories changed.";
    },
  });
}
