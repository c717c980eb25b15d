import type { Db } from "../open-database.ts";

/**
 * Schema versions are per table and unscoped by design: they describe the database, not a user's
 * data. Timestamps are ISO-8601 strings, as Agno stores them in this table.
 */
export async function readSchemaVersions(db: Db): Promise<Map<string, string>> {
  const rows = await db.prisma.schemaVersion.findMany({ select: { table_name: true, version: true } });
  return new Map(rows.map((row) => [row.table_name, row.version]));
}

export async function getSchemaVersion(db: Db, table: string): Promise<string | null> {
  const row = await db.prisma.schemaVersion.findUnique({ where: { table_name: table } });
  return row?.version ?? null;
}

export async function stampSchemaVersion(db: Db, table: string, version: string): Promise<void> {
  const now = new Date().toISOString();
  await db.sql.exec(
    `INSERT INTO agno_schema_versions (table_name, version, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (table_name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
    [table, version, now, now],
  );
}
