import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { QueueSettings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { unsafeOldestReadyJobAge } from "../db/jobs/index.ts";
import { epochSeconds } from "../db/jobs/job-row.ts";
import type { QueueWorker } from "./worker.ts";

/** A database that does not answer the health query within this long counts as unhealthy. */
const HEALTH_QUERY_TIMEOUT_MS = 2_000;

export interface WorkerHealth {
  status: "ok" | "stalled" | "stopping" | "database_unreachable";
  worker_id: string;
  running: number;
  capacity: number;
  /** ISO times of the worker's last claim and last finished job, or null. */
  last_claim_at: string | null;
  last_completion_at: string | null;
  /** Seconds the oldest job this worker could claim now has been ready; null when none is. */
  oldest_ready_age_seconds: number | null;
  detail?: string;
}

/**
 * The worker's health. Stalled: a job has been ready for longer than 3 poll intervals, the worker
 * has room for it, and it has claimed nothing for as long — the loop is stuck. A worker busy
 * with as many runs as it may hold is healthy however long the queue is.
 */
export async function workerHealth(worker: QueueWorker, db: Db, queue: QueueSettings): Promise<WorkerHealth> {
  const progress = worker.report();
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const base = {
    worker_id: progress.workerId,
    running: progress.running,
    capacity: progress.capacity,
    last_claim_at: iso(progress.lastClaimAt),
    last_completion_at: iso(progress.lastCompletionAt),
  };
  let oldest: number | null;
  try {
    oldest = await withTimeout(unsafeOldestReadyJobAge(db, { now: epochSeconds(), deploymentId: queue.deploymentId ?? null, jobTypes: worker.jobTypes }), HEALTH_QUERY_TIMEOUT_MS);
  } catch (error) {
    return { status: "database_unreachable", ...base, oldest_ready_age_seconds: null, detail: (error as Error).message };
  }
  const window = (3 * queue.pollIntervalMs) / 1000;
  const claimedRecently = progress.lastClaimAt !== null && (Date.now() - progress.lastClaimAt) / 1000 <= window;
  const stalled = oldest !== null && oldest > window && progress.running < progress.capacity && !claimedRecently;
  const status = progress.stopping ? "stopping" : stalled ? "stalled" : "ok";
  return {
    status,
    ...base,
    oldest_ready_age_seconds: oldest,
    ...(stalled ? { detail: `a job has been ready for ${oldest} s and this worker claimed none in the last ${window} s` } : {}),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from the database within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * Serves `GET /health` for a standalone worker: 200 with its progress while healthy, 503 while it
 * is stalled, stopping or cannot reach the database. Anything else is 404.
 */
export async function serveWorkerHealth({
  worker,
  db,
  queue,
  port,
  host = "0.0.0.0",
}: {
  worker: QueueWorker;
  db: Db;
  queue: QueueSettings;
  port: number;
  host?: string;
}): Promise<Server & { port: number }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0].replace(/\/+$/, "") || "/";
    if (request.method !== "GET" || path !== "/health") {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ detail: "Not Found" }));
      return;
    }
    void workerHealth(worker, db, queue).then((health) => {
      response.writeHead(health.status === "ok" ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(health));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}
