import { Output, generateText, type LanguageModel, type LanguageModelUsage } from "ai";
import { z } from "zod";
import type { Db } from "../../db/open-database.ts";
import { listMemories, upsertMemory } from "../../db/memories/memories.ts";
import { unsafeSystemScope } from "../../db/scope.ts";

const MAX_MEMORIES_IN_CONTEXT = 50;

/** The user's memories as a system-prompt section, newest first; "" when there are none. */
export async function memoriesSection(db: Db, userId: string): Promise<string> {
  const { memories } = await listMemories(db, { scope: unsafeSystemScope("the run reads its own user's memories", { actingAs: userId }), limit: MAX_MEMORIES_IN_CONTEXT, page: 1 });
  if (memories.length === 0) return "";
  const lines = memories.map((m) => `- ${typeof m.memory === "string" ? m.memory : JSON.stringify(m.memory)}`);
  return `You know these things about the user from earlier conversations:\n${lines.join("\n")}`;
}

const ExtractedMemories = z.object({
  memories: z.array(z.object({ memory: z.string().min(1), topics: z.array(z.string()).default([]) })).default([]),
});

/**
 * Beside a run, from its input (as Agno's memory manager does): asks the model which durable facts
 * about the user the message reveals and stores the new ones as the user's memories. Returns the
 * memories it added and the model call's usage.
 */
export async function extractMemories({
  db,
  model,
  userId,
  agentId,
  userMessage,
  signal,
}: {
  db: Db;
  model: LanguageModel;
  userId: string;
  agentId: string;
  userMessage: string;
  signal: AbortSignal;
}): Promise<{ added: string[]; usage: LanguageModelUsage | undefined }> {
  if (!userMessage.trim()) return { added: [], usage: undefined };
  const scope = unsafeSystemScope("the run writes its own user's memories", { actingAs: userId });
  const { memories: existing } = await listMemories(db, { scope, limit: 200, page: 1 });
  const known = new Set(existing.map((m) => String(m.memory).trim().toLowerCase()));
  const { output, totalUsage } = await generateText({
    model,
    abortSignal: signal,
    output: Output.object({ schema: ExtractedMemories }),
    system:
      "You maintain long-term memories about a user. From the user's message below, list only durable facts about the user " +
      "(preferences, personal details, goals) that are not already known. Return an empty list if there are none.",
    prompt: `Already known:\n${[...known].map((m) => `- ${m}`).join("\n") || "(nothing)"}\n\nUser: ${userMessage}`,
  });
  const added: string[] = [];
  for (const item of output.memories) {
    const text = item.memory.trim();
    if (!text || known.has(text.toLowerCase())) continue;
    known.add(text.toLowerCase());
    await upsertMemory(db, { scope, memory: { memory: text, topics: item.topics, agentId, input: userMessage } });
    added.push(text);
  }
  return { added, usage: totalUsage };
}
