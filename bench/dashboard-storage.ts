/**
 * The two storages of bench/dashboard.ts: a fresh PostgreSQL database or SQLite file, migrated and
 * seeded; the raw queries (the list functions' SQL, run directly) and their plans.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { openDatabase, type Db } from "../lib/db/open-database.ts";
import { toPostgresPlaceholders, type SqlExecutor } from "../lib/db/sql.ts";
import { MigrationManager } from "../lib/migrations/migration-manager.ts";
import { unionMs, type StatementProxy, type TimedBatch } from "./dashboard-pg-proxy.ts";
import { postgresPlans, sqlitePlan, type Plan, type PlannedStatement } from "./dashboard-plans.ts";
import { seedPostgres, seedSqlite, type SeededUser } from "./dashboard-seed.ts";
import { fmtBytes } from "./report.ts";

export interface DataSize {
  runs: number;
  sessions: number;
  users: number;
}

/** A PostgreSQL URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: StatementProxy): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = String(proxy.port);
  return u.toString();
}

/** A Db whose raw SQL is recorded: the statements a list function runs, with their parameters. */
export function recording(db: Db): { db: Db; take(): PlannedStatement[] } {
  const seen: PlannedStatement[] = [];
  const sql: SqlExecutor = {
    query: (text, params = []) => {
      seen.push({ text, params: [...params] });
      return db.sql.query(text, params);
    },
    exec: (text, params) => db.sql.exec(text, params),
    batch: (statements) => db.sql.batch(statements),
    batchRows: (statements) => db.sql.batchRows(statements),
  };
  return { db: { ...db, sql }, take: () => seen.splice(0) };
}

export interface Storage {
  db: Db;
  /** The server's DATABASE_URL (on PostgreSQL through the proxy). */
  serverUrl: string;
  seed(): Promise<{ users: SeededUser[]; runDataBytes: number }>;
  /**
   * Runs the statements as the list function does (rows and count concurrently on PostgreSQL).
   * PostgreSQL: resolves to their wall time as the proxy saw it (the view the page's SQL is
   * measured from); SQLite: NaN (the caller's clock is the only one).
   */
  raw(statements: PlannedStatement[]): Promise<number>;
  /** `tableRows`: rows per table, to flag index scans that read most of one. */
  plans(statement: PlannedStatement, name: string, tableRows: Record<string, number>): Promise<Plan[]>;
  tableBytes(): Promise<string>;
  close(): Promise<void>;
  drop(): Promise<void>;
}

/**
 * `proxy`: the raw statements go through the same statement-timing proxy as the server's, so
 * the raw time and the page's SQL time are measured the same way (see raw()).
 */
export async function postgresStorage({ adminUrl, database, proxy, data }: { adminUrl: string; database: string; proxy: StatementProxy; data: DataSize }): Promise<Storage> {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const db = await openDatabase({ url: databaseUrl, schema: "ai" });
  await new MigrationManager(db).up();
  const pool = new pg.Pool({ connectionString: databaseUrl, options: "-c search_path=ai", max: 2 });
  pool.on("error", () => undefined);
  // The raw side: plain pg, named statements like the app's executor (lib/db/sql.ts), so
  // PostgreSQL caches and re-plans them the same way; two connections, as the rows and the count
  // run concurrently.
  const rawPool = new pg.Pool({ connectionString: throughProxy(databaseUrl, proxy), options: "-c search_path=ai", max: 2 });
  rawPool.on("error", () => undefined);
  const names = new Map<string, string>();
  const run = (s: PlannedStatement) => {
    const text = toPostgresPlaceholders(s.text);
    let name = names.get(text);
    if (!name) names.set(text, (name = `bench_${names.size}`));
    return rawPool.query({ name, text, values: s.params.map((p) => p ?? null) });
  };
  return {
    db,
    serverUrl: throughProxy(databaseUrl, proxy),
    async seed() {
      const result = await seedPostgres(pool, { ...data, now: Math.floor(Date.now() / 1000) });
      // What autovacuum would have done by the time a table holds 100,000 rows.
      await pool.query("VACUUM ANALYZE agno_runs, agno_sessions, agentry_users");
      return result;
    },
    async raw(statements) {
      const batches: TimedBatch[] = [];
      proxy.onBatch = (b) => batches.push(b);
      await Promise.all(statements.map(run));
      proxy.onBatch = null;
      return unionMs(batches);
    },
    plans: (statement, name, tableRows) => postgresPlans(pool, statement, name, tableRows),
    async tableBytes() {
      const { rows } = await pool.query(
        `SELECT relname, pg_total_relation_size(oid) AS total, pg_relation_size(oid) AS heap FROM pg_class WHERE relname IN ('agno_runs', 'agno_sessions') AND relkind = 'r' ORDER BY relname`,
      );
      return rows.map((r) => `${r.relname} ${fmtBytes(Number(r.heap))} heap, ${fmtBytes(Number(r.total))} with indexes and TOAST`).join("; ");
    },
    async close() {
      await rawPool.end();
      await pool.end();
      await db.close();
    },
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function sqliteStorage({ file, data }: { file: string; data: DataSize }): Promise<Storage> {
  mkdirSync(dirname(file), { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  const db = await openDatabase({ url: `file:${file}` });
  await new MigrationManager(db).up();
  const connection = new Database(file, { timeout: 5000 });
  const cache = new Map<string, Database.Statement>();
  return {
    db,
    serverUrl: `file:${file}`,
    async seed() {
      // No ANALYZE: Agentry never runs it, so a real SQLite file has no statistics either.
      return seedSqlite(connection, { ...data, now: Math.floor(Date.now() / 1000) });
    },
    async raw(statements) {
      for (const s of statements) {
        let prepared = cache.get(s.text);
        if (!prepared) cache.set(s.text, (prepared = connection.prepare(s.text)));
        prepared.all(...s.params.map((p) => p ?? null));
      }
      return NaN;
    },
    plans: async (statement) => sqlitePlan(connection, statement),
    async tableBytes() {
      const pages = connection.pragma("page_count", { simple: true }) as number;
      const size = connection.pragma("page_size", { simple: true }) as number;
      return `file ${fmtBytes(pages * size)}`;
    },
    async close() {
      connection.close();
      await db.close();
    },
    async drop() {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    },
  };
}
