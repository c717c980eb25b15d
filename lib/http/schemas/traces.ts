import { z } from "zod";
import { JsonObject, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Traces API (`/traces`, `/trace_session_stats`; os/routers/traces). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

/** Agno takes only `db_id` here (no `table`): the traces and spans tables are the database's. */
const DbIdQuery = { db_id: z.string().min(1).optional() };

/** An ISO-8601 time with its zone (`2025-11-19T10:00:00Z`, `…+05:30`); a bad one is Agno's 400, not a 422. */
const TimeQuery = z.string().optional();

export const ListTracesQuery = z.object({
  run_id: z.string().optional(),
  session_id: z.string().optional(),
  /** Admins: one user's traces (a member always reads its own). */
  user_id: z.string().optional(),
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  workflow_id: z.string().optional(),
  /** OK or ERROR; compared as given. */
  status: z.string().optional(),
  /** Traces starting at or after this time. */
  start_time: TimeQuery,
  /** Traces ending at or before this time. */
  end_time: TimeQuery,
  /** 1-indexed; Agno also takes 0 (the first page). */
  page: z.coerce.number().int().min(0).default(1),
  limit: z.coerce.number().int().min(1).default(20),
  ...DbIdQuery,
});

export const TraceSessionStatsQuery = z.object({
  /** Admins: one user's sessions (a member always reads its own). */
  user_id: z.string().optional(),
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  workflow_id: z.string().optional(),
  /** Sessions with traces created at or after this time. */
  start_time: TimeQuery,
  /** Sessions with traces created at or before this time. */
  end_time: TimeQuery,
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).default(20),
  ...DbIdQuery,
});

export const TraceParams = z.object({ trace_id: z.string() });

export const TraceQuery = z.object({
  /** One span of the trace, as a TraceNode without its children. */
  span_id: z.string().optional(),
  /** Agno: the run whose trace to read, used only when `trace_id` is empty (a path segment never is). */
  run_id: z.string().optional(),
  ...DbIdQuery,
});

export const DbIdOnlyQuery = z.object(DbIdQuery);

/** Agno's TraceSearchRequest: a FilterExpr (`{op, key, value}`, `IN`, `AND`/`OR`, `NOT`), grouping and page. */
export const SearchTracesBody = z.object({
  filter: JsonObject.nullish(),
  group_by: z.enum(["run", "session"]).default("run"),
  page: z.number().int().min(1).default(1),
  limit: z.number().int().min(1).max(100).default(20),
});

// ── responses ───────────────────────────────────────────────────────────────────────────────

/** Agno's TraceNode (recursive: `spans` are its children). */
export const TraceNodeSchema: z.ZodType<TraceNodeShape> = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  duration: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  status: z.string(),
  input: z.string().nullable(),
  output: z.string().nullable(),
  error: z.string().nullable(),
  spans: z.lazy(() => z.array(TraceNodeSchema)).nullable(),
  step_type: z.string().nullable(),
  metadata: JsonObject.nullable(),
  extra_data: JsonObject.nullable(),
});

interface TraceNodeShape {
  id: string;
  name: string;
  type: string;
  duration: string;
  start_time: string;
  end_time: string;
  status: string;
  input: string | null;
  output: string | null;
  error: string | null;
  spans: TraceNodeShape[] | null;
  step_type: string | null;
  metadata: Record<string, unknown> | null;
  extra_data: Record<string, unknown> | null;
}

/** Who a trace (or a session's traces) belongs to and ran. */
const Owners = {
  user_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  team_id: z.string().nullable(),
  workflow_id: z.string().nullable(),
};

/** The fields a summary and a detail share (Agno's order, `input` and the detail's output between the counts and the context). */
const traceShape = <T extends z.ZodRawShape>(io: T) => ({
  trace_id: z.string(),
  name: z.string(),
  status: z.string(),
  duration: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  total_spans: z.number().int(),
  error_count: z.number().int(),
  ...io,
  run_id: z.string().nullable(),
  session_id: z.string().nullable(),
  ...Owners,
  created_at: z.string(),
});

export const TraceSummarySchema = z.object(traceShape({ input: z.string().nullable() }));

export const TraceDetailSchema = z.object({
  ...traceShape({ input: z.string().nullable(), output: z.string().nullable(), error: z.string().nullable() }),
  tree: z.array(TraceNodeSchema),
});

export const TraceSessionStatsSchema = z.object({
  session_id: z.string(),
  ...Owners,
  total_traces: z.number().int(),
  first_trace_at: z.string(),
  last_trace_at: z.string(),
});

export const TraceListSchema = paginated(TraceSummarySchema);
export const TraceSessionStatsListSchema = paginated(TraceSessionStatsSchema);
/** `GET /traces/{trace_id}`: the trace, or (with `span_id`) one span. */
export const TraceOrSpanSchema = z.union([TraceDetailSchema, TraceNodeSchema]);
/** `POST /traces/search`: full traces (`group_by: "run"`) or per-session statistics. */
export const TraceSearchSchema = z.union([paginated(TraceDetailSchema), TraceSessionStatsListSchema]);

export const FilterSchemaSchema = z.object({
  fields: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      type: z.string(),
      operators: z.array(z.string()),
      values: z.array(z.string()).nullable(),
    }),
  ),
  logical_operators: z.array(z.string()),
});
