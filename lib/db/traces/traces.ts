import { parseJson } from "../json.ts";
import type { Db, Dialect } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import type { Row, Statement } from "../sql.ts";
import { escapeLike, filterSql, type TraceFilter } from "./trace-filter.ts";
import { traceLevel, traceTimeMicros, type SpanRow, type TraceRow, type TraceSummaryRow } from "./trace-rows.ts";

export { normalizeTraceTime, TraceTimeError, traceLevel, traceTimeFromMicros } from "./trace-rows.ts";

/**
 * Agno's `agno_traces` / `agno_spans` (see trace-rows.ts for the rows). Writes come from
 * lib/tracing's exporter, one transaction per export batch; reads are scoped by the trace's
 * `user_id` (spans have no owner: a caller reads a trace first, then its spans).
 */

const TRACE_COLUMNS = ["trace_id", "name", "status", "start_time", "end_time", "duration_ms", "run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id", "created_at"] as const;
const SPAN_COLUMNS = ["span_id", "trace_id", "parent_span_id", "name", "span_kind", "status_code", "status_message", "start_time", "end_time", "duration_ms", "attributes", "created_at"] as const;
const CONTEXT_COLUMNS = ["run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id"] as const;

const traceColumns = (alias: string) => TRACE_COLUMNS.map((c) => `${alias}.${c}`).join(", ");
const spanColumns = (alias: string) => SPAN_COLUMNS.map((c) => `${alias}.${c}`).join(", ");

// --- Writing ---------------------------------------------------------------------------------

/** The level CASE of traceLevel over a row's columns (`prefix` is `excluded.` or the table's name). */
function levelSql(dialect: Dialect, prefix: string): string {
  const has = (needle: string) => (dialect === "postgres" ? `strpos(${prefix}name, '${needle}') > 0` : `instr(${prefix}name, '${needle}') > 0`);
  return `(CASE WHEN ${has(".run")} OR ${has(".arun")} THEN (CASE WHEN ${prefix}workflow_id IS NOT NULL THEN 3 WHEN ${prefix}team_id IS NOT NULL THEN 2 WHEN ${prefix}agent_id IS NOT NULL THEN 1 ELSE 0 END) ELSE 0 END)`;
}

/**
 * SQLite: a stored time as epoch microseconds. strftime('%s') reads the offset but rounds the
 * fraction to milliseconds (and a carry would move the second), so the seconds are read without
 * the fraction and the fraction's six digits (what Python's isoformat and traceTime write; a
 * whole second has none) are added.
 */
function sqliteMicrosSql(time: string): string {
  const hasFraction = `substr(${time}, 20, 1) = '.'`;
  return `(CAST(strftime('%s', CASE WHEN ${hasFraction} THEN substr(${time}, 1, 19) || substr(${time}, 27) ELSE ${time} END) AS INTEGER) * 1000000 + CASE WHEN ${hasFraction} THEN CAST(substr(${time}, 21, 6) AS INTEGER) ELSE 0 END)`;
}

/**
 * The trace upsert for a batch's rows, one statement for any number of rows (they travel as one
 * JSON parameter). On conflict: the earliest start and latest end with the duration recomputed
 * from them, ERROR sticky, context columns kept where set (COALESCE(stored, new)), created_at
 * kept, and the name replaced only by a higher-level one (traceLevel).
 */
