import { z } from "zod";
import { NotFoundError } from "../../errors/domain-errors.ts";
import { deleteMemories, updateMemoryContent, upsertMemory } from "../../db/memories/memories.ts";
import { defineDashboardAction } from "./action.ts";

/**
 * The memories page's actions, open to every signed-in user. Each derives its scope from the
 * caller's principal (never from a user id in the form), so a member reads, edits and deletes only
 * its own memories; another user's memory is "not found", exactly like one that does not exist.
 */
const MEMORIES_PAGE = "/dashboard/memories";

const MemoryText = z.string({ error: "write the memory's text" }).trim().min(1, "write the memory's text");

/** "a, b,,a " → ["a", "b"]: comma-separated, trimmed, no blanks, no repeats. */
const Topics = z
  .string()
  .optional()
  .transform((value) => [
    ...new Set(
      (value ?? "")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ]);

const MemoryId = z.string({ error: "say which memory" }).min(1, "say which memory");

const notFound = (memoryId: string) => new NotFoundError(`Memory ${memoryId} was not found (it may have been deleted).`);

export const createMemoryAction = defineDashboardAction({
  name: "createMemory",
  access: "signed-in",
  input: z.object({ memory: MemoryText, topics: Topics, userId: z.string().trim().optional() }),
  revalidate: MEMORIES_PAGE,
  // `userId` lets an admin write for someone else (else for itself); a member always writes as itself.
  actFor: (input, principal) => input.userId || principal.userId,
  async handler({ input, scope, db }) {
    const owner = scope.userId;
    if (!owner) return { ok: false, status: 422, error: "userId: say whose memory this is" };
    await upsertMemory(db, { scope, memory: { memory: input.memory, topics: input.topics, userId: owner } });
    return { ok: true, message: "Memory added." };
  },
});

export const updateMemoryAction = defineDashboardAction({
  name: "updateMemory",
  access: "signed-in",
  input: z.object({ memoryId: MemoryId, memory: MemoryText, topics: Topics }),
  revalidate: MEMORIES_PAGE,
  async handler({ input, scope, db }) {
    // One scoped UPDATE: the text and topics change; who owns it and where it came from do not.
    const applied = await updateMemoryContent(db, { scope, memoryId: input.memoryId, memory: input.memory, topics: input.topics });
    if (!applied) throw notFound(input.memoryId);
    return { ok: true, message: "Memory saved." };
  },
});

export const deleteMemoryAction = defineDashboardAction({
  name: "deleteMemory",
  access: "signed-in",
  input: z.object({ memoryId: MemoryId }),
  revalidate: MEMORIES_PAGE,
  async handler({ input, scope, db }) {
    const deleted = await deleteMemories(db, { scope, memoryIds: [input.memoryId] });
    if (deleted === 0) throw notFound(input.memoryId);
    return { ok: true, message: "Memory deleted." };
  },
});
