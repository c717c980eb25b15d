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

/** sqlite-vec answers at most this many neighbours per KNN query. */
const MAX_KNN = 4096;

const vectorBlob = (embedding: readonly number[]): Buffer => Buffer.from(new Float32Array(embedding).buffer);

/**
 * A knowledge base's chunks in SQLite: the same columns as the PostgreSQL table (JSON as text,
 * timestamps as ISO text), plus two tables kept beside it —
 * - `<table>_vec`, a sqlite-vec `vec0` table (rowid = the chunk's rowid) whose `owner` partition
 *   key is the chunk's user ('' for shared), so a member's KNN query scans only its partition and
 *   the shared one;
 * - `<table>_fts`, an FTS5 index of the text (porter stemming) kept in step by triggers.
 * A search with metadata filters scans the owner's rows exactly (vec_distance_cosine) instead of
 * the KNN index, so the filters are in the query too.
 */
export function sqliteStore(db: Db, table: string): VectorStore {
  const t = quoteIdentifier(table);
  const vec = quoteIdentifier(`${table}_vec`);
  const fts = quoteIdentifier(`${table}_fts`);

  // The table's shape (columns, vector length) is read once and forgotten whenever this store changes it.
  let known: Omit<StoreInfo, "chunks"> | undefined;
  const shape = async (): Promise<Omit<StoreInfo, "chunks">> => {
    if (known) return known;
    const columns = await db.sql.query<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, [table]);
    if (columns.length === 0) return { exists: false, dimensions: null, hasOwnerColumn: true };
    const [vecTable] = await db.sql.query<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?", [`${table}_vec`]);
    const dimensions = vecTable ? Number(/float\[(\d+)\]/i.exec(vecTable.sql)?.[1] ?? 0) || null : null;
    known = { exists: true, dimensions, hasOwnerColumn: columns.some((c) => c.name === "user_id") };
    return known;
  };
  const info = async (): Promise<StoreInfo> => {
    const current = await shape();
    if (!current.exists) return { ...current, chunks: 0 };
    const [count] = await db.sql.query<{ n: number }>(`SELECT count(*) AS n FROM ${t}`);
    return { ...current, chunks: Number(count?.n ?? 0) };
  };

  const ownerClause = async (search: StoreSearch, column: string) => {
    const owner = searchOwnerSql(search.scope, column);
    if (owner.userId !== undefined && !(await shape()).hasOwnerColumn) throw new VectorTableMigrationError(table);
    return owner;
  };

  const filterClause = (search: StoreSearch, column: string) => {
    const entries = Object.entries(search.filters ?? {});
    if (entries.length === 0) return { clause: "1=1", params: [] as unknown[] };
    // Each key must hold the value: scalars compare as SQL values, objects and arrays as JSON.
    const parts = entries.map(([_key, value]) => (value !== null && typeof value === "object" ? `json(json_extract(${column}, ?)) = json(?)` : `json_extract(${column}, ?) = ?`));
    const params = entries.flatMap(([key, value]) => [
      `$."${key.replace(/"/g, '""')}"`,
      value !== null && typeof value === "object" ? JSON.stringify(value) : typeof value === "boolean" ? (value ? 1 : 0) : value,
    ]);
    return { clause: parts.join(" AND "), params };
  };

  const toHit = (row: Record<string, unknown>): ChunkHit => ({
    id: String(row.id),
    name: (row.name as string | null) ?? null,
    content: String(row.content ?? ""),
    metadata: parseObject(row.meta_data) ?? {},
    contentId: (row.content_id as string | null) ?? null,
    userId: (row.user_id as string | null | undefined) ?? null,
    usage: parseObject(row.usage),
    score: Number(row.score),
  });

  const vecTableStatement = (dimensions: number): Statement => ({
    text: `CREATE VIRTUAL TABLE IF NOT EXISTS ${vec} USING vec0(owner text partition key, embedding float[${dimensions}] distance_metric=cosine)`,
  });

  /** The columns a search returns; a table without the owner column reports every chunk shared. */
  const columns = async () => `c.id, c.name, c.meta_data, c.content, c.content_id, c.usage, ${(await shape()).hasOwnerColumn ? "c.user_id" : "NULL AS user_id"}`;

  return {
    table,
    dialect: "sqlite",
    info,
    async ensure(dimensions) {
      known = undefined;
      const current = await info();
      if (!current.exists) {
        await db.sql.batch([
          {
            text: `CREATE TABLE IF NOT EXISTS ${t} (
              id TEXT PRIMARY KEY, name TEXT, meta_data TEXT DEFAULT '{}', filters TEXT DEFAULT '{}', content TEXT, usage TEXT,
              created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), updated_at TEXT, content_hash TEXT, content_id TEXT, user_id TEXT)`,
          },
          ...["name", "content_hash", "content_id", "user_id"].map((column) => ({
            text: `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`idx_${table}_${column}`)} ON ${t} (${column})`,
          })),
          { text: `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(content, content=${t}, content_rowid='rowid', tokenize='porter unicode61')` },
          { text: `CREATE TRIGGER IF NOT EXISTS ${quoteIdentifier(`${table}_fts_ai`)} AFTER INSERT ON ${t} BEGIN INSERT INTO ${fts}(rowid, content) VALUES (new.rowid, new.content); END` },
          {
            text: `CREATE TRIGGER IF NOT EXISTS ${quoteIdentifier(`${table}_fts_ad`)} AFTER DELETE ON ${t} BEGIN INSERT INTO ${fts}(${fts}, rowid, content) VALUES ('delete', old.rowid, old.content); END`,
          },
          {
            text: `CREATE TRIGGER IF NOT EXISTS ${quoteIdentifier(`${table}_fts_au`)} AFTER UPDATE OF content ON ${t} BEGIN
                     INSERT INTO ${fts}(${fts}, rowid, content) VALUES ('delete', old.rowid, old.content);
                     INSERT INTO ${fts}(rowid, content) VALUES (new.rowid, new.content); END`,
          },
          ...(dimensions ? [vecTableStatement(dimensions)] : []),
        ]);
        return;
      }
      if (dimensions === null || current.dimensions === dimensions) return;
      // As on PostgreSQL: another length (or none) is taken only while the table holds no chunk.
      if (current.chunks > 0) throw new EmbedderDimensionsError(table, current.dimensions ?? 0, dimensions);
      await this.resetVectors(dimensions);
    },
    async addOwnerColumn() {
      known = undefined;
      const current = await shape();
      if (!current.exists || current.hasOwnerColumn) return false;
      await db.sql.batch([{ text: `ALTER TABLE ${t} ADD COLUMN user_id TEXT` }, { text: `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`idx_${table}_user_id`)} ON ${t} (user_id)` }]);
      known = undefined;
      return true;
    },
    // FTS5 keeps its own index of the text (the table's triggers).
    addKeywordColumn: async () => false,
    async replaceContent(contentId, chunks) {
      const current = await shape();
      if (!current.hasOwnerColumn && chunks.some((c) => c.userId !== null)) throw new VectorTableMigrationError(table);
      const withVectors = current.dimensions !== null;
      const statements: Statement[] = [
        ...(withVectors ? [{ text: `DELETE FROM ${vec} WHERE rowid IN (SELECT rowid FROM ${t} WHERE content_id = ?)`, params: [contentId] }] : []),
        { text: `DELETE FROM ${t} WHERE content_id = ?`, params: [contentId] },
      ];
      for (const c of chunks) {
        statements.push({
          text: `INSERT INTO ${t} (id, name, meta_data, filters, content, usage, content_hash, content_id${current.hasOwnerColumn ? ", user_id" : ""})
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?${current.hasOwnerColumn ? ", ?" : ""})`,
          params: [c.id, c.name, c.metadata, c.filters, c.content, c.usage, c.contentHash, c.contentId, ...(current.hasOwnerColumn ? [c.userId] : [])],
        });
        if (withVectors && c.embedding) {
          statements.push({ text: `INSERT INTO ${vec} (rowid, owner, embedding) SELECT rowid, coalesce(user_id, ''), ? FROM ${t} WHERE id = ?`, params: [vectorBlob(c.embedding), c.id] });
        }
      }
      await db.sql.batch(statements);
    },
    async deleteContents(contentIds) {
      if (contentIds.length === 0) return;
      const ids = JSON.stringify(contentIds);
      const withVectors = (await shape()).dimensions !== null;
      await db.sql.batch([
        ...(withVectors ? [{ text: `DELETE FROM ${vec} WHERE rowid IN (SELECT rowid FROM ${t} WHERE content_id IN (SELECT value FROM json_each(?)))`, params: [ids] }] : []),
        { text: `DELETE FROM ${t} WHERE content_id IN (SELECT value FROM json_each(?))`, params: [ids] },
      ]);
    },
    async contentIdsOf({ userId, filters }) {
      const current = await info();
      return current.exists && current.hasOwnerColumn ? ownedContentIds(db, t, userId, filterClause({ filters } as StoreSearch, "meta_data")) : [];
    },
    async vectorSearch(embedding, search) {
      const limit = Math.min(MAX_KNN, Math.max(1, Math.floor(search.limit)));
      const filters = filterClause(search, "c.meta_data");
      if (filters.params.length > 0) {
        const owner = await ownerClause(search, "c.user_id");
        const rows = await db.sql.query(
          `SELECT ${await columns()}, 1 - vec_distance_cosine(v.embedding, ?) AS score FROM ${t} c JOIN ${vec} v ON v.rowid = c.rowid
           WHERE ${owner.clause} AND ${filters.clause} ORDER BY score DESC LIMIT ?`,
          [vectorBlob(embedding), ...owner.params, ...filters.params, limit],
        );
        return rows.map(toHit);
      }
      const owner = await ownerClause(search, "c.user_id");
      // The partition key takes the owner condition into the KNN scan itself.
      const partitions =
        owner.userId === undefined
          ? { clause: "", params: [] as unknown[] }
          : owner.userId === null
            ? { clause: "AND owner = ''", params: [] }
            : { clause: "AND owner IN (?, '')", params: [owner.userId] };
      const rows = await db.sql.query(
        `WITH knn AS (SELECT rowid, distance FROM ${vec} WHERE embedding MATCH ? AND k = ? ${partitions.clause})
         SELECT ${await columns()}, 1 - knn.distance AS score FROM knn JOIN ${t} c ON c.rowid = knn.rowid ORDER BY knn.distance LIMIT ?`,
        [vectorBlob(embedding), limit, ...partitions.params, limit],
      );
      return rows.map(toHit);
    },
    async keywordSearch(query, search) {
      const words = queryWords(query);
      if (words.length === 0) return [];
      const owner = await ownerClause(search, "c.user_id");
      const filters = filterClause(search, "c.meta_data");
      // Any of the words (OR), ranked by BM25 (smaller is better, so the score is its negation).
      const match = words.map((w) => `"${w}"`).join(" OR ");
      const rows = await db.sql.query(
        `SELECT ${await columns()}, -bm25(${fts}) AS score FROM ${fts} JOIN ${t} c ON c.rowid = ${fts}.rowid
         WHERE ${fts} MATCH ? AND ${owner.clause} AND ${filters.clause} ORDER BY bm25(${fts}), c.id LIMIT ?`,
        [match, ...owner.params, ...filters.params, Math.max(1, Math.floor(search.limit))],
      );
      return rows.map(toHit);
    },
    eachChunk: (batchSize, visit) => eachChunkOf(db, t, batchSize, visit),
    async resetVectors(dimensions) {
      known = undefined;
      await db.sql.batch([{ text: `DROP TABLE IF EXISTS ${vec}` }, vecTableStatement(dimensions)]);
      known = undefined;
    },
    async setEmbeddings(rows) {
      if (rows.length === 0) return;
      await db.sql.batch(
        rows.flatMap((r) => [
          { text: `DELETE FROM ${vec} WHERE rowid = (SELECT rowid FROM ${t} WHERE id = ?)`, params: [r.id] },
          { text: `INSERT INTO ${vec} (rowid, owner, embedding) SELECT rowid, coalesce(user_id, ''), ? FROM ${t} WHERE id = ?`, params: [vectorBlob(r.embedding), r.id] },
        ]),
      );
    },
  };
}

function parseObject(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "object") return value as Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(String(value));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
