import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import * as sqliteVec from "sqlite-vec";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgres/client.ts";
import { PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client.ts";
import { postgresExecutor, sqliteExecutor, type SqlExecutor } from "./sql.ts";

export type Dialect = "sqlite" | "postgres";

/**
 * Both generated clients come from one schema, so their model delegates have the same shape; the
 * PostgreSQL client's type stands for both.
 */
export type PrismaClient = PostgresPrismaClient;

/** An open database: one Prisma client and one raw SQL executor over the same storage. */
export interface Db {
  /** The AgentOS `db_id` clients pass as `?db_id=`. */
  readonly id: string;
  readonly dialect: Dialect;
  /** PostgreSQL schema holding the tables (Agno's default `ai`); null on SQLite. */
  readonly schema: string | null;
  /** SQLite file path, or the PostgreSQL URL without its password. */
  readonly location: string;
  readonly prisma: PrismaClient;
  readonly sql: SqlExecutor;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `file:./data/agentry.db`, a path ending in .db/.sqlite, or `postgres(ql)://…`. */
  url: string;
  /** PostgreSQL schema for the tables; default `ai`. Ignored on SQLite. */
  schema?: string;
  /** The `db_id` the API exposes; default `agentry-db`. */
  id?: string;
}

export class DatabaseUrlError extends Error {
  override readonly name = "DatabaseUrlError";
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SQLITE_BUSY_TIMEOUT_MS = 5000;

export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (/^(file|sqlite):/i.test(url) || /\.(db|sqlite3?)$/i.test(url) || url === ":memory:") return "sqlite";
  throw new DatabaseUrlError(`DATABASE_URL '${url}' is neither a SQLite file (file:./data/agentry.db) nor a PostgreSQL URL (postgresql://user@host:5432/db)`);
}

/** The filesystem path a SQLite URL names. */
export function sqlitePath(url: string): string {
  const path = url.replace(/^(file|sqlite):(\/\/)?/i, "");
  return path === ":memory:" ? path : resolve(path);
}

/** Opens the database a URL names. Does not migrate: see lib/migrations. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Db> {
  const id = options.id ?? "agentry-db";
  return dialectOf(options.url) === "sqlite" ? openSqlite(id, sqlitePath(options.url)) : openPostgres(id, options.url, options.schema ?? "ai");
}

async function openSqlite(id: string, path: string): Promise<Db> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const connection = new Database(path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  // WAL is persistent on the file; setting it on every connect makes old DELETE-mode files convert.
  connection.pragma("journal_mode = WAL");
  connection.pragma("foreign_keys = ON");
  // Knowledge search (lib/knowledge/stores/sqlite-store.ts) runs vec0 tables on this connection.
  sqliteVec.load(connection);
  const prisma = new SqlitePrismaClient({
    adapter: new PrismaBetterSqlite3({ url: path, timeout: SQLITE_BUSY_TIMEOUT_MS }),
  }) as unknown as PrismaClient;
  await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await prisma.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  return {
    id,
    dialect: "sqlite",
    schema: null,
    location: path,
    prisma,
    sql: sqliteExecutor(connection),
    async close() {
      await prisma.$disconnect();
      connection.close();
    },
  };
}

async function openPostgres(id: string, url: string, schema: string): Promise<Db> {
  if (!SCHEMA_NAME.test(schema)) {
    throw new DatabaseUrlError(`PostgreSQL schema name '${schema}' is not a plain identifier`);
  }
  // search_path makes our raw SQL name tables unqualified; Prisma qualifies them itself. `public`
  // follows so the pgvector extension's type and operators (installed there by default) resolve.
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema},public`, max: 10 });
  pool.on("error", () => undefined); // an idle client's error must not crash the process
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const prisma = new PostgresPrismaClient({ adapter: new PrismaPg(pool, { schema }) });
  const safeUrl = url.replace(/:\/\/([^:@/]+):[^@/]*@/, "://$1:***@");
  return {
    id,
    dialect: "postgres",
    schema,
    location: safeUrl,
    prisma,
    sql: postgresExecutor(pool),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
