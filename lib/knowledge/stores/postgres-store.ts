import type { Db } from "../../db/open-database.ts";
import type { Statement } from "../../db/sql.ts";
import {
  ownedContentIds,
  eachChunkOf,
  EmbedderDimensionsError,
  queryWords,
  quoteIdentifier,
  searchOwnerSql,
  VectorTableMigrationError,
  type ChunkHit,
  type StoreInfo,
  type StoreSearch,
  type VectorStore,
} from "./vector-store.ts";

/**
 * How the HNSW index of a pgvector table is built and searched (`vectorIndex` of a knowledge
 * definition). `m` and `efConstruction` apply when the index is built; `efSearch` is the candidate
 * list a search keeps at least (pgvector's default is 40; a search for more results keeps twice
 * their number, up to 1,000).
 */
export type HnswSettings = { m: number; efConstruction: number; efSearch: number };

/**
 * Defaults: `m` and `efConstruction` as Agno's `HNSW` index (16, 200). `efSearch` 800: at 100,000
 * chunks of hashing-embedder vectors bench:knowledge measured recall@10 0.85 at 200, 0.91 at 400 and
 * 0.97 at 800 (52 ms p50, 11× faster than the exact scan); pgvector's own 40 gave 0.63 (figures in
 * bench/README.md). A base may lower it (`vectorIndex.efSearch`) for vectors that cluster more.
 */
export const HNSW_DEFAULTS: HnswSettings = { m: 16, efConstruction: 200, efSearch: 800 };

/** The `hnsw.ef_search` a search for `limit` results runs with. */
export const efSearchFor = (limit: number, settings: HnswSettings = HNSW_DEFAULTS): number => Math.min(1000, Math.max(settings.efSearch, limit * 2));

/** Text search configuration of the keyword index (Agno's `content_language` default). */
const LANGUAGE = "english";
/** The keyword search's text: Agno's expression, stored in a generated column in our tables. */
const KEYWORD_EXPRESSION = `to_tsvector('${LANGUAGE}', coalesce(content, ''))`;
const KEYWORD_COLUMN = "content_tsv";

const vectorLiteral = (embedding: readonly number[]): string => `[${embedding.join(",")}]`;

/**
 * A knowledge base's chunks in PostgreSQL, in Agno's PgVector layout (so a table Agno created opens
 * as it is, and Agno can read ours): `id, name, meta_data, filters, content, embedding vector(n),
 * usage, created_at, updated_at, content_hash, content_id` and v3's `user_id` (null = shared),
 * with Agno's index names. Beyond Agno's create: the HNSW index (cosine) and the GIN index of the
 * text are made with the table, and searches turn on `hnsw.iterative_scan`, so the owner filter
 * inside the index scan still returns the requested number of hits for a user holding a sliver of
 * the rows.
 */
