import { z } from "zod";
import { DbSelectionQuery, PageQuery, SortOrder, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Memories API (`/memories`, topics, per-user stats). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

export const MemoryParams = z.object({ memory_id: z.string().min(1) });

/** `?user_id=` plus the database selection: the query of the single-memory routes. */
export const MemoryQuery = z.object({ user_id: z.string().optional(), ...DbSelectionQuery });

/** `topics=a,b` or `topics=a&topics=b`; a parameter naming no topic at all is a 422. */
const TopicsQuery = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) =>
    value === undefined
      ? undefined
      : (Array.isArray(value) ? value : [value])
          .flatMap((v) => v.split(","))
          .map((v) => v.trim())
          .filter(Boolean),
  )
  .refine((topics) => topics === undefined || topics.length > 0, "topics must name at least one topic");

export const ListMemoriesQuery = z.object({
  user_id: z.string().optional(),
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  topics: TopicsQuery,
  search_content: z.string().optional(),
  ...PageQuery,
  sort_by: z.enum(["updated_at", "created_at"]).default("updated_at"),
  sort_order: SortOrder,
  ...DbSelectionQuery,
});

export const UserMemoryStatsQuery = z.object({ user_id: z.string().optional(), ...PageQuery, ...DbSelectionQuery });

/** The body of POST /memories and PATCH /memories/{id}. */
export const CreateMemoryBody = z.object({
  memory: z.string().min(1),
  user_id: z.string().nullish(),
  topics: z.array(z.string()).nullish(),
});

export const DeleteMemoriesBody = z.object({
  memory_ids: z.array(z.string().min(1)).min(1),
  user_id: z.string().nullish(),
});

export const OptimizeMemoriesBody = z.object({
  user_id: z.string().nullish(),
  model: z.string().nullish(),
  apply: z.boolean().default(true),
});

// ── responses ───────────────────────────────────────────────────────────────────────────────

export const UserMemorySchema = z.object({
  memory_id: z.string(),
  memory: z.string(),
  topics: z.array(z.string()).nullable(),
  agent_id: z.string().nullable(),
  team_id: z.string().nullable(),
  user_id: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const MemoryListSchema = paginated(UserMemorySchema);

export const MemoryTopicsSchema = z.array(z.string());

export const UserStatsSchema = z.object({
  user_id: z.string(),
  total_memories: z.number().int(),
  last_memory_updated_at: z.string().nullable(),
});

export const UserStatsListSchema = paginated(UserStatsSchema);

export const OptimizeMemoriesResponse = z.object({
  memories: z.array(UserMemorySchema),
  memories_before: z.number().int(),
  memories_after: z.number().int(),
  tokens_before: z.number().int(),
  tokens_after: z.number().int(),
  tokens_saved: z.number().int(),
  reduction_percentage: z.number(),
});
