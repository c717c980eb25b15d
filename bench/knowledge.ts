/**
 * Knowledge stores at 100,000 chunks: ingest throughput, search latency, and what HNSW gives up
 * against an exact scan, on pgvector and sqlite-vec, for a user holding every row and a user
 * holding 1% of them.
 *
 *   npm run bench:knowledge                        # PostgreSQL at postgresql://postgres@127.0.0.1:5432/test and SQLite (temporary file)
 *   npm run bench:knowledge -- --chunks=20000      # a quicker run
 *          --insert-chunks=20000 --queries=200 --url=postgresql://… --keep
 *
 * See bench/README.md ("knowledge").
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { hashingEmbedding } from "../e2e/fixtures/hashing-embedder.ts";
import { startModelServer } from "../e2e/fixtures/model-server.ts";
import { openDatabase, type Db } from "../lib/db/open-database.ts";
import { unsafeSystemScope } from "../lib/db/scope.ts";
import { postgresExecutor, type Row, type Statement } from "../lib/db/sql.ts";
import { chunkRecordId, contentIdOf } from "../lib/knowledge/content-hash.ts";
import { createEmbedder } from "../lib/knowledge/embedder.ts";
import { reciprocalRankFusion } from "../lib/knowledge/fusion.ts";
import { postgresStore } from "../lib/knowledge/stores/postgres-store.ts";
import { sqliteStore } from "../lib/knowledge/stores/sqlite-store.ts";
import type { ChunkHit, ChunkRecord, VectorStore } from "../lib/knowledge/stores/vector-store.ts";
import { corpusChunk, queryTexts } from "./knowledge-corpus.ts";
import { explainVectorSearch, type PlanSummary } from "./knowledge-plans.ts";
import { table } from "./report.ts";

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(chunks|insert-chunks|queries|url)=.+$|^--keep$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error("usage: tsx bench/knowledge.ts [--chunks=100000] [--insert-chunks=20000] [--queries=200] [--url=postgresql://…] [--keep]");
  process.exit(2);
}
const CHUNKS = Number(option("chunks") ?? 100_000);
const INSERT_CHUNKS = Number(option("insert-chunks") ?? 20_000);
const QUERIES = Number(option("queries") ?? 200);
const URL = option("url") ?? process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const KEEP = args.includes("--keep");
const PER_CONTENT = 50;
const DIMENSIONS = 384;
const LIMIT = 10;
/** What KnowledgeBase.search asks each side of a hybrid search for: max(20, 4 × limit). */
const HYBRID_CANDIDATES = Math.max(20, LIMIT * 4);
const WARMUP = 20;
const RECALL_TARGET = 0.95;
/** Contents loaded at once into PostgreSQL (SQLite writes are synchronous: one at a time). */
const LOAD_CONCURRENCY = 2;
/** The 1% user's share: content c belongs to user-(c % OWNERS), so user-0 holds 1 / OWNERS of the rows. */
const OWNERS = 100;
const CORPUS_SEED = 1;
const INSERT_SEED = 2;
const QUERY_SEED = 99;
if (!Number.isInteger(CHUNKS) || CHUNKS % PER_CONTENT !== 0 || CHUNKS < PER_CONTENT * OWNERS) throw new Error(`--chunks must be a multiple of ${PER_CONTENT}, at least ${PER_CONTENT * OWNERS}`);
if (!Number.isInteger(INSERT_CHUNKS) || INSERT_CHUNKS % PER_CONTENT !== 0 || INSERT_CHUNKS < PER_CONTENT) throw new Error(`--insert-chunks must be a positive multiple of ${PER_CONTENT}`);
if (!Number.isInteger(QUERIES) || QUERIES <= WARMUP) throw new Error(`--queries must be an integer above ${WARMUP} (the first ${WARMUP} warm up)`);

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (n: number) => n.toLocaleString("en");
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
/** Nearest-rank percentile. */
const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
};
const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

// ---------------------------------------------------------------------------------------------
// Databases
// ---------------------------------------------------------------------------------------------

