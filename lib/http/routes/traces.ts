import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { parseTraceFilter, TraceFilterError } from "../../db/traces/trace-filter.ts";
import type { TraceRow } from "../../db/traces/trace-rows.ts";
import { getSpan, getSpansOfTraces, getTrace, getTraceOfRun, getTraceSpans, listTraces, normalizeTraceTime, searchTraces, searchTraceSessionStats, traceSessionStats } from "../../db/traces/traces.ts";
import { HttpError } from "../../errors/http-error.ts";
import { traceFilterSchema } from "../../tracing/filter-schema.ts";
import { spanNode, traceDetail, traceSessionStats as sessionStatsView, traceSummary } from "../../tracing/trace-tree.ts";
import { pythonStringRepr } from "../python-repr.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { pageOf } from "../schemas/list-query.ts";
import {
  DbIdOnlyQuery,
  FilterSchemaSchema,
  ListTracesQuery,
  SearchTracesBody,
  TraceListSchema,
  TraceOrSpanSchema,
  TraceParams,
  TraceQuery,
  TraceSearchSchema,
  TraceSessionStatsListSchema,
  TraceSessionStatsQuery,
} from "../schemas/traces.ts";

/**
 * Agno's Traces API over lib/db/traces and lib/tracing's views, all
 * `traces:read`, mounted whether or not runs are being traced. A trace belongs to the user of its
 * run: a member's list, statistics and search are its own whatever it names, and another user's
 * trace (or one without a user) is a 404 "Trace not found" to it, as a scoped caller's is in Agno;
 * an admin reads every trace, or one user's (`user_id=` on the list and the statistics).
 */

const TAGS = ["Traces"];
export const TRACE_TABLES = ["agno_traces", "agno_spans"] as const;

/** The list and the statistics: where Agno's `db_id` picks; an admin acts for the query's `user_id`. */
const OWNED_LIST_DATA = { db: { selectFrom: "query", tables: TRACE_TABLES }, userFrom: "query" } as const;
/** One trace, and the search: the caller's own scope (an admin's: every trace). */
const TRACE_DATA = { db: { selectFrom: "query", tables: TRACE_TABLES } } as const;

const TRACE_NOT_FOUND = "Trace not found";

/** More rows than any page's table holds (a limit above it reads as much as it would). */
const MAX_PAGE_ROWS = 1_000_000_000;

/**
 * The page storage reads for Agno's unbounded `page`/`limit` (`page` 0 is the first page): the
 * same rows for any table under MAX_PAGE_ROWS, with an offset that stays an exact integer far
 * inside SQL's 64-bit range (a page past the end is empty either way).
 */
function storagePage(page: number, limit: number): { page: number; limit: number } {
  const rows = Math.min(limit, MAX_PAGE_ROWS);
  return { page: Math.min(Math.max(page, 1), Math.floor(Number.MAX_SAFE_INTEGER / rows)), limit: rows };
}

/** Agno's filters test truthiness: an empty value filters nothing. */
const given = (value: string | undefined) => (value ? value : undefined);

/**
 * A time filter as the stored times compare (UTC, one format); a value that is not an ISO-8601
 * time is Agno's 400, worded as its `timestamp_to_datetime` words it (Python's own reason last).
 */
function queryTime(value: string | undefined, name: "start_time" | "end_time"): string | undefined {
  if (!value) return undefined;
  try {
    return normalizeTraceTime(value);
  } catch {
    const trimmed = value.trim();
    const python = trimmed.endsWith("Z") ? `${trimmed.slice(0, -1)}+00:00` : trimmed;
    throw new HttpError(400, `Invalid ${name} format. Use ISO 8601 format (e.g., '2025-11-19T10:00:00Z' or '2025-11-19T10:00:00+05:30'): Invalid isoformat string: ${pythonStringRepr(python)}`);
  }
}

/** Whether a scoped (non-admin) caller owns the trace: a trace without a user is no member's. */
function visibleTo(scope: DataScope, trace: TraceRow): boolean {
  return scope.kind !== "user" || (trace.user_id !== null && trace.user_id === scope.userId);
}

/**
 * The trace the path names, in the caller's scope; 404 "Trace not found" otherwise. Agno reads the
 * query's `run_id` only when `trace_id` is empty, which a path segment never is.
 */
async function pathTrace({ params, query }: { params: { trace_id: string }; query: { run_id?: string } }, { data }: DataLoaderContext): Promise<TraceRow> {
  const { db, scope } = await data();
  const trace = params.trace_id ? await getTrace(db, { scope, traceId: params.trace_id }) : query.run_id ? await getTraceOfRun(db, { scope, runId: query.run_id }) : null;
  if (!trace || !visibleTo(scope, trace)) throw new HttpError(404, TRACE_NOT_FOUND);
  return trace;
}

