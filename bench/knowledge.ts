/**
 * Knowledge stores at 100,000 chunks, on pgvector (HNSW) and sqlite-vec (vec0 partitioned by
 * owner), through the stores of lib/knowledge:
 *
 * 1. insert throughput on the real ingest path: a content's 50 chunks embedded through
 *    createEmbedder (the scripted model server over HTTP), then store.replaceContent;
 * 2. search latency at 100,000 chunks (p50/p99 of vectorSearch, limit 10; keyword and hybrid too)
 *    for a user holding every row and a user holding 1% of them (99 other users hold the rest),
 *    each in its own table of the same 100,000 chunks;
 * 3. recall@10 of the store's vector search against an exact answer of the same statement (on
 *    pgvector: with index scans off; on sqlite-vec: a plain vec_distance_cosine scan) and the
 *    speed-up over it, with pgvector's settings varied (ef_search, iterative scan) to explain a
 *    recall below target, and the plans PostgreSQL makes.
 *
 *   npm run bench:knowledge                        # PostgreSQL at postgresql://postgres@127.0.0.1:5432/test (throw-away schema) and SQLite (temporary file)
 *   npm run bench:knowledge -- --chunks=10000      # a quicker run
 *          --insert-chunks=20000 --queries=200 --exact-queries=50 --keyword-queries=20 --url=postgresql://… --keep
 *
 * See bench/README.md ("knowledge").
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
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
import { efSearchFor, HNSW_DEFAULTS, type HnswSettings, postgresStore } from "../lib/knowledge/stores/postgres-store.ts";
import { sqliteStore } from "../lib/knowledge/stores/sqlite-store.ts";
import type { ChunkHit, ChunkRecord, VectorStore } from "../lib/knowledge/stores/vector-store.ts";
import { corpusChunk, queryTexts } from "./knowledge-corpus.ts";
import { explainVectorSearch, type PlanSummary } from "./knowledge-plans.ts";
import { table } from "./report.ts";

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(chunks|insert-chunks|queries|exact-queries|keyword-queries|url|hnsw-m|hnsw-ef-construction|hnsw-ef-search)=.+$|^--keep$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error(
    "usage: tsx bench/knowledge.ts [--chunks=100000] [--insert-chunks=20000] [--queries=200] [--exact-queries=50] [--keyword-queries=20] [--hnsw-m=16] [--hnsw-ef-construction=200] [--hnsw-ef-search=800] [--url=postgresql://…] [--keep]",
  );
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
/** Warm-up queries of the slow series (exact scans, keyword, hybrid). */
const SLOW_WARMUP = 3;
/**
 * The exact scans, keyword and hybrid searches run on the first measured queries only: on
 * PostgreSQL at 100,000 chunks one exact scan of every row takes ~0.5 s and one keyword search
 * ~1 s (several at worst), and the whole benchmark is meant to take about 12 minutes on 2 cores.
 */
