import type { Db } from "../db/open-database.ts";

/** What a migration needs to know about the live schema, in either dialect. */

export async function tableExists(db: Db, table: string): Promise<boolean> {
  const rows =
    db.dialect === "postgres"
      ? await db.sql.query("SELECT 1 AS present FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", [db.schema, table])
      : await db.sql.query("SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = ?", [table]);
  return rows.length > 0;
}

export interface LiveColumn {
  readonly name: string;
  /** Lower-case declared type: `varchar`, `bigint`, `jsonb`, `json`, `boolean`, `date`, … */
  readonly type: string;
  readonly notNull: boolean;
}

export async function columnsOf(db: Db, table: string): Promise<Map<string, LiveColumn>> {
  const columns = new Map<string, LiveColumn>();
  if (db.dialect === "postgres") {
    const rows = await db.sql.query<{ column_name: string; data_type: string; is_nullable: string }>(
      "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
      [db.schema, table],
    );
    for (const row of rows) {
      columns.set(row.column_name, { name: row.column_name, type: row.data_type.toLowerCase(), notNull: row.is_nullable === "NO" });
    }
  } else {
    const rows = await db.sql.query<{ name: string; type: string; notnull: number; pk: number }>(`SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, [table]);
    for (const row of rows) {
      columns.set(row.name, { name: row.name, type: row.type.toLowerCase(), notNull: row.notnull === 1 || row.pk === 1 });
    }
  }
  return columns;
}

export async function hasColumn(db: Db, table: string, column: string): Promise<boolean> {
  return (await columnsOf(db, table)).has(column);
}

export async function indexExists(db: Db, name: string): Promise<boolean> {
  const rows =
    db.dialect === "postgres"
      ? await db.sql.query("SELECT 1 AS present FROM pg_indexes WHERE schemaname = ? AND indexname = ?", [db.schema, name])
      : await db.sql.query("SELECT 1 AS present FROM sqlite_master WHERE type = 'index' AND name = ?", [name]);
  return rows.length > 0;
}

export interface UniqueKey {
  readonly name: string;
  /** In key order. */
  readonly columns: string[];
  /** A partial index (`… WHERE …`). */
  readonly partial: boolean;
  /** A table-level UNIQUE constraint (PostgreSQL constraint, SQLite `origin = 'u'`) rather than a CREATE UNIQUE INDEX. */
  readonly isConstraint: boolean;
}

/** Every UNIQUE constraint and unique index of a table, the primary key excepted. */
export async function uniqueKeys(db: Db, table: string): Promise<UniqueKey[]> {
  if (db.dialect === "postgres") {
    const rows = await db.sql.query<{ name: string; cols: string; partial: boolean; is_constraint: boolean }>(
      `SELECT i.relname AS name,
              string_agg(a.attname, ',' ORDER BY k.ord) AS cols,
              (ix.indpred IS NOT NULL) AS partial,
              EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid) AS is_constraint
         FROM pg_index ix
         JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_class i ON i.oid = ix.indexrelid
         JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = ? AND t.relname = ? AND ix.indisunique AND NOT ix.indisprimary
        GROUP BY i.relname, ix.indexrelid, ix.indpred`,
      [db.schema, table],
    );
    return rows.map((r) => ({ name: r.name, columns: r.cols.split(","), partial: r.partial, isConstraint: r.is_constraint }));
  }
  const rows = await db.sql.query<{ name: string; cols: string | null; partial: number; origin: string }>(
    `SELECT il.name AS name, il.partial AS partial, il.origin AS origin,
            (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno)) AS cols
       FROM pragma_index_list(?) il WHERE il."unique" = 1`,
    [table],
  );
  return rows.filter((r) => r.origin !== "pk").map((r) => ({ name: r.name, columns: (r.cols ?? "").split(","), partial: r.partial === 1, isConstraint: r.origin === "u" }));
}

/** The non-partial unique keys whose columns are exactly `columns` (in any order). */
export async function uniqueKeysOn(db: Db, table: string, columns: readonly string[]): Promise<UniqueKey[]> {
  const wanted = [...columns].sort().join(",");
  return (await uniqueKeys(db, table)).filter((key) => !key.partial && [...key.columns].sort().join(",") === wanted);
}

/** PostgreSQL only: whether the table has a primary key. */
export async function postgresHasPrimaryKey(db: Db, table: string): Promise<boolean> {
  const rows = await db.sql.query(
    `SELECT 1 AS present FROM information_schema.table_constraints
      WHERE table_schema = ? AND table_name = ? AND constraint_type = 'PRIMARY KEY'`,
    [db.schema, table],
  );
  return rows.length > 0;
}
