import { z } from "zod";
import { BoolQuery, DbSelectionQuery } from "./list-query.ts";

/** Request and response shapes of Agno's Metrics API (`/metrics`, `/metrics/refresh`, `/metrics/refresh/status`). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

/** A calendar date as FastAPI's `date` accepts it: YYYY-MM-DD, a real day (422 otherwise). */
const DateQuery = z
  .string()
  .refine((value) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
  }, "Input should be a valid date in the format YYYY-MM-DD")
  .optional();

export const MetricsQuery = z.object({
  starting_date: DateQuery,
  ending_date: DateQuery,
  /** Admins: one user's rows (a member always reads its own). */
  user_id: z.string().optional(),
  ...DbSelectionQuery,
});

export const RefreshMetricsQuery = z.object({
  user_id: z.string().optional(),
  /** Run the refresh in the background and answer 202 at once. */
  background: BoolQuery.default(false),
  ...DbSelectionQuery,
});

export const RefreshStatusQuery = z.object({ ...DbSelectionQuery });

// ── responses ───────────────────────────────────────────────────────────────────────────────

const CostFiguresShape = {
  runs: z.number().int(),
  priced_runs: z.number().int(),
  /** USD over the priced runs; null when none had a price. */
  cost: z.number().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  cache_read_tokens: z.number(),
};

/** Agentry's cost figures of a row: the runs created that day, per agent and per model (null on a row Agno wrote). */
export const CostMetricsSchema = z.object({
  ...CostFiguresShape,
  agents: z.array(z.object({ component_type: z.string(), component_id: z.string().nullable(), ...CostFiguresShape })),
  models: z.array(z.object({ model_id: z.string().nullable(), model_provider: z.string().nullable(), ...CostFiguresShape })),
});

/** Agno's DayAggregatedMetrics, plus user_id (null: the shared bucket, or a row summing every user), completed and cost_metrics. */
export const DayMetricsSchema = z.object({
  id: z.string(),
  agent_runs_count: z.number().int().min(0),
  agent_sessions_count: z.number().int().min(0),
  team_runs_count: z.number().int().min(0),
  team_sessions_count: z.number().int().min(0),
  workflow_runs_count: z.number().int().min(0),
  workflow_sessions_count: z.number().int().min(0),
  users_count: z.number().int().min(0),
  token_metrics: z.record(z.string(), z.unknown()),
  model_metrics: z.array(z.record(z.string(), z.unknown())),
  /** The day, as a UTC midnight timestamp (`2025-07-31T00:00:00Z`). */
  date: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  user_id: z.string().nullable(),
  aggregation_period: z.string(),
  completed: z.boolean(),
  cost_metrics: CostMetricsSchema.nullable(),
});

export const MetricsResponseSchema = z.object({
  metrics: z.array(DayMetricsSchema),
  /** The newest update of the rows read; null when the range holds none. */
  updated_at: z.string().nullable(),
});

export const RefreshStartedSchema = z.object({ status: z.enum(["started", "already_running"]), message: z.string().nullable() });

/** 200: the recomputed days; or, beside a refresh already in progress, Agno's already_running answer. */
export const RefreshMetricsResponseSchema = z.union([z.array(DayMetricsSchema), RefreshStartedSchema]);

export const RefreshStatusSchema = z.object({
  status: z.enum(["idle", "running", "completed", "failed"]),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
});
