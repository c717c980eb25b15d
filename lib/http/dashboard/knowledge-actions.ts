import { z } from "zod";
import { hasScope, type Principal } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import { canChangeContent, getContent } from "../../db/knowledge/contents.ts";
import type { Db } from "../../db/open-database.ts";
import { NotFoundError, PermissionError, QueueFullError } from "../../errors/domain-errors.ts";
import { deleteStoredContents } from "../../knowledge/delete-contents.ts";
import { EmbedderError } from "../../knowledge/embedder.ts";
import { KnowledgeSearchError, type KnowledgeBase } from "../../knowledge/knowledge-base.ts";
import { VectorExtensionMissingError } from "../../knowledge/stores/postgres-store.ts";
import { EmbedderDimensionsError, SEARCH_TYPES, VectorTableMigrationError, type SearchType } from "../../knowledge/stores/vector-store.ts";
import { submitContent, type ContentSource } from "../../knowledge/ingestion/submit-content.ts";
import { defineDashboardAction, type ActionState } from "./action.ts";
import { dashboardKnowledgeBase } from "./knowledge-view.ts";

/**
 * The Knowledge page's actions, open to every signed-in user holding the knowledge scopes (every
 * dashboard member does): add a file, a URL or pasted text to a base, delete a content, and search
 * a base. Each reads and writes through the caller's scope, never a user id from the form: a
 * member adds contents of its own, sees its own and the shared ones and deletes only its own; an
 * admin's additions are shared, as the API's are, and it may delete any content. An upload is
 * checked as `POST /knowledge/content` checks it.
 */
const KNOWLEDGE_PAGE = "/dashboard/knowledge";

/** The largest number of hits the page's search shows. */
export const MAX_SEARCH_RESULTS = 100;

/** The form fields a refusal names, so the form shows it next to the field. */
export type KnowledgeFormField = "source" | "file" | "url" | "text_content" | "name" | "description" | "metadata" | "query" | "max_results" | "search_type";

/** The add form's outcome: ActionState, and the field a refusal is about. */
export interface ContentFormState extends ActionState {
  field?: KnowledgeFormField;
}

/** One hit of the page's search, as the results list shows it (plain data). */
export interface SearchHitView {
  id: string;
  contentId: string | null;
  /** The content's name when its chunks were made. */
  name: string | null;
  /** Its number within the content, from 1 (`metadata.chunk`), when the chunker recorded one. */
  chunk: number | null;
  content: string;
  /** Grows with relevance: cosine similarity, text rank or fused rank; null when the store gave none. */
  score: number | null;
}

/** The search form's outcome: ActionState, the hits and how they were found. */
export interface SearchState extends ActionState {
  field?: KnowledgeFormField;
  hits?: SearchHitView[];
  searchType?: SearchType;
  query?: string;
}

class FormIssue extends Error {
  constructor(
    readonly field: KnowledgeFormField,
    message: string,
  ) {
    super(message);
  }
}

const text = z.string().optional();
const blank = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

/** Refuses a caller without the knowledge scope an action needs (403). */
function requireScope(principal: Principal, scope: "knowledge:read" | "knowledge:write" | "knowledge:delete"): void {
  if (!hasScope(principal, scope)) throw new PermissionError(`Insufficient permissions. Required scope(s): ${scope}`);
}

/** The base the form names (hidden field), or the only/first one; an unknown id is a 404. */
function baseOf(db: Db, settings: Settings, id: string | undefined): KnowledgeBase {
  const base = dashboardKnowledgeBase(db, settings, blank(id));
  if (!base) throw new NotFoundError(`Knowledge base '${id}' not found.`);
  return base;
}

/** One http(s) address (the form's URL field); any other scheme or text is refused naming it. */
function urlOf(value: string | undefined): string | undefined {
  const url = blank(value);
  if (url === undefined) return undefined;
  let parsed: URL | null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) throw new FormIssue("url", `'${url}' is not an http(s) URL: give an address starting with http:// or https://.`);
  return url;
}

