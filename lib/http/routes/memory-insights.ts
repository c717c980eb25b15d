import { listMemories, listMemoryTopics, userMemoryStats } from "../../db/index.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute } from "../route.ts";
import { isoTime, pageOf } from "../schemas/list-query.ts";
import { MemoryQuery, MemoryTopicsSchema, OptimizeMemoriesBody, OptimizeMemoriesResponse, UserMemoryStatsQuery, UserStatsListSchema } from "../schemas/memories.ts";
import { MEMORY_DATA, MEMORY_WRITE_DATA } from "./memories.ts";

/** Agno's `/memory_topics`, `/user_memory_stats` and `/optimize-memories` (memory optimisation). */

const TAGS = ["Memory"];

export const memoryTopicsRoute = defineRoute({
  method: "GET",
  path: "/memory_topics",
  summary: "Every distinct topic of the caller's (or, for admins, the named user's / everyone's) memories",
  tags: TAGS,
  access: { permission: "memories:read" },
  query: MemoryQuery,
  response: MemoryTopicsSchema,
  data: MEMORY_DATA,
  handler: async ({ scope, db }) => {
    return listMemoryTopics(db, { scope });
  },
});

export const userMemoryStatsRoute = defineRoute({
  method: "GET",
  path: "/user_memory_stats",
  summary: "Memory counts per user, most recently active first (paginated)",
  tags: TAGS,
  access: { permission: "memories:read" },
  query: UserMemoryStatsQuery,
  response: UserStatsListSchema,
  data: MEMORY_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { stats, totalCount } = await userMemoryStats(db, { scope, page: query.page, limit: query.limit });
    return pageOf(
      stats.map((s) => ({ ...s, last_memory_updated_at: isoTime(s.last_memory_updated_at) })),
      { page: query.page, limit: query.limit, totalCount, startedMs: started },
    );
  },
});

/**
 * Agno merges a user's memories with a model. This server has no model-backed memory manager
 * yet, so it says so (501) rather than pretend; a user without memories is a 404 as in Agno.
 */
export const optimizeMemoriesRoute = defineRoute({
  method: "POST",
  path: "/optimize-memories",
  summary: "Optimise a user's memories with a model (not available in this build: 501)",
  tags: TAGS,
  access: { permission: "memories:write" },
  query: MemoryQuery.omit({ user_id: true }),
  body: OptimizeMemoriesBody,
  response: OptimizeMemoriesResponse,
  data: MEMORY_WRITE_DATA,
  handler: async ({ scope, db }) => {
    const { totalCount } = await listMemories(db, { scope, limit: 1 });
    if (totalCount === 0) throw new HttpError(404, "No memories found for user");
    throw new HttpError(501, "Memory optimization needs a model-backed memory manager, which this server does not provide yet; no memories were changed.");
  },
});

export const MEMORY_INSIGHT_ROUTES = [memoryTopicsRoute, userMemoryStatsRoute, optimizeMemoriesRoute];
