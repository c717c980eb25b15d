import { z } from "zod";
import { REGISTRY_RESOURCE_TYPES } from "../../components/registry.ts";
import { JsonObject, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's `GET /registry`. */

/** `resource_type` (one of Agno's types), `name` (a case-insensitive part of the name), `page` from 1, `limit` 1..100 (20). */
export const ListRegistryQuery = z.object({
  resource_type: z.enum(REGISTRY_RESOURCE_TYPES).optional(),
  name: z.string().optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Agno's RegistryContentResponse: the resource's name and type, its id and description when it has them, its metadata. */
export const RegistryContentSchema = z.object({
  name: z.string(),
  type: z.enum(REGISTRY_RESOURCE_TYPES),
  id: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  metadata: JsonObject.nullable().optional(),
});

export const RegistryListSchema = paginated(RegistryContentSchema);
