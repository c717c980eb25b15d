import { z } from "zod";
import { elapsedMs } from "../data-access.ts";

/**
 * Query and response pieces shared by the listing routes (sessions, memories, …): Agno's
 * pagination, sort order, database selection and paginated envelope.
 */

export const JsonObject = z.record(z.string(), z.unknown());

/** `limit` (default 20) and 1-indexed `page` (default 1); below 1 or not an integer → 422 naming it. */
export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  page: z.coerce.number().int().min(1).default(1),
};

/** pydantic's bool from a query string: true/false, 1/0, yes/no, on/off, t/f, y/n (any case). */
export const BoolQuery = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0", "yes", "no", "on", "off", "t", "f", "y", "n"]))
  .transform((value) => ["true", "1", "yes", "on", "t", "y"].includes(value));

export const SortOrder = z.enum(["asc", "desc"]).default("desc");

/** `db_id` picks a database; `table` needs `db_id` (400 otherwise, see data-access.ts). */
export const DbSelectionQuery = {
  db_id: z.string().min(1).optional(),
  table: z.string().min(1).optional(),
};

export const PageMetaSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total_pages: z.number().int(),
  total_count: z.number().int(),
  search_time_ms: z.number(),
});

/** Agno's `PaginatedResponse[T]`: `{data: [T], meta}`. */
export function paginated<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), meta: PageMetaSchema });
}

/** Epoch seconds (or an ISO string already) as an ISO-8601 UTC timestamp; null when absent. */
export function isoTime(value: unknown): string | null {
  if (typeof value === "string" && value) return value;
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  // Agno stores epoch seconds; a millisecond value is recognised by its size.
  return new Date(value > 1e12 ? value : value * 1000).toISOString();
}

/** The `{data, meta}` envelope of a list route, timed from `startedMs` (performance.now()). */
export function pageOf<T>(data: T[], { page, limit, totalCount, startedMs }: { page: number; limit: number; totalCount: number; startedMs: number }) {
  return {
    data,
    meta: {
      page,
      limit,
      total_pages: Math.ceil(totalCount / limit),
      total_count: totalCount,
      search_time_ms: elapsedMs(startedMs),
    },
  };
}