const stamp = `${process.pid}_${Date.now().toString(36)}`;
const schema = `bench_knowledge_${stamp}`;
const sqliteDir = mkdtempSync(join(tmpdir(), "agentry-bench-knowledge-"));
const pgDb = await openDatabase({ url: URL, schema });
const sqliteDb = await openDatabase({ url: `file:${join(sqliteDir, "knowledge.db")}` });
/**
 * A second pool on the same schema for building the HNSW index after a bulk load: the store's own
 * DDL (ensure()), with room for the graph in memory. The app's pool keeps PostgreSQL's 64 MB
 * default, in which a 100,000 × 384 graph does not fit, and the build then runs on disk, several
 * times slower.
 */
const bulkPool = new pg.Pool({ connectionString: URL, options: `-c search_path=${schema},public -c maintenance_work_mem=1GB`, max: 1 });
bulkPool.on("error", () => undefined);
/** One executor for the pool: an executor names its prepared statements, and the pool's connection keeps them. */
const bulkSql = postgresExecutor(bulkPool);

let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  await bulkPool.end().catch(() => undefined);
  if (KEEP) {
    console.log(`\n--keep: left PostgreSQL schema ${schema} and ${join(sqliteDir, "knowledge.db")} in place`);
  } else {
    await pgDb.sql.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((e) => console.error(`could not drop schema ${schema}: ${e}`));
  }
  await pgDb.close().catch(() => undefined);
  await sqliteDb.close().catch(() => undefined);
  if (!KEEP) rmSync(sqliteDir, { recursive: true, force: true });
}
process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));

interface Backend {
  label: "pgvector" | "sqlite-vec";
  db: Db;
  store: (table: string) => VectorStore;
}
const backends: Backend[] = [
  { label: "pgvector", db: pgDb, store: (t) => postgresStore(pgDb, t) },
  { label: "sqlite-vec", db: sqliteDb, store: (t) => sqliteStore(sqliteDb, t) },
];

/** A content's chunk rows as ingest.ts makes them (ids from the content hash and owner, Agno's metadata keys). */
function contentRecords(seed: number, content: number, texts: readonly string[], embeddings: readonly number[][], userId: string | null, usage: Record<string, unknown> | null): ChunkRecord[] {
  const hash = `bench-knowledge:${seed}:${content}`;
  const contentId = contentIdOf(hash);
  return texts.map((text, i) => ({
    id: chunkRecordId({ documentId: `${contentId}_${i + 1}`, hash, userId }),
    name: `document-${seed}-${content}`,
    content: text,
    metadata: { chunk: i + 1, chunk_size: text.length, linked_to: "bench" },
    filters: null,
    contentId,
    contentHash: hash,
    userId,
    embedding: embeddings[i]!,
    usage,
  }));
}

// ---------------------------------------------------------------------------------------------
// 1. Insert throughput through the real ingest path: the embedder over HTTP, then replaceContent
// ---------------------------------------------------------------------------------------------

interface InsertResult {
  label: string;
  totalMs: number;
  embedMs: number;
  storeMs: number;
}

async function insertThroughput(backend: Backend, serverUrl: string): Promise<InsertResult> {
  const embedder = createEmbedder({ provider: "openai-compatible", id: "scripted", baseUrl: serverUrl, apiKey: "t", dimensions: DIMENSIONS });
  const store = backend.store("bench_kb_insert");
  await store.ensure(await embedder.dimensions());
  let embedMs = 0;
  let storeMs = 0;
  const started = performance.now();
  for (let c = 0; c < INSERT_CHUNKS / PER_CONTENT; c++) {
    const texts = Array.from({ length: PER_CONTENT }, (_, i) => corpusChunk(INSERT_SEED, c * PER_CONTENT + i, PER_CONTENT));
    const t0 = performance.now();
    const embedded = await embedder.embed(texts);
    const t1 = performance.now();
    await store.replaceContent(contentIdOf(`bench-knowledge:${INSERT_SEED}:${c}`), contentRecords(INSERT_SEED, c, texts, embedded.embeddings, "user-insert", { total_tokens: embedded.tokens }));
    const t2 = performance.now();
    embedMs += t1 - t0;
    storeMs += t2 - t1;
  }
  const totalMs = performance.now() - started;
  const info = await store.info();
  if (info.chunks !== INSERT_CHUNKS) throw new Error(`${backend.label}: expected ${INSERT_CHUNKS} chunks after the insert, found ${info.chunks}`);
  return { label: backend.label, totalMs, embedMs, storeMs };
}

// ---------------------------------------------------------------------------------------------
// 2. The 100,000-chunk corpus, twice per store: every row owned by one user, and the same rows
// dealt to OWNERS users (user-0 holds 1%)
// ---------------------------------------------------------------------------------------------

