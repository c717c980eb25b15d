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

/**
 * A JSON column of `agno_sessions` (`runs`, `session_data`, `agent_data`, `team_data`,
 * `workflow_data`, `metadata`, `summary`) as a value, whichever way it was stored. Agno 2.x on
 * SQLite stores these columns double-encoded: the text is a JSON string literal whose content is
 * the document (`"{\"session_name\": …}"`). Single-encoded text, PostgreSQL's parsed JSONB, and a
 * JSONB string holding a document all come out as the document too. Decodes at most two layers,
 * the second only when it yields an object or array (what Agno double-encodes); any other string
 * is returned as it is. Never throws.
 */
export function parseSessionJson(value: unknown): unknown {
  const once = parseJson(value);
  if (typeof once !== "string") return once;
  try {
    const twice: unknown = JSON.parse(once);
    // Agno double-encodes only dicts and lists; any other string stays the string it is.
    return twice !== null && typeof twice === "object" ? twice : once;
  } catch {
    return once;
  }
}

/** JSON with object keys sorted, so equal content gives equal text whatever the store reordered. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
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

/**
 * SQL for the JSON document an `agno_sessions` JSON column holds (see parseSessionJson).
 * SQLite: single- and double-encoded text both give the document's JSON text; SQL NULL, text that
 * is not JSON, and a JSON string that holds no object or array give NULL, so the result is always
 * safe to hand to json_extract / json_type (which throw on malformed text). Nested CASEs, since
 * SQLite evaluates a CASE's branches lazily but promises nothing about AND. PostgreSQL: the column
 * itself — the 3.0.0 migration decodes string-typed session columns (except the `runs` backup),
 * and Agno writes JSONB single-encoded, so SQL there may assume one layer.
 */
export function sessionJsonSql(dialect: "postgres" | "sqlite", column: string): string {
  if (dialect === "postgres") return column;
  const inner = `json_extract(${column}, '$')`;
  const decoded = `(CASE WHEN json_valid(${inner}) THEN (CASE WHEN json_type(${inner}) IN ('object', 'array') THEN ${inner} END) END)`;
  return `(CASE WHEN json_valid(${column}) THEN (CASE WHEN json_type(${column}) = 'text' THEN ${decoded} ELSE ${column} END) END)`;
}

/** jsonTextSql for an `agno_sessions` JSON column, seeing through both encodings (sessionJsonSql). */
export function sessionJsonTextSql(dialect: "postgres" | "sqlite", column: string, path: string): string {
  return jsonTextSql(dialect, sessionJsonSql(dialect, column), path);
}

/**
 * Whether JSON text nests arrays/objects deeper than `max`: one pass over the text that skips
 * string contents (escapes included), so brackets inside strings do not count. (Here because
 * both the request edge, lib/http/input-text.ts, and the knowledge readers use it.)
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
