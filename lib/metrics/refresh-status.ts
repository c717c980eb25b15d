import type { Db } from "../db/open-database.ts";
import { listJobs, type StoredJob } from "../db/jobs/index.ts";
import { unsafeSystemScope } from "../db/scope.ts";
import { log } from "../log.ts";
import { METRICS_REFRESH_JOB_TYPE } from "./refresh-job.ts";

/** Agno's MetricsRefreshStatusResponse, times in epoch seconds. */
export interface RefreshStatus {
  status: "idle" | "running" | "completed" | "failed";
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
}

const IDLE: RefreshStatus = { status: "idle", started_at: null, finished_at: null, error: null };

/** The refreshes this process ran through the API, the dashboard or the daily refresh, per database (on globalThis: Next bundles module graphs apart). */
const stateKey = Symbol.for("agentry.metrics.refreshState");
type Holder = { [stateKey]?: WeakMap<Db, RefreshStatus> };
const states = (): WeakMap<Db, RefreshStatus> => ((globalThis as Holder)[stateKey] ??= new WeakMap());

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The latest refresh this process ran over the database (idle when none since it started). */
export function localRefreshStatus(db: Db): RefreshStatus {
  return states().get(db) ?? IDLE;
}

/** Whether this process is refreshing the database now. */
export const isRefreshingHere = (db: Db): boolean => localRefreshStatus(db).status === "running";

/**
 * Runs a refresh as this process's tracked one: running while it works, then completed or failed
 * with the error, finished_at stamped either way. The outcome is recorded before the promise settles.
 */
export async function trackRefresh<T>(db: Db, refresh: () => Promise<T>): Promise<T> {
  const started_at = nowSeconds();
  states().set(db, { status: "running", started_at, finished_at: null, error: null });
  try {
    const result = await refresh();
    states().set(db, { status: "completed", started_at, finished_at: nowSeconds(), error: null });
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    states().set(db, { status: "failed", started_at, finished_at: nowSeconds(), error: message });
    log.warn(`[metrics] refresh failed: ${message}`);
    throw error;
  }
}

/** Refresh jobs are the system's (no owner): read across every owner on purpose. */
const JOBS_SCOPE = unsafeSystemScope("metrics refresh jobs belong to no user; their status is the database's");

/** The newest metrics refresh job of the durable queue, or null. */
async function latestRefreshJob(db: Db, statuses?: StoredJob["status"][]): Promise<StoredJob | null> {
  const { jobs } = await listJobs(db, { scope: JOBS_SCOPE, kinds: { jobTypes: [METRICS_REFRESH_JOB_TYPE] }, statuses, limit: 1, page: 1, sortBy: "created_at", sortOrder: "desc" });
  return jobs[0] ?? null;
}

/** Whether a refresh job is queued or running anywhere (durable queue). */
export async function refreshJobPending(db: Db): Promise<boolean> {
  return (await latestRefreshJob(db, ["queued", "running"])) !== null;
}

function jobStatus(job: StoredJob): RefreshStatus {
  const started_at = job.locked_at ?? job.created_at;
  if (job.status === "queued" || job.status === "running" || job.status === "paused") return { status: "running", started_at, finished_at: null, error: null };
  if (job.status === "completed") return { status: "completed", started_at, finished_at: job.completed_at ?? job.updated_at, error: null };
  return { status: "failed", started_at, finished_at: job.completed_at ?? job.updated_at, error: job.error ?? `refresh job ${job.status}` };
}

/**
 * The status of the database's latest refresh: this process's, and with the durable queue also the
 * newest refresh job's (any worker's) — a running one wins, else the one that started last.
 */
export async function refreshStatus(db: Db, { durable }: { durable: boolean }): Promise<RefreshStatus> {
  const local = localRefreshStatus(db);
  if (!durable) return local;
  const job = await latestRefreshJob(db);
  if (!job) return local;
  const queued = jobStatus(job);
  if (local.status === "running") return local;
  if (queued.status === "running" || local.status === "idle") return queued;
  return (queued.started_at ?? 0) >= (local.started_at ?? 0) ? queued : local;
}
