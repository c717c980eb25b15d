import type { KnowledgeDefinition, EmbedderSpec } from "../config/define.ts";
import { DEFAULT_VECTOR_TABLE } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { createEmbedder, type Embedder } from "./embedder.ts";
import { reciprocalRankFusion } from "./fusion.ts";
import { rerank } from "./reranker.ts";
import { postgresStore } from "./stores/postgres-store.ts";
import { sqliteStore } from "./stores/sqlite-store.ts";
import type { ChunkHit, SearchType, VectorStore } from "./stores/vector-store.ts";

/** A search that cannot run as asked (vector search without an embedder): a 400 naming the fix. */
export class KnowledgeSearchError extends Error {
  override readonly name = "KnowledgeSearchError";
}

export interface KnowledgeSearchRequest {
  scope: DataScope;
  query: string;
  /** Default: the base's maxResults (10). */
  maxResults?: number;
  filters?: Record<string, unknown>;
  searchType?: SearchType;
  signal?: AbortSignal;
}

export interface KnowledgeSearchResult {
  hits: ChunkHit[];
  searchType: SearchType;
}

/** Results a search returns unless asked otherwise (Agno's Knowledge.max_results). */
export const DEFAULT_MAX_RESULTS = 10;

/** Candidates each side of a hybrid search brings to the fusion, per result wanted. */
const HYBRID_CANDIDATES_PER_RESULT = 4;

/**
 * One knowledge base of the OS: its definition, the store of its chunks on the OS's database, and
 * the embedder (none: keyword search only). The table is created on first use (as Agno's vector
 * dbs do) for the embedder's vector length; a table holding another length refuses to open.
 */
export class KnowledgeBase {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly store: VectorStore;
  readonly embedder: Embedder | null;
  private readiness: Promise<void> | null = null;

  constructor(
    readonly db: Db,
    readonly definition: KnowledgeDefinition,
    embedderSpec: EmbedderSpec | null,
  ) {
    this.id = definition.id;
    this.name = definition.name;
    this.description = definition.description;
    const table = definition.vectorTable ?? DEFAULT_VECTOR_TABLE;
    this.store = db.dialect === "postgres" ? postgresStore(db, table, definition.vectorIndex) : sqliteStore(db, table);
    this.embedder = embedderSpec ? createEmbedder(embedderSpec) : null;
  }

  /** The search types this base can run: all three with an embedder, keyword alone without. */
  searchTypes(): SearchType[] {
    return this.embedder ? ["vector", "keyword", "hybrid"] : ["keyword"];
  }

  /** The search type used when a request names none. */
  defaultSearchType(): SearchType {
    const configured = this.definition.searchType;
    if (configured && this.searchTypes().includes(configured)) return configured;
    return this.embedder ? "hybrid" : "keyword";
  }

  /** Creates the chunk table if needed; a failure (wrong vector length, no pgvector) is thrown again to every caller until it is fixed. */
  async ready(signal?: AbortSignal): Promise<void> {
    if (!this.readiness) {
      this.readiness = (async () => this.store.ensure(this.embedder ? await this.embedder.dimensions(signal) : null))();
      this.readiness.catch(() => {
        this.readiness = null;
      });
    }
    return this.readiness;
  }

  /** Searches the chunks the scope may see; the owner filter and metadata filters run inside the store's query. */
  async search(request: KnowledgeSearchRequest): Promise<KnowledgeSearchResult> {
    const searchType = request.searchType ?? this.defaultSearchType();
    if (searchType !== "keyword" && !this.embedder) {
      throw new KnowledgeSearchError(
        `${searchType} search needs an embedder, and none is configured: set OPENAI_EMBEDDING_MODEL (with OPENAI_API_KEY) or OPENAI_COMPATIBLE_EMBEDDING_MODEL with OPENAI_COMPATIBLE_BASE_URL, or search with search_type "keyword"`,
      );
    }
    const limit = request.maxResults ?? this.definition.maxResults ?? DEFAULT_MAX_RESULTS;
    if (request.query.trim() === "") return { hits: [], searchType };
    await this.ready(request.signal);
    const base = { scope: request.scope, filters: request.filters };
    const vector = async (count: number) => {
      const [embedding] = (await this.embedder!.embed([request.query], request.signal)).embeddings;
      return this.store.vectorSearch(embedding!, { ...base, limit: count });
    };
    if (searchType === "keyword") return { hits: await this.store.keywordSearch(request.query, { ...base, limit }), searchType };
    // With a reranker, twice the results are fetched and it keeps the best `limit` of them.
    const reranker = this.definition.reranker;
    const wanted = reranker ? limit * 2 : limit;
    let hits: ChunkHit[];
    if (searchType === "vector") hits = await vector(wanted);
    else {
      const candidates = Math.max(20, wanted * HYBRID_CANDIDATES_PER_RESULT);
      const [byMeaning, byWords] = await Promise.all([vector(candidates), this.store.keywordSearch(request.query, { ...base, limit: candidates })]);
      hits = reciprocalRankFusion([byMeaning, byWords], wanted);
    }
    if (reranker) hits = (await rerank({ model: reranker, query: request.query, hits, signal: request.signal })).slice(0, limit);
    return { hits, searchType };
  }
}