function traceUpsertStatement(dialect: Dialect, rows: readonly TraceRow[]): Statement {
  const columns = TRACE_COLUMNS.join(", ");
  const context = CONTEXT_COLUMNS.map((c) => `${c} = COALESCE(agno_traces.${c}, excluded.${c})`).join(",\n      ");
  const status = `status = CASE WHEN agno_traces.status = 'ERROR' OR excluded.status = 'ERROR' THEN 'ERROR' ELSE excluded.status END`;
  const name = `name = CASE WHEN ${levelSql(dialect, "excluded.")} > ${levelSql(dialect, "agno_traces.")} THEN excluded.name ELSE agno_traces.name END`;
  // An array parameter: the executor writes it as JSON text with unstorable characters replaced.
  const payload = rows.map((row) => ({ ...row, duration_ms: Math.max(0, Math.floor(row.duration_ms)) }));
  if (dialect === "postgres") {
    const start = "LEAST(agno_traces.start_time, excluded.start_time)";
    const end = "GREATEST(agno_traces.end_time, excluded.end_time)";
    return {
      text: `INSERT INTO agno_traces (${columns})
    SELECT ${columns} FROM jsonb_to_recordset(?::jsonb) AS r(trace_id text, name text, status text, start_time text, end_time text, duration_ms bigint,
      run_id text, session_id text, user_id text, agent_id text, team_id text, workflow_id text, created_at text)
    ORDER BY trace_id
    ON CONFLICT (trace_id) DO UPDATE SET
      start_time = ${start},
      end_time = ${end},
      duration_ms = FLOOR(EXTRACT(EPOCH FROM (CAST(${end} AS timestamptz) - CAST(${start} AS timestamptz))) * 1000)::bigint,
      ${status},
      ${name},
      ${context}`,
      params: [payload],
    };
  }
  const start = "MIN(agno_traces.start_time, excluded.start_time)";
  const end = "MAX(agno_traces.end_time, excluded.end_time)";
  const field = (c: string) => `json_extract(r.value, '$.${c}')`;
  return {
    text: `INSERT INTO agno_traces (${columns})
    SELECT ${TRACE_COLUMNS.map(field).join(", ")} FROM json_each(?) AS r WHERE true
    ON CONFLICT (trace_id) DO UPDATE SET
      start_time = ${start},
      end_time = ${end},
      duration_ms = (${sqliteMicrosSql(end)} - ${sqliteMicrosSql(start)}) / 1000,
      ${status},
      ${name},
      ${context}`,
    params: [payload],
  };
}

/** The span inserts of a batch, one statement (a span already stored is kept as it is). */
function spanInsertStatement(dialect: Dialect, spans: readonly SpanRow[]): Statement {
  const columns = SPAN_COLUMNS.join(", ");
  const payload = spans.map((span) => ({ ...span, duration_ms: Math.max(0, Math.floor(span.duration_ms)), attributes: span.attributes ?? null }));
  if (dialect === "postgres") {
    return {
      text: `INSERT INTO agno_spans (${columns})
    SELECT ${columns} FROM jsonb_to_recordset(?::jsonb) AS r(span_id text, trace_id text, parent_span_id text, name text, span_kind text, status_code text,
      status_message text, start_time text, end_time text, duration_ms bigint, attributes jsonb, created_at text)
    ON CONFLICT (span_id) DO NOTHING`,
      params: [payload],
    };
  }
  return {
    text: `INSERT INTO agno_spans (${columns})
    SELECT ${SPAN_COLUMNS.map((c) => `json_extract(r.value, '$.${c}')`).join(", ")} FROM json_each(?) AS r WHERE true
    ON CONFLICT (span_id) DO NOTHING`,
    params: [payload],
  };
}

/**
 * Rows of the same trace in one batch merged as the upsert would merge them in order (a statement
 * may not update one row twice on PostgreSQL).
 */
function mergeTraceRows(rows: readonly TraceRow[]): TraceRow[] {
  const byId = new Map<string, TraceRow>();
  for (const row of rows) {
    const stored = byId.get(row.trace_id);
    if (!stored) {
      byId.set(row.trace_id, { ...row });
      continue;
    }
    // Stored times of one format order as strings (what the SQL's LEAST/GREATEST compare).
    const start = [row.start_time, stored.start_time].sort()[0];
    const end = [row.end_time, stored.end_time].sort()[1];
    const [startMicros, endMicros] = [traceTimeMicros(start), traceTimeMicros(end)];
    const merged: TraceRow = {
      ...stored,
      start_time: start,
      end_time: end,
      duration_ms: startMicros !== null && endMicros !== null ? Math.floor((endMicros - startMicros) / 1000) : Math.max(stored.duration_ms, row.duration_ms),
      status: stored.status === "ERROR" || row.status === "ERROR" ? "ERROR" : row.status,
      name: traceLevel(row) > traceLevel(stored) ? row.name : stored.name,
    };
    for (const column of CONTEXT_COLUMNS) merged[column] = stored[column] ?? row[column];
    byId.set(row.trace_id, merged);
  }
  return [...byId.values()].sort((a, b) => (a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : 0));
}

