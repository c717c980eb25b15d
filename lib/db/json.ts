/**
 * A JSON column's value as a driver returns it (parsed on PostgreSQL, text on SQLite) as a value.
 * Text that is not JSON is returned as it is: Agno's SQLite files can hold plain strings there.
 */
export function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** JSON with object keys sorted, so equal content gives equal text whatever the store reordered. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * SQL for the text at `path` (dot-separated keys) inside a JSON column, in either dialect;
 * null when absent. Keys are trusted identifiers (callers write them literally).
 */
export function jsonTextSql(dialect: "postgres" | "sqlite", column: string, path: string): string {
  const keys = path.split(".");
  if (dialect === "postgres") return `(${column} #>> '{${keys.join(",")}}')`;
  return `json_extract(${column}, '$.${keys.join(".")}')`;
}
