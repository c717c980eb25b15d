import type { z } from "zod";
import { canChangeContent, contentMetadataKeys, getContent, listContents, updateContent, type StoredContent } from "../../db/knowledge/contents.ts";
import { HttpError, validationError } from "../../errors/http-error.ts";
import { ChunkOptionsError, chunkStepProblem, resolveChunkOptions } from "../../knowledge/chunking/chunk.ts";
import { CHUNKERS, chunkerFor } from "../../knowledge/chunking/registry.ts";
import { EmbedderError } from "../../knowledge/embedder.ts";
import { KnowledgeSearchError, type KnowledgeBase } from "../../knowledge/knowledge-base.ts";
import { knowledgeBasesOf, KnowledgeSelectionError, selectKnowledgeBase } from "../../knowledge/knowledge-bases.ts";
import { READERS, readerForId, readersForType } from "../../knowledge/readers/registry.ts";
import { VectorExtensionMissingError } from "../../knowledge/stores/postgres-store.ts";
import { EmbedderDimensionsError, VectorTableMigrationError } from "../../knowledge/stores/vector-store.ts";
import { submitContent, type ContentSource } from "../../knowledge/ingestion/submit-content.ts";
import { deleteStoredContents } from "../../knowledge/delete-contents.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import {
  ContentListSchema,
  ContentParams,
  ContentSchema,
  ContentStatusResponse,
  DeletedContentSchema,
  KnowledgeConfigSchema,
  KnowledgeSelectionQuery,
  ListContentQuery,
  SearchRequestBody,
  SearchResultSchema,
  UpdateContentForm,
  UploadContentForm,
} from "../schemas/knowledge.ts";
import { pageOf } from "../schemas/list-query.ts";
import { utcTimestamp } from "./metrics.ts";

/**
 * Agno's Knowledge API over lib/knowledge: knowledge:read (list, get, status, search, config),
 * knowledge:write (upload, edit), knowledge:delete. A member inserts, lists, searches and deletes
 * only its own contents, and reads the shared ones (no owner) that only admins write; an admin
 * reads and changes every content, and its uploads are shared.
 */

const TAGS = ["Knowledge"];
const DATA = { db: "default" } as const;

/** What a store or embedder refusal means to the caller: a 409 with the fix, a 503 for a missing extension. */
function storeProblem(error: unknown): never {
  if (error instanceof VectorTableMigrationError) throw new HttpError(409, error.message, { error_type: "migration_required_error" });
  if (error instanceof EmbedderDimensionsError) throw new HttpError(409, error.message, { error_type: "embedder_dimensions_error" });
  if (error instanceof VectorExtensionMissingError) throw new HttpError(503, error.message);
  if (error instanceof KnowledgeSearchError) throw new HttpError(400, error.message);
  if (error instanceof EmbedderError) throw new HttpError(502, `The embedder failed: ${error.message}`);
  throw error;
}

export function toContentSchema(content: StoredContent): z.infer<typeof ContentSchema> {
  return {
    id: content.id,
    name: content.name,
    description: content.description,
    type: content.type,
    size: content.size === null ? "0" : String(content.size),
    linked_to: content.linked_to,
    metadata: content.metadata ?? {},
    access_count: content.access_count,
    status: content.status,
    status_message: content.status_message,
    created_at: content.created_at === null ? null : utcTimestamp(content.created_at),
    updated_at: utcTimestamp(content.updated_at ?? content.created_at ?? 0),
  };
}

const contentNotFound = (id: string) => new HttpError(404, `Content not found: ${id}`);

/** Agno's knowledge base selection, from the query or, where a route takes one (search), the body first. */
type KnowledgeSelection = { query: { knowledge_id?: string; db_id?: string }; body?: { knowledge_id?: string; db_id?: string } };

/** The knowledge base the request names, as a route's `resource`: 404 unknown, 400 ambiguous (Agno's texts). */
async function selectedBase({ query, body }: KnowledgeSelection, { settings, data }: DataLoaderContext): Promise<KnowledgeBase> {
  const bases = knowledgeBasesOf((await data()).db, settings);
  try {
    return selectKnowledgeBase(bases, { knowledgeId: body?.knowledge_id ?? query.knowledge_id, dbId: body?.db_id ?? query.db_id });
  } catch (error) {
    if (error instanceof KnowledgeSelectionError) throw new HttpError(error.status, error.message);
    throw error;
  }
}

type ContentPath = KnowledgeSelection & { params: { content_id: string } };

