import { getSettings } from "./load-config.ts";
import { installFeatures, startDatabaseServices } from "./features.ts";
import type { Settings } from "../config/settings.ts";
import { openDatabase, type Db } from "../db/open-database.ts";
import { MigrationManager } from "../migrations/migration-manager.ts";
import { openMigratedDatabase } from "../migrations/open-migrated.ts";
import { log } from "../log.ts";
import { ensureEmbeddedWorker } from "../queue/embedded-worker.ts";
import { ensureScheduler } from "../scheduler/scheduler.ts";

/**
 * Process-wide server state. Next bundles route handlers, pages, server actions and
 * instrumentation.ts as separate module graphs, so a module-level singleton would exist once per
 * graph in one process; this state lives on `globalThis` behind this one accessor.
 */
interface AppState {
  /** Fixed when the process first served a request; /health reports it. */
  instantiatedAt: string;
  databases: Map<string, Promise<Db>>;
}

const key = Symbol.for("agentry.app-state");
type Holder = { [key]?: AppState };

export function appState(): AppState {
  const holder = globalThis as Holder;
  holder[key] ??= { instantiatedAt: new Date().toISOString(), databases: new Map() };
  return holder[key];
}

export { getSettings };

/**
 * The database with this `db_id` (default: the configured one), opened once per process. On first
 * open it is migrated when `database.autoMigrate` is on (the default); otherwise an outdated schema
 * raises MigrationRequiredError naming both fixes.
 */
export function getDatabase(settings: Settings = getSettings(), dbId: string = settings.database.id): Promise<Db> {
  installFeatures();
  const state = appState();
  let db = state.databases.get(dbId);
  if (!db) {
    db = (async () => {
      const opened = await openMigratedDatabase(settings, (m) => log.info(`[migrate] ${m}`));
      // Durable queue with an embedded worker: the loop runs in this process from the first open;
      // so does the scheduler (on unless `scheduler: false`).
      ensureEmbeddedWorker(settings, opened);
      ensureScheduler(settings, opened, startDatabaseServices(settings, opened));
      return opened;
    })();
    state.databases.set(dbId, db);
    db.catch(() => state.databases.delete(dbId));
  }
  return db;
}

/**
 * Makes a database this process opened itself the one getDatabase hands out (`npm run worker`
 * opens and migrates its own): the routes its schedule fires call reuse its pool, and no embedded
 * worker or second scheduler starts on a second handle.
 */
export function adoptDatabase(settings: Settings, db: Db): void {
  appState().databases.set(settings.database.id, Promise.resolve(db));
}

/** The ids of the databases this AgentOS serves (one today: the configured database). */
export function databaseIds(settings: Settings = getSettings()): string[] {
  return [settings.database.id];
}

/**
 * Migrates one database (used by POST /databases/…/migrate). Works even when the schema is too old
 * for getDatabase() to hand the database out, and makes the migrated handle the process's one.
 */
export async function migrateDatabase(settings: Settings, dbId: string, targetVersion?: string): Promise<void> {
  const state = appState();
  const cached = state.databases.get(dbId);
  const db = cached ? await cached.catch(() => undefined) : undefined;
  const target = db ?? (await openDatabase({ url: settings.database.url, schema: settings.database.schema, id: dbId }));
  try {
    await new MigrationManager(target, { log: (m) => log.info(`[migrate] ${m}`) }).up({ targetVersion });
  } finally {
    if (!db) state.databases.set(dbId, Promise.resolve(target));
  }
  // Migrated now: a durable queue's embedded worker and the scheduler may start on it.
  if (!db) {
    ensureEmbeddedWorker(settings, target);
    ensureScheduler(settings, target, startDatabaseServices(settings, target));
  }
}