/** The filter of a search, parsed; a bad one is Agno's 400. An empty filter (`{}`) filters nothing, as in Agno. */
function searchFilter(filter: Record<string, unknown> | null | undefined) {
  if (!filter || Object.keys(filter).length === 0) return undefined;
  try {
    return parseTraceFilter(filter);
  } catch (error) {
    if (error instanceof TraceFilterError) throw new HttpError(400, `Invalid filter expression: ${error.message}`);
    throw error;
  }
}

/** Each trace of a page with its span tree. */
async function withTrees(db: Db, rows: Awaited<ReturnType<typeof searchTraces>>["rows"]) {
  const spans = await getSpansOfTraces(db, { traceIds: rows.map((row) => row.trace_id) });
  return rows.map((row) => traceDetail(row, spans.get(row.trace_id) ?? []));
}

export const listTracesRoute = defineRoute({
  method: "GET",
  path: "/traces",
  summary: "List traces, newest first (filter by run, session, user, agent, team, workflow, status and time; paginated)",
  tags: TAGS,
  access: { permission: "traces:read" },
  query: ListTracesQuery,
  response: TraceListSchema,
  excludeNone: true,
  data: OWNED_LIST_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const filters = {
      run_id: given(query.run_id),
      session_id: given(query.session_id),
      agent_id: given(query.agent_id),
      team_id: given(query.team_id),
      workflow_id: given(query.workflow_id),
      status: given(query.status),
      start_time: queryTime(query.start_time, "start_time"),
      end_time: queryTime(query.end_time, "end_time"),
    };
    const started = performance.now();
    // Agno reads page 0 as the first page (and answers it as page 0).
    const { rows, totalCount } = await listTraces(db, { scope, filters, ...storagePage(query.page, query.limit) });
    return pageOf(rows.map(traceSummary), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const traceFilterSchemaRoute = defineRoute({
  method: "GET",
  path: "/traces/filter-schema",
  summary: "The fields, operators and values POST /traces/search filters on (for a filter bar)",
  tags: TAGS,
  access: { permission: "traces:read" },
  response: FilterSchemaSchema,
  handler: () => traceFilterSchema(),
});

export const getTraceRoute = defineRoute({
  method: "GET",
  path: "/traces/{trace_id}",
  summary: "A trace with its span tree, or (span_id=) one of its spans",
  tags: TAGS,
  access: { permission: "traces:read" },
  params: TraceParams,
  query: TraceQuery,
  response: TraceOrSpanSchema,
  excludeNone: true,
  data: TRACE_DATA,
  resource: pathTrace,
  handler: async ({ input: { params, query }, resource: trace, db }) => {
    if (query.span_id) {
      const span = await getSpan(db, { spanId: query.span_id });
      if (!span) throw new HttpError(404, "Span not found");
      if (span.trace_id !== params.trace_id) throw new HttpError(404, `Span ${query.span_id} does not belong to trace ${params.trace_id}`);
      return spanNode(span);
    }
    return traceDetail(trace, await getTraceSpans(db, { traceId: trace.trace_id }));
  },
});

export const traceSessionStatsRoute = defineRoute({
  method: "GET",
  path: "/trace_session_stats",
  summary: "Traces per session: count, first and last, most recent session first (paginated)",
  tags: TAGS,
  access: { permission: "traces:read" },
  query: TraceSessionStatsQuery,
  response: TraceSessionStatsListSchema,
  excludeNone: true,
  data: OWNED_LIST_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const filters = {
      agent_id: given(query.agent_id),
      team_id: given(query.team_id),
      workflow_id: given(query.workflow_id),
      start_time: queryTime(query.start_time, "start_time"),
      end_time: queryTime(query.end_time, "end_time"),
    };
    const started = performance.now();
    const { rows, totalCount } = await traceSessionStats(db, { scope, filters, ...storagePage(query.page, query.limit) });
    return pageOf(rows.map(sessionStatsView), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const searchTracesRoute = defineRoute({
  method: "POST",
  path: "/traces/search",
  summary: "Search traces with a filter expression: full traces (group_by=run) or per-session statistics (group_by=session)",
  tags: TAGS,
  access: { permission: "traces:read" },
  query: DbIdOnlyQuery,
  body: SearchTracesBody,
  response: TraceSearchSchema,
  excludeNone: true,
  data: TRACE_DATA,
  handler: async ({ input: { body }, scope, db }) => {
    const filter = searchFilter(body.filter);
    const page = { page: body.page, limit: body.limit };
    const started = performance.now();
    if (body.group_by === "session") {
      const { rows, totalCount } = await searchTraceSessionStats(db, { scope, filter, ...storagePage(page.page, page.limit) });
      return pageOf(rows.map(sessionStatsView), { ...page, totalCount, startedMs: started });
    }
    const { rows, totalCount } = await searchTraces(db, { scope, filter, ...storagePage(page.page, page.limit) });
    const meta = pageOf([], { ...page, totalCount, startedMs: started }).meta;
    return { data: await withTrees(db, rows), meta };
  },
});

export const TRACE_ROUTES = [listTracesRoute, traceFilterSchemaRoute, getTraceRoute, traceSessionStatsRoute, searchTracesRoute];