const EXACT_QUERIES = Number(option("exact-queries") ?? 50);
const KEYWORD_QUERIES = Number(option("keyword-queries") ?? 20);
/** ef_search values tried for the user holding every row. */
const EF_SWEEP = [100, 200, 400, 800, 1000];
/** The pgvector store's HNSW settings (its defaults unless given) and the ef_search it sets for LIMIT. */
const HNSW: HnswSettings = {
  m: Number(option("hnsw-m") ?? HNSW_DEFAULTS.m),
  efConstruction: Number(option("hnsw-ef-construction") ?? HNSW_DEFAULTS.efConstruction),
  efSearch: Number(option("hnsw-ef-search") ?? HNSW_DEFAULTS.efSearch),
};
const STORE_EF_SEARCH = efSearchFor(LIMIT, HNSW);
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
for (const [name, value] of [
  ["queries", QUERIES],
  ["exact-queries", EXACT_QUERIES],
  ["keyword-queries", KEYWORD_QUERIES],
] as const) {
  if (!Number.isInteger(value) || value < 1 || value > QUERIES) throw new Error(`--${name} must be an integer from 1 to --queries`);
}

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (n: number) => n.toLocaleString("en");
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
/** Nearest-rank percentile. */
const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
};
const shortAnswers = (hitCounts: readonly number[]) => hitCounts.filter((n) => n < LIMIT).length;
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
 * default, in which a graph of 100,000 vectors of 384 dimensions (~200 MB) does not fit, and
 * pgvector then builds the rest of it on disk, more slowly.
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
  { label: "pgvector", db: pgDb, store: (t) => postgresStore(pgDb, t, HNSW) },
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
  // Bulk load only: SQLite syncs the WAL at every commit unless told otherwise; the measured inserts above ran with the connection's setting.
  const [sync] = backend.db.dialect === "sqlite" ? await backend.db.sql.query<{ synchronous: number }>("PRAGMA synchronous") : [];
  if (sync) await backend.db.sql.exec("PRAGMA synchronous = NORMAL");
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
  if (sync) await backend.db.sql.exec(`PRAGMA synchronous = ${Number(sync.synchronous)}`);
  let indexMs: number | null = null;
  if (backend.db.dialect === "postgres") {
    const t = performance.now();
    await postgresStore({ ...backend.db, sql: bulkSql }, tableName, HNSW).ensure(DIMENSIONS);
    indexMs = performance.now() - t;
    const [rebuilt] = await backend.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?", [hnswIndex]);
    if (rebuilt?.n !== 1) throw new Error(`the pgvector store's ensure() did not create ${hnswIndex}: update bench/knowledge.ts`);
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
 * The pgvector store's own vector search with its statements adjusted: `prepend` runs first in
 * its transaction (e.g. `SET LOCAL enable_indexscan = off`, which leaves PostgreSQL no way to
 * answer but reading every row the owner filter passes: the exact answer), and `settings` replace
 * the values of the store's own `SET LOCAL` statements (hnsw.ef_search, hnsw.iterative_scan). A
 * comment makes the search's text differ from the store's, so it is prepared and planned apart
 * from it: a prepared statement's cached generic plan does not follow later SET commands.
 */
function postgresVariant(db: Db, tableName: string, tag: string, { prepend = [], settings = {} }: { prepend?: string[]; settings?: Record<string, string | number> }): VectorStore {
  const sql = {
    ...db.sql,
    batchRows: async (statements: readonly Statement[]) => {
      const set = (s: Statement) => /^SET LOCAL ([\w.]+) =/.exec(s.text)?.[1];
      for (const name of Object.keys(settings)) {
        if (!statements.some((s) => set(s) === name)) throw new Error(`the pgvector store no longer sets ${name}: update bench/knowledge.ts`);
      }
      const adjusted = statements.map((s, i) => {
        if (i === statements.length - 1) return { ...s, text: `${s.text} /* ${tag} */` };
        const name = set(s);
        return name !== undefined && name in settings ? { text: `SET LOCAL ${name} = ${settings[name]}` } : s;
      });
      return (await db.sql.batchRows([...prepend.map((text) => ({ text })), ...adjusted])).slice(prepend.length);
    },
  };
  return postgresStore({ ...db, sql }, tableName, HNSW);
}
const EXACT = ["SET LOCAL enable_indexscan = off"];

/** sqlite-vec's exact scan without the vec0 KNN: vec_distance_cosine over every row the owner filter passes, sorted. */
function plainSqliteScan(db: Db, tableName: string) {
  return async (embedding: readonly number[], userId: string): Promise<ChunkHit[]> => {
    const rows = await db.sql.query(
      `SELECT c.id, c.name, c.content, c.content_id, c.user_id, 1 - vec_distance_cosine(v.embedding, ?) AS score
       FROM "${tableName}" c JOIN "${tableName}_vec" v ON v.rowid = c.rowid
       WHERE (c.user_id = ? OR c.user_id IS NULL) ORDER BY score DESC LIMIT ?`,
      [Buffer.from(new Float32Array(embedding).buffer), userId, LIMIT],
    );
    return rows.map((r: Row) => ({
      id: String(r.id),
      name: null,
      content: String(r.content),
      metadata: {},
      contentId: String(r.content_id),
      userId: String(r.user_id),
      usage: null,
      score: Number(r.score),
    }));
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

type Query = { text: string; embedding: number[] };

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const value = await fn();
  return [value, performance.now() - t];
};

interface SeriesResult {
  backend: Backend["label"];
  share: string;
  user: string;
  table: string;
  vector: number[];
  /** Each vector search's number of hits. */
  vectorHits: number[];
  exact: number[];
  /** The exact answers of the first EXACT_QUERIES measured queries (the diagnostics compare with them). */
  exactHits: ChunkHit[][];
  recall: number[];
  keyword: number[];
  keywordHits: number[];
  hybrid: number[];
}

async function searchSeries(backend: Backend, corpus: (typeof CORPORA)[number], queries: readonly Query[]): Promise<SeriesResult> {
  const store = backend.store(corpus.table);
  const scope = unsafeSystemScope("the benchmark searches as the user it measures", { actingAs: corpus.user });
  let exactSearch: (embedding: number[]) => Promise<ChunkHit[]>;
  if (backend.db.dialect === "postgres") {
    const exact = postgresVariant(backend.db, corpus.table, "exact", { prepend: EXACT });
    exactSearch = (embedding) => exact.vectorSearch(embedding, { scope, limit: LIMIT });
  } else {
    const scan = plainSqliteScan(backend.db, corpus.table);
    exactSearch = (embedding) => scan(embedding, corpus.user);
  }
  const hybrid = async (q: Query) => {
    const [byMeaning, byWords] = await Promise.all([store.vectorSearch(q.embedding, { scope, limit: HYBRID_CANDIDATES }), store.keywordSearch(q.text, { scope, limit: HYBRID_CANDIDATES })]);
    return reciprocalRankFusion([byMeaning, byWords], LIMIT);
  };
  // Warm-up (caches, prepared statements, plans): the first WARMUP queries, and the first few of them for the slow series.
  for (const [i, q] of queries.slice(0, WARMUP).entries()) {
    await store.vectorSearch(q.embedding, { scope, limit: LIMIT });
    if (i < SLOW_WARMUP) {
      await exactSearch(q.embedding);
      await store.keywordSearch(q.text, { scope, limit: LIMIT });
      await hybrid(q);
    }
  }
  const result: SeriesResult = {
    backend: backend.label,
    share: corpus.share,
    user: corpus.user,
    table: corpus.table,
    vector: [],
    vectorHits: [],
    exact: [],
    exactHits: [],
    recall: [],
    keyword: [],
    keywordHits: [],
    hybrid: [],
  };
  for (const [i, q] of queries.slice(WARMUP).entries()) {
    let found: ChunkHit[] = [];
    const steps: (() => Promise<void>)[] = [
      async () => {
        const [hits, t] = await timed(() => store.vectorSearch(q.embedding, { scope, limit: LIMIT }));
        result.vector.push(t);
        result.vectorHits.push(hits.length);
        found = hits;
      },
    ];
    if (i < EXACT_QUERIES) {
      steps.push(async () => {
        const [hits, t] = await timed(() => exactSearch(q.embedding));
        result.exact.push(t);
        result.exactHits.push(hits);
      });
    }
    if (i < KEYWORD_QUERIES) {
      steps.push(async () => {
        const [hits, t] = await timed(() => store.keywordSearch(q.text, { scope, limit: LIMIT }));
        result.keyword.push(t);
        result.keywordHits.push(hits.length);
      });
      steps.push(async () => {
        result.hybrid.push((await timed(() => hybrid(q)))[1]);
      });
    }
    // The order rotates, so no series always runs right after another one on the same query.
    for (let k = 0; k < steps.length; k++) await steps[(k + i) % steps.length]!();
    if (i < EXACT_QUERIES) result.recall.push(recallAt(found, result.exactHits[i]!));
  }
  return result;
}

interface VariantResult {
  share: string;
  label: string;
  /** The scan the custom plan of the first measured query makes. */
  plan: string;
  recall: number;
  shortAnswers: number;
  p50: number;
  p99: number;
}

const shortPlan = (p: PlanSummary) => (p.node.includes("hnsw_index") ? "HNSW index scan" : p.node.replace(/ \(.*\)$/, ""));

/** The pgvector store's search adjusted (settings, plans forced) over the queries the exact series answered, against those exact answers. */
async function variantSeries(
  series: SeriesResult,
  queries: readonly Query[],
  label: string,
  tag: string,
  options: { prepend?: string[]; settings?: Record<string, string | number> },
): Promise<VariantResult> {
  const store = postgresVariant(pgDb, series.table, tag, options);
  const scope = unsafeSystemScope("the benchmark searches as the user it measures", { actingAs: series.user });
  const measured = queries.slice(WARMUP, WARMUP + series.exactHits.length);
  for (const q of queries.slice(0, SLOW_WARMUP)) await store.vectorSearch(q.embedding, { scope, limit: LIMIT });
  const times: number[] = [];
  const recall: number[] = [];
  let shortAnswers = 0;
  for (const [i, q] of measured.entries()) {
    const [hits, t] = await timed(() => store.vectorSearch(q.embedding, { scope, limit: LIMIT }));
    times.push(t);
    if (hits.length < LIMIT) shortAnswers++;
    recall.push(recallAt(hits, series.exactHits[i]!));
  }
  const [custom] = await explainVectorSearch(pgDb, URL, series.table, (db) => postgresVariant(db, series.table, tag, options), measured[0]!.embedding, series.user, LIMIT);
  return { share: series.share, label, plan: shortPlan(custom!), recall: mean(recall), shortAnswers, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main() {
  const began = performance.now();
  const [load1] = loadavg();
  if (load1! > availableParallelism()) console.log(`warning: load average ${load1!.toFixed(2)} on ${availableParallelism()} CPUs — other work on the machine will show in the timings`);
  const [version] = await pgDb.sql.query<{ pg: string }>("SELECT current_setting('server_version') AS pg");
  const [sqliteVersion] = await sqliteDb.sql.query<{ vec: string; sqlite: string }>("SELECT vec_version() AS vec, sqlite_version() AS sqlite");
  console.log(
    `bench:knowledge — ${fmt(CHUNKS)} chunks per table (${PER_CONTENT} per content), ${DIMENSIONS}-dimension hashing embeddings, limit ${LIMIT}; ` +
      `PostgreSQL ${version?.pg ?? "?"} (schema ${schema}; HNSW m ${HNSW.m}, ef_construction ${HNSW.efConstruction}, ef_search ${STORE_EF_SEARCH}), SQLite ${sqliteVersion?.sqlite} + sqlite-vec ${sqliteVersion?.vec}; load average ${load1!.toFixed(2)} on ${availableParallelism()} CPUs`,
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
  const [pgvector] = await pgDb.sql.query<{ v: string }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'");
  console.log(
    `\nInsert: ${fmt(INSERT_CHUNKS)} chunks in contents of ${PER_CONTENT}, one content at a time, into an empty table (pgvector ${pgvector?.v}: HNSW index live): ` +
      "embedded through createEmbedder (the scripted model server over HTTP), then store.replaceContent\n",
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
      loads.push([`${backend.label}, ${c.table} (${c.user} holds ${c.share})`, seconds(loadMs), indexMs === null ? "—" : seconds(indexMs)]);
    }
  }
  console.log(`\nCorpus: ${fmt(CHUNKS)} chunks per table, embedded locally (hashingEmbedding), written with store.replaceContent\n`);
  console.log(table(["table", "load", "HNSW build"], loads));

  // 3. Searches.
  t = performance.now();
  const queries = queryTexts(QUERY_SEED, WARMUP + QUERIES, CORPUS_SEED, CHUNKS / PER_CONTENT).map((text) => ({ text, embedding: hashingEmbedding(text, DIMENSIONS) }));
  const series: SeriesResult[] = [];
  for (const backend of backends) {
    for (const c of CORPORA) {
      log(`search: ${backend.label}, ${c.user} (${c.share})`);
      series.push(await searchSeries(backend, c, queries));
    }
  }
  log(`searches done in ${seconds(performance.now() - t)}`);

  // 4. pgvector diagnostics: the plans, recall against ef_search, the iterative scan's settings for the 1% user.
  t = performance.now();
  const [pgAll, pgOne] = series.filter((s) => s.backend === "pgvector") as [SeriesResult, SeriesResult];
  const q0 = queries[WARMUP]!.embedding;
  const plans: [string, PlanSummary][] = [];
  const storePlan = new Map<string, PlanSummary>();
  for (const s of [pgAll, pgOne]) {
    const [custom, generic] = await explainVectorSearch(pgDb, URL, s.table, (db) => postgresStore(db, s.table, HNSW), q0, s.user, LIMIT);
    const [exact] = await explainVectorSearch(pgDb, URL, s.table, (db) => postgresVariant(db, s.table, "exact", { prepend: EXACT }), q0, s.user, LIMIT);
    plans.push([`user ${s.share}, the store, custom plan`, custom!], [`user ${s.share}, the store, generic plan`, generic!], [`user ${s.share}, index scans off (exact)`, exact!]);
    storePlan.set(s.share, custom!);
  }
  const storeRow = (s: SeriesResult): VariantResult => ({
    share: s.share,
    label: `the store (ef_search ${STORE_EF_SEARCH}, relaxed_order)`,
    plan: shortPlan(storePlan.get(s.share)!),
    recall: mean(s.recall),
    shortAnswers: shortAnswers(s.vectorHits.slice(0, s.exactHits.length)),
    p50: percentile(s.vector.slice(0, s.exactHits.length), 0.5),
    p99: percentile(s.vector.slice(0, s.exactHits.length), 0.99),
  });
  const exactRow = (s: SeriesResult): VariantResult => ({
    share: s.share,
    label: "index scans off (the exact answer)",
    plan: shortPlan(plans.find(([label]) => label === `user ${s.share}, index scans off (exact)`)![1]),
    recall: 1,
    shortAnswers: shortAnswers(s.exactHits.map((h) => h.length)),
    p50: percentile(s.exact, 0.5),
    p99: percentile(s.exact, 0.99),
  });
  const variants: VariantResult[] = [storeRow(pgAll)];
  for (const ef of EF_SWEEP) variants.push(await variantSeries(pgAll, queries, `ef_search ${ef}`, `ef${ef}`, { settings: { "hnsw.ef_search": ef } }));
  variants.push(exactRow(pgAll), storeRow(pgOne));
  // Without the iterative scan an HNSW scan stops after ef_search candidates, of which ~1% pass the owner filter.
  variants.push(await variantSeries(pgOne, queries, "iterative scan off", "iterative_off", { settings: { "hnsw.iterative_scan": "off" } }));
  variants.push(await variantSeries(pgOne, queries, "iterative scan strict_order", "strict", { settings: { "hnsw.iterative_scan": "strict_order" } }));
  for (const ef of [200, 400]) variants.push(await variantSeries(pgOne, queries, `ef_search ${ef}`, `one_ef${ef}`, { settings: { "hnsw.ef_search": ef } }));
  if (!storePlan.get(pgOne.share)!.node.includes("hnsw_index")) {
    // The planner chose another plan for the 1% user: what the HNSW path would give, with the scans it prefers turned off.
    variants.push(await variantSeries(pgOne, queries, "HNSW forced (seq and bitmap scans off)", "forced", { prepend: ["SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off"] }));
  }
  variants.push(exactRow(pgOne));
  log(`diagnostics done in ${seconds(performance.now() - t)}`);

  console.log(
    `\nSearch at ${fmt(CHUNKS)} chunks, limit ${LIMIT}, in ms; vector: ${QUERIES} queries, exact: the first ${EXACT_QUERIES}, keyword and hybrid: the first ${KEYWORD_QUERIES} (after ${WARMUP} warm-up queries; embeddings computed beforehand)\n`,
  );
  console.log(
    table(
      ["store", "user holds", "vector p50", "vector p99", "< 10 hits", "exact p50", "exact p99", "speed-up", "recall@10", "keyword p50", "keyword p99", "hits", "hybrid p50", "hybrid p99"],
      series.map((s) => [
        s.backend === "pgvector" ? "pgvector HNSW" : "sqlite-vec KNN",
        s.share,
        ms(percentile(s.vector, 0.5)),
        ms(percentile(s.vector, 0.99)),
        String(shortAnswers(s.vectorHits)),
        ms(percentile(s.exact, 0.5)),
        ms(percentile(s.exact, 0.99)),
        `${(percentile(s.exact, 0.5) / percentile(s.vector, 0.5)).toFixed(2)}x`,
        mean(s.recall).toFixed(3),
        ms(percentile(s.keyword, 0.5)),
        ms(percentile(s.keyword, 0.99)),
        mean(s.keywordHits).toFixed(1),
        ms(percentile(s.hybrid, 0.5)),
        ms(percentile(s.hybrid, 0.99)),
      ]),
    ),
  );
  console.log(
    "exact: pgvector = the store's own statement with index scans off (a sequential or bitmap scan and a sort); sqlite-vec = vec_distance_cosine over the owner's rows with ORDER BY, without vec0's KNN. " +
      "hits: keyword hits per query (mean).",
  );
  console.log(`\npgvector: the store's search adjusted, over the ${EXACT_QUERIES} queries with exact answers (ms)\n`);
  console.log(
    table(
      ["user holds", "search", "plan", "recall@10", "< 10 hits", "p50", "p99"],
      variants.map((v) => [v.share, v.label, v.plan, v.recall.toFixed(3), String(v.shortAnswers), ms(v.p50), ms(v.p99)]),
    ),
  );
  console.log("\nPlans of the pgvector search (EXPLAIN ANALYZE of the first measured query; generic = the plan a prepared statement may switch to after five runs)\n");
  console.log(
    table(
      ["search", "scan", "rows", "removed by filter", "ms"],
      plans.map(([label, p]) => [label, p.node, p.rows, p.removed, p.executionMs.toFixed(2)]),
    ),
  );

  console.log("");
  const summary: string[] = [];
  let failed = false;
  for (const s of series) {
    const name = s.backend === "pgvector" ? "pgvector HNSW" : "sqlite-vec";
    summary.push(`${name} search p50/p99 at ${fmt(CHUNKS)} chunks (user ${s.share}): ${ms(percentile(s.vector, 0.5))} / ${ms(percentile(s.vector, 0.99))} ms`);
  }
  for (const s of series) {
    const recall = mean(s.recall);
    const speedUp = (percentile(s.exact, 0.5) / percentile(s.vector, 0.5)).toFixed(2);
    if (s.backend === "pgvector") {
      const short = shortAnswers(s.vectorHits);
      const pass = recall >= RECALL_TARGET && short === 0;
      failed ||= !pass;
      summary.push(
        `pgvector HNSW recall@10 vs exact (user ${s.share}): ${recall.toFixed(3)} (target >= ${RECALL_TARGET}; ${s.recall.length} queries; ${short} of ${QUERIES} searches with < ${LIMIT} hits) ${pass ? "PASS" : "FAIL"}`,
      );
      summary.push(`pgvector HNSW speed-up over exact scan (user ${s.share}): ${speedUp}x`);
      const plan = storePlan.get(s.share)!;
      summary.push(`pgvector search plan (user ${s.share}): ${shortPlan(plan)}${plan.node.includes("hnsw_index") ? `, ${plan.removed} rows removed by the owner filter` : ""}`);
    } else {
      summary.push(`sqlite-vec KNN recall@10 vs plain vec_distance_cosine scan (user ${s.share}): ${recall.toFixed(3)}`);
      summary.push(`sqlite-vec KNN speed-up over plain scan (user ${s.share}): ${speedUp}x`);
    }
  }
  for (const s of series) {
    summary.push(
      `${s.backend} keyword / hybrid p50/p99 (user ${s.share}): ${ms(percentile(s.keyword, 0.5))} / ${ms(percentile(s.keyword, 0.99))} ms, ${ms(percentile(s.hybrid, 0.5))} / ${ms(percentile(s.hybrid, 0.99))} ms`,
    );
  }
  const reaching = variants.find((v) => v.share === pgAll.share && v.label.startsWith("ef_search") && v.plan === "HNSW index scan" && v.recall >= RECALL_TARGET);
  summary.push(
    `pgvector HNSW ef_search reaching recall >= ${RECALL_TARGET} (user ${pgAll.share}): ${reaching ? `${reaching.label.replace("ef_search ", "")} (p50 ${ms(reaching.p50)} ms)` : `none of ${EF_SWEEP.join(", ")} with an HNSW plan`}`,
  );
  const rate = (label: string) => {
    const r = inserts.find((i) => i.label === label)!;
    return `${fmt(Math.round(INSERT_CHUNKS / (r.totalMs / 1000)))} chunks/s (${label}; ${((r.embedMs / r.totalMs) * 100).toFixed(0)}% embedding, ${((r.storeMs / r.totalMs) * 100).toFixed(0)}% storing)`;
  };
  summary.push(`insert throughput: ${rate("pgvector")}, ${rate("sqlite-vec")}`);
  for (const line of summary) console.log(line);
  const [load2] = loadavg();
  console.log(`took ${seconds(performance.now() - began)}; load average at the end ${load2!.toFixed(2)} (${load1!.toFixed(2)} at the start)`);
  if (failed) process.exitCode = 1;
}

try {
  await main();
} finally {
  await cleanup();
}
