import type { Settings } from "../config/settings.ts";
import { MigrationRequiredError } from "../errors/domain-errors.ts";
import { openDatabase, type Db } from "../db/open-database.ts";
import { MigrationManager } from "./migration-manager.ts";
import type { Log } from "./types.ts";

/**
 * Opens the configured database ready for use: migrated when `database.autoMigrate` is on (the
 * default; migrations are idempotent, so web servers and workers may all run them), otherwise
 * checked, an outdated schema raising MigrationRequiredError naming both fixes.
 */
export async function openMigratedDatabase(settings: Settings, log: Log): Promise<Db> {
  const db = await openDatabase({ url: settings.database.url, schema: settings.database.schema, id: settings.database.id });
  try {
    const manager = new MigrationManager(db, { log });
    if (settings.database.autoMigrate) await manager.up();
    else {
      const pending = await manager.pending();
      if (pending.length > 0) throw new MigrationRequiredError(pending);
    }
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