/** The metadata field: a JSON object, or nothing. */
function metadataOf(value: string | undefined): Record<string, unknown> | null {
  const raw = blank(value);
  if (raw === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new FormIssue("metadata", 'metadata is not JSON: write an object such as {"topic": "tents"}.');
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new FormIssue("metadata", 'metadata must be a JSON object, such as {"topic": "tents"}.');
  return parsed as Record<string, unknown>;
}

const ContentFormFields = z.object({
  knowledge_id: text,
  file: z.instanceof(File).optional(),
  url: text,
  text_content: text,
  name: z.string().max(255, "at most 255 characters").optional(),
  description: z.string().max(1000, "at most 1000 characters").optional(),
  metadata: text,
});

export const submitContentAction = defineDashboardAction({
  name: "submitContent",
  access: "signed-in",
  input: ContentFormFields,
  revalidate: KNOWLEDGE_PAGE,
  async handler({ input, principal, scope, db, settings }): Promise<ContentFormState> {
    requireScope(principal, "knowledge:write");
    const base = baseOf(db, settings, input.knowledge_id);
    try {
      const file = input.file && input.file.size > 0 ? input.file : undefined;
      const url = urlOf(input.url);
      const pasted = input.text_content !== undefined && input.text_content.trim() !== "" ? input.text_content : undefined;
      const metadata = metadataOf(input.metadata);
      if (!file && url === undefined && pasted === undefined) {
        throw new FormIssue("source", "Nothing to add: choose a file, enter a URL or paste some text.");
      }
      if (file && file.size > settings.limits.maxUploadBytes) {
        return { ok: false, status: 413, field: "file", error: `${file.name} is larger than the upload limit of ${settings.limits.maxUploadBytes} bytes.` };
      }
      const source: ContentSource = file
        ? { file: { bytes: new Uint8Array(await file.arrayBuffer()), filename: file.name || null, mimeType: file.type || null } }
        : url !== undefined
          ? { url }
          : { text: pasted! };
      const { content, created } = await submitContent({
        db,
        settings,
        base,
        scope,
        submission: { source, name: blank(input.name) ?? null, description: blank(input.description) ?? null, metadata },
      });
      return created ? { ok: true, message: `Added “${content.name}”: it is being processed.` } : { ok: true, message: `“${content.name}” was already added (${content.status}); nothing changed.` };
    } catch (error) {
      if (error instanceof FormIssue) return { ok: false, status: 422, field: error.field, error: error.message };
      if (error instanceof QueueFullError) return { ok: false, status: 429, error: "The job queue is full; try again in a moment." };
      throw error;
    }
  },
});

export const deleteContentAction = defineDashboardAction({
  name: "deleteContent",
  access: "signed-in",
  input: z.object({ knowledge_id: text, contentId: z.string({ error: "say which content" }).min(1, "say which content") }),
  revalidate: KNOWLEDGE_PAGE,
  async handler({ input, principal, scope, db, settings }) {
    requireScope(principal, "knowledge:delete");
    const base = baseOf(db, settings, input.knowledge_id);
    const content = await getContent(db, { scope, id: input.contentId, linkedTo: base.name });
    if (!content) throw new NotFoundError(`Content ${input.contentId} was not found (it may have been deleted).`);
    if (!canChangeContent(scope, content)) throw new PermissionError("Shared contents can be deleted by admins only.");
    try {
      const deleted = await deleteStoredContents(base, { scope, ids: [content.id] });
      if (deleted.length === 0) throw new NotFoundError(`Content ${input.contentId} was not found (it may have been deleted).`);
    } catch (error) {
      const problem = storeProblem(error);
      if (problem) return problem;
      throw error;
    }
    return { ok: true, message: `Deleted “${content.name}”.` };
  },
});

/** What a store or embedder refusal means to the person searching: the message naming the fix, with the API's status. */
function storeProblem(error: unknown): ActionState | null {
  if (error instanceof VectorTableMigrationError || error instanceof EmbedderDimensionsError) return { ok: false, status: 409, error: error.message };
  if (error instanceof VectorExtensionMissingError) return { ok: false, status: 503, error: error.message };
  if (error instanceof KnowledgeSearchError) return { ok: false, status: 400, error: error.message };
  if (error instanceof EmbedderError) return { ok: false, status: 502, error: `The embedder failed: ${error.message}` };
  // The AI SDK's errors (the embedder's server unreachable or refusing): the query could not be embedded.
  if (error instanceof Error && error.name.startsWith("AI_")) {
    return { ok: false, status: 502, error: `The embedder could not embed the query (${error.message}); search by keyword until it is reachable.` };
  }
  return null;
}

const SearchFormFields = z.object({
  knowledge_id: text,
  query: text,
  search_type: text,
  max_results: text,
});

export const searchKnowledgeAction = defineDashboardAction({
  name: "searchKnowledge",
  access: "signed-in",
  input: SearchFormFields,
  async handler({ input, principal, scope, db, settings }): Promise<SearchState> {
    requireScope(principal, "knowledge:read");
    const base = baseOf(db, settings, input.knowledge_id);
    const query = input.query?.trim() ?? "";
    if (query === "") return { ok: false, status: 422, field: "query", error: "Write what to search for." };
    const requested = blank(input.search_type);
    if (requested !== undefined && !(SEARCH_TYPES as readonly string[]).includes(requested)) {
      return { ok: false, status: 422, field: "search_type", error: `search type must be one of ${SEARCH_TYPES.join(", ")}.` };
    }
    const rawMax = blank(input.max_results);
    const maxResults = rawMax === undefined ? undefined : /^\d+$/.test(rawMax) ? Number(rawMax) : Number.NaN;
    if (maxResults !== undefined && !(Number.isInteger(maxResults) && maxResults >= 1 && maxResults <= MAX_SEARCH_RESULTS)) {
      return { ok: false, status: 422, field: "max_results", error: `max results must be a whole number from 1 to ${MAX_SEARCH_RESULTS}.` };
    }
    try {
      const result = await base.search({ scope, query, searchType: requested as SearchType | undefined, maxResults });
      const hits: SearchHitView[] = result.hits.map((hit) => ({
        id: hit.id,
        contentId: hit.contentId,
        name: hit.name,
        chunk: typeof hit.metadata.chunk === "number" ? hit.metadata.chunk : null,
        content: hit.content,
        score: Number.isFinite(hit.score) ? hit.score : null,
      }));
      return { ok: true, message: `${hits.length} ${hits.length === 1 ? "result" : "results"} (${result.searchType} search).`, hits, searchType: result.searchType, query };
    } catch (error) {
      const problem = storeProblem(error);
      if (problem) return { ...problem, query };
      throw error;
    }
  },
});
