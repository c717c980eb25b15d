/**
 * `npm run worker`: a standalone durable-queue worker. Run any number of them (on any machines)
 * over the same database; each claims jobs up to queue.maxConcurrency. With WORKER_PORT set it
 * serves GET /health (503 when stalled). SIGTERM/SIGINT stop it gracefully: no more claims,
 * running jobs get queue.stopTimeoutSeconds to finish, the rest are released for other workers.
 */
import { getSettings } from "../lib/server/load-config.ts";
import { readEnv } from "../lib/config/env.ts";
import { closeRedisCoordinations } from "../lib/coordination/redis-coordination.ts";
import { log } from "../lib/log.ts";
import { openMigratedDatabase } from "../lib/migrations/open-migrated.ts";
import { adoptDatabase } from "../lib/server/app-context.ts";
import { installFeatures, startDatabaseServices } from "../lib/server/features.ts";
import { flushTracing } from "../lib/tracing/setup.ts";
import { createQueueWorker } from "../lib/queue/embedded-worker.ts";
import { serveWorkerHealth } from "../lib/queue/worker-health.ts";
import { ensureScheduler, stopSchedulers } from "../lib/scheduler/scheduler.ts";
// Schedule fires call their endpoints through the route table, in this process.
import "../lib/http/internal-call.ts";

installFeatures();
const settings = getSettings();
if (!settings.queue.durable) {
  console.error("agentry worker: the durable queue is off. Set queue: { durable: true } in agentry.config.ts (or AGENTRY_QUEUE_DURABLE=true).");
  process.exit(2);
}
const db = await openMigratedDatabase(settings, (m) => log.info(`[migrate] ${m}`));
adoptDatabase(settings, db);
const worker = createQueueWorker(settings, db);
worker.start();
// Any number of processes may run the scheduler: the claim gives each due schedule to one.
ensureScheduler(settings, db, startDatabaseServices(settings, db));
const port = readEnv().WORKER_PORT;
const health = port === undefined ? null : await serveWorkerHealth({ worker, db, queue: settings.queue, port, host: settings.server.host });
log.info(
  `[worker ${worker.workerId}] claiming from ${db.location} (at most ${settings.queue.maxConcurrency} runs at once` +
    `${settings.queue.deploymentId ? `, deployment ${settings.queue.deploymentId}` : ""})` +
    (health ? `; health on http://${settings.server.host}:${health.port}/health` : ""),
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    // A second signal: leave at once; the sweeper takes the leases back (no attempt is spent).
    process.exit(1);
  }
  stopping = true;
  log.info(`[worker ${worker.workerId}] ${signal}: finishing running jobs (up to ${settings.queue.stopTimeoutSeconds} s), then releasing the rest`);
  await stopSchedulers();
  await worker.stop();
  await flushTracing();
  health?.close();
  await closeRedisCoordinations();
  await db.close();
  process.exit(0);
}
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void shutdown(signal));
