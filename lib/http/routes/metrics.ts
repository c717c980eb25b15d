import type { z } from "zod";
import type { DailyMetrics } from "../../db/metrics/metrics.ts";
import { bucketOfScope, metricsView, readMetrics } from "../../metrics/read-metrics.ts";
import { refreshStatus } from "../../metrics/refresh-status.ts";
import { REFRESH_ALREADY_RUNNING, REFRESH_STARTED, refreshNow, startBackgroundRefresh } from "../../metrics/start-refresh.ts";
import { defineRoute } from "../route.ts";
import { type DayMetricsSchema, MetricsQuery, MetricsResponseSchema, RefreshMetricsQuery, RefreshMetricsResponseSchema, RefreshStatusQuery, RefreshStatusSchema } from "../schemas/metrics.ts";

/**
 * Agno's Metrics API over lib/metrics: metrics:read (GET /metrics, the refresh status) and
 * metrics:write (POST /metrics/refresh). Rows are per (user, day): a member reads its own, an
 * admin everyone's summed per day or one user's (`user_id=`). A refresh recomputes every user's
 * rows (the aggregation is unscoped); what it answers is scoped like a read.
 */

const TAGS = ["Metrics"];
export const METRICS_TABLES = ["agno_metrics"] as const;

/** Metrics are read where Agno's `db_id`/`table` query picks; an admin acts for the query's `user_id`. */
const METRICS_DATA = { db: { selectFrom: "query", tables: METRICS_TABLES }, userFrom: "query" } as const;

/** Epoch seconds (or a YYYY-MM-DD day) as pydantic writes a UTC datetime: `2025-07-31T12:38:52Z`. */
export function utcTimestamp(value: number | string): string {
  const date = typeof value === "string" ? new Date(`${value.slice(0, 10)}T00:00:00Z`) : new Date(value * 1000);
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function toDayMetrics(row: DailyMetrics): z.infer<typeof DayMetricsSchema> {
  return {
    id: row.id,
    agent_runs_count: row.agent_runs_count,
    agent_sessions_count: row.agent_sessions_count,
    team_runs_count: row.team_runs_count,
    team_sessions_count: row.team_sessions_count,
    workflow_runs_count: row.workflow_runs_count,
    workflow_sessions_count: row.workflow_sessions_count,
    users_count: row.users_count,
    token_metrics: row.token_metrics,
    model_metrics: row.model_metrics,
    date: utcTimestamp(row.date),
    created_at: utcTimestamp(row.created_at),
    // Agno: a row without updated_at reports its created_at.
    updated_at: utcTimestamp(row.updated_at ?? row.created_at),
    user_id: row.user_id,
    aggregation_period: row.aggregation_period,
    completed: row.completed,
    cost_metrics: row.cost_metrics,
  };
}

export const getMetricsRoute = defineRoute({
  method: "GET",
  path: "/metrics",
  summary: "Daily metrics in a date range: a member's own, or (admins) every user's summed per day, or one user's",
  tags: TAGS,
  access: { permission: "metrics:read" },
  query: MetricsQuery,
  response: MetricsResponseSchema,
  data: METRICS_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const { metrics, updatedAt } = await readMetrics(db, { scope, startingDate: query.starting_date, endingDate: query.ending_date });
    return { metrics: metrics.map(toDayMetrics), updated_at: updatedAt === null ? null : utcTimestamp(updatedAt) };
  },
});

export const refreshMetricsRoute = defineRoute({
  method: "POST",
  path: "/metrics/refresh",
  summary: "Recompute the metrics owed since the last complete day (background=true: 202, as a job with the durable queue)",
  tags: TAGS,
  access: { permission: "metrics:write" },
  query: RefreshMetricsQuery,
  response: RefreshMetricsResponseSchema,
  data: METRICS_DATA,
  handler: async ({ input: { query }, scope, db, settings }) => {
    if (query.background) {
      const { status } = await startBackgroundRefresh(db, settings);
      return new Response(JSON.stringify(status === "started" ? REFRESH_STARTED : REFRESH_ALREADY_RUNNING), { status: 202, headers: { "content-type": "application/json" } });
    }
    const refreshed = await refreshNow(db, settings);
    if (refreshed.alreadyRunning) return REFRESH_ALREADY_RUNNING;
    const bucket = bucketOfScope(scope);
    // One owner's read keeps that owner's recomputed rows; every other collapses to one row per day.
    const rows = bucket === undefined ? refreshed.rows : refreshed.rows.filter((row) => (row.user_id ?? "") === bucket);
    return metricsView(rows, bucket).map(toDayMetrics);
  },
});

export const refreshStatusRoute = defineRoute({
  method: "GET",
  path: "/metrics/refresh/status",
  summary: "The latest metrics refresh of the database: idle, running, completed or failed",
  tags: TAGS,
  access: { permission: "metrics:read" },
  query: RefreshStatusQuery,
  response: RefreshStatusSchema,
  data: { db: { selectFrom: "query", tables: METRICS_TABLES } },
  handler: async ({ db, settings }) => {
    const state = await refreshStatus(db, { durable: settings.queue.durable });
    return {
      status: state.status,
      started_at: state.started_at === null ? null : utcTimestamp(state.started_at),
      finished_at: state.finished_at === null ? null : utcTimestamp(state.finished_at),
      error: state.error,
    };
  },
});

export const METRICS_ROUTES = [getMetricsRoute, refreshMetricsRoute, refreshStatusRoute];
