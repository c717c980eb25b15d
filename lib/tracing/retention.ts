import { z } from "zod";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { traceTime } from "../db/traces/trace-rows.ts";
import { unsafeDeleteTracesBefore, unsafeHasTracesBefore } from "../db/traces/traces.ts";
import { log } from "../log.ts";
import { defineJobKind } from "../queue/catalog.ts";
import { enqueueKind } from "../queue/enqueue.ts";

/** agno_jobs.job_type of the daily trace retention; component_id the UTC day it ran for. */
export const TRACE_RETENTION_JOB_TYPE = "trace_retention";

const DAY_MS = 86_400_000;

/**
 * Deletes the traces (and their spans) that started more than `retentionDays` before `now`, in
 * batches of `batchSize`, each its own short statement, until none is left or `signal` stops it.
 * Returns how many traces went. `retentionDays` 0 keeps everything.
 */
export async function applyTraceRetention(
  db: Db,
  { retentionDays, now = Date.now(), batchSize = 500, signal }: { retentionDays: number; now?: number; batchSize?: number; signal?: AbortSignal },
): Promise<number> {
  if (retentionDays <= 0) return 0;
  const before = traceTime(now - retentionDays * DAY_MS);
  let total = 0;
  for (;;) {
    if (signal?.aborted) break;
    const deleted = await unsafeDeleteTracesBefore(db, { before, batchSize });
    total += deleted;
    if (deleted < batchSize) break;
  }
  if (total > 0) log.info(`[tracing] retention deleted ${total} traces older than ${retentionDays} days`);
  return total;
}

export const TraceRetentionPayload = z.object({ retention_days: z.number().int().min(0) });
export type TraceRetentionPayload = z.infer<typeof TraceRetentionPayload>;

/** The daily retention as a catalog job (durable queue): any worker runs it over its database; a retry just deletes what is left. */
export const TRACE_RETENTION_JOB_KIND = defineJobKind<TraceRetentionPayload>({
  jobType: TRACE_RETENTION_JOB_TYPE,
  payload: TraceRetentionPayload,
  maxAttempts: () => 3,
  retryDelaySeconds: () => 60,
  timeoutSeconds: () => 3_600,
  concurrency: () => 1,
  executor:
    ({ db }) =>
    async ({ payload, signal }) => {
      await applyTraceRetention(db, { retentionDays: payload.retention_days, signal });
    },
});

/**
 * The scheduler's system task for retention: on its first loop and the first loop of each new UTC
 * day, one `trace_retention` job per day (idempotency key `trace_retention:<day>`, so every
 * process's task enqueues the same one) with the durable queue; in this process otherwise. A
 * failure is logged and tried again on the next loop.
 */
export function dailyTraceRetentionTask(db: Db, settings: Settings): { run(nowSeconds: number): Promise<void> } {
  let doneFor: string | null = null;
  let running: Promise<unknown> | null = null;
  return {
    async run(nowSeconds) {
      const retentionDays = settings.tracing.retentionDays;
      if (retentionDays <= 0 || running) return;
      const today = new Date(nowSeconds * 1000).toISOString().slice(0, 10);
      if (doneFor === today) return;
      // Nothing old enough: no job today (a fresh install's queue stays empty).
      if (!(await unsafeHasTracesBefore(db, { before: traceTime(nowSeconds * 1000 - retentionDays * DAY_MS) }))) {
        doneFor = today;
        return;
      }
      if (settings.queue.durable) {
        await enqueueKind(db, settings, TRACE_RETENTION_JOB_KIND, { payload: { retention_days: retentionDays }, componentId: today, owner: null, idempotencyKey: `trace_retention:${today}` });
        doneFor = today;
        return;
      }
      doneFor = today;
      running = applyTraceRetention(db, { retentionDays, now: nowSeconds * 1000 })
        .catch((error: unknown) => {
          doneFor = null;
          log.warn(`[tracing] retention failed: ${error instanceof Error ? error.message : String(error)}`);
        })
        .finally(() => (running = null));
    },
  };
}