export function postgresStore(db: Db, table: string, hnsw: Partial<HnswSettings> = {}): VectorStore {
  const index: HnswSettings = { ...HNSW_DEFAULTS, ...hnsw };
  const t = quoteIdentifier(table);
  const hnswIndex = quoteIdentifier(`${table}_hnsw_index`);
  const ginIndex = quoteIdentifier(`${table}_content_gin_index`);
  const keywordIndex = quoteIdentifier(`${table}_content_tsv_index`);
  let ownerColumn: boolean | undefined;
  let keywordColumn: boolean | undefined;

  const info = async (): Promise<StoreInfo> => {
    const columns = await db.sql.query<{ column_name: string; typmod: number; udt: string }>(
      `SELECT a.attname AS column_name, a.atttypmod AS typmod, format_type(a.atttypid, NULL) AS udt
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relname = ? AND n.nspname = current_schema() AND a.attnum > 0 AND NOT a.attisdropped`,
      [table],
    );
    if (columns.length === 0) return { exists: false, dimensions: null, hasOwnerColumn: true, chunks: 0 };
    const embedding = columns.find((c) => c.column_name === "embedding");
    ownerColumn = columns.some((c) => c.column_name === "user_id");
    keywordColumn = columns.some((c) => c.column_name === KEYWORD_COLUMN);
    const [count] = await db.sql.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${t}`);
    return { exists: true, dimensions: embedding && embedding.typmod > 0 ? embedding.typmod : null, hasOwnerColumn: ownerColumn, chunks: Number(count?.n ?? 0) };
  };

  const hasOwnerColumn = async (): Promise<boolean> => ownerColumn ?? (await info()).hasOwnerColumn;

  /**
   * The text searched by keyword: the stored `content_tsv` column where the table has it (made
   * with the table, or added by `npx agentry migrate`), else the same expression computed per row
   * (a table Agno created), which its GIN index finds but ts_rank must parse again for every match.
   */
  const keywordText = async (): Promise<string> => {
    if (keywordColumn === undefined) await info();
    return keywordColumn ? KEYWORD_COLUMN : KEYWORD_EXPRESSION;
  };

  /** The owner clause of a search; a user's search on a pre-v3 table is refused, never answered empty. */
  const ownerClause = async (search: StoreSearch) => {
    const owner = searchOwnerSql(search.scope);
    if (owner.userId !== undefined && !(await hasOwnerColumn())) throw new VectorTableMigrationError(table);
    return owner;
  };

  const filterClause = (search: StoreSearch) =>
    search.filters && Object.keys(search.filters).length > 0 ? { clause: "meta_data @> ?::jsonb", params: [JSON.stringify(search.filters)] } : { clause: "1=1", params: [] as unknown[] };

  const toHit = (row: Record<string, unknown>): ChunkHit => ({
    id: String(row.id),
    name: (row.name as string | null) ?? null,
    content: String(row.content ?? ""),
    metadata: (row.meta_data as Record<string, unknown> | null) ?? {},
    contentId: (row.content_id as string | null) ?? null,
    userId: (row.user_id as string | null | undefined) ?? null,
    usage: (row.usage as Record<string, unknown> | null) ?? null,
    score: Number(row.score),
  });

  const indexStatements = (dimensions: number | null, withKeywordColumn: boolean): Statement[] => [
    ...["id", "name", "content_hash", "content_id", "user_id"].map((column) => ({
      text: `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`idx_${table}_${column}`)} ON ${t} (${column})`,
    })),
    withKeywordColumn
      ? { text: `CREATE INDEX IF NOT EXISTS ${keywordIndex} ON ${t} USING gin (${KEYWORD_COLUMN})` }
      : { text: `CREATE INDEX IF NOT EXISTS ${ginIndex} ON ${t} USING gin (${KEYWORD_EXPRESSION})` },
    ...(dimensions ? [{ text: `CREATE INDEX IF NOT EXISTS ${hnswIndex} ON ${t} USING hnsw (embedding vector_cosine_ops) WITH (m = ${index.m}, ef_construction = ${index.efConstruction})` }] : []),
  ];

  const selectColumns = async () => `id, name, meta_data, content, content_id, usage${(await hasOwnerColumn()) ? ", user_id" : ""}`;

  return {
    table,
    dialect: "postgres",
    info,
    async ensure(dimensions) {
      await ensureVectorExtension(db);
      const current = await info();
      if (!current.exists) {
        const vectorType = dimensions ? `vector(${dimensions})` : "vector";
        await db.sql.batch([
          {
            text: `CREATE TABLE IF NOT EXISTS ${t} (
              id varchar PRIMARY KEY, name varchar, meta_data jsonb DEFAULT '{}'::jsonb, filters jsonb DEFAULT '{}'::jsonb,
              content text, embedding ${vectorType}, usage jsonb, created_at timestamptz DEFAULT now(), updated_at timestamptz,
              content_hash varchar, content_id varchar, user_id varchar,
              ${KEYWORD_COLUMN} tsvector GENERATED ALWAYS AS (${KEYWORD_EXPRESSION}) STORED)`,
          },
          ...indexStatements(dimensions, true),
        ]);
        ownerColumn = true;
        keywordColumn = true;
        return;
      }
      if (dimensions === null || current.dimensions === dimensions) {
        if (current.hasOwnerColumn) await db.sql.batch(indexStatements(current.dimensions, keywordColumn === true));
        return;
      }
      // A table of another length (or of none: chunks stored without an embedder) takes the new
      // length only while it holds no chunk; otherwise its chunks must be embedded again.
      if (current.chunks > 0) throw new EmbedderDimensionsError(table, current.dimensions ?? 0, dimensions);
      await this.resetVectors(dimensions);
    },
    async addOwnerColumn() {
      const current = await info();
      if (!current.exists || current.hasOwnerColumn) return false;
      await db.sql.batch([{ text: `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS user_id varchar` }, { text: `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`idx_${table}_user_id`)} ON ${t} (user_id)` }]);
      ownerColumn = true;
      return true;
    },
    async addKeywordColumn() {
      const current = await info();
      if (!current.exists || keywordColumn) return false;
      // Rewrites the table once (the column is stored); the expression index it replaces goes.
      await db.sql.batch([
        { text: `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${KEYWORD_COLUMN} tsvector GENERATED ALWAYS AS (${KEYWORD_EXPRESSION}) STORED` },
        { text: `CREATE INDEX IF NOT EXISTS ${keywordIndex} ON ${t} USING gin (${KEYWORD_COLUMN})` },
        { text: `DROP INDEX IF EXISTS ${ginIndex}` },
      ]);
      keywordColumn = true;
      return true;
    },
    async replaceContent(contentId, chunks) {
      const owned = await hasOwnerColumn();
      if (!owned && chunks.some((c) => c.userId !== null)) throw new VectorTableMigrationError(table);
      const statements: Statement[] = [{ text: `DELETE FROM ${t} WHERE content_id = ?`, params: [contentId] }];
      const columns = `id, name, meta_data, filters, content, embedding, usage, content_hash, content_id${owned ? ", user_id" : ""}`;
      // One multi-row INSERT per 100 chunks (Agno's batch size).
      for (let i = 0; i < chunks.length; i += 100) {
        const batch = chunks.slice(i, i + 100);
        const row = `(?, ?, ?::jsonb, ?::jsonb, ?, ?::vector, ?::jsonb, ?, ?${owned ? ", ?" : ""})`;
        statements.push({
          text: `INSERT INTO ${t} (${columns}) VALUES ${batch.map(() => row).join(", ")}
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, meta_data = excluded.meta_data, filters = excluded.filters,
                   content = excluded.content, embedding = excluded.embedding, usage = excluded.usage, content_hash = excluded.content_hash,
                   content_id = excluded.content_id, updated_at = now()${owned ? ", user_id = excluded.user_id" : ""}`,
          params: batch.flatMap((c) => [
            c.id,
            c.name,
            JSON.stringify(c.metadata),
            c.filters === null ? null : JSON.stringify(c.filters),
            c.content,
            c.embedding ? vectorLiteral(c.embedding) : null,
            c.usage === null ? null : JSON.stringify(c.usage),
            c.contentHash,
            c.contentId,
            ...(owned ? [c.userId] : []),
          ]),
        });
      }
      await db.sql.batch(statements);
    },
    async deleteContents(contentIds) {
      if (contentIds.length === 0) return;
      await db.sql.exec(`DELETE FROM ${t} WHERE content_id IN (SELECT jsonb_array_elements_text(?::jsonb))`, [contentIds]);
    },
    async contentIdsOf({ userId, filters }) {
      const current = await info();
      return current.exists && current.hasOwnerColumn ? ownedContentIds(db, t, userId, filterClause({ filters } as StoreSearch)) : [];
    },
    async vectorSearch(embedding, search) {
      const owner = await ownerClause(search);
      const filters = filterClause(search);
      const limit = Math.max(1, Math.floor(search.limit));
      const efSearch = efSearchFor(limit, index);
      // relaxed_order lets the scan go on past ef_search until enough rows pass the filters; the
      // materialized CTE's outer ORDER BY puts the few out-of-order hits back in order.
      const [, , rows] = await db.sql.batchRows([
        { text: "SET LOCAL hnsw.iterative_scan = relaxed_order" },
        { text: `SET LOCAL hnsw.ef_search = ${efSearch}` },
        {
          text: `WITH hits AS MATERIALIZED (
                   SELECT ${await selectColumns()}, embedding <=> ?::vector AS distance FROM ${t}
                   WHERE embedding IS NOT NULL AND ${owner.clause} AND ${filters.clause}
                   ORDER BY distance LIMIT ?)
                 SELECT *, 1 - distance AS score FROM hits ORDER BY distance`,
          params: [vectorLiteral(embedding), ...owner.params, ...filters.params, limit],
        },
      ]);
      return (rows ?? []).map(toHit);
    },
    async keywordSearch(query, search) {
      const words = queryWords(query);
      if (words.length === 0) return [];
      const owner = await ownerClause(search);
      const filters = filterClause(search);
      // Any of the words (OR): a question rarely holds only a document's words. Ranked by term
      // frequency over 1 + log(length) (normalization 1), so a long chunk does not win by size.
      const tsquery = words.map((w) => `'${w.replace(/'/g, "''")}'`).join(" | ");
      const text = await keywordText();
      const rows = await db.sql.query(
        `SELECT ${await selectColumns()}, ts_rank(${text}, q, 1) AS score
         FROM ${t}, to_tsquery('${LANGUAGE}', ?) AS q
         WHERE ${text} @@ q AND ${owner.clause} AND ${filters.clause}
         ORDER BY score DESC, id LIMIT ?`,
        [tsquery, ...owner.params, ...filters.params, Math.max(1, Math.floor(search.limit))],
      );
      return rows.map(toHit);
    },
    eachChunk: (batchSize, visit) => eachChunkOf(db, t, batchSize, visit),
    async resetVectors(dimensions) {
      await db.sql.batch([
        { text: `DROP INDEX IF EXISTS ${hnswIndex}` },
        { text: `ALTER TABLE ${t} ALTER COLUMN embedding TYPE vector(${dimensions}) USING NULL` },
        ...indexStatements(dimensions, (await keywordText()) === KEYWORD_COLUMN),
      ]);
    },
    async setEmbeddings(rows) {
      if (rows.length === 0) return;
      await db.sql.exec(
        `UPDATE ${t} AS c SET embedding = v.embedding::vector, updated_at = now()
         FROM jsonb_to_recordset(?::jsonb) AS v(id varchar, embedding text) WHERE c.id = v.id`,
        [rows.map((r) => ({ id: r.id, embedding: vectorLiteral(r.embedding) }))],
      );
    },
  };
}

