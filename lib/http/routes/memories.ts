import type { z } from "zod";
import { deleteMemories, getMemory, listMemories, upsertMemory, type StoredMemory } from "../../db/index.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { isoTime, pageOf } from "../schemas/list-query.ts";
import { CreateMemoryBody, DeleteMemoriesBody, ListMemoriesQuery, MemoryListSchema, MemoryParams, MemoryQuery, UserMemorySchema } from "../schemas/memories.ts";

/**
 * Agno's Memories API: memories:read / memories:write / memories:delete. Topics,
 * per-user stats and optimisation are in memory-insights.ts.
 */

const TAGS = ["Memory"];
export const MEMORY_TABLES = ["agno_memories"] as const;

export function toUserMemory(memory: StoredMemory): z.infer<typeof UserMemorySchema> {
  return {
    memory_id: memory.memory_id,
    memory: typeof memory.memory === "string" ? memory.memory : JSON.stringify(memory.memory),
    topics: memory.topics,
    agent_id: memory.agent_id,
    team_id: memory.team_id,
    user_id: memory.user_id,
    updated_at: isoTime(memory.updated_at ?? memory.created_at),
  };
}

/** Memories are read where Agno's `db_id`/`table` query picks; an admin acts for the query's `user_id`. */
export const MEMORY_DATA = { db: { selectFrom: "query", tables: MEMORY_TABLES }, userFrom: "query" } as const;

/**
 * A memory write is for one user: a non-admin writes as itself; an admin for the body's `user_id`,
 * else its own identity; with neither → 400 "User ID is required" (as Agno).
 */
export const MEMORY_WRITE_DATA = { ...MEMORY_DATA, userFrom: "body", owner: "required" } as const;

const memoryNotFound = (memoryId: string) => new HttpError(404, `Memory with ID ${memoryId} not found`);

/** The memory the path names, in the caller's scope (a write's: the user it writes for); 404 otherwise. */
async function pathMemory({ params }: { params: { memory_id: string } }, { data }: DataLoaderContext): Promise<StoredMemory> {
  const { db, scope } = await data();
  const memory = await getMemory(db, { scope, memoryId: params.memory_id });
  if (!memory) throw memoryNotFound(params.memory_id);
  return memory;
}

export const createMemoryRoute = defineRoute({
  method: "POST",
  path: "/memories",
  summary: "Create a memory for a user",
  tags: TAGS,
  access: { permission: "memories:write" },
  query: MemoryQuery.omit({ user_id: true }),
  body: CreateMemoryBody,
  response: UserMemorySchema,
  data: MEMORY_WRITE_DATA,
  handler: async ({ input: { body }, scope, db }) => {
    const stored = await upsertMemory(db, { scope, memory: { memory: body.memory, topics: body.topics ?? [], userId: scope.userId } });
    return toUserMemory(stored);
  },
});

export const listMemoriesRoute = defineRoute({
  method: "GET",
  path: "/memories",
  summary: "List memories (filter by user, agent, team, topics and content; paginated and sorted)",
  tags: TAGS,
  access: { permission: "memories:read" },
  query: ListMemoriesQuery,
  response: MemoryListSchema,
  data: MEMORY_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { memories, totalCount } = await listMemories(db, {
      scope,
      agentId: query.agent_id,
      teamId: query.team_id,
      topics: query.topics,
      searchContent: query.search_content,
      page: query.page,
      limit: query.limit,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    return pageOf(memories.map(toUserMemory), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const deleteMemoriesRoute = defineRoute({
  method: "DELETE",
  path: "/memories",
  summary: "Delete several memories",
  tags: TAGS,
  access: { permission: "memories:delete" },
  query: MemoryQuery.omit({ user_id: true }),
  body: DeleteMemoriesBody,
  status: 204,
  data: { ...MEMORY_DATA, userFrom: "body" },
  handler: async ({ input: { body }, scope, db }) => {
    await deleteMemories(db, { scope, memoryIds: body.memory_ids });
  },
});

export const getMemoryRoute = defineRoute({
  method: "GET",
  path: "/memories/{memory_id}",
  summary: "One memory",
  tags: TAGS,
  access: { permission: "memories:read" },
  params: MemoryParams,
  query: MemoryQuery,
  response: UserMemorySchema,
  data: MEMORY_DATA,
  resource: pathMemory,
  handler: ({ resource: memory }) => toUserMemory(memory),
});

export const updateMemoryRoute = defineRoute({
  method: "PATCH",
  path: "/memories/{memory_id}",
  summary: "Replace a memory's text (and topics, when given)",
  tags: TAGS,
  access: { permission: "memories:write" },
  params: MemoryParams,
  query: MemoryQuery.omit({ user_id: true }),
  body: CreateMemoryBody,
  response: UserMemorySchema,
  data: MEMORY_WRITE_DATA,
  resource: pathMemory,
  handler: async ({ input: { body }, resource: existing, scope, db }) => {
    const stored = await upsertMemory(db, {
      scope,
      memory: {
        memoryId: existing.memory_id,
        memory: body.memory,
        topics: body.topics ?? existing.topics,
        agentId: existing.agent_id,
        teamId: existing.team_id,
        input: existing.input,
        feedback: existing.feedback,
        userId: scope.userId,
      },
    });
    return toUserMemory(stored);
  },
});

export const deleteMemoryRoute = defineRoute({
  method: "DELETE",
  path: "/memories/{memory_id}",
  summary: "Delete a memory",
  tags: TAGS,
  access: { permission: "memories:delete" },
  params: MemoryParams,
  query: MemoryQuery,
  status: 204,
  data: MEMORY_DATA,
  handler: async ({ input: { params }, scope, db }) => {
    const deleted = await deleteMemories(db, { scope, memoryIds: [params.memory_id] });
    if (deleted === 0) throw memoryNotFound(params.memory_id);
  },
});

export const MEMORY_ROUTES = [createMemoryRoute, listMemoriesRoute, deleteMemoriesRoute, getMemoryRoute, updateMemoryRoute, deleteMemoryRoute];
