/**
 * An Agentry app inside the benchmark's process: its settings, its database (migrated: a SQLite
 * file in the benchmark's temporary directory or a PostgreSQL schema of its own) and the API over
 * node:http (lib/http/node-server.ts). Closed by its close() or by the harness's clean-ups.
 */
import { mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import type { FileConfig } from "../lib/config/define.ts";
import { parseEnv } from "../lib/config/env.ts";
import { resolveSettings, type Settings } from "../lib/config/settings.ts";
import type { Db } from "../lib/db/open-database.ts";
import { serveApi } from "../lib/http/node-server.ts";
import { stopSchedulers } from "../lib/scheduler/scheduler.ts";
import { appState, getDatabase } from "../lib/server/app-context.ts";
import { flushTracing } from "../lib/tracing/setup.ts";
import { cleanups } from "./harness.ts";

export interface InProcessApp {
  dialect: "sqlite" | "postgres";
  label: string;
  settings: Settings;
  db: Db;
  origin: string;
  /** SQLite: the file; PostgreSQL: the database and the schema. */
  where: string;
  sqliteFile: string | null;
  pgSchema: string | null;
  close(): Promise<void>;
}

export interface InProcessAppOptions {
  /** The benchmark's name: the database id is `bench-<bench>-<label>-<stamp>`, the schema `bench_<bench>_<label>_<stamp>`. */
  bench: string;
  dialect: "sqlite" | "postgres";
  label: string;
  stamp: string;
  /** Where the SQLite file goes (`<label>.db`). */
  tempDir: string;
  pgUrl: string;
  /** Leave the SQLite file or the schema in place (and say so) when closing. */
  keep: boolean;
  /** Environment variables besides AGENTRY_CHECK_RESPONSES and the database's. */
  env?: Record<string, string>;
  /** The settings file, but for `database` (its id is set here). */
  file: Omit<FileConfig, "database">;
  /** Flush tracing's exporter after the server closes, before the schedulers stop. */
  flushTracingOnClose?: boolean;
}

export async function openInProcessApp(o: InProcessAppOptions): Promise<InProcessApp> {
  const { dialect, label, keep } = o;
  const id = `bench-${o.bench}-${label}-${o.stamp}`;
  const sqliteFile = dialect === "sqlite" ? join(o.tempDir, `${label}.db`) : null;
  const pgSchema = dialect === "postgres" ? `bench_${o.bench}_${label}_${o.stamp}` : null;
  if (sqliteFile) mkdirSync(o.tempDir, { recursive: true });
  const env: Record<string, string> = {
    // Responses are checked against their schemas only outside production (lib/http/route.ts): measured as production runs.
    AGENTRY_CHECK_RESPONSES: "false",
    ...o.env,
    ...(sqliteFile ? { DATABASE_URL: `file:${sqliteFile}` } : { DATABASE_URL: o.pgUrl, AGENTRY_DB_SCHEMA: pgSchema! }),
  };
  const settings = resolveSettings({ env: parseEnv(env), file: { database: { id }, ...o.file } });
  const db = await getDatabase(settings); // migrates, and binds tracing's exporter to this database
  const { server, origin } = await serveApi({ settings });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await new Promise<void>((ok) => {
      (server as Server).close(() => ok());
      server.closeAllConnections();
    });
    if (o.flushTracingOnClose) await flushTracing().catch(() => undefined);
    await stopSchedulers(id).catch(() => undefined);
    if (keep) console.log(`  --keep: left ${sqliteFile ?? `schema ${pgSchema}`} in place`);
    else if (pgSchema) await db.sql.exec(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).catch((e) => console.error(`could not drop schema ${pgSchema}: ${e}`));
    appState().databases.delete(id);
    await db.close().catch(() => undefined);
    if (sqliteFile && !keep) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(sqliteFile + suffix, { force: true });
  };
  cleanups.push(close);
  return { dialect, label, settings, db, origin, where: sqliteFile ?? `${db.location}, schema ${pgSchema}`, sqliteFile, pgSchema, close };
}