/** pgvector must be installed in the server; CREATE EXTENSION is a no-op when it already is. */
export class VectorExtensionMissingError extends Error {
  override readonly name = "VectorExtensionMissingError";
}

let extensionChecked = new WeakSet<Db>();

async function ensureVectorExtension(db: Db): Promise<void> {
  if (extensionChecked.has(db)) return;
  const [present] = await db.sql.query<{ n: number }>("SELECT count(*)::bigint AS n FROM pg_extension WHERE extname = 'vector'");
  if (Number(present?.n ?? 0) === 0) {
    const [available] = await db.sql.query<{ n: number }>("SELECT count(*)::bigint AS n FROM pg_available_extensions WHERE name = 'vector'");
    if (Number(available?.n ?? 0) === 0) {
      throw new VectorExtensionMissingError(
        "Knowledge on PostgreSQL needs the pgvector extension ('vector'), which this server does not have: install pgvector (managed PostgreSQL services offer it) and restart.",
      );
    }
    // Two processes creating it at once: the loser's unique violation means it now exists.
    await db.sql.exec("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public").catch(async (error) => {
      const [now] = await db.sql.query<{ n: number }>("SELECT count(*)::bigint AS n FROM pg_extension WHERE extname = 'vector'");
      if (Number(now?.n ?? 0) === 0) throw error;
    });
  }
  extensionChecked.add(db);
}

/** Forgets which databases were checked (tests that drop the extension). */
export function resetVectorExtensionCheck(): void {
  extensionChecked = new WeakSet<Db>();
}
