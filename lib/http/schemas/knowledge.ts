import { z } from "zod";
import { CONTENT_STATUSES } from "../../db/knowledge/contents.ts";
import { SEARCH_TYPES } from "../../knowledge/stores/vector-store.ts";
import { JsonObject, PageQuery, paginated, SortOrder } from "./list-query.ts";

/**
 * Agno's Knowledge API shapes: the contents table's rows, the
 * upload and edit forms, the search request and its hits, and the config of readers, chunkers and
 * vector dbs.
 */

/** Every knowledge route picks its base by `knowledge_id` or `db_id` (Agno's get_knowledge_instance). */
export const KnowledgeSelectionQuery = z.object({
  knowledge_id: z.string().min(1).optional(),
  db_id: z.string().min(1).optional(),
});

export const ContentParams = z.object({ content_id: z.string().min(1) });

export const ListContentQuery = KnowledgeSelectionQuery.extend({
  ...PageQuery,
  sort_by: z.string().min(1).default("created_at"),
  sort_order: SortOrder,
});

export const ContentStatusSchema = z.enum(CONTENT_STATUSES);

export const ContentSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  /** The media type of an uploaded file, "url", or "manual" for pasted text. */
  type: z.string().nullable(),
  /** Bytes, as a string (Agno's schema). */
  size: z.string().nullable(),
  linked_to: z.string().nullable(),
  metadata: JsonObject.nullable(),
  access_count: z.number().int().nullable(),
  status: ContentStatusSchema.nullable(),
  status_message: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const ContentListSchema = paginated(ContentSchema);

export const ContentStatusResponse = z.object({ id: z.string().nullable(), status: ContentStatusSchema, status_message: z.string() });

export const DeletedContentSchema = z.object({ id: z.string() });

const optionalText = (max?: number) => {
  const base = z.string();
  return (max ? base.max(max) : base).optional().transform((v) => (v === undefined || v.trim() === "" ? undefined : v));
};

const formInt = (field: string, min: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return undefined;
      const n = Number(value);
      if (!Number.isInteger(n) || n < min) {
        ctx.addIssue({ code: "custom", message: `${field} must be an integer of at least ${min}, got '${value}'` });
        return z.NEVER;
      }
      return n;
    });

/** The upload form of `POST /knowledge/content` (the file itself arrives as the `file` part). */
export const UploadContentForm = z.looseObject({
  name: optionalText(255),
  description: optionalText(1000),
  /** One URL, or a JSON list of URLs. */
  url: optionalText(),
  /** JSON object; text that is not JSON is kept as `{"value": text}` (Agno). */
  metadata: optionalText(),
  text_content: z.string().optional(),
  reader_id: optionalText(),
  chunker: optionalText(),
  chunk_size: formInt("chunk_size", 1),
  chunk_overlap: formInt("chunk_overlap", 0),
});

/** `PATCH /knowledge/content/{content_id}`: blank fields are left as they are. */
export const UpdateContentForm = z.looseObject({
  name: optionalText().pipe(z.string().min(1).max(255).optional()),
  description: optionalText().pipe(z.string().max(1000).optional()),
  metadata: optionalText(),
  reader_id: optionalText(),
});

export const SearchRequestBody = z.object({
  query: z.string(),
  db_id: z.string().optional(),
  knowledge_id: z.string().optional(),
  vector_db_ids: z.array(z.string()).optional(),
  search_type: z.enum(SEARCH_TYPES).optional(),
  max_results: z.number().int().min(1).max(1000).optional(),
  filters: JsonObject.optional(),
  meta: z.object({ limit: z.number().int().min(1).default(20), page: z.number().int().min(1).default(1) }).optional(),
});

export const SearchHitSchema = z.object({
  id: z.string(),
  content: z.string(),
  name: z.string().nullable(),
  meta_data: JsonObject,
  usage: JsonObject.nullable(),
  /** The hit's relevance: cosine similarity (vector), text rank (keyword) or fused rank (hybrid). */
  reranking_score: z.number().nullable(),
  content_id: z.string().nullable(),
  content_origin: z.string().nullable(),
  size: z.number().int().nullable(),
});

export const SearchResultSchema = paginated(SearchHitSchema).extend({
  /** Beyond Agno: which search ran (the default when the request named none). */
  search_type: z.enum(SEARCH_TYPES),
});

export const KnowledgeConfigSchema = z.object({
  readers: z.record(z.string(), z.object({ id: z.string(), name: z.string().nullable(), description: z.string().nullable(), chunkers: z.array(z.string()).nullable() })),
  readersForType: z.record(z.string(), z.array(z.string())),
  chunkers: z.record(z.string(), z.object({ key: z.string(), name: z.string().nullable(), description: z.string().nullable(), metadata: JsonObject.nullable() })),
  filters: z.array(z.string()),
  vector_dbs: z.array(z.object({ id: z.string(), name: z.string().nullable(), description: z.string().nullable(), search_types: z.array(z.string()).nullable() })),
  remote_content_sources: z.array(JsonObject),
  /** Beyond Agno: the embedder, or why vector search is off. */
  embedder: z.object({ provider: z.string(), model: z.string(), dimensions: z.number().int().nullable() }).nullable(),
  notes: z.array(z.string()),
});
