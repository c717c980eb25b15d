import { z } from "zod";
import { defineJobKind } from "../queue/catalog.ts";
import { refreshMetrics } from "./refresh.ts";

/** agno_jobs.job_type of a metrics refresh; component_type "metrics_refresh", component_id its mode. */
export const METRICS_REFRESH_JOB_TYPE = "metrics_refresh";

export const MetricsRefreshPayload = z.object({ mode: z.enum(["incremental", "recent"]).default("incremental") });
export type MetricsRefreshPayload = z.infer<typeof MetricsRefreshPayload>;

/**
 * A metrics refresh as a job of the catalog (registered by lib/server/features.ts), for installs with the
 * durable queue: `POST /metrics/refresh?background=true` and the daily refresh enqueue one, any
 * worker runs it over its database. Its own pool of one slot per worker, so a long refresh never
 * holds a run's slot and a worker runs one at a time. A refresh is idempotent, so a retry after a
 * failure (the database away) or a lost lease simply computes the days again.
 */
export const METRICS_REFRESH_JOB_KIND = defineJobKind<MetricsRefreshPayload>({
  jobType: METRICS_REFRESH_JOB_TYPE,
  payload: MetricsRefreshPayload,
  maxAttempts: () => 3,
  retryDelaySeconds: () => 30,
  timeoutSeconds: () => 3_600,
  concurrency: () => 1,
  executor:
    ({ db }) =>
    async ({ payload }) => {
      await refreshMetrics(db, { mode: payload.mode });
    },
});
