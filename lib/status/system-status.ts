import type { Settings } from "../config/settings.ts";
import { MODEL_ENV_HINT } from "../config/model-from-env.ts";
import { MigrationManager } from "../migrations/migration-manager.ts";
import type { Db } from "../db/open-database.ts";

/** What the dashboard shell shows about the installation: database, migrations, model providers. */
export interface SystemStatus {
  database: { dialect: string | null; location: string | null; error: string | null; pendingMigrations: string[] };
  modelProvider: { configured: boolean; message: string | null };
  agents: { id: string; name: string; model: string | null }[];
  authMode: string;
}

/**
 * Recent results per database, on `globalThis` so every route bundle of the process shares them
 * (and a migration run anywhere in it forgets them).
 */
const key = Symbol.for("agentry.system-status");
type Holder = { [key]?: Map<string, { at: number; status: Promise<SystemStatus> }> };
const recent = () => ((globalThis as Holder)[key] ??= new Map());

/**
 * The status, read at most once per `maxAgeMs` per database: pages that re-render every second
 * while a run is live would otherwise introspect the schema every second.
 */
export function recentSystemStatus(settings: Settings, maxAgeMs: number, database: () => Promise<Db>): Promise<SystemStatus> {
  const cached = recent().get(settings.database.id);
  if (cached && Date.now() - cached.at < maxAgeMs) return cached.status;
  const status = systemStatus(settings, database);
  recent().set(settings.database.id, { at: Date.now(), status });
  return status;
}

/** After a migration: the next status read looks at the schema again. */
export function forgetSystemStatus(): void {
  recent().clear();
}

/** `open` opens the installation's database (the caller's process wiring: lib/server/app-context.ts). */
export async function systemStatus(settings: Settings, open: () => Promise<Db>): Promise<SystemStatus> {
  const unconfigured = settings.agents.filter((a) => !a.model);
  let database: SystemStatus["database"] = { dialect: null, location: null, error: null, pendingMigrations: [] };
  try {
    const db = await open();
    const pending = await new MigrationManager(db).pending();
    database = { dialect: db.dialect, location: db.location, error: null, pendingMigrations: pending.map((p) => p.table) };
  } catch (error) {
    database = { ...database, error: (error as Error).message };
  }
  return {
    database,
    modelProvider: {
      configured: unconfigured.length === 0,
      message: unconfigured.length > 0 ? `No model provider is configured: ${MODEL_ENV_HINT}.` : null,
    },
    agents: settings.agents.map((a) => ({ id: a.id, name: a.name, model: a.model ? `${a.model.provider}/${a.model.id}` : null })),
    authMode: settings.auth.mode,
  };
}
