/**
 * Query plans for bench/knowledge.ts: the pgvector store's vector search, captured as the store
 * sends it (its statements recorded on their way to the executor) and explained twice, because
 * the app runs its SQL as named prepared statements (lib/db/sql.ts) and PostgreSQL may switch such
 * a statement to a generic plan after five executions: the custom plan (the parameters' values
 * known to the planner) and the generic plan (PREPARE, plan_cache_mode = force_generic_plan,
 * EXECUTE). The statements before the search (`SET LOCAL hnsw.…`) run first in the same
 * transaction, which is rolled back.
 */
import pg from "pg";
import type { Db } from "../lib/db/open-database.ts";
import { toPostgresPlaceholders, type Statement } from "../lib/db/sql.ts";
import { unsafeSystemScope } from "../lib/db/scope.ts";
import type { VectorStore } from "../lib/knowledge/stores/vector-store.ts";

export interface PlanSummary {
  kind: "custom" | "generic";
  /** The scan of the chunk table: node type and index, e.g. "Index Scan (bench_kb_all_hnsw_index)". */
  node: string;
  /** Rows the scan returned (times loops). */
  rows: string;
  /** Rows the scan's filter removed (the owner condition): what an iterative HNSW scan read past. */
  removed: string;
  executionMs: number;
}

interface PgNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Workers?: unknown[];
  Plans?: PgNode[];
}

function findScan(node: PgNode, relation: string): PgNode | undefined {
  if (node["Relation Name"] === relation) return node;
  for (const child of node.Plans ?? []) {
    const found = findScan(child, relation);
    if (found) return found;
  }
  return undefined;
}

function indexNames(node: PgNode): string[] {
  return [...(node["Index Name"] ? [node["Index Name"]] : []), ...(node.Plans ?? []).flatMap(indexNames)];
}

function summarize(kind: PlanSummary["kind"], explained: { Plan: PgNode; "Execution Time": number }, relation: string): PlanSummary {
  const scan = findScan(explained.Plan, relation);
  const loops = scan?.["Actual Loops"] ?? 1;
  const indexes = scan ? indexNames(scan) : [];
  return {
    kind,
    node: scan ? `${scan["Node Type"]}${indexes.length > 0 ? ` (${indexes.join(", ")})` : ""}` : "(no scan of the table)",
    rows: scan ? ((scan["Actual Rows"] ?? 0) * loops).toLocaleString("en") : "—",
    removed: scan ? ((scan["Rows Removed by Filter"] ?? 0) * loops).toLocaleString("en") : "—",
    executionMs: explained["Execution Time"],
  };
}

/** The custom and generic plans of `makeStore(db).vectorSearch(embedding, { scope: userId's, limit })` on `table`, executed. */
export async function explainVectorSearch(db: Db, url: string, table: string, makeStore: (db: Db) => VectorStore, embedding: readonly number[], userId: string, limit: number): Promise<PlanSummary[]> {
  let captured: readonly Statement[] = [];
  const tracing = {
    ...db.sql,
    batchRows: async (statements: readonly Statement[]) => {
      captured = statements;
      return db.sql.batchRows(statements);
    },
  };
  await makeStore({ ...db, sql: tracing }).vectorSearch(embedding, { scope: unsafeSystemScope("the benchmark searches as the user it measures", { actingAs: userId }), limit });
  const search = captured[captured.length - 1];
  if (!search) throw new Error("the store's vector search sent no statement");
  const settings = captured.slice(0, -1);
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${db.schema},public` });
  await client.connect();
  try {
    const inTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
      await client.query("BEGIN");
      try {
        for (const s of settings) await client.query(toPostgresPlaceholders(s.text), [...(s.params ?? [])]);
        return await fn();
      } finally {
        await client.query("ROLLBACK");
      }
    };
    const text = toPostgresPlaceholders(search.text);
    const params = [...(search.params ?? [])];
    const custom = await inTransaction(async () => (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)).rows[0]["QUERY PLAN"][0]);
    const generic = await inTransaction(async () => {
      await client.query("SET LOCAL plan_cache_mode = force_generic_plan");
      await client.query(`PREPARE bench_knowledge_search AS ${text}`);
      const literals = params.map((p) => (typeof p === "number" ? String(p) : client.escapeLiteral(String(p))));
      return (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE bench_knowledge_search(${literals.join(", ")})`)).rows[0]["QUERY PLAN"][0];
    });
    return [summarize("custom", custom, table), summarize("generic", generic, table)];
  } finally {
    await client.end();
  }
}