/**
 * Writes one export batch in one transaction: each trace upserted (see traceUpsertStatement), then
 * the spans inserted (a span id already stored is skipped). Every span's trace must be in the
 * batch or already stored (agno_spans.trace_id is a foreign key).
 */
export async function writeTraceBatch(db: Db, { traces, spans }: { traces: readonly TraceRow[]; spans: readonly SpanRow[] }): Promise<void> {
  const statements: Statement[] = [];
  if (traces.length > 0) statements.push(traceUpsertStatement(db.dialect, mergeTraceRows(traces)));
  if (spans.length > 0) statements.push(spanInsertStatement(db.dialect, spans));
  if (statements.length > 0) await db.sql.batch(statements);
}

// --- Reading ---------------------------------------------------------------------------------

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function toTraceRow(row: Row): TraceRow {
  return {
    trace_id: String(row.trace_id),
    name: String(row.name),
    status: String(row.status) as TraceRow["status"],
    start_time: String(row.start_time),
    end_time: String(row.end_time),
    duration_ms: Number(row.duration_ms),
    run_id: text(row.run_id),
    session_id: text(row.session_id),
    user_id: text(row.user_id),
    agent_id: text(row.agent_id),
    team_id: text(row.team_id),
    workflow_id: text(row.workflow_id),
    created_at: String(row.created_at),
  };
}

function toSummaryRow(row: Row): TraceSummaryRow {
  return { ...toTraceRow(row), total_spans: Number(row.total_spans ?? 0), error_count: Number(row.error_count ?? 0), input: text(row.input) };
}