/** The selected base and the path's content among those the caller can see, or null (the status route's 200 "failed"). */
async function pathContentIfAny(input: ContentPath, context: DataLoaderContext): Promise<{ base: KnowledgeBase; content: StoredContent | null }> {
  const base = await selectedBase(input, context);
  const { db, scope } = await context.data();
  return { base, content: await getContent(db, { scope, id: input.params.content_id, linkedTo: base.name }) };
}

/** The selected base and the path's content; 404 when the caller sees no such content. */
async function pathContent(input: ContentPath, context: DataLoaderContext): Promise<{ base: KnowledgeBase; content: StoredContent }> {
  const { base, content } = await pathContentIfAny(input, context);
  if (!content) throw contentNotFound(input.params.content_id);
  return { base, content };
}

/** The path's content, once the caller may change it: shared contents (no owner) are admins' (403 naming the change). */
const changeableContent = (change: "modify" | "delete") => async (input: ContentPath, context: DataLoaderContext) => {
  const found = await pathContent(input, context);
  if (!canChangeContent((await context.data()).scope, found.content)) throw new HttpError(403, `Cannot ${change} shared content`);
  return found;
};

/** Metadata as Agno reads the form field: a JSON object, or any other text kept as `{"value": text}`. */
function metadataOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    return { value: text };
  }
}

/** The URLs of the upload form's `url`: one, or a JSON list; each must be http(s) (422 naming it). */
function urlsOf(text: string | undefined): string[] {
  if (text === undefined) return [];
  let list: unknown = text;
  if (text.trim().startsWith("[")) {
    try {
      list = JSON.parse(text);
    } catch {
      throw validationError([{ type: "value_error", loc: ["body", "url"], msg: "url is not a valid JSON list of URLs", input: text }]);
    }
  }
  const urls = (Array.isArray(list) ? list : [list]).map((u) => String(u).trim()).filter(Boolean);
  for (const url of urls) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw validationError([{ type: "value_error", loc: ["body", "url"], msg: `'${url}' is not an http(s) URL`, input: url }]);
    }
  }
  return urls;
}

export const uploadContentRoute = defineRoute({
  method: "POST",
  path: "/knowledge/content",
  summary: "Add a file, URL(s) or text to a knowledge base (202: processed in the background, as a job with the durable queue)",
  tags: TAGS,
  access: { permission: "knowledge:write" },
  query: KnowledgeSelectionQuery,
  form: UploadContentForm,
  response: ContentSchema,
  status: 202,
  data: DATA,
  resource: selectedBase,
  handler: async ({ input: { form, files }, resource: base, scope, db, settings }) => {
    const file = files.file?.[0];
    const urls = urlsOf(form.url);
    const text = form.text_content !== undefined && form.text_content.trim() !== "" ? form.text_content : undefined;
    if (!file && urls.length === 0 && text === undefined) {
      throw validationError([{ type: "missing", loc: ["body"], msg: "Provide one of file, url or text_content: nothing to add was sent" }]);
    }
    if (form.reader_id !== undefined && !readerForId(form.reader_id)) {
      throw validationError([{ type: "value_error", loc: ["body", "reader_id"], msg: `Unknown reader_id '${form.reader_id}'; readers: ${Object.keys(READERS).join(", ")}`, input: form.reader_id }]);
    }
    const chunker = form.chunker !== undefined ? chunkerFor(form.chunker) : undefined;
    if (form.chunker !== undefined && !chunker) {
      throw validationError([{ type: "value_error", loc: ["body", "chunker"], msg: `Unknown chunker '${form.chunker}'; chunkers: ${Object.keys(CHUNKERS).join(", ")}`, input: form.chunker }]);
    }
    try {
      resolveChunkOptions({ chunkSize: form.chunk_size, overlap: form.chunk_overlap }, (chunker ?? CHUNKERS.FixedSizeChunker).defaults);
    } catch (error) {
      if (error instanceof ChunkOptionsError) throw validationError([{ type: "value_error", loc: ["body", error.field === "overlap" ? "chunk_overlap" : "chunk_size"], msg: error.message }]);
      throw error;
    }
    // A tiny chunk size (or step, with overlap) multiplies the chunks and embedding calls a content makes.
    const step = chunkStepProblem({ chunkSize: form.chunk_size, overlap: form.chunk_overlap }, chunker ?? CHUNKERS.FixedSizeChunker, settings.knowledge.limits.minChunkSize);
    if (step) throw validationError([{ type: "greater_than_equal", loc: ["body", step.field === "overlap" ? "chunk_overlap" : "chunk_size"], msg: step.message }]);
    const sources: ContentSource[] = file
      ? [{ file: { bytes: new Uint8Array(await file.arrayBuffer()), filename: file.name || null, mimeType: file.type || null } }]
      : text !== undefined
        ? [{ text }]
        : urls.map((url) => ({ url }));
    const options = { readerId: form.reader_id, chunker: form.chunker, chunkSize: form.chunk_size, chunkOverlap: form.chunk_overlap };
    const metadata = metadataOf(form.metadata);
    const submitted = [];
    for (const source of sources) {
      submitted.push(await submitContent({ db, settings, base, scope, submission: { source, name: form.name ?? null, description: form.description ?? null, metadata: metadata ?? null, options } }));
    }
    return toContentSchema(submitted[0]!.content);
  },
});

