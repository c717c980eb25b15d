import { addColumnSql, createIndexSql, type ColumnSpec, type IndexSpec } from "../ddl.ts";
import { columnsOf, hasColumn, indexExists } from "../introspect.ts";
import type { MigrationContext } from "../types.ts";

export { parseJson } from "../../db/json.ts";

export async function addColumnIfMissing(ctx: MigrationContext, table: string, column: ColumnSpec): Promise<void> {
  if (await hasColumn(ctx.db, table, column.name)) return;
  await ctx.db.sql.exec(addColumnSql(ctx.db.dialect, table, column));
  ctx.log(`${table}: added column ${column.name}`);
}

export async function addIndexIfMissing(ctx: MigrationContext, table: string, index: IndexSpec): Promise<void> {
  if (await indexExists(ctx.db, index.name)) return;
  await ctx.db.sql.exec(createIndexSql(table, index));
  ctx.log(`${table}: added index ${index.name}`);
}

/** Drops a column only if it holds no non-null value, so a `down()` never throws data away. */
export async function dropEmptyColumn(ctx: MigrationContext, table: string, column: string): Promise<void> {
  if (!(await hasColumn(ctx.db, table, column))) return;
  const [row] = await ctx.db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}" WHERE "${column}" IS NOT NULL`);
  if (Number(row?.n) > 0) {
    throw new Error(`cannot drop ${table}.${column}: ${row?.n} rows hold a value in it`);
  }
  await ctx.db.sql.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
}

export async function dropIndexIfExists(ctx: MigrationContext, name: string): Promise<void> {
  await ctx.db.sql.exec(`DROP INDEX IF EXISTS "${name}"`);
}

/**
 * PostgreSQL only: JSON columns become JSONB, as Agno's own migrations do (JSONB is what the
 * model declares and what the JSON operators in lib/db expect). No-op on SQLite and for columns
 * already JSONB.
 */
export async function convertJsonToJsonb(ctx: MigrationContext, table: string, columns: readonly string[]): Promise<void> {
  if (ctx.db.dialect !== "postgres") return;
  const live = await columnsOf(ctx.db, table);
  for (const name of columns) {
    if (live.get(name)?.type !== "json") continue;
    await ctx.db.sql.exec(`ALTER TABLE "${table}" ALTER COLUMN "${name}" TYPE JSONB USING "${name}"::jsonb`);
    ctx.log(`${table}: ${name} is now JSONB`);
  }
}
