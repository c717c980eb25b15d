import type { Statement } from "../../db/sql.ts";
import { createIndexSql, createTableSql, type TableSpec } from "../ddl.ts";
import { columnsOf } from "../introspect.ts";
import type { MigrationContext } from "../types.ts";

/**
 * SQLite cannot change a table's constraints in place, so the table is rebuilt: create the new
 * shape under a temporary name, copy every row, drop the old table, rename, recreate indexes —
 * all in one transaction, so a failure leaves the old table untouched.
 * `expressions` overrides the SELECT expression for a column (default: the same column if it
 * exists, else the column's default).
 */
export async function rebuildSqliteTable(ctx: MigrationContext, spec: TableSpec, expressions: Record<string, string> = {}): Promise<void> {
  const live = await columnsOf(ctx.db, spec.name);
  const temp = `${spec.name}__rebuild`;
  const targets: string[] = [];
  const sources: string[] = [];
  for (const column of spec.columns) {
    const expression = expressions[column.name] ?? (live.has(column.name) ? `"${column.name}"` : undefined);
    if (expression === undefined) continue; // new column: takes its default
    targets.push(`"${column.name}"`);
    sources.push(expression);
  }
  const statements: Statement[] = [
    { text: `DROP TABLE IF EXISTS "${temp}"` },
    { text: createTableSql("sqlite", spec, temp) },
    { text: `INSERT INTO "${temp}" (${targets.join(", ")}) SELECT ${sources.join(", ")} FROM "${spec.name}"` },
    { text: `DROP TABLE "${spec.name}"` },
    { text: `ALTER TABLE "${temp}" RENAME TO "${spec.name}"` },
    ...spec.indexes.map((index) => ({ text: createIndexSql(spec.name, index) })),
  ];
  // With foreign keys on, DROP TABLE first deletes every row, and ON DELETE CASCADE would empty
  // the tables that reference this one (agno_schedule_runs under agno_schedules). The pragma is a
  // no-op inside a transaction, so it is switched off around the batch on this connection.
  const [pragma] = await ctx.db.sql.query<{ foreign_keys: number }>("PRAGMA foreign_keys");
  const foreignKeys = Number(pragma?.foreign_keys) === 1;
  if (foreignKeys) await ctx.db.sql.exec("PRAGMA foreign_keys = OFF");
  try {
    await ctx.db.sql.batch(statements);
  } finally {
    if (foreignKeys) await ctx.db.sql.exec("PRAGMA foreign_keys = ON");
  }
  ctx.log(`${spec.name}: rebuilt (${targets.length} columns copied)`);
}
