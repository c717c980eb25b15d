import { afterAll, beforeAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { readEnv } from "@/lib/config/env.ts";
import { openDatabase, type Db } from "@/lib/db/index.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";

/**
 * The storage dialects every contract suite runs against: a real SQLite file, and a real
 * PostgreSQL server in a schema of the suite's own (so suites never see each other's rows).
 * PostgreSQL is required in CI (AGENTRY_TEST_REQUIRE_SERVICES=1); elsewhere, when it is not
 * reachable, its suites are skipped with the reason printed.
 */
export interface TestDialect {
  readonly name: "sqlite" | "postgres";
  readonly skipReason: string | null;
  /** Opens a fresh, empty database (its own file or schema). */
  open(): Promise<TestDb>;
}

export interface TestDb extends Db {
  /** Drops the schema / removes the file. */
  destroy(): Promise<void>;
}

const env = readEnv();
const DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test";
export const postgresUrl = env.AGENTRY_TEST_POSTGRES_URL ?? DEFAULT_PG;

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return `PostgreSQL at ${postgresUrl.replace(/:[^:@/]*@/, ":***@")} is unreachable (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pgProblem = await probePostgres();
if (pgProblem && env.AGENTRY_TEST_REQUIRE_SERVICES) {
  throw new Error(`${pgProblem}; AGENTRY_TEST_REQUIRE_SERVICES is set, so the PostgreSQL suites cannot be skipped`);
}
if (pgProblem) console.warn(`[skip] PostgreSQL suites skipped: ${pgProblem}`);

let counter = 0;
const suiteTag = `${process.pid}_${Date.now().toString(36)}`;

export const sqliteDialect: TestDialect = {
  name: "sqlite",
  skipReason: null,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "agentry-test-"));
    const db = await openDatabase({ url: `file:${join(dir, "agentry.db")}` });
    return Object.assign(db, {
      async destroy() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  },
};

export const postgresDialect: TestDialect = {
  name: "postgres",
  skipReason: pgProblem,
  async open() {
    const schema = `t_${suiteTag}_${++counter}`;
    const db = await openDatabase({ url: postgresUrl, schema });
    return Object.assign(db, {
      async destroy() {
        await db.close();
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    });
  },
};

export const DIALECTS: readonly TestDialect[] = [sqliteDialect, postgresDialect];

/** A fresh database migrated to the current schema. */
export async function openMigrated(dialect: TestDialect): Promise<TestDb> {
  const db = await dialect.open();
  await new MigrationManager(db).up();
  return db;
}

/**
 * A migrated database for the enclosing describe block: opened before its tests (unless the
 * dialect is skipped), destroyed after. `use` receives it, e.g. `useMigratedDb(d, (x) => (db = x))`.
 */
export function useMigratedDb(dialect: TestDialect, use: (db: TestDb) => void): void {
  let opened: TestDb | undefined;
  beforeAll(async () => {
    if (dialect.skipReason) return;
    opened = await openMigrated(dialect);
    use(opened);
  });
  afterAll(async () => {
    await opened?.destroy();
  });
}