/** Attributes as an object on both dialects (SQLite hands back the JSON text; a JSON string holding an object is read through). */
function parseAttributes(value: unknown): Record<string, unknown> {
  let parsed = parseJson(value);
  if (typeof parsed === "string") parsed = parseJson(parsed);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

function toSpanRow(row: Row): SpanRow {
  return {
    span_id: String(row.span_id),
    trace_id: String(row.trace_id),
    parent_span_id: text(row.parent_span_id),
    name: String(row.name),
    span_kind: String(row.span_kind),
    status_code: String(row.status_code) as SpanRow["status_code"],
    status_message: text(row.status_message),
    start_time: String(row.start_time),
    end_time: String(row.end_time),
    duration_ms: Number(row.duration_ms),
    attributes: parseAttributes(row.attributes),
    created_at: String(row.created_at),
  };
}

/** One span attribute as text (NULL when absent; SQLite text that is not JSON reads as NULL). */
function attributeTextSql(dialect: Dialect, alias: string, key: string): string {
  return dialect === "postgres" ? `(${alias}.attributes ->> '${key}')` : `(CASE WHEN json_valid(${alias}.attributes) THEN json_extract(${alias}.attributes, '$."${key}"') END)`;
}

/** One numeric span attribute (NULL unless it is a JSON number). */
function attributeNumberSql(dialect: Dialect, alias: string, key: string): string {
  return dialect === "postgres"
    ? `(CASE WHEN jsonb_typeof(${alias}.attributes -> '${key}') = 'number' THEN (${alias}.attributes ->> '${key}')::numeric END)`
    : `(CASE WHEN json_valid(${alias}.attributes) THEN (CASE WHEN json_type(${alias}.attributes, '$."${key}"') IN ('integer', 'real') THEN json_extract(${alias}.attributes, '$."${key}"') END) END)`;
}

interface Where {
  clauses: string[];
  params: unknown[];
}

function scopeWhere(scope: DataScope, alias = "t"): Where {
  const owner = ownerSql(scope, `${alias}.user_id`);
  return { clauses: [owner.clause], params: [...owner.params] };
}

function addEq(where: Where, column: string, value: string | null | undefined): void {
  if (value === undefined || value === null || value === "") return;
  where.clauses.push(`${column} = ?`);
  where.params.push(value);
}

function addCompare(where: Where, column: string, op: ">=" | "<=", value: string | undefined): void {
  if (!value) return;
  where.clauses.push(`${column} ${op} ?`);
  where.params.push(value);
}

function addFilter(where: Where, filter: TraceFilter | undefined, alias = "t"): void {
  if (!filter) return;
  const sql = filterSql(filter, alias);
  where.clauses.push(sql.clause);
  where.params.push(...sql.params);
}

const whereSql = (where: Where) => where.clauses.join(" AND ");

export interface TraceListFilters {
  run_id?: string;
  session_id?: string;
  user_id?: string;
  agent_id?: string;
  team_id?: string;
  workflow_id?: string;
  status?: string;
  /** Traces starting at or after this time (stored format: normalizeTraceTime). */
  start_time?: string;
  /** Traces ending at or before this time (stored format). */
  end_time?: string;
}

function listWhere(scope: DataScope, filters: TraceListFilters = {}): Where {
  const where = scopeWhere(scope);
  for (const column of ["run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id", "status"] as const) addEq(where, `t.${column}`, filters[column]);
  addCompare(where, "t.start_time", ">=", filters.start_time);
  addCompare(where, "t.end_time", "<=", filters.end_time);
  return where;
}

export interface TracePage {
  rows: TraceSummaryRow[];
  totalCount: number;
}

/**
 * One page of traces, newest start first, with what their spans add (span and error counts, the
 * root span's input), and the total: the page's trace ids are chosen first, then only those rows
 * and their spans are read, in the same statement; the count runs beside it.
 */
async function tracePage(db: Db, where: Where, { page, limit }: { page: number; limit: number }, { tokens = false } = {}): Promise<{ rows: Row[]; totalCount: number }> {
  const { take, skip } = pageWindow({ page, limit });
  const llm = `${attributeTextSql(db.dialect, "s", "openinference.span.kind")} = 'LLM'`;
  const tokenColumns = tokens
    ? `,
           SUM(CASE WHEN ${llm} THEN COALESCE(${attributeNumberSql(db.dialect, "s", "llm.token_count.prompt")}, 0) ELSE 0 END) AS input_tokens,
           SUM(CASE WHEN ${llm} THEN COALESCE(${attributeNumberSql(db.dialect, "s", "llm.token_count.completion")}, 0) ELSE 0 END) AS output_tokens`
    : "";
  // The page's ids alone first (an index on (start_time, trace_id), or (user_id, start_time,
  // trace_id) for one owner, serves them without touching the table), then their rows.
  const sql = `WITH ids AS (
      SELECT t.trace_id FROM agno_traces t
       WHERE ${whereSql(where)}
       ORDER BY t.start_time DESC, t.trace_id DESC
       LIMIT ? OFFSET ?
    ), page AS (
      SELECT ${traceColumns("t")} FROM agno_traces t WHERE t.trace_id IN (SELECT trace_id FROM ids)
    ), counts AS (
      SELECT s.trace_id, COUNT(*) AS total_spans, SUM(CASE WHEN s.status_code = 'ERROR' THEN 1 ELSE 0 END) AS error_count${tokenColumns}
        FROM agno_spans s
       WHERE s.trace_id IN (SELECT trace_id FROM page)
       GROUP BY s.trace_id
    )
    SELECT ${traceColumns("p")}, COALESCE(c.total_spans, 0) AS total_spans, COALESCE(c.error_count, 0) AS error_count,
           (SELECT ${attributeTextSql(db.dialect, "r", "input.value")} FROM agno_spans r
             WHERE r.trace_id = p.trace_id AND (r.parent_span_id IS NULL OR r.parent_span_id = '')
             ORDER BY r.start_time, r.span_id LIMIT 1) AS input${tokens ? ", COALESCE(c.input_tokens, 0) AS input_tokens, COALESCE(c.output_tokens, 0) AS output_tokens" : ""}
      FROM page p LEFT JOIN counts c ON c.trace_id = p.trace_id
     ORDER BY p.start_time DESC, p.trace_id DESC`;
  const [rows, counts] = await Promise.all([
    db.sql.query(sql, [...where.params, take ?? limit, skip]),
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_traces t WHERE ${whereSql(where)}`, where.params),
  ]);
  return { rows, totalCount: Number(counts[0]?.n ?? 0) };
}

/**
 * `GET /traces`: the scope's traces, filtered, newest start first (then trace id), one page and
 * the total. A member's scope sees only its own traces (never owner-less ones).
 */
export async function listTraces(db: Db, { scope, filters, page, limit }: { scope: DataScope; filters?: TraceListFilters; page: number; limit: number }): Promise<TracePage> {
  const { rows, totalCount } = await tracePage(db, listWhere(scope, filters), { page, limit });
  return { rows: rows.map(toSummaryRow), totalCount };
}

/** Past this many distinct trace names, a name search scans the traces instead (see nameSearchesAsLists). */
const MAX_DISTINCT_NAMES = 2000;

/**
 * On PostgreSQL, a filter's CONTAINS/STARTSWITH on `name` as an IN over the stored names that
 * match: a trace's name is its component's run (`Assistant.run`), so there are few distinct names,
 * read by skipping through `idx_agno_traces_name` (a recursive CTE; its own statement, as a
 * subquery the planner reruns it per row), and the page and its exact count then use the
 * indexes instead of lower-casing every row. SQLite and a table of many names keep the LIKE.
 */
async function nameSearchesAsLists(db: Db, filter: TraceFilter | undefined): Promise<TraceFilter | undefined> {
  if (!filter || db.dialect !== "postgres" || !mentionsNameSearch(filter)) return filter;
  const rows = await db.sql.query<{ name: string }>(
    `WITH RECURSIVE names AS (
       (SELECT name FROM agno_traces ORDER BY name LIMIT 1)
       UNION ALL
       SELECT (SELECT t.name FROM agno_traces t WHERE t.name > n.name ORDER BY t.name LIMIT 1) FROM names n WHERE n.name IS NOT NULL
     )
     SELECT name FROM names WHERE name IS NOT NULL LIMIT ?`,
    [MAX_DISTINCT_NAMES + 1],
  );
  if (rows.length > MAX_DISTINCT_NAMES) return filter;
  const names = rows.map((r) => r.name);
  const rewrite = (f: TraceFilter): TraceFilter => {
    switch (f.op) {
      case "AND":
      case "OR":
        return { ...f, conditions: f.conditions.map(rewrite) };
      case "NOT":
        return { ...f, condition: rewrite(f.condition) };
      case "CONTAINS":
      case "STARTSWITH": {
        if (f.key !== "name") return f;
        // The same test the LIKE makes: lower-cased, a literal substring or prefix.
        const needle = String(f.value).toLowerCase();
        const matches = names.filter((name) => (f.op === "CONTAINS" ? name.toLowerCase().includes(needle) : name.toLowerCase().startsWith(needle)));
        return { op: "IN", key: "name", values: matches };
      }
      default:
        return f;
    }
  };
  return rewrite(filter);
}

function mentionsNameSearch(f: TraceFilter): boolean {
  switch (f.op) {
    case "AND":
    case "OR":
      return f.conditions.some(mentionsNameSearch);
    case "NOT":
      return mentionsNameSearch(f.condition);
    case "CONTAINS":
    case "STARTSWITH":
      return f.key === "name";
    default:
      return false;
  }
}

/** `POST /traces/search` (group_by run): the scope's traces matching a parsed filter, as listTraces orders and pages them. */
export async function searchTraces(db: Db, { scope, filter, page, limit }: { scope: DataScope; filter?: TraceFilter; page: number; limit: number }): Promise<TracePage> {
  const where = scopeWhere(scope);
  addFilter(where, await nameSearchesAsLists(db, filter));
  const { rows, totalCount } = await tracePage(db, where, { page, limit });
  return { rows: rows.map(toSummaryRow), totalCount };
}

export interface DashboardTraceFilters extends TraceListFilters {
  /** Case-insensitive substring of the trace's name. */
  name?: string;
}

export interface DashboardTraceRow extends TraceSummaryRow {
  /** Prompt tokens summed over the trace's LLM spans (`llm.token_count.prompt`). */
  input_tokens: number;
  /** Completion tokens summed over the trace's LLM spans (`llm.token_count.completion`). */
  output_tokens: number;
}

/** The dashboard's trace list: listTraces plus a name search and each trace's LLM tokens, in one statement per page. */
export async function listTraceRowsForDashboard(
  db: Db,
  { scope, filters = {}, page, limit }: { scope: DataScope; filters?: DashboardTraceFilters; page: number; limit: number },
): Promise<{ rows: DashboardTraceRow[]; totalCount: number }> {
  const where = listWhere(scope, filters);
  if (filters.name) {
    where.clauses.push("LOWER(t.name) LIKE ? ESCAPE '\\'");
    where.params.push(`%${escapeLike(filters.name.toLowerCase())}%`);
  }
  const { rows, totalCount } = await tracePage(db, where, { page, limit }, { tokens: true });
  return {
    rows: rows.map((row) => ({ ...toSummaryRow(row), input_tokens: Number(row.input_tokens ?? 0), output_tokens: Number(row.output_tokens ?? 0) })),
    totalCount,
  };
}

/** A trace by id, or null when there is none in the scope. */
export async function getTrace(db: Db, { scope, traceId }: { scope: DataScope; traceId: string }): Promise<TraceRow | null> {
  const where = scopeWhere(scope);
  const [row] = await db.sql.query(`SELECT ${traceColumns("t")} FROM agno_traces t WHERE t.trace_id = ? AND ${whereSql(where)}`, [traceId, ...where.params]);
  return row ? toTraceRow(row) : null;
}

/** The latest trace (by start time) of a run in the scope, or null. */
export async function getTraceOfRun(db: Db, { scope, runId }: { scope: DataScope; runId: string }): Promise<TraceRow | null> {
  const where = scopeWhere(scope);
  const [row] = await db.sql.query(`SELECT ${traceColumns("t")} FROM agno_traces t WHERE t.run_id = ? AND ${whereSql(where)} ORDER BY t.start_time DESC, t.trace_id DESC LIMIT 1`, [
    runId,
    ...where.params,
  ]);
  return row ? toTraceRow(row) : null;
}

/**
 * A trace's spans by start time (at most `limit`, Agno's 1000). Unscoped: spans have no owner, so
 * the caller reads the trace through its scope first.
 */
export async function getTraceSpans(db: Db, { traceId, limit = 1000 }: { traceId: string; limit?: number }): Promise<SpanRow[]> {
  const rows = await db.sql.query(`SELECT ${spanColumns("s")} FROM agno_spans s WHERE s.trace_id = ? ORDER BY s.start_time, s.span_id LIMIT ?`, [traceId, limit]);
  return rows.map(toSpanRow);
}

/**
 * The spans of several traces in one query (a search's page of full trees), by trace id, each
 * trace's in start order and capped at `limitPerTrace` as getTraceSpans caps one.
 */
export async function getSpansOfTraces(db: Db, { traceIds, limitPerTrace = 1000 }: { traceIds: readonly string[]; limitPerTrace?: number }): Promise<Map<string, SpanRow[]>> {
  const byTrace = new Map<string, SpanRow[]>(traceIds.map((id) => [id, []]));
  if (traceIds.length === 0) return byTrace;
  const rows = await db.sql.query(
    `SELECT ${spanColumns("s")} FROM (
       SELECT s.*, ROW_NUMBER() OVER (PARTITION BY s.trace_id ORDER BY s.start_time, s.span_id) AS n
         FROM agno_spans s WHERE s.trace_id IN (${traceIds.map(() => "?").join(", ")})
     ) s WHERE s.n <= ? ORDER BY s.trace_id, s.start_time, s.span_id`,
    [...traceIds, limitPerTrace],
  );
  for (const row of rows) byTrace.get(String(row.trace_id))?.push(toSpanRow(row));
  return byTrace;
}

/** A span by id, or null. Unscoped: the caller checks its trace through its scope. */
export async function getSpan(db: Db, { spanId }: { spanId: string }): Promise<SpanRow | null> {
  const [row] = await db.sql.query(`SELECT ${spanColumns("s")} FROM agno_spans s WHERE s.span_id = ?`, [spanId]);
  return row ? toSpanRow(row) : null;
}

export interface TraceSessionStatsRow {
  session_id: string;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  total_traces: number;
  first_trace_at: string;
  last_trace_at: string;
}

export interface TraceSessionStatsFilters {
  user_id?: string;
  agent_id?: string;
  team_id?: string;
  workflow_id?: string;
  /** Traces created at or after this time (stored format). */
  start_time?: string;
  /** Traces created at or before this time (stored format). */
  end_time?: string;
}

async function sessionStatsPage(db: Db, where: Where, { page, limit }: { page: number; limit: number }): Promise<{ rows: TraceSessionStatsRow[]; totalCount: number }> {
  const { take, skip } = pageWindow({ page, limit });
  where.clauses.unshift("t.session_id IS NOT NULL");
  const [rows, counts] = await Promise.all([
    db.sql.query(
      `SELECT t.session_id, MAX(t.user_id) AS user_id, MAX(t.agent_id) AS agent_id, MAX(t.team_id) AS team_id, MAX(t.workflow_id) AS workflow_id,
              COUNT(*) AS total_traces, MIN(t.created_at) AS first_trace_at, MAX(t.created_at) AS last_trace_at
         FROM agno_traces t
        WHERE ${whereSql(where)}
        GROUP BY t.session_id
        ORDER BY MAX(t.created_at) DESC, t.session_id DESC
        LIMIT ? OFFSET ?`,
      [...where.params, take ?? limit, skip],
    ),
    // Counting the groups (a hash) rather than COUNT(DISTINCT …) (a sort): several times faster on PostgreSQL.
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM (SELECT t.session_id FROM agno_traces t WHERE ${whereSql(where)} GROUP BY t.session_id) g`, where.params),
  ]);
  return {
    rows: rows.map((row) => ({
      session_id: String(row.session_id),
      user_id: text(row.user_id),
      agent_id: text(row.agent_id),
      team_id: text(row.team_id),
      workflow_id: text(row.workflow_id),
      total_traces: Number(row.total_traces),
      first_trace_at: String(row.first_trace_at),
      last_trace_at: String(row.last_trace_at),
    })),
    totalCount: Number(counts[0]?.n ?? 0),
  };
}

