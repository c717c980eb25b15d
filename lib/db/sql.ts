import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { storableJsonText, storableText } from "./storable-text.ts";

/** A row as a driver returns it: BIGINT columns are numbers, JSON columns may still be text (SQLite). */
export type Row = Record<string, unknown>;

export interface Statement {
  readonly text: string;
  readonly params?: readonly unknown[];
}

/**
 * Raw SQL in either dialect, written with `?` placeholders (translated to `$n` for PostgreSQL).
 * Used where a single statement must do what Prisma cannot say in one round trip (assigning a
 * run_index inside the insert, conditional upserts) and by the migrations.
 */
export interface SqlExecutor {
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs one statement; resolves to the number of rows it changed. */
  exec(text: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs the statements atomically, in order, in one transaction. On SQLite it is synchronous
   * under the hood, so no transaction is ever held open across an await (a SQLITE_BUSY at
   * BEGIN/COMMIT of an interactive Prisma transaction can leave the client stuck).
   */
  batch(statements: readonly Statement[]): Promise<number[]>;
  /** As `batch`, resolving to each statement's rows (a statement that returns none gives []). */
  batchRows(statements: readonly Statement[]): Promise<Row[][]>;
}

/** Rewrites `?` placeholders to `$1…$n`. Our SQL never contains a literal `?`. */
export function toPostgresPlaceholders(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/*
 * Text no database stores the same way on both dialects (NUL, lone surrogates; see
 * storable-text.ts) is written with U+FFFD in its place, in string parameters and inside JSON
 * ones alike. The request edge refuses such text from callers with a 422; this is for what
 * reaches storage from elsewhere — a model's answer, a tool's result — so a run that produced
 * one still ends where it should on PostgreSQL, and both dialects store the same thing.
 */

function sqliteParam(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return storableText(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && !(value instanceof Buffer)) return storableJsonText(JSON.stringify(value));
  return value;
}

function postgresParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "string") return storableText(value);
  // Objects and arrays go to JSON/JSONB columns as JSON text; pg would turn arrays into PG arrays.
  if (value !== null && typeof value === "object" && !(value instanceof Date) && !(value instanceof Buffer)) {
    return storableJsonText(JSON.stringify(value));
  }
  return value;
}

const SQLITE_BUSY_RETRIES = 5;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

/** Retries a synchronous SQLite call a few times when another process holds the write lock. */
function withBusyRetry<T>(fn: () => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (error) {
      if (!isBusy(error) || attempt >= SQLITE_BUSY_RETRIES) throw error;
    }
  }
}

const STATEMENT_CACHE_SIZE = 256;

export function sqliteExecutor(connection: BetterSqlite3.Database): SqlExecutor {
  // Preparing is a real cost per call; statements are reused by text (oldest evicted first).
  const cache = new Map<string, BetterSqlite3.Statement>();
  const prepare = (text: string): BetterSqlite3.Statement => {
    let prepared = cache.get(text);
    if (!prepared) {
      prepared = connection.prepare(text);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(text, prepared);
    }
    return prepared;
  };
  const run = (statement: Statement): { changes: number; rows?: Row[] } => {
    const prepared = prepare(statement.text);
    const params = (statement.params ?? []).map(sqliteParam);
    if (prepared.reader) {
      // A read (or a write with RETURNING) counts the rows it returned, as PostgreSQL's rowCount does.
      const rows = prepared.all(...params) as Row[];
      return { changes: rows.length, rows };
    }
    return { changes: prepared.run(...params).changes };
  };
  return {
    async query<T extends Row>(text: string, params: readonly unknown[] = []) {
      return withBusyRetry(() => run({ text, params }).rows ?? []) as T[];
    },
    async exec(text, params = []) {
      return withBusyRetry(() => run({ text, params }).changes);
    },
    async batch(statements) {
      const transaction = connection.transaction(() => statements.map((s) => run(s).changes));
      return withBusyRetry(() => transaction.immediate());
    },
    async batchRows(statements) {
      const transaction = connection.transaction(() => statements.map((s) => run(s).rows ?? []));
      return withBusyRetry(() => transaction.immediate());
    },
  };
}

/** Parses BIGINT (int8) and NUMERIC as JS numbers: our BIGINTs are epoch seconds, counts and indexes. */
const pgTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1082) return (value: string) => value; // DATE stays 'YYYY-MM-DD'
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Statement texts a process prepares at most (each connection prepares a named statement once). */
const PREPARED_TEXTS = 1000;

export function postgresExecutor(pool: pg.Pool): SqlExecutor {
  // Named statements are parsed and planned once per connection instead of on every call: the
  // hot paths (claims, fenced writes, run inserts) repeat a handful of texts. Texts past the cap
  // (e.g. with literals spliced in) run unnamed rather than growing every connection's cache.
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_TEXTS) names.set(text, (name = `agentry_${names.size}`));
    return name;
  };
  const toQuery = (statement: Statement) => {
    const text = toPostgresPlaceholders(statement.text);
    return { name: nameOf(text), text, values: (statement.params ?? []).map(postgresParam), types: pgTypes };
  };
  const inTransaction = async (statements: readonly Statement[]): Promise<pg.QueryResult[]> => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const results: pg.QueryResult[] = [];
      for (const statement of statements) results.push(await client.query(toQuery(statement)));
      await client.query("COMMIT");
      return results;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  return {
    async query<T extends Row>(text: string, params: readonly unknown[] = []) {
      const result = await pool.query(toQuery({ text, params }));
      return result.rows as T[];
    },
    async exec(text, params = []) {
      const result = await pool.query(toQuery({ text, params }));
      return result.rowCount ?? 0;
    },
    async batch(statements) {
      return (await inTransaction(statements)).map((result) => result.rowCount ?? 0);
    },
    async batchRows(statements) {
      return (await inTransaction(statements)).map((result) => result.rows as Row[]);
    },
  };
}
