/**
 * Rows of Agno's `agno_traces` and `agno_spans` (one trace per run; its spans), as lib/tracing's
 * database exporter writes them and the `/traces` routes read them. Times are UTC ISO-8601 strings
 * in one format (`2026-12-07T05:22:15.123456+00:00`, what Python's `isoformat()` writes), so
 * range filters may compare them as strings, as Agno does.
 */

export type TraceStatus = "OK" | "ERROR";
export type SpanStatusCode = "UNSET" | "OK" | "ERROR";

/** The context columns a trace row takes from its root span. */
export interface TraceContext {
  run_id: string | null;
  session_id: string | null;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
}

/** One `agno_traces` row as an export batch computes it (merged into the stored row on conflict). */
export interface TraceRow extends TraceContext {
  trace_id: string;
  name: string;
  status: TraceStatus;
  start_time: string;
  end_time: string;
  duration_ms: number;
  created_at: string;
}

/** One `agno_spans` row. */
export interface SpanRow {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  /** The OpenTelemetry span kind's name: INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER. */
  span_kind: string;
  status_code: SpanStatusCode;
  status_message: string | null;
  start_time: string;
  end_time: string;
  duration_ms: number;
  attributes: Record<string, unknown>;
  created_at: string;
}

/** A trace as the list reads it: the row plus what is computed from its spans. */
export interface TraceSummaryRow extends TraceRow {
  total_spans: number;
  error_count: number;
  /** The root span's `input.value`, when it has one. */
  input: string | null;
}

/** Formats epoch milliseconds (fractional allowed) the way the trace tables store times. */
export function traceTime(epochMs: number): string {
  const date = new Date(Math.floor(epochMs));
  const micros = Math.floor((epochMs - Math.floor(epochMs)) * 1000);
  const base = date.toISOString().slice(0, 19);
  const fraction = `${String(date.getUTCMilliseconds()).padStart(3, "0")}${String(micros).padStart(3, "0")}`;
  return `${base}.${fraction}+00:00`;
}

/** An input time that is no ISO 8601 date-time (`normalizeTraceTime`). */
export class TraceTimeError extends Error {
  override readonly name = "TraceTimeError";
  constructor(readonly input: string) {
    super(`Invalid ISO 8601 date-time: '${input}'`);
  }
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO 8601 date-time (`2026-12-07T10:22:15.5+05:00`, `…Z`, a date alone; without an offset it
 * is UTC, as Agno's `parse_datetime_utc` reads it) as microseconds since the epoch; null when it
 * is none. Fractions past microseconds are cut, as Python's `fromisoformat` does.
 */
export function traceTimeMicros(input: string): number | null {
  const match = ISO_TIME.exec(input.trim());
  if (!match) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", offset = "Z"] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (hour > 23 || minute > 59 || second > 59 || year < 1) return null;
  let offsetMinutes = 0;
  if (offset.toUpperCase() !== "Z") {
    const digits = offset.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2, 4) || "0");
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (offset[0] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const micros = Number(fraction.slice(0, 6).padEnd(6, "0"));
  return (date.getTime() - offsetMinutes * 60_000) * 1000 + micros;
}

/** Epoch microseconds in the stored format (`2026-12-07T05:22:15.123456+00:00`). */
export function traceTimeFromMicros(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = String(micros - seconds * 1_000_000).padStart(6, "0");
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}+00:00`;
}

/**
 * An ISO 8601 date-time with any offset (or none: UTC) in the stored UTC format, so a range
 * filter compares it as a string against stored times. Throws TraceTimeError on anything else.
 */
export function normalizeTraceTime(input: string): string {
  const micros = typeof input === "string" ? traceTimeMicros(input) : null;
  if (micros === null) throw new TraceTimeError(String(input));
  return traceTimeFromMicros(micros);
}

/**
 * How important a trace's name is, as Agno ranks the root span that named it: a run span (a name
 * containing `.run` or `.arun`) of a workflow 3, of a team 2, of an agent 1; anything else 0. A
 * stored trace takes a later batch's name only when that batch's level is higher.
 */
export function traceLevel(row: Pick<TraceRow, "name" | "agent_id" | "team_id" | "workflow_id">): number {
  if (!row.name.includes(".run") && !row.name.includes(".arun")) return 0;
  if (row.workflow_id !== null) return 3;
  if (row.team_id !== null) return 2;
  if (row.agent_id !== null) return 1;
  return 0;
}
