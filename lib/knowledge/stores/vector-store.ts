import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";

/** Agno's search types (`SearchType`): by meaning, by words, or both fused. */
export const SEARCH_TYPES = ["vector", "keyword", "hybrid"] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** One chunk as a knowledge base stores it (a row of its chunk table, Agno's PgVector layout). */
export interface ChunkRecord {
  id: string;
  /** The content's name (Agno's document name). */
  name: string | null;
  content: string;
  /** Reader and chunker metadata plus the content's own (Agno's `meta_data`). */
  metadata: Record<string, unknown>;
  /** The content's user metadata (Agno's `filters` column). */
  filters: Record<string, unknown> | null;
  contentId: string;
  contentHash: string;
  /** The owner; null is shared with every user. */
  userId: string | null;
  /** Null when no embedder is configured (keyword search only). */
  embedding: number[] | null;
  usage: Record<string, unknown> | null;
}

/** A chunk a search found. `score` grows with relevance (cosine similarity, text rank, or fused rank). */
export interface ChunkHit {
  id: string;
  name: string | null;
  content: string;
  metadata: Record<string, unknown>;
  contentId: string | null;
  userId: string | null;
  usage: Record<string, unknown> | null;
  score: number;
}

export interface StoreSearch {
  /** Whose chunks: a member sees its own and the shared ones; an admin everyone's or one user's (plus shared). */
  scope: DataScope;
  limit: number;
  /** Metadata every hit must contain (`meta_data @> filters`). */
  filters?: Record<string, unknown>;
}

/** What a store reports about its table. */
export interface StoreInfo {
  exists: boolean;
  /** The vector length the table holds; null when it holds no vectors (keyword only) or does not exist. */
  dimensions: number | null;
  /** False for a table created before per-user isolation (Agno 2.x): it has no user_id column. */
  hasOwnerColumn: boolean;
  chunks: number;
}

/**
 * Where a knowledge base's chunks live and are searched: the database holding the rows does the
 * search, with the owner filter inside the query (never applied to fetched rows).
 */
export interface VectorStore {
  readonly table: string;
  readonly dialect: "sqlite" | "postgres";
  info(): Promise<StoreInfo>;
  /**
   * Creates the table and its indexes if missing, for vectors of `dimensions` (null: none). An
   * existing table holding another length is EmbedderDimensionsError; an empty one is re-typed.
   */
  ensure(dimensions: number | null): Promise<void>;
  /** Adds the owner column to a table created before per-user isolation (existing rows become shared). */
  addOwnerColumn(): Promise<boolean>;
  /** Stores the keyword search's text in its own indexed column where the store has one (PostgreSQL); false when nothing changed. */
  addKeywordColumn(): Promise<boolean>;
  /** Replaces a content's chunks with these, in one transaction. */
  replaceContent(contentId: string, chunks: readonly ChunkRecord[]): Promise<void>;
  deleteContents(contentIds: readonly string[]): Promise<void>;
  /** The ids of the contents whose chunks one owner holds (null: the shared ones) with metadata containing `filters`. */
  contentIdsOf(owner: { userId: string | null; filters: Record<string, unknown> }): Promise<string[]>;
  /** Nearest chunks by cosine distance, best first. */
  vectorSearch(embedding: readonly number[], search: StoreSearch): Promise<ChunkHit[]>;
  /** Chunks matching any of the query's words, best first. */
  keywordSearch(query: string, search: StoreSearch): Promise<ChunkHit[]>;
  /** Every chunk's id and text in batches (re-embedding). */
  eachChunk(batchSize: number, visit: (chunks: { id: string; content: string }[]) => Promise<void>): Promise<void>;
  /** Drops the vectors and re-types the table for `dimensions` (re-embedding writes them back). */
  resetVectors(dimensions: number): Promise<void>;
  setEmbeddings(rows: readonly { id: string; embedding: number[] }[]): Promise<void>;
}

/** The table holds vectors of another length than the embedder makes. */
export class EmbedderDimensionsError extends Error {
  override readonly name = "EmbedderDimensionsError";
  /** `stored` 0: the table holds chunks stored without vectors (no embedder was configured then). */
  constructor(table: string, stored: number, configured: number) {
    super(
      `${stored > 0 ? `Knowledge table '${table}' holds ${stored}-dimension vectors` : `Knowledge table '${table}' holds chunks stored without vectors`} but the embedder makes ${configured}-dimension ones. ` +
        "Run `npx agentry knowledge reembed` to re-embed every chunk with the configured embedder, or configure the embedder the table was built with.",
    );
  }
}

/** A search for one user's chunks on a table created before per-user isolation (no user_id column). */
export class VectorTableMigrationError extends Error {
  override readonly name = "VectorTableMigrationError";
  constructor(table: string) {
    super(
      `Knowledge table '${table}' predates per-user isolation and has no 'user_id' column, so it cannot be searched for one user. ` +
        "Run `npx agentry migrate`: its knowledge vectors step adds the column (existing chunks become shared).",
    );
  }
}

/** The owner condition of a search, as SQL on `column`: a member's rows and the shared ones. */
export function searchOwnerSql(scope: DataScope, column = "user_id"): { clause: string; params: unknown[]; userId: string | null | undefined } {
  const userId = scope.kind === "user" ? scope.userId : scope.userId;
  if (userId === undefined) return { clause: "1=1", params: [], userId };
  if (userId === null) return { clause: `${column} IS NULL`, params: [], userId };
  return { clause: `(${column} = ? OR ${column} IS NULL)`, params: [userId], userId };
}

/** A table or index name checked as a plain identifier (it is spliced into DDL). */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`'${name}' is not a plain SQL identifier`);
  return `"${name}"`;
}

/** The words of a keyword query: letters and digits, lower-cased, deduplicated, at most 32. */
export function queryWords(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
  return [...new Set(words)].slice(0, 32);
}

/** Visits every chunk's id and text of a table in id order, `batchSize` at a time (both dialects). */
export async function eachChunkOf(db: Db, quotedTable: string, batchSize: number, visit: (chunks: { id: string; content: string }[]) => Promise<void>): Promise<void> {
  let after = "";
  for (;;) {
    const rows = await db.sql.query<{ id: string; content: string | null }>(`SELECT id, content FROM ${quotedTable} WHERE id > ? ORDER BY id LIMIT ?`, [after, batchSize]);
    if (rows.length === 0) return;
    await visit(rows.map((r) => ({ id: r.id, content: r.content ?? "" })));
    after = rows[rows.length - 1]!.id;
  }
}

/** The ids of the contents one owner (null: shared) holds chunks of in `quotedTable`, whose metadata passes `filter` (a store's clause). */
export async function ownedContentIds(db: Db, quotedTable: string, userId: string | null, filter: { clause: string; params: unknown[] }): Promise<string[]> {
  const rows = await db.sql.query<{ content_id: string }>(
    `SELECT DISTINCT content_id FROM ${quotedTable} WHERE ${userId === null ? "user_id IS NULL" : "user_id = ?"} AND ${filter.clause} AND content_id IS NOT NULL`,
    [...(userId === null ? [] : [userId]), ...filter.params],
  );
  return rows.map((r) => r.content_id);
}