interface Corpus {
  texts: string[];
  /** CHUNKS × DIMENSIONS, float32 as both stores keep them. */
  vectors: Float32Array;
}

function buildCorpus(): Corpus {
  const texts: string[] = [];
  const vectors = new Float32Array(CHUNKS * DIMENSIONS);
  for (let i = 0; i < CHUNKS; i++) {
    const text = corpusChunk(CORPUS_SEED, i, PER_CONTENT);
    texts.push(text);
    vectors.set(hashingEmbedding(text, DIMENSIONS), i * DIMENSIONS);
  }
  return { texts, vectors };
}

const CORPORA = [
  { user: "user-all", share: "100%", table: "bench_kb_all", owner: (_content: number) => "user-all" },
  { user: "user-0", share: "1%", table: "bench_kb_one", owner: (content: number) => `user-${content % OWNERS}` },
] as const;

async function loadCorpus(backend: Backend, corpus: Corpus, tableName: string, owner: (content: number) => string): Promise<{ loadMs: number; indexMs: number | null }> {
  const store = backend.store(tableName);
  await store.ensure(DIMENSIONS);
  const hnswIndex = `${tableName}_hnsw_index`;
  // Inserting into a live HNSW index costs a graph search per row (~3 ms here); building it once after the load is far cheaper.
  if (backend.db.dialect === "postgres") await backend.db.sql.exec(`DROP INDEX "${hnswIndex}"`);
  const contents = CHUNKS / PER_CONTENT;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let c = next++; c < contents; c = next++) {
      const texts = corpus.texts.slice(c * PER_CONTENT, (c + 1) * PER_CONTENT);
      const embeddings = texts.map((_, i) => Array.from(corpus.vectors.subarray((c * PER_CONTENT + i) * DIMENSIONS, (c * PER_CONTENT + i + 1) * DIMENSIONS)));
      await store.replaceContent(contentIdOf(`bench-knowledge:${CORPUS_SEED}:${c}`), contentRecords(CORPUS_SEED, c, texts, embeddings, owner(c), null));
    }
  };
  await Promise.all(Array.from({ length: backend.db.dialect === "postgres" ? LOAD_CONCURRENCY : 1 }, worker));
  const loadMs = performance.now() - started;
  let indexMs: number | null = null;
  if (backend.db.dialect === "postgres") {
    const t = performance.now();
    await postgresStore({ ...backend.db, sql: bulkSql }, tableName).ensure(DIMENSIONS);
    indexMs = performance.now() - t;
    await bulkPool.query(`VACUUM ANALYZE "${tableName}"`);
  }
  const info = await store.info();
  if (info.chunks !== CHUNKS) throw new Error(`${backend.label}: expected ${CHUNKS} chunks in ${tableName}, found ${info.chunks}`);
  return { loadMs, indexMs };
}

// ---------------------------------------------------------------------------------------------
// 3. Searches: the store's vector search, its exact counterpart, keyword and hybrid
// ---------------------------------------------------------------------------------------------

/**
 * The pgvector store's own vector search with index scans turned off, so PostgreSQL answers the
 * same statement by reading every row the owner filter passes (a sequential or bitmap scan and a
 * sort): the exact answer. A comment makes the statement text differ from the store's, so it is
 * prepared and planned apart from it (a cached generic plan does not follow later SET commands).
 */
function exactPostgresStore(db: Db, tableName: string): VectorStore {
  const sql = {
    ...db.sql,
    batchRows: async (statements: readonly Statement[]) => {
      const rows = await db.sql.batchRows([{ text: "SET LOCAL enable_indexscan = off" }, ...statements.map((s) => ({ ...s, text: `${s.text} /* exact */` }))]);
      return rows.slice(1);
    },
  };
  return postgresStore({ ...db, sql }, tableName);
}

/** sqlite-vec's exact scan without the vec0 KNN: vec_distance_cosine over every row the owner filter passes, sorted. */
function plainSqliteScan(db: Db, tableName: string) {
  return async (embedding: readonly number[], userId: string): Promise<ChunkHit[]> => {
    const rows = await db.sql.query(
      `SELECT c.id, c.name, c.content, c.content_id, c.user_id, 1 - vec_distance_cosine(v.embedding, ?) AS score
       FROM "${tableName}" c JOIN "${tableName}_vec" v ON v.rowid = c.rowid
       WHERE (c.user_id = ? OR c.user_id IS NULL) ORDER BY score DESC LIMIT ?`,
      [Buffer.from(new Float32Array(embedding).buffer), userId, LIMIT],
    );
    return rows.map((r: Row) => ({ id: String(r.id), name: null, content: String(r.content), metadata: {}, contentId: String(r.content_id), userId: String(r.user_id), usage: null, score: Number(r.score) }));
  };
}

