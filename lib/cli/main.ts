import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getSettings } from "../server/load-config.ts";
import { readEnv } from "../config/env.ts";
import { openDatabase } from "../db/open-database.ts";
import { cleanupLegacyRunsColumn } from "../db/sessions/legacy-runs.ts";
import { migrateKnowledgeTables, reembedKnowledge } from "../knowledge/maintenance.ts";
import { MigrationManager } from "../migrations/migration-manager.ts";
import { describeLegacyRunsRepair } from "../migrations/steps/legacy-runs-repair.ts";
import { backupSqlite } from "./backup.ts";
import { buildIsStale } from "./build-freshness.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const USAGE = `Usage: agentry <command>

Commands:
  start                          build if the build is stale, migrate, then serve API + dashboard
  migrate [--target-version V] [--tables a,b] [--repair-runs]
                                 bring the database schema up to date (idempotent); --repair-runs
                                 also checks every legacy runs blob against agno_runs again
  knowledge reembed              embed every knowledge chunk again with the configured embedder
                                 (after changing the embedder or its dimensions)
  backup <file>                  copy the live SQLite database with SQLite's backup API
  cleanup-legacy-runs --force    drop the pre-v3 agno_sessions.runs column after verifying every run was copied
`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const value = args[i + 1];
  if (!value || value.startsWith("--")) throw new Error(`${name} needs a value`);
  return value;
}

async function withDatabase<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>, settings: ReturnType<typeof getSettings>) => Promise<T>): Promise<T> {
  const settings = getSettings();
  const db = await openDatabase({ url: settings.database.url, schema: settings.database.schema, id: settings.database.id });
  try {
    return await fn(db, settings);
  } finally {
    await db.close();
  }
}

async function migrate(args: string[]): Promise<void> {
  const tables = option(args, "--tables")
    ?.split(",")
    .map((t) => t.trim());
  const targetVersion = option(args, "--target-version");
  const repairRuns = args.includes("--repair-runs");
  await withDatabase(async (db, settings) => {
    const outcomes = await new MigrationManager(db, { log: (m) => console.log(`  ${m}`) }).up({ targetVersion, tables, repairRuns });
    // The knowledge vectors step: chunk tables made before per-user isolation get their owner column.
    for (const table of await migrateKnowledgeTables(db, settings)) {
      if (table.addedOwnerColumn) console.log(`  knowledge vectors: added user_id to ${table.table} (its existing chunks are shared)`);
      if (table.addedKeywordColumn) console.log(`  knowledge vectors: added the stored keyword text content_tsv to ${table.table}`);
    }
    const repair = outcomes.find((o) => o.repair)?.repair;
    if (repair) console.log(`Legacy runs of ${repair.sessions} sessions checked against agno_runs: ${describeLegacyRunsRepair(repair)}.`);
    else if (repairRuns) console.log("No legacy agno_sessions.runs column (or agno_runs is not at the latest version): no runs to repair.");
    const changed = outcomes.filter((o) => o.action !== "unchanged");
    console.log(
      changed.length === 0
        ? `Database ${db.location} is up to date.`
        : `Migrated ${changed.length} table(s) in ${db.location}: ${changed.map((o) => `${o.table} ${o.from ?? "new"} → ${o.to}`).join(", ")}`,
    );
  });
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: "inherit" });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward).on("SIGTERM", forward);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward).off("SIGTERM", forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** What `agentry start` serves with, once {@link prepareStart} has made the build and database ready. */
export interface StartPlan {
  host: string;
  port: number;
  /** The line printed once the server listens. */
  banner: string;
  /** How long in-flight requests and streams get after SIGTERM/SIGINT: `queue.stopTimeoutSeconds`. */
  shutdownGraceSeconds: number;
}

/**
 * The part of `agentry start` before serving, run by bin/agentry.mjs in a child process that
 * exits before the server starts: checks the settings (the bind/auth rule among them), builds
 * when the build is stale, migrates. Returns null when the build failed (its output says why).
 */
export async function prepareStart(): Promise<StartPlan | null> {
  const settings = getSettings(); // validates config and the bind/auth rule before anything starts
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  const nextBin = join(ROOT, "node_modules", "next", "dist", "bin", "next");
  const freshness = buildIsStale(ROOT, readEnv().AGENTRY_NEXT_DIST_DIR);
  if (freshness.stale) {
    console.log(`Building (${freshness.reason}) …`);
    const code = await run(process.execPath, [nextBin, "build"], env);
    if (code !== 0) return null;
  }
  if (settings.database.autoMigrate) await migrate([]);
  const { host, port } = settings.server;
  return {
    host,
    port,
    banner: `Agentry on http://${host.includes(":") ? `[${host}]` : host}:${port} (auth mode: ${settings.auth.mode}; dashboard at /dashboard)`,
    shutdownGraceSeconds: settings.queue.stopTimeoutSeconds,
  };
}

export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "prepare-start": {
        // Internal: bin/agentry.mjs runs it for `agentry start` and reads the plan over IPC.
        const plan = await prepareStart();
        if (!plan) return 1;
        if (!process.send) throw new Error("prepare-start is run by `agentry start`, which serves what it prepares");
        await new Promise<void>((resolve, reject) => process.send!(plan, (error: Error | null) => (error ? reject(error) : resolve())));
        process.disconnect?.();
        return 0;
      }
      case "migrate":
        await migrate(rest);
        return 0;
      case "knowledge": {
        if (rest[0] !== "reembed") throw new Error("usage: agentry knowledge reembed");
        const outcomes = await withDatabase((db, settings) => reembedKnowledge(db, settings, { log: (m) => console.log(`  ${m}`) }));
        console.log(`Re-embedded ${outcomes.map((o) => `${o.chunks} chunk(s) of ${o.table}`).join(", ")}.`);
        return 0;
      }
      case "backup": {
        const file = rest[0];
        if (!file) throw new Error("backup needs a destination file: agentry backup ./backups/agentry-2026-01-01.db");
        const result = await backupSqlite({ url: getSettings().database.url, destination: file });
        console.log(`Backed up ${result.pages} pages to ${result.path}`);
        return 0;
      }
      case "cleanup-legacy-runs": {
        const result = await withDatabase((db) => cleanupLegacyRunsColumn(db, { force: rest.includes("--force") }));
        console.log(result.dropped ? `Verified ${result.verifiedRuns} legacy runs in agno_runs and dropped agno_sessions.runs.` : "There is no legacy agno_sessions.runs column; nothing to do.");
        return 0;
      }
      case undefined:
      case "help":
      case "--help":
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        console.error(`Unknown command '${command}'.\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    console.error(`agentry ${command}: ${(error as Error).message}`);
    return 1;
  }
}