/**
 * `GET /trace_session_stats`: the scope's traces with a session, grouped by session, latest
 * activity (max created_at) first; the id fields are each group's max(), as Agno reports them.
 */
export async function traceSessionStats(
  db: Db,
  { scope, filters = {}, page, limit }: { scope: DataScope; filters?: TraceSessionStatsFilters; page: number; limit: number },
): Promise<{ rows: TraceSessionStatsRow[]; totalCount: number }> {
  const where = scopeWhere(scope);
  for (const column of ["user_id", "agent_id", "team_id", "workflow_id"] as const) addEq(where, `t.${column}`, filters[column]);
  addCompare(where, "t.created_at", ">=", filters.start_time);
  addCompare(where, "t.created_at", "<=", filters.end_time);
  return sessionStatsPage(db, where, { page, limit });
}

/** `POST /traces/search` with group_by session: traceSessionStats over the traces matching a parsed filter. */
export async function searchTraceSessionStats(
  db: Db,
  { scope, filter, page, limit }: { scope: DataScope; filter?: TraceFilter; page: number; limit: number },
): Promise<{ rows: TraceSessionStatsRow[]; totalCount: number }> {
  const where = scopeWhere(scope);
  addFilter(where, await nameSearchesAsLists(db, filter));
  return sessionStatsPage(db, where, { page, limit });
}

