import { z } from "zod";
import { DbSelectionQuery, JsonObject, SortOrder, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Learnings API (`/learnings`, `/learnings/users`). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

export const LearningParams = z.object({ learning_id: z.string().min(1) });
export const LearningUserParams = z.object({ user_id: z.string().min(1) });

/** The database selection alone: the query of the single-learning routes and POST. */
export const LearningDbQuery = z.object(DbSelectionQuery);

/** Agno's paging of both lists: `limit` (1..1000), `page` from 1, `sort_by` any text (each list reads it), `sort_order`. */
const listPaging = (defaultLimit: number) => ({
  limit: z.coerce.number().int().min(1).max(1000).default(defaultLimit),
  page: z.coerce.number().int().min(1).default(1),
  sort_by: z.string().optional(),
  sort_order: SortOrder,
  ...DbSelectionQuery,
});

/** `GET /learnings`: Agno's filters, `limit` 100; an unknown `sort_by` is ignored. */
export const ListLearningsQuery = z.object({
  learning_type: z.string().optional(),
  user_id: z.string().optional(),
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  session_id: z.string().optional(),
  namespace: z.string().optional(),
  entity_id: z.string().optional(),
  entity_type: z.string().optional(),
  ...listPaging(100),
});

/** `GET /learnings/users`: `limit` 20; `sort_by` user_id or last_learning_updated_at (the default; anything else reads as it). */
export const ListLearningUsersQuery = z.object({ learning_type: z.string().optional(), user_id: z.string().optional(), ...listPaging(20) });

/** `DELETE /learnings/users/{user_id}`: one learning type only, if given. */
export const DeleteLearningUserQuery = z.object({ learning_type: z.string().optional(), ...DbSelectionQuery });

/** Agno's LearningCreate. */
export const CreateLearningBody = z.object({
  learning_type: z.string(),
  content: JsonObject,
  namespace: z.string().nullish(),
  user_id: z.string().nullish(),
  agent_id: z.string().nullish(),
  team_id: z.string().nullish(),
  session_id: z.string().nullish(),
  entity_id: z.string().nullish(),
  entity_type: z.string().nullish(),
  metadata: JsonObject.nullish(),
});

/** Agno's LearningUpdate: each field given replaces the stored one whole; `content: null` is refused by the route. */
export const UpdateLearningBody = z.object({
  content: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
});

// ── responses ───────────────────────────────────────────────────────────────────────────────

/** Agno's LearningResponse (no `workflow_id`, although the table has one); times are epoch seconds. */
export const LearningResponseSchema = z.object({
  learning_id: z.string(),
  learning_type: z.string(),
  namespace: z.string().nullable(),
  user_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  team_id: z.string().nullable(),
  session_id: z.string().nullable(),
  entity_id: z.string().nullable(),
  entity_type: z.string().nullable(),
  content: JsonObject.nullable(),
  metadata: JsonObject.nullable(),
  created_at: z.number().int().nullable(),
  updated_at: z.number().int().nullable(),
});

export const LearningListSchema = paginated(LearningResponseSchema);

/** Agno's LearningUserStats: a user owning learnings and its most recent change (epoch seconds). */
export const LearningUserStatsSchema = z.object({
  user_id: z.string(),
  last_learning_updated_at: z.number().int().nullable(),
});

export const LearningUserListSchema = paginated(LearningUserStatsSchema);
