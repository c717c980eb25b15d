import { storableJsonText } from "../../db/storable-text.ts";
import type { Statement } from "../../db/sql.ts";
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
 * already JSONB. A JSON column can hold text JSONB refuses (a `\u0000` escape, a lone surrogate
 * escape); such values are first rewritten with U+FFFD in their place (storableJsonText: nothing
 * else in the text changes), the same rule every write follows, and logged by `keyColumn`, so the
 * conversion cannot fail on them.
 */
export async function convertJsonToJsonb(ctx: MigrationContext, table: string, columns: readonly string[], keyColumn?: string): Promise<void> {
  if (ctx.db.dialect !== "postgres") return;
  const live = await columnsOf(ctx.db, table);
  for (const name of columns) {
    if (live.get(name)?.type !== "json") continue;
    await makeJsonStorable(ctx, table, name, keyColumn);
    await ctx.db.sql.exec(`ALTER TABLE "${table}" ALTER COLUMN "${name}" TYPE JSONB USING "${name}"::jsonb`);
    ctx.log(`${table}: ${name} is now JSONB`);
  }
}

const STORABLE_BATCH = 500;

/** Rewrites the values of a PostgreSQL JSON column that JSONB could not hold (see convertJsonToJsonb). */
async function makeJsonStorable(ctx: MigrationContext, table: string, column: string, keyColumn = "ctid"): Promise<void> {
  const { db } = ctx;
  const key = keyColumn === "ctid" ? "ctid::text" : `"${keyColumn}"`;
  const fixed: string[] = [];
  let after = "";
  for (;;) {
    // Only text holding a \u escape can hold what JSONB refuses.
    const rows = await db.sql.query<{ k: string; text: string }>(
      `SELECT ${key} AS k, "${column}"::text AS text FROM "${table}"
        WHERE strpos("${column}"::text, ?) > 0 AND ${key} > ? ORDER BY ${key} LIMIT ${STORABLE_BATCH}`,
      ["\\u", after],
    );
    if (rows.length === 0) break;
    const updates: Statement[] = [];
    for (const row of rows) {
      const storable = storableJsonText(row.text);
      if (storable === row.text) continue;
      updates.push({ text: `UPDATE "${table}" SET "${column}" = ?::json WHERE ${key} = ?`, params: [storable, row.k] });
      fixed.push(row.k);
    }
    if (updates.length > 0) await db.sql.batch(updates);
    after = rows[rows.length - 1].k;
  }
  if (fixed.length > 0) {
    const shown = fixed.slice(0, 10).join(", ");
    ctx.log(`${table}.${column}: ${fixed.length} values held text JSONB cannot (NUL or a lone surrogate), now U+FFFD: ${shown}${fixed.length > 10 ? ", …" : ""}`);
  }
}