// --- Deleting --------------------------------------------------------------------------------

/**
 * The statements deleting the traces (and their spans, first: the foreign key does not cascade)
 * of the sessions `sessionIdsSql` selects, for the caller's transaction; `params` are that
 * subquery's, used by each statement. lib/db/sessions' deleteSessions puts them in its batch,
 * before the sessions themselves go.
 */
export function traceDeleteStatements(sessionIdsSql: string, params: readonly unknown[]): Statement[] {
  const traces = `SELECT trace_id FROM agno_traces WHERE session_id IN (${sessionIdsSql})`;
  return [
    { text: `DELETE FROM agno_spans WHERE trace_id IN (${traces})`, params },
    { text: `DELETE FROM agno_traces WHERE session_id IN (${sessionIdsSql})`, params },
  ];
}

/**
 * Retention: deletes up to `batchSize` of the traces that started before `before` (stored format)
 * with their spans, in one transaction, and returns how many traces went; the caller loops until
 * 0. PostgreSQL takes the traces FOR UPDATE SKIP LOCKED (two cleaners, or an exporter merging into
 * one of them, never wait on each other) and deletes spans and traces in one statement; SQLite
 * runs the two deletes in one write transaction. Unscoped: it is housekeeping.
 */
export async function unsafeDeleteTracesBefore(db: Db, { before, batchSize = 500 }: { before: string; batchSize?: number }): Promise<number> {
  const size = Math.max(1, Math.floor(batchSize));
  if (db.dialect === "postgres") {
    return db.sql.exec(
      `WITH doomed AS (
         SELECT trace_id FROM agno_traces WHERE start_time < ? ORDER BY start_time, trace_id LIMIT ? FOR UPDATE SKIP LOCKED
       ), spans_gone AS (
         DELETE FROM agno_spans WHERE trace_id IN (SELECT trace_id FROM doomed)
       )
       DELETE FROM agno_traces WHERE trace_id IN (SELECT trace_id FROM doomed)`,
      [before, size],
    );
  }
  const doomed = "SELECT trace_id FROM agno_traces WHERE start_time < ? ORDER BY start_time, trace_id LIMIT ?";
  const [, deleted] = await db.sql.batch([
    { text: `DELETE FROM agno_spans WHERE trace_id IN (${doomed})`, params: [before, size] },
    { text: `DELETE FROM agno_traces WHERE trace_id IN (${doomed})`, params: [before, size] },
  ]);
  return deleted;
}