/**
 * Recall@10 of `found` against the exact top 10: the share of the exact list's places that `found`
 * fills with a hit at least as close as the exact 10th (so ties at the 10th place count either way).
 */
function recallAt(found: readonly ChunkHit[], exact: readonly ChunkHit[]): number {
  if (exact.length === 0) return 1;
  const bound = exact[Math.min(LIMIT, exact.length) - 1]!.score - 1e-6;
  const good = found.slice(0, LIMIT).filter((h) => h.score >= bound).length;
  return Math.min(good, exact.length) / Math.min(LIMIT, exact.length);
}

interface SeriesResult {
  backend: string;
  share: string;
  vector: number[];
  exact: number[];
  keyword: number[];
  hybrid: number[];
  recall: number[];
  shortAnswers: number;
  keywordHits: number[];
  plans: PlanSummary[];
}

async function searchSeries(backend: Backend, corpus: (typeof CORPORA)[number], queries: readonly { text: string; embedding: number[] }[]): Promise<SeriesResult> {
  const store = backend.store(corpus.table);
  const scope = unsafeSystemScope("bench", { actingAs: corpus.user });
  const exactSearch =
    backend.db.dialect === "postgres"
      ? (() => {
          const exact = exactPostgresStore(backend.db, corpus.table);
          return (embedding: number[]) => exact.vectorSearch(embedding, { scope, limit: LIMIT });
        })()
      : (() => {
          const scan = plainSqliteScan(backend.db, corpus.table);
          return (embedding: number[]) => scan(embedding, corpus.user);
        })();
  const hybrid = async (q: { text: string; embedding: number[] }) => {
    const [byMeaning, byWords] = await Promise.all([store.vectorSearch(q.embedding, { scope, limit: HYBRID_CANDIDATES }), store.keywordSearch(q.text, { scope, limit: HYBRID_CANDIDATES })]);
    return reciprocalRankFusion([byMeaning, byWords], LIMIT);
  };
  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const t = performance.now();
    const value = await fn();
    return [value, performance.now() - t];
  };
  // Warm-up: caches, prepared statements, plans (the queries after these are the measured ones).
  for (const q of queries.slice(0, WARMUP)) {
    await store.vectorSearch(q.embedding, { scope, limit: LIMIT });
    await exactSearch(q.embedding);
    await store.keywordSearch(q.text, { scope, limit: LIMIT });
    await hybrid(q);
  }
  const result: SeriesResult = { backend: backend.label, share: corpus.share, vector: [], exact: [], keyword: [], hybrid: [], recall: [], shortAnswers: 0, keywordHits: [], plans: [] };
  for (const [i, q] of queries.slice(WARMUP).entries()) {
    // The order rotates, so no series always runs right after another one on the same query.
    const steps = [
      async () => {
        const [hits, t] = await timed(() => store.vectorSearch(q.embedding, { scope, limit: LIMIT }));
        result.vector.push(t);
        if (hits.length < LIMIT) result.shortAnswers++;
        return hits;
      },
      async () => {
        const [hits, t] = await timed(() => exactSearch(q.embedding));
        result.exact.push(t);
        return hits;
      },
      async () => {
        const [hits, t] = await timed(() => store.keywordSearch(q.text, { scope, limit: LIMIT }));
        result.keyword.push(t);
        result.keywordHits.push(hits.length);
        return hits;
      },
      async () => {
        const [hits, t] = await timed(() => hybrid(q));
        result.hybrid.push(t);
        return hits;
      },
    ];
    const answers: ChunkHit[][] = [];
    for (let k = 0; k < steps.length; k++) {
      const step = (k + i) % steps.length;
      answers[step] = await steps[step]!();
    }
    result.recall.push(recallAt(answers[0]!, answers[1]!));
  }
  if (backend.db.dialect === "postgres") {
    // The plans of the store's statement for two of the queries, as the store runs it.
    for (const q of queries.slice(WARMUP, WARMUP + 2)) result.plans.push(...(await explainVectorSearch(backend.db, URL, corpus.table, q.embedding, corpus.user, LIMIT)));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main() {
  const [load1] = loadavg();
  const [version] = await pgDb.sql.query<{ pg: string; vector: string }>("SELECT current_setting('server_version') AS pg, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector");
  const [sqliteVersion] = await sqliteDb.sql.query<{ vec: string; sqlite: string }>("SELECT vec_version() AS vec, sqlite_version() AS sqlite");
  console.log(
    `bench:knowledge — ${fmt(CHUNKS)} chunks (${PER_CONTENT} per content), ${DIMENSIONS}-dimension hashing embeddings, ${QUERIES} queries (${WARMUP} of them warm-up), limit ${LIMIT}; ` +
      `PostgreSQL ${version?.pg ?? "?"} + pgvector ${version?.vector ?? "(created on first use)"} (schema ${schema}), SQLite ${sqliteVersion?.sqlite} + sqlite-vec ${sqliteVersion?.vec}; load average ${load1!.toFixed(2)}`,
  );

  // 1. Insert throughput.
  const server = await startModelServer();
  const inserts: InsertResult[] = [];
  try {
    for (const backend of backends) {
      log(`insert: ${fmt(INSERT_CHUNKS)} chunks into ${backend.label} through the embedder over HTTP`);
      inserts.push(await insertThroughput(backend, server.url));
      server.reset();
    }
  } finally {
    await server.close();
  }
  console.log(
    `\nInsert: ${fmt(INSERT_CHUNKS)} chunks in contents of ${PER_CONTENT}, one content at a time: embedded through createEmbedder (the scripted model server over HTTP), then store.replaceContent, into an empty table\n`,
  );
  console.log(
    table(
      ["store", "chunks/s", "total", "embedding", "storing", "embed ms/content", "store ms/content"],
      inserts.map((r) => [
        r.label,
        fmt(Math.round(INSERT_CHUNKS / (r.totalMs / 1000))),
        seconds(r.totalMs),
        `${((r.embedMs / r.totalMs) * 100).toFixed(0)}%`,
        `${((r.storeMs / r.totalMs) * 100).toFixed(0)}%`,
        ms(r.embedMs / (INSERT_CHUNKS / PER_CONTENT)),
        ms(r.storeMs / (INSERT_CHUNKS / PER_CONTENT)),
      ]),
    ),
  );

  // 2. The corpus.
  let t = performance.now();
  const corpus = buildCorpus();
  log(`corpus: ${fmt(CHUNKS)} chunks generated and embedded in ${seconds(performance.now() - t)}`);
  const loads: string[][] = [];
  for (const backend of backends) {
    for (const c of CORPORA) {
      log(`load: ${fmt(CHUNKS)} chunks into ${backend.label} ${c.table} (${c.user} holds ${c.share})`);
      const { loadMs, indexMs } = await loadCorpus(backend, corpus, c.table, c.owner);
      loads.push([`${backend.label}, ${c.table} (user ${c.share})`, seconds(loadMs), indexMs === null ? "—" : seconds(indexMs)]);
    }
  }
  console.log(`\nCorpus: ${fmt(CHUNKS)} chunks per table, embedded locally (hashingEmbedding), loaded with store.replaceContent\n`);
  console.log(table(["table", "load", "HNSW build"], loads));

  // 3. Searches.
  t = performance.now();
  const queries = queryTexts(QUERY_SEED, QUERIES).map((text) => ({ text, embedding: hashingEmbedding(text, DIMENSIONS) }));
  const series: SeriesResult[] = [];
  for (const backend of backends) {
    for (const c of CORPORA) {
      log(`search: ${backend.label}, user ${c.share}`);
      series.push(await searchSeries(backend, c, queries));
    }
  }
  log(`searches done in ${seconds(performance.now() - t)}`);

  const measured = QUERIES - WARMUP;
  console.log(`\nSearch at ${fmt(CHUNKS)} chunks, limit ${LIMIT}, ${measured} measured queries per series (ms; the query's embedding is computed beforehand)\n`);
  console.log(
    table(
      ["store", "user holds", "vector p50", "vector p99", "exact p50", "exact p99", "speed-up", "recall@10", "< 10 hits", "keyword p50", "keyword p99", "hybrid p50", "hybrid p99", "keyword hits"],
      series.map((s) => [
        s.backend === "pgvector" ? "pgvector HNSW" : "sqlite-vec KNN",
        s.share,
        ms(percentile(s.vector, 0.5)),
        ms(percentile(s.vector, 0.99)),
        ms(percentile(s.exact, 0.5)),
        ms(percentile(s.exact, 0.99)),
        `${(percentile(s.exact, 0.5) / percentile(s.vector, 0.5)).toFixed(2)}x`,
        mean(s.recall).toFixed(3),
        String(s.shortAnswers),
        ms(percentile(s.keyword, 0.5)),
        ms(percentile(s.keyword, 0.99)),
        ms(percentile(s.hybrid, 0.5)),
        ms(percentile(s.hybrid, 0.99)),
        mean(s.keywordHits).toFixed(1),
      ]),
    ),
  );
  console.log(
    "exact: pgvector = the store's own statement with index scans off (sequential or bitmap scan + sort); sqlite-vec = vec_distance_cosine over the owner's rows, ORDER BY, without vec0's KNN",
  );
  const plans = series.flatMap((s) => s.plans.map((p) => [`user ${s.share}, ${p.kind}`, p.node, p.rows, p.removed, p.executionMs.toFixed(2)]));
  if (plans.length > 0) {
    console.log(`\nPlans of the pgvector store's vector search (EXPLAIN ANALYZE, first two measured queries; generic = the plan a prepared statement may switch to)\n`);
    console.log(table(["query", "scan", "rows", "removed by filter", "ms"], plans));
  }

  console.log("");
  const summary: string[] = [];
  let failed = false;
  for (const s of series) {
    const name = s.backend === "pgvector" ? "pgvector HNSW" : "sqlite-vec";
    summary.push(`${name} search p50/p99 at ${fmt(CHUNKS)} chunks (user ${s.share}): ${ms(percentile(s.vector, 0.5))} / ${ms(percentile(s.vector, 0.99))} ms`);
  }
  for (const s of series) {
    const recall = mean(s.recall);
    if (s.backend === "pgvector") {
      const pass = recall >= RECALL_TARGET && s.shortAnswers === 0;
      failed ||= !pass;
      summary.push(
        `pgvector HNSW recall@10 vs exact (user ${s.share}): ${recall.toFixed(3)} (target >= ${RECALL_TARGET}; ${s.shortAnswers} of ${measured} answers under ${LIMIT} hits) ${pass ? "PASS" : "FAIL"}`,
      );
      summary.push(`pgvector HNSW speed-up over exact scan (user ${s.share}): ${(percentile(s.exact, 0.5) / percentile(s.vector, 0.5)).toFixed(2)}x`);
    } else {
      summary.push(`sqlite-vec KNN recall@10 vs plain vec_distance_cosine scan (user ${s.share}): ${recall.toFixed(3)}`);
      summary.push(`sqlite-vec KNN speed-up over plain scan (user ${s.share}): ${(percentile(s.exact, 0.5) / percentile(s.vector, 0.5)).toFixed(2)}x`);
    }
  }
  for (const s of series) {
    const name = s.backend === "pgvector" ? "pgvector" : "sqlite-vec";
    summary.push(
      `${name} keyword / hybrid p50/p99 (user ${s.share}): ${ms(percentile(s.keyword, 0.5))} / ${ms(percentile(s.keyword, 0.99))} ms, ${ms(percentile(s.hybrid, 0.5))} / ${ms(percentile(s.hybrid, 0.99))} ms`,
    );
  }
  const rate = (label: string) => {
    const r = inserts.find((i) => i.label === label)!;
    return `${fmt(Math.round(INSERT_CHUNKS / (r.totalMs / 1000)))} chunks/s (${label}; ${((r.embedMs / r.totalMs) * 100).toFixed(0)}% embedding, ${((r.storeMs / r.totalMs) * 100).toFixed(0)}% storing)`;
  };
  summary.push(`insert throughput: ${rate("pgvector")}, ${rate("sqlite-vec")}`);
  for (const line of summary) console.log(line);
  const [load2] = loadavg();
  console.log(`load average at the end: ${load2!.toFixed(2)} (${load1!.toFixed(2)} at the start)`);
  if (failed) process.exitCode = 1;
}

try {
  await main();
} finally {
  await cleanup();
}
