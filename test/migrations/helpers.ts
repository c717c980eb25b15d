import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FileConfig } from "@/lib/config/define.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { appState } from "@/lib/server/app-context.ts";
import { columnsOf, indexExists, postgresHasPrimaryKey, tableExists, uniqueKeys, type UniqueKey } from "@/lib/migrations/introspect.ts";

export { uniqueKeys };
import { TABLES } from "@/lib/migrations/registry.ts";
import { apiClient } from "../support/api.ts";
import { postgresUrl, type TestDb, type TestDialect } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Opens a fresh database of the dialect, runs `fn`, and always destroys it. */
export async function withFreshDb<T>(dialect: TestDialect, fn: (db: TestDb) => Promise<T>): Promise<T> {
  const db = await dialect.open();
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

export const hasUniqueOn = (keys: UniqueKey[], columns: string[], { partial = false } = {}) => keys.some((k) => k.partial === partial && k.columns.join(",") === columns.join(","));

/**
 * Problems that keep a table from being at its v3 (3.0.0) shape as lib/migrations/tables/specs.ts
 * declares it: missing tables, columns, NOT NULLs, indexes and unique keys. Extra columns (the
 * legacy `runs` blob) and stricter-than-spec constraints inherited from Agno are allowed.
 */
export async function v3ShapeProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  for (const { spec } of TABLES) {
    if (!(await tableExists(db, spec.name))) {
      problems.push(`${spec.name}: missing`);
      continue;
    }
    const live = await columnsOf(db, spec.name);
    for (const column of spec.columns) {
      const found = live.get(column.name);
      if (!found) problems.push(`${spec.name}.${column.name}: missing`);
      else if ((column.notNull || column.primaryKey) && !found.notNull) problems.push(`${spec.name}.${column.name}: nullable`);
    }
    for (const index of spec.indexes) {
      if (!(await indexExists(db, index.name))) problems.push(`${spec.name}: index ${index.name} missing`);
    }
    const keys = await uniqueKeys(db, spec.name);
    for (const unique of spec.uniques ?? []) {
      if (!hasUniqueOn(keys, [...unique.columns])) problems.push(`${spec.name}: unique (${unique.columns.join(", ")}) missing`);
    }
    for (const index of spec.indexes.filter((i) => i.unique)) {
      if (!hasUniqueOn(keys, [...index.columns], { partial: !!index.where })) {
        problems.push(`${spec.name}: unique index ${index.name} (${index.columns.join(", ")}) missing`);
      }
    }
  }
  // What v3 replaced must be gone.
  const metricsKeys = await uniqueKeys(db, "agno_metrics");
  if (hasUniqueOn(metricsKeys, ["date", "aggregation_period"])) problems.push("agno_metrics: v2 unique (date, aggregation_period) still there");
  if (hasUniqueOn(await uniqueKeys(db, "agno_schedules"), ["name"])) problems.push("agno_schedules: v2 unique (name) still there");
  if (db.dialect === "postgres") {
    if (!(await postgresHasPrimaryKey(db, "agno_sessions"))) problems.push("agno_sessions: no primary key");
    if (hasUniqueOn(await uniqueKeys(db, "agno_sessions"), ["session_id"])) problems.push("agno_sessions: redundant unique (session_id) still there");
  } else {
    const [pk] = await db.sql.query<{ pk: number }>(`SELECT pk FROM pragma_table_info('agno_sessions') WHERE name = 'session_id'`);
    if (pk?.pk !== 1 && !hasUniqueOn(await uniqueKeys(db, "agno_sessions"), ["session_id"])) {
      problems.push("agno_sessions: session_id is neither the primary key nor unique");
    }
  }
  return problems;
}

/** Row counts of the given tables (absent tables are left out). */
export async function rowCounts(db: Db, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    if (!(await tableExists(db, table))) continue;
    const [row] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`);
    counts[table] = Number(row.n);
  }
  return counts;
}

export const ALL_TABLES = [...TABLES.map((t) => t.spec.name), "agno_culture", "agno_schema_versions"];

/** The environment that points Agentry (the API, the CLI) at this test database. */
export function databaseEnv(dialect: TestDialect, db: Db): Record<string, string> {
  return dialect.name === "sqlite" ? { DATABASE_URL: `file:${db.location}` } : { DATABASE_URL: postgresUrl, AGENTRY_DB_SCHEMA: db.schema! };
}

/**
 * Runs `fn` with an HTTP API client (dispatch, as the server routes a request) over the migrated
 * database, configured with `agents` (default none).
 */
export async function withApi<T>(
  dialect: TestDialect,
  db: Db,
  fn: (api: ReturnType<typeof apiClient>) => Promise<T>,
  { agents, teams }: { agents?: FileConfig["agents"]; teams?: FileConfig["teams"] } = {},
): Promise<T> {
  const id = `upgrade-${db.dialect}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  // autoMigrate off: the API serves the database only if nothing is pending.
  const settings = testSettings({ env: databaseEnv(dialect, db), file: { database: { id, autoMigrate: false }, ...(agents ? { agents } : {}), ...(teams ? { teams } : {}) } });
  try {
    return await fn(apiClient(settings));
  } finally {
    const opened = appState().databases.get(id);
    appState().databases.delete(id);
    await (await opened?.catch(() => undefined))?.close();
  }
}

/** `npx agentry <args>` against the database, as an operator runs it. */
export function cliAgentry(dialect: TestDialect, db: Db, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const env = databaseEnv(dialect, db);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/agentry.mjs", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}