// --- Dropped spans ---------------------------------------------------------------------------

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Adds `count` spans the exporter of `processId` dropped on `day` ('YYYY-MM-DD', UTC). */
export async function addDroppedSpans(db: Db, { processId, day, count }: { processId: string; day: string; count: number }): Promise<void> {
  if (!DAY.test(day)) throw new TypeError(`day must be 'YYYY-MM-DD', got '${day}'`);
  const n = Math.floor(count);
  if (!(n > 0)) return;
  await db.sql.exec(
    `INSERT INTO agentry_trace_drops (process_id, day, dropped, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (process_id, day) DO UPDATE SET dropped = agentry_trace_drops.dropped + excluded.dropped, updated_at = excluded.updated_at`,
    [processId, day, n, Math.floor(Date.now() / 1000)],
  );
}

/** Spans dropped by every process, on `since` ('YYYY-MM-DD') and later days, or ever. */
export async function sumDroppedSpans(db: Db, { since }: { since?: string } = {}): Promise<number> {
  const [row] = since
    ? await db.sql.query<{ n: number | null }>("SELECT SUM(dropped) AS n FROM agentry_trace_drops WHERE day >= ?", [since])
    : await db.sql.query<{ n: number | null }>("SELECT SUM(dropped) AS n FROM agentry_trace_drops");
  return Number(row?.n ?? 0);
}

/** Whether any trace started before `before` (the retention task enqueues no job when none did). */
export async function unsafeHasTracesBefore(db: Db, { before }: { before: string }): Promise<boolean> {
  const rows = await db.sql.query("SELECT 1 AS one FROM agno_traces WHERE start_time < ? LIMIT 1", [before]);
  return rows.length > 0;
}