export const listContentRoute = defineRoute({
  method: "GET",
  path: "/knowledge/content",
  summary: "List a knowledge base's contents the caller can see (paginated, sortable)",
  tags: TAGS,
  access: { permission: "knowledge:read" },
  query: ListContentQuery,
  response: ContentListSchema,
  data: DATA,
  resource: selectedBase,
  handler: async ({ input: { query }, resource: base, scope, db }) => {
    const started = performance.now();
    const { contents, totalCount } = await listContents(db, { scope, linkedTo: base.name, page: query.page, limit: query.limit, sortBy: query.sort_by, sortOrder: query.sort_order });
    return pageOf(contents.map(toContentSchema), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const deleteAllContentRoute = defineRoute({
  method: "DELETE",
  path: "/knowledge/content",
  summary: "Delete every content the caller may delete (a member's own; an admin's: all) with their chunks",
  tags: TAGS,
  access: { permission: "knowledge:delete" },
  query: KnowledgeSelectionQuery,
  data: DATA,
  resource: selectedBase,
  handler: async ({ resource: base, scope }) => {
    await deleteStoredContents(base, { scope }).catch(storeProblem);
    return "success";
  },
});

export const getContentRoute = defineRoute({
  method: "GET",
  path: "/knowledge/content/{content_id}",
  summary: "One content of a knowledge base",
  tags: TAGS,
  access: { permission: "knowledge:read" },
  params: ContentParams,
  query: KnowledgeSelectionQuery,
  response: ContentSchema,
  data: DATA,
  resource: pathContent,
  handler: ({ resource: { content } }) => toContentSchema(content),
});

export const updateContentRoute = defineRoute({
  method: "PATCH",
  path: "/knowledge/content/{content_id}",
  summary: "Rename, re-describe or re-tag a content (shared contents: admins only)",
  tags: TAGS,
  access: { permission: "knowledge:write" },
  params: ContentParams,
  query: KnowledgeSelectionQuery,
  form: UpdateContentForm,
  response: ContentSchema,
  data: DATA,
  resource: changeableContent("modify"),
  handler: async ({ input: { params, form }, resource: { content }, scope, db }) => {
    let metadata: Record<string, unknown> | undefined;
    if (form.metadata !== undefined) {
      try {
        const parsed: unknown = JSON.parse(form.metadata);
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
        metadata = parsed as Record<string, unknown>;
      } catch {
        throw new HttpError(400, "Invalid JSON format for metadata");
      }
    }
    if (form.reader_id !== undefined && !readerForId(form.reader_id)) throw new HttpError(400, `Invalid reader_id: ${form.reader_id}`);
    const updated = await updateContent(db, { scope, id: content.id, patch: { name: form.name, description: form.description, metadata } });
    if (!updated) throw contentNotFound(params.content_id);
    return toContentSchema(updated);
  },
});

export const deleteContentRoute = defineRoute({
  method: "DELETE",
  path: "/knowledge/content/{content_id}",
  summary: "Delete a content and its chunks (shared contents: admins only)",
  tags: TAGS,
  access: { permission: "knowledge:delete" },
  params: ContentParams,
  query: KnowledgeSelectionQuery,
  response: DeletedContentSchema,
  excludeNone: true,
  data: DATA,
  resource: changeableContent("delete"),
  handler: async ({ resource: { base, content }, scope }) => {
    await deleteStoredContents(base, { scope, ids: [content.id] }).catch(storeProblem);
    return { id: content.id };
  },
});

export const contentStatusRoute = defineRoute({
  method: "GET",
  path: "/knowledge/content/{content_id}/status",
  summary: "Where a content's processing stands: processing, completed or failed (with why)",
  tags: TAGS,
  access: { permission: "knowledge:read" },
  params: ContentParams,
  query: KnowledgeSelectionQuery,
  response: ContentStatusResponse,
  data: DATA,
  resource: pathContentIfAny,
  handler: ({ input: { params }, resource: { content } }) => {
    // Agno answers an unknown content with a 200 saying it failed.
    if (!content) return { id: params.content_id, status: "failed" as const, status_message: "Content not found" };
    return { id: content.id, status: content.status, status_message: content.status_message ?? "" };
  },
});

export const searchKnowledgeRoute = defineRoute({
  method: "POST",
  path: "/knowledge/search",
  summary: "Search a knowledge base's chunks the caller can see: vector, keyword or hybrid (fused by reciprocal rank)",
  tags: TAGS,
  access: { permission: "knowledge:read" },
  query: KnowledgeSelectionQuery,
  body: SearchRequestBody,
  response: SearchResultSchema,
  data: DATA,
  resource: selectedBase,
  handler: async ({ input: { body }, resource: base, scope, request }) => {
    const started = performance.now();
    const vectorDbId = `${base.id}:${base.store.table}`;
    if (body.vector_db_ids && body.vector_db_ids.length > 0 && !body.vector_db_ids.includes(vectorDbId)) {
      throw new HttpError(400, `None of the provided Vector DB IDs ${JSON.stringify(body.vector_db_ids)} match the knowledge base Vector DB ID ${vectorDbId}`);
    }
    const limit = body.meta?.limit ?? 20;
    const page = body.meta?.page ?? 1;
    const result = await base.search({ scope, query: body.query, maxResults: body.max_results, filters: body.filters, searchType: body.search_type, signal: request.signal }).catch(storeProblem);
    const hits = result.hits.slice((page - 1) * limit, page * limit).map((hit) => ({
      id: hit.id,
      content: hit.content,
      name: hit.name,
      meta_data: hit.metadata,
      usage: hit.usage,
      reranking_score: Number.isFinite(hit.score) ? hit.score : null,
      content_id: hit.contentId,
      content_origin: typeof hit.metadata.url === "string" ? hit.metadata.url : hit.name,
      size: hit.content.length,
    }));
    return { ...pageOf(hits, { page, limit, totalCount: result.hits.length, startedMs: started }), search_type: result.searchType };
  },
});

export const knowledgeConfigRoute = defineRoute({
  method: "GET",
  path: "/knowledge/config",
  summary: "Readers, chunkers, the vector db and its search types, and the metadata keys to filter on",
  tags: TAGS,
  access: { permission: "knowledge:read" },
  query: KnowledgeSelectionQuery,
  response: KnowledgeConfigSchema,
  data: DATA,
  resource: selectedBase,
  handler: async ({ resource: base, scope, db }) => {
    const chunkerKeys = Object.keys(CHUNKERS);
    const embedder = base.embedder?.spec ?? null;
    return {
      readers: Object.fromEntries(Object.values(READERS).map((r) => [r.id, { id: r.id, name: r.name, description: r.description, chunkers: chunkerKeys }])),
      readersForType: readersForType(),
      chunkers: Object.fromEntries(
        Object.values(CHUNKERS).map((c) => [c.key, { key: c.key, name: c.name, description: c.description, metadata: { chunk_size: c.defaults.chunkSize, chunk_overlap: c.defaults.overlap } }]),
      ),
      filters: await contentMetadataKeys(db, { scope, linkedTo: base.name }),
      vector_dbs: [{ id: `${base.id}:${base.store.table}`, name: base.store.table, description: base.description ?? null, search_types: base.searchTypes() }],
      remote_content_sources: [],
      embedder: embedder ? { provider: embedder.provider, model: embedder.id, dimensions: embedder.dimensions ?? null } : null,
      notes: embedder
        ? []
        : [
            "Vector and hybrid search need an embedder: set OPENAI_EMBEDDING_MODEL (with OPENAI_API_KEY), or OPENAI_COMPATIBLE_EMBEDDING_MODEL with OPENAI_COMPATIBLE_BASE_URL. Until then knowledge is searched by keyword.",
          ],
    };
  },
});

export const KNOWLEDGE_ROUTES = [
  uploadContentRoute,
  listContentRoute,
  deleteAllContentRoute,
  getContentRoute,
  updateContentRoute,
  deleteContentRoute,
  contentStatusRoute,
  searchKnowledgeRoute,
  knowledgeConfigRoute,
];
