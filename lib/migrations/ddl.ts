import type { Dialect } from "../db/open-database.ts";

/** Portable column types, mapped per dialect the way Agno's SQLAlchemy tables declare them. */
export type ColumnType = "text" | "bigint" | "json" | "bool" | "date" | "bytes";

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly notNull?: boolean;
  readonly primaryKey?: boolean;
  /** A SQL literal, e.g. `''` or `0`. */
  readonly default?: string;
  /** A foreign key; without `onDelete`, a plain one (NO ACTION), as Agno declares agno_spans.trace_id. */
  readonly references?: { table: string; column: string; onDelete?: "CASCADE" };
}

export interface IndexSpec {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique?: boolean;
  /** Partial index condition (both dialects support `WHERE` on indexes). */
  readonly where?: string;
  /** Columns kept in descending order (a list read newest first, ties ascending, walks the index as it is). */
  readonly descending?: readonly string[];
}

export interface TableSpec {
  readonly name: string;
  readonly columns: readonly ColumnSpec[];
  readonly indexes: readonly IndexSpec[];
  /** A composite primary key (table-level); a single-column one is the column's `primaryKey`. */
  readonly primaryKey?: readonly string[];
  /** Table-level UNIQUE constraints, as Agno declares them (named `<table>_<name>`). */
  readonly uniques?: readonly { name: string; columns: readonly string[] }[];
  /** Table-level (composite) foreign keys, plain ones (NO ACTION), as Agno declares them. */
  readonly foreignKeys?: readonly { columns: readonly string[]; table: string; references: readonly string[] }[];
}

const TYPES: Record<Dialect, Record<ColumnType, string>> = {
  sqlite: { text: "VARCHAR", bigint: "BIGINT", json: "JSON", bool: "BOOLEAN", date: "DATE", bytes: "BLOB" },
  postgres: { text: "VARCHAR", bigint: "BIGINT", json: "JSONB", bool: "BOOLEAN", date: "DATE", bytes: "BYTEA" },
};

export function columnDefinition(dialect: Dialect, column: ColumnSpec): string {
  const parts = [`"${column.name}"`, TYPES[dialect][column.type]];
  if (column.primaryKey) parts.push("PRIMARY KEY");
  if (column.notNull && !column.primaryKey) parts.push("NOT NULL");
  if (column.default !== undefined) parts.push(`DEFAULT ${column.default}`);
  if (column.references) {
    const ref = column.references;
    parts.push(`REFERENCES "${ref.table}" ("${ref.column}")${ref.onDelete ? ` ON DELETE ${ref.onDelete}` : ""}`);
  }
  return parts.join(" ");
}

export function createTableSql(dialect: Dialect, table: TableSpec, name = table.name): string {
  const lines = table.columns.map((column) => `  ${columnDefinition(dialect, column)}`);
  if (table.primaryKey) lines.push(`  PRIMARY KEY (${table.primaryKey.map((c) => `"${c}"`).join(", ")})`);
  for (const unique of table.uniques ?? []) {
    lines.push(`  CONSTRAINT "${unique.name}" UNIQUE (${unique.columns.map((c) => `"${c}"`).join(", ")})`);
  }
  for (const fk of table.foreignKeys ?? []) {
    const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(", ");
    lines.push(`  FOREIGN KEY (${quoted(fk.columns)}) REFERENCES "${fk.table}" (${quoted(fk.references)})`);
  }
  return `CREATE TABLE IF NOT EXISTS "${name}" (\n${lines.join(",\n")}\n)`;
}

export function createIndexSql(table: string, index: IndexSpec): string {
  const columns = index.columns.map((c) => `"${c}"${index.descending?.includes(c) ? " DESC" : ""}`).join(", ");
  const where = index.where ? ` WHERE ${index.where}` : "";
  return `CREATE ${index.unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS "${index.name}" ON "${table}" (${columns})${where}`;
}

/** Every statement that creates a table at its current shape, indexes included. */
export function createTableStatements(dialect: Dialect, table: TableSpec): string[] {
  return [createTableSql(dialect, table), ...table.indexes.map((index) => createIndexSql(table.name, index))];
}

export function addColumnSql(dialect: Dialect, table: string, column: ColumnSpec): string {
  // PostgreSQL can say IF NOT EXISTS; on SQLite the caller checks the column list first.
  const ifNotExists = dialect === "postgres" ? "IF NOT EXISTS " : "";
  return `ALTER TABLE "${table}" ADD COLUMN ${ifNotExists}${columnDefinition(dialect, column)}`;
}

/** Shorthands for the specs below. */
export const col = {
  id: (name: string): ColumnSpec => ({ name, type: "text", primaryKey: true }),
  text: (name: string, notNull = false): ColumnSpec => ({ name, type: "text", notNull }),
  bigint: (name: string, notNull = false): ColumnSpec => ({ name, type: "bigint", notNull }),
  json: (name: string, notNull = false): ColumnSpec => ({ name, type: "json", notNull }),
  bool: (name: string, notNull = false): ColumnSpec => ({ name, type: "bool", notNull }),
  bytes: (name: string, notNull = false): ColumnSpec => ({ name, type: "bytes", notNull }),
};

export const ix = (table: string, ...columns: string[]): IndexSpec => ({
  name: `idx_${table}_${columns.join("_")}`,
  columns,
});
