import type { Db } from "../../db/open-database.ts";
import { readSchemaVersions } from "../../db/schema-versions/schema-versions.ts";
import { tableExists } from "../../migrations/introspect.ts";
import { MigrationManager } from "../../migrations/migration-manager.ts";
import { TABLES } from "../../migrations/registry.ts";
import { SCHEMA_VERSIONS } from "../../migrations/tables/specs.ts";
import { LATEST_VERSION } from "../../migrations/types.ts";

/** One table as the admin console's Database page shows it. */
export interface TableSchemaStatus {
  table: string;
  /** Agno's table type (`sessions`, `memories`, …). */
  tableType: string;
  /** The version stamped in agno_schema_versions; null when unstamped (or the table is missing). */
  version: string | null;
  exists: boolean;
  /** Behind this code's version, unstamped or missing: what a migration would change. */
  pending: boolean;
}

export interface DatabaseSchemaStatus {
  /** The version this code writes. */
  latest: string;
  tables: TableSchemaStatus[];
}

/**
 * Every table the migrations manage, in migration order, with its stamped version and whether it
 * is pending (MigrationManager.pending(), the same check that decides whether a database opens).
 */
export async function databaseSchemaStatus(db: Db): Promise<DatabaseSchemaStatus> {
  const manager = new MigrationManager(db);
  const pending = new Set((await manager.pending()).map((p) => p.table));
  const stamped = (await tableExists(db, SCHEMA_VERSIONS.name)) ? await readSchemaVersions(db) : new Map<string, string>();
  const tables = await Promise.all(
    TABLES.map(async ({ spec, tableType }) => {
      const exists = await tableExists(db, spec.name);
      return { table: spec.name, tableType, version: stamped.get(spec.name) ?? null, exists, pending: pending.has(spec.name) || !exists };
    }),
  );
  return { latest: LATEST_VERSION, tables };
}
