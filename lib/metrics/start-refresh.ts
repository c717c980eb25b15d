import type { Settings } from "../config/settings.ts";
import type { DailyMetrics } from "../db/metrics/metrics.ts";
import type { Db } from "../db/open-database.ts";
import { log } from "../log.ts";
import { enqueueKind } from "../queue/enqueue.ts";
import { refreshMetrics, type RefreshMode } from "./refresh.ts";
import { METRICS_REFRESH_JOB_KIND } from "./refresh-job.ts";
import { isRefreshingHere, refreshJobPending, trackRefresh } from "./refresh-status.ts";

/** Agno's answers to `POST /metrics/refresh?background=true`. */
export const REFRESH_STARTED = { status: "started", message: "Metrics refresh started in background" } as const;
export const REFRESH_ALREADY_RUNNING = { status: "already_running", message: "A metrics refresh is already in progress for this database" } as const;

/** Whether a refresh of the database runs already: in this process, or (durable queue) as a queued or running job. */
export async function refreshInProgress(db: Db, settings: Settings): Promise<boolean> {
  return isRefreshingHere(db) || (settings.queue.durable && (await refreshJobPending(db)));
}

/**
 * The synchronous refresh (`POST /metrics/refresh`, the dashboard's Refresh): runs here and now,
 * tracked for `/metrics/refresh/status`, and answers already_running instead of starting a second
 * one beside a refresh in progress (as Agno guards its synchronous path too).
 */
export async function refreshNow(db: Db, settings: Settings): Promise<{ alreadyRunning: true } | { alreadyRunning: false; rows: DailyMetrics[] }> {
  if (await refreshInProgress(db, settings)) return { alreadyRunning: true };
  return { alreadyRunning: false, rows: await trackRefresh(db, () => refreshMetrics(db)) };
}

/**
 * A refresh in the background: with the durable queue, a `metrics_refresh` job any worker runs;
 * without (no worker process), in this process, as Agno runs it as a background task. Either way
 * `/metrics/refresh/status` follows it. `done` settles when an in-process refresh ends (tests wait on it).
 */
export async function startBackgroundRefresh(
  db: Db,
  settings: Settings,
  { mode = "incremental", idempotencyKey }: { mode?: RefreshMode; idempotencyKey?: string } = {},
): Promise<{ status: "started" | "already_running"; done?: Promise<void> }> {
  if (await refreshInProgress(db, settings)) return { status: "already_running" };
  if (settings.queue.durable) {
    const { duplicate } = await enqueueKind(db, settings, METRICS_REFRESH_JOB_KIND, { payload: { mode }, componentId: mode, owner: null, idempotencyKey });
    return { status: duplicate ? "already_running" : "started" };
  }
  const done = trackRefresh(db, () => refreshMetrics(db, { mode })).then(
    () => undefined,
    () => undefined, // recorded as failed (and logged) by trackRefresh
  );
  return { status: "started", done };
}

/**
 * The daily refresh: recomputes yesterday and today (and any day an incremental refresh still
 * owes) so they are current without anyone calling `/metrics/refresh`. The scheduler's daily
 * system tick calls it; it does nothing while `metrics.dailyRefresh` is off. With the durable
 * queue it enqueues one `metrics_refresh` job per UTC day (idempotency key
 * `metrics_refresh:recent:<date>`, so every process's tick enqueues the same one); without, it
 * refreshes in this process in the background. Never throws for a refresh that fails (it is
 * logged and recorded in the status); an enqueue that fails (the database away) does throw.
 */
export async function refreshRecentMetrics(
  db: Db,
  settings: Settings,
  { now = Date.now() }: { now?: number } = {},
): Promise<{ status: "disabled" | "started" | "already_running"; done?: Promise<void> }> {
  if (!settings.metrics.dailyRefresh) return { status: "disabled" };
  const today = new Date(now).toISOString().slice(0, 10);
  const started = await startBackgroundRefresh(db, settings, { mode: "recent", idempotencyKey: `metrics_refresh:recent:${today}` });
  if (started.status === "started") log.info(`[metrics] daily refresh of yesterday and today ${settings.queue.durable ? "enqueued" : "started"}`);
  return started;
}

/**
 * The scheduler's system task for the daily refresh: on its first loop, and on the first loop of
 * each new UTC day after, it calls `refreshRecentMetrics` (which every process's task may call:
 * the day's job key makes it one job). Shaped as lib/scheduler's `SystemTask` (run with the loop's
 * time in seconds); a failed enqueue is tried again on the next loop.
 */
export function dailyMetricsRefreshTask(db: Db, settings: Settings): { run(nowSeconds: number): Promise<void> } {
  let doneFor: string | null = null;
  return {
    async run(nowSeconds) {
      const today = new Date(nowSeconds * 1000).toISOString().slice(0, 10);
      if (doneFor === today) return;
      await refreshRecentMetrics(db, settings, { now: nowSeconds * 1000 });
      doneFor = today;
    },
  };
}
