/**
 * Query plans for bench/dashboard.ts: which scans a list statement's plan makes, and whether one
 * of them reads agno_runs or agno_sessions without an index.
 *
 * PostgreSQL: EXPLAIN (ANALYZE, FORMAT JSON) twice, because the app runs its SQL as named
 * prepared statements (lib/db/sql.ts) and PostgreSQL may switch such a statement to a generic
 * plan after five executions: the custom plan (the parameters' values known to the planner) and
 * the generic plan (PREPARE, plan_cache_mode = force_generic_plan, EXECUTE).
 * SQLite: EXPLAIN QUERY PLAN; "SCAN t" without "USING … INDEX" reads the table itself.
 */
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { COUNT_CAP } from "../lib/db/keyset.ts";
import { toPostgresPlaceholders } from "../lib/db/sql.ts";

export interface PlannedStatement {
  text: string;
  params: readonly unknown[];
}

export interface ScanNode {
  /** "Index Scan Backward", "Index Only Scan", "Bitmap Heap Scan", "Seq Scan", "SCAN", "SEARCH" … */
  node: string;
  relation: string;
  index: string | null;
  /** Rows the node read (returned + removed by its filter, times loops); null on SQLite. */
  rowsRead: number | null;
  /**
   * Reads the table without an index, or reads half of its rows or more through one (beyond the
   * COUNT_CAP + 1 a capped count may read: on a 1,000-row table that is all of it, by design).
   */
  tableScan: boolean;
}

export interface Plan {
  kind: "custom" | "generic" | "sqlite";
  scans: ScanNode[];
  /** Execution time EXPLAIN ANALYZE reported (PostgreSQL). */
  executionMs: number | null;
}

const WATCHED = new Set(["agno_runs", "agno_sessions"]);

interface PgNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Scan Direction"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PgNode[];
}

function pgScans(node: PgNode, tableRows: Record<string, number>, into: ScanNode[] = []): ScanNode[] {
  if (node["Relation Name"]) {
    const loops = node["Actual Loops"] ?? 1;
    const read = ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) * loops;
    const backward = node["Scan Direction"] === "Backward" ? " Backward" : "";
    into.push({
      node: `${node["Node Type"]}${backward}`,
      relation: node["Relation Name"],
      index: node["Index Name"] ?? null,
      rowsRead: read,
      tableScan: WATCHED.has(node["Relation Name"]) && (node["Node Type"] === "Seq Scan" || (read > COUNT_CAP + 1 && read >= 0.5 * (tableRows[node["Relation Name"]] ?? Infinity))),
    });
  }
  for (const child of node.Plans ?? []) pgScans(child, tableRows, into);
  return into;
}

function literal(client: pg.PoolClient, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return String(value);
  return client.escapeLiteral(String(value));
}

/** The custom and the generic plan of a statement, each executed once (EXPLAIN ANALYZE). */
export async function postgresPlans(pool: pg.Pool, statement: PlannedStatement, name: string, tableRows: Record<string, number>): Promise<Plan[]> {
  const client = await pool.connect();
  try {
    const text = toPostgresPlaceholders(statement.text);
    const parse = (rows: { "QUERY PLAN": unknown }[]) => {
      const raw = rows[0]["QUERY PLAN"];
      const doc = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PgNode; "Execution Time"?: number }[];
      return { scans: pgScans(doc[0].Plan, tableRows), executionMs: doc[0]["Execution Time"] ?? null };
    };
    const custom = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, [...statement.params]);
    await client.query(`PREPARE ${name} AS ${text}`);
    await client.query("SET plan_cache_mode = force_generic_plan");
    const args = statement.params.length > 0 ? `(${statement.params.map((p) => literal(client, p)).join(", ")})` : "";
    const generic = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}${args}`);
    await client.query(`DEALLOCATE ${name}`);
    await client.query("RESET plan_cache_mode");
    return [
      { kind: "custom", ...parse(custom.rows) },
      { kind: "generic", ...parse(generic.rows) },
    ];
  } finally {
    client.release();
  }
}

/**
 * SQLite's plan: one line per table access ("SCAN s USING INDEX …", "SEARCH r USING COVERING
 * INDEX …"). A "USE TEMP B-TREE FOR ORDER BY" of the outer query means every matching row is read
 * and sorted before the LIMIT applies: flagged like a table scan, on the table the query reads.
 */
export function sqlitePlan(connection: BetterSqlite3.Database, statement: PlannedStatement): Plan[] {
  const rows = connection.prepare(`EXPLAIN QUERY PLAN ${statement.text}`).all(...statement.params.map((p) => p ?? null)) as { detail: string; parent: number }[];
  const aliases: Record<string, string> = { s: "agno_sessions", r: "agno_runs" };
  const scans: ScanNode[] = [];
  for (const { detail, parent } of rows) {
    if (/^USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY/.test(detail) && parent === 0) {
      const outer = scans[0];
      scans.push({ node: detail, relation: outer?.relation ?? "?", index: null, rowsRead: null, tableScan: outer ? WATCHED.has(outer.relation) : false });
      continue;
    }
    const m = /^(SCAN|SEARCH) (\w+)(?: USING (?:COVERING |INTEGER PRIMARY KEY )?INDEX (\w+)| USING INTEGER PRIMARY KEY)?/.exec(detail);
    if (!m) continue;
    const relation = aliases[m[2]] ?? m[2];
    const indexed = /USING (COVERING )?INDEX|PRIMARY KEY/.test(detail);
    scans.push({ node: detail, relation, index: m[3] ?? null, rowsRead: null, tableScan: m[1] === "SCAN" && !indexed && WATCHED.has(relation) });
  }
  return [{ kind: "sqlite", scans, executionMs: null }];
}

/** "Index Scan Backward idx_agno_runs_created_at on agno_runs (26 rows)"-style summary of a plan. */
export function describePlan(plan: Plan): string {
  return plan.scans
    .map((s) => {
      if (plan.kind === "sqlite") return `${s.tableScan ? "!! " : ""}${s.node}`;
      const rows = s.rowsRead === null ? "" : ` (${s.rowsRead} rows read)`;
      return `${s.tableScan ? "!! " : ""}${s.node}${s.index ? ` ${s.index}` : ""} on ${s.relation}${rows}`;
    })
    .join("; ");
}
