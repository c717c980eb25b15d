import { traceTimeFromMicros, traceTimeMicros } from "./trace-rows.ts";

/**
 * Agno's trace filter expression (`POST /traces/search`): comparisons on
 * the trace columns combined with AND, OR and NOT. `parseTraceFilter` validates a request's value
 * with Agno's rules and messages; `filterSql` turns the result into a WHERE clause (the same SQL
 * on both dialects).
 */

/** The columns a filter may name (Agno's TRACE_COLUMNS). */
export const TRACE_FILTER_KEYS = [
  "trace_id",
  "name",
  "status",
  "start_time",
  "end_time",
  "duration_ms",
  "run_id",
  "session_id",
  "user_id",
  "agent_id",
  "team_id",
  "workflow_id",
  "created_at",
] as const;
export type TraceFilterKey = (typeof TRACE_FILTER_KEYS)[number];

/** The keys holding UTC ISO-8601 strings: a filter's value is normalized to the stored format. */
const DATETIME_KEYS: ReadonlySet<string> = new Set(["start_time", "end_time", "created_at"]);

/** Agno's nesting limit: the top expression is depth 0, and one deeper than this is refused. */
export const MAX_TRACE_FILTER_DEPTH = 10;

export const COMPARISON_OPS = ["EQ", "NEQ", "GT", "GTE", "LT", "LTE", "CONTAINS", "STARTSWITH"] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export type TraceFilterValue = string | number;

export type TraceFilter =
  | { readonly op: ComparisonOp; readonly key: TraceFilterKey; readonly value: TraceFilterValue }
  | { readonly op: "IN"; readonly key: TraceFilterKey; readonly values: readonly TraceFilterValue[] }
  | { readonly op: "AND" | "OR"; readonly conditions: readonly TraceFilter[] }
  | { readonly op: "NOT"; readonly condition: TraceFilter };

/**
 * A filter expression that is not valid. The message is what Agno's converter says, the part of
 * the API's 400 detail after "Invalid filter expression: ".
 */
export class TraceFilterError extends Error {
  override readonly name = "TraceFilterError";
}

/** A value as Python's `repr` prints it, so messages quote the request as Agno's do. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? "inf" : value < 0 ? "-inf" : "nan";
  if (typeof value === "string") {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let out = "";
    for (const char of value) {
      const code = char.codePointAt(0)!;
      if (char === "\\") out += "\\\\";
      else if (char === quote) out += `\\${quote}`;
      else if (char === "\n") out += "\\n";
      else if (char === "\r") out += "\\r";
      else if (char === "\t") out += "\\t";
      else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else out += char;
    }
    return `${quote}${out}${quote}`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`)
      .join(", ")}}`;
  }
  return String(value);
}

const ALLOWED_REPR = pythonRepr([...TRACE_FILTER_KEYS].sort());

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Python truthiness of a JSON value (`if not conditions:`). */
function falsy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.keys(value).length === 0;
  return false;
}

function checkKey(key: unknown): TraceFilterKey {
  if (typeof key !== "string" || !(TRACE_FILTER_KEYS as readonly string[]).includes(key)) {
    // Python's f"'{key}'": the key's str() between plain quotes, not its repr.
    throw new TraceFilterError(`Invalid filter field: '${typeof key === "string" ? key : pythonRepr(key)}'. Allowed: ${ALLOWED_REPR}`);
  }
  return key as TraceFilterKey;
}

/**
 * One comparison value for `key`: datetimes in the stored UTC format (a string that does not
 * parse stays as it is, as in Agno), `duration_ms` a number, the rest text.
 */
function checkValue(key: TraceFilterKey, value: unknown, expression: unknown): TraceFilterValue {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    throw new TraceFilterError(`Invalid filter value for '${key}': expected a string or a number. Got: ${pythonRepr(expression)}`);
  }
  if (key === "duration_ms") {
    const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
    if (!Number.isFinite(number)) throw new TraceFilterError(`Invalid filter value for 'duration_ms': expected a number. Got: ${pythonRepr(expression)}`);
    return number;
  }
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return String(value);
  if (DATETIME_KEYS.has(key)) {
    const micros = traceTimeMicros(value);
    return micros === null ? value : traceTimeFromMicros(micros);
  }
  return value;
}

