import type { Db } from "../open-database.ts";

/**
 * SQL over `agno_memories.topics` that holds for every value the column is found with: a JSON
 * array of strings as Agentry writes it, but also JSON `null` (Agno writes Python None that way),
 * SQL NULL, a scalar, an array holding non-strings and, on SQLite, text that is not JSON. Anything
 * but an array counts as no topics, and only string elements are topics — on both dialects alike.
 * (PostgreSQL's jsonb_array_elements throws on a scalar, SQLite's json_each on malformed text;
 * SQLite promises nothing about AND's order, so the guard is a nested CASE.)
 */

/** The row's topics as a JSON array, `[]` when the column holds anything else. */
function topicsArraySql(dialect: Db["dialect"], column: string): string {
  return dialect === "postgres"
    ? `(CASE WHEN jsonb_typeof(${column}) = 'array' THEN ${column} ELSE '[]'::jsonb END)`
    : `(CASE WHEN json_valid(${column}) THEN (CASE WHEN json_type(${column}) = 'array' THEN ${column} ELSE '[]' END) ELSE '[]' END)`;
}

/**
 * The pieces for reading a row's topics as rows: `from` (a table function over the row's
 * `column`, aliased `t`), `topic` (the text of one) and `isTopic` (the element is a string).
 */
export function topicElementsSql(dialect: Db["dialect"], column = "topics"): { from: string; topic: string; isTopic: string } {
  return dialect === "postgres"
    ? { from: `jsonb_array_elements(${topicsArraySql(dialect, column)}) AS t(element)`, topic: "(t.element #>> '{}')", isTopic: "jsonb_typeof(t.element) = 'string'" }
    : { from: `json_each(${topicsArraySql(dialect, column)}) AS t`, topic: "t.value", isTopic: "t.type = 'text'" };
}

/** A condition: the row has any of `topics` (one `?` placeholder each, in order). */
export function anyTopicSql(dialect: Db["dialect"], topics: readonly string[], column = "topics"): string {
  const t = topicElementsSql(dialect, column);
  return `EXISTS (SELECT 1 FROM ${t.from} WHERE ${t.isTopic} AND ${t.topic} IN (${topics.map(() => "?").join(", ")}))`;
}

/** A stored topics value as the topics it holds: the string elements of an array, else none. */
export function topicsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];
}
