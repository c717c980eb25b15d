import { z } from "zod";
import { COMPONENT_TYPES } from "../../config/component-config.ts";

/** Names, ids and labels are indexed columns: longer ones would exceed PostgreSQL's index entry size, so they are refused first (422). */
const NAME_MAX = 255;
import { BoolQuery, JsonObject, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Components API (`/components`). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

export const ComponentTypeSchema = z.enum(COMPONENT_TYPES);

export const ComponentParams = z.object({ component_id: z.string().min(1) });
/** `{version}` is an integer path segment (a 422 otherwise, as FastAPI's `int`). */
export const ComponentVersionParams = z.object({ component_id: z.string().min(1), version: z.coerce.number().int() });

/** `GET /components`: `component_type`, `page` (from 1), `limit` (1..100, default 20), `include_deleted`. */
export const ListComponentsQuery = z.object({
  component_type: ComponentTypeSchema.optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  include_deleted: BoolQuery.default(false),
});

export const IncludeDeletedQuery = z.object({ include_deleted: BoolQuery.default(false) });
export const IncludeConfigQuery = z.object({ include_config: BoolQuery.default(true) });
/** `DELETE /components/{id}`: the compare-and-set guard as a query parameter. */
export const DeleteComponentQuery = z.object({ expected_current_version: z.coerce.number().int().optional() });

/** Agno's ComponentGuard: each half given must match the stored state (409). */
export const ComponentGuardSchema = z.object({
  latest_version: z.number().int().nullish(),
  current_version: z.number().int().nullish(),
});

/** Agno's ComponentCreate (`set_current` accepted and ignored). */
export const CreateComponentBody = z.object({
  name: z.string().max(NAME_MAX, `at most ${NAME_MAX} characters`),
  component_id: z.string().max(NAME_MAX, `at most ${NAME_MAX} characters`).nullish(),
  component_type: ComponentTypeSchema,
  description: z.string().nullish(),
  metadata: JsonObject.nullish(),
  config: JsonObject.nullish(),
  label: z.string().max(NAME_MAX, `at most ${NAME_MAX} characters`).nullish(),
  stage: z.string().default("draft"),
  notes: z.string().nullish(),
  set_current: z.boolean().default(true),
});

/** Agno's ComponentUpdate. */
export const UpdateComponentBody = z.object({
  name: z.string().max(NAME_MAX, `at most ${NAME_MAX} characters`).nullish(),
  description: z.string().nullish(),
  component_type: z.string().nullish(),
  metadata: JsonObject.nullish(),
  current_version: z.number().int().nullish(),
  guard: ComponentGuardSchema.nullish(),
});

/** Agno's ConfigCreate (`version` and `set_current` accepted and ignored). */
export const CreateConfigBody = z.object({
  config: JsonObject,
  version: z.number().int().nullish(),
  label: z.string().max(NAME_MAX, `at most ${NAME_MAX} characters`).nullish(),
  stage: z.string().default("draft"),
  notes: z.string().nullish(),
  links: z.array(JsonObject).nullish(),
  set_current: z.boolean().default(true),
  guard: ComponentGuardSchema.nullish(),
});

/** Agno's ConfigUpdate. */
export const UpdateConfigBody = z.object({
  config: JsonObject.nullish(),
  label: z.string().max(NAME_MAX, `at most ${NAME_MAX} characters`).nullish(),
  stage: z.string().nullish(),
  notes: z.string().nullish(),
  links: z.array(JsonObject).nullish(),
  guard: ComponentGuardSchema.nullish(),
});

/** Agno's SetCurrentRequest and ComponentDeleteRequest: an optional guard; no body at all is fine. */
export const GuardBody = z.object({ guard: ComponentGuardSchema.nullish() }).nullish();

// ── responses ───────────────────────────────────────────────────────────────────────────────

/** Agno's ComponentResponse; times are epoch seconds, `deleted_at` set on archived rows only. */
export const ComponentResponseSchema = z.object({
  component_id: z.string(),
  component_type: ComponentTypeSchema,
  name: z.string().nullable(),
  user_id: z.string().nullable(),
  description: z.string().nullable(),
  current_version: z.number().int().nullable(),
  metadata: JsonObject.nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int().nullable(),
  deleted_at: z.number().int().nullable(),
});

/** Agno's ComponentConfigResponse (`config` left out of a list asked for without configs). */
export const ComponentConfigResponseSchema = z.object({
  component_id: z.string(),
  version: z.number().int(),
  label: z.string().nullable(),
  stage: z.string(),
  config: JsonObject.nullable(),
  notes: z.string().nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int().nullable(),
});

export const ComponentListSchema = paginated(ComponentResponseSchema);
export const ComponentConfigListSchema = z.array(ComponentConfigResponseSchema);