function parseAt(value: unknown, depth: number): TraceFilter {
  if (depth > MAX_TRACE_FILTER_DEPTH) throw new TraceFilterError(`Filter expression exceeds maximum nesting depth of ${MAX_TRACE_FILTER_DEPTH}`);
  if (!isPlainObject(value) || !("op" in value)) throw new TraceFilterError(`Invalid filter: must be a dict with 'op' key. Got: ${pythonRepr(value)}`);
  const op = value.op;
  if (typeof op === "string" && (COMPARISON_OPS as readonly string[]).includes(op)) {
    if (value.key === undefined || value.key === null || value.value === undefined || value.value === null) {
      throw new TraceFilterError(`${op} filter requires 'key' and 'value' fields. Got: ${pythonRepr(value)}`);
    }
    const key = checkKey(value.key);
    return { op: op as ComparisonOp, key, value: checkValue(key, value.value, value) };
  }
  switch (op) {
    case "IN": {
      if (value.key === undefined || value.key === null || value.values === undefined || value.values === null) {
        throw new TraceFilterError(`IN filter requires 'key' and 'values' fields. Got: ${pythonRepr(value)}`);
      }
      const key = checkKey(value.key);
      if (!Array.isArray(value.values)) throw new TraceFilterError(`IN filter 'values' must be a list. Got: ${pythonRepr(value)}`);
      return { op: "IN", key, values: value.values.map((v) => checkValue(key, v, value)) };
    }
    case "AND":
    case "OR": {
      const conditions = value.conditions;
      if (falsy(conditions) || !Array.isArray(conditions)) throw new TraceFilterError(`${op} filter requires 'conditions' field. Got: ${pythonRepr(value)}`);
      return { op, conditions: conditions.map((c) => parseAt(c, depth + 1)) };
    }
    case "NOT": {
      if (falsy(value.condition)) throw new TraceFilterError(`NOT filter requires 'condition' field. Got: ${pythonRepr(value)}`);
      return { op: "NOT", condition: parseAt(value.condition, depth + 1) };
    }
    default:
      throw new TraceFilterError(`Unknown filter operator: ${typeof op === "string" ? op : pythonRepr(op)}`);
  }
}

/** Validates a filter expression from a request (parsed JSON); throws TraceFilterError. */
export function parseTraceFilter(value: unknown): TraceFilter {
  return parseAt(value, 0);
}

/** `value` as a LIKE pattern's literal part, for `ESCAPE '\'`. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const COMPARATORS: Record<Exclude<ComparisonOp, "CONTAINS" | "STARTSWITH">, string> = { EQ: "=", NEQ: "<>", GT: ">", GTE: ">=", LT: "<", LTE: "<=" };

/**
 * A parsed filter as a WHERE clause over agno_traces (columns prefixed with `alias.` when given)
 * and its parameters. CONTAINS and STARTSWITH compare lower-cased text with LIKE wildcards
 * escaped; `duration_ms` is compared as a number.
 */
export function filterSql(filter: TraceFilter, alias?: string): { clause: string; params: unknown[] } {
  const column = (key: TraceFilterKey) => (alias ? `${alias}.${key}` : key);
  const param = (key: TraceFilterKey) => (key === "duration_ms" ? "CAST(? AS NUMERIC)" : "?");
  switch (filter.op) {
    case "AND":
    case "OR": {
      const parts = filter.conditions.map((c) => filterSql(c, alias));
      return { clause: `(${parts.map((p) => p.clause).join(` ${filter.op} `)})`, params: parts.flatMap((p) => p.params) };
    }
    case "NOT": {
      const inner = filterSql(filter.condition, alias);
      return { clause: `(NOT ${inner.clause})`, params: inner.params };
    }
    case "IN": {
      if (filter.values.length === 0) return { clause: "(1 = 0)", params: [] };
      return { clause: `(${column(filter.key)} IN (${filter.values.map(() => param(filter.key)).join(", ")}))`, params: [...filter.values] };
    }
    case "CONTAINS":
    case "STARTSWITH": {
      const text = escapeLike(String(filter.value).toLowerCase());
      const pattern = filter.op === "CONTAINS" ? `%${text}%` : `${text}%`;
      const target = filter.key === "duration_ms" ? `CAST(${column(filter.key)} AS VARCHAR)` : column(filter.key);
      return { clause: `(LOWER(${target}) LIKE ? ESCAPE '\\')`, params: [pattern] };
    }
    default:
      return { clause: `(${column(filter.key)} ${COMPARATORS[filter.op]} ${param(filter.key)})`, params: [filter.value] };
  }
}
