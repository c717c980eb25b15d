import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { redisCoordination, type RedisCoordination } from "../coordination/redis-coordination.ts";
import { log } from "../log.ts";
import { jobCatalog } from "./catalog.ts";
import { QueueWorker } from "./worker.ts";

/**
 * Workers this process runs, per database id, and the wake-up hook a submit calls. On
 * `globalThis`: Next bundles route handlers and instrumentation as separate module graphs, each
 * with its own module-level state, and a submit through any of them must wake the one worker.
 */
interface QueueState {
  workers: Map<string, QueueWorker>;
  shutdownHooked: boolean;
}

const key = Symbol.for("agentry.queue-workers");
type Holder = { [key]?: QueueState };

function state(): QueueState {
  const holder = globalThis as Holder;
  return (holder[key] ??= { workers: new Map(), shutdownHooked: false });
}

/** The Redis coordination of a durable queue (null without queue.redis). Keys are namespaced per database. */
export function queueCoordination(settings: Settings): RedisCoordination | null {
  return redisCoordination(settings.queue.redis, `agentry:${settings.osId}:${settings.database.id}:`);
}

/** A worker over `db` running the product's job catalog; a cancel signal reaches the job's work if it runs here. */
export function createQueueWorker(settings: Settings, db: Db, workerId?: string): QueueWorker {
  return new QueueWorker({
    db,
    queue: settings.queue,
    catalog: jobCatalog(),
    settings,
    coordination: queueCoordination(settings),
    workerId,
  });
}

/**
 * Starts this process's embedded worker for the database (durable queue on, embeddedWorker on);
 * idempotent. SIGTERM/SIGINT release the jobs it holds before the process exits.
 */
export function ensureEmbeddedWorker(settings: Settings, db: Db): QueueWorker | null {
  if (!settings.queue.durable || !settings.queue.embeddedWorker) return null;
  const queue = state();
  let worker = queue.workers.get(settings.database.id);
  if (!worker) {
    worker = createQueueWorker(settings, db);
    queue.workers.set(settings.database.id, worker);
    worker.start();
    log.info(`[queue] embedded worker ${worker.workerId} started (at most ${settings.queue.maxConcurrency} runs at once)`);
    if (!queue.shutdownHooked) {
      queue.shutdownHooked = true;
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        process.once(signal, () => {
          void stopEmbeddedWorkers().finally(() => process.exit(0));
        });
      }
    }
  }
  return worker;
}

/** A job was just committed: the local worker claims it now; other replicas hear it over Redis. */
export function wakeWorkers(settings: Settings): void {
  state().workers.get(settings.database.id)?.wake();
  queueCoordination(settings)?.publishWake();
}

export function embeddedWorker(settings: Settings): QueueWorker | undefined {
  return state().workers.get(settings.database.id);
}

/** Stops embedded workers (all, or the one of a database id): running jobs are released at once. */
export async function stopEmbeddedWorkers(databaseId?: string, { timeoutSeconds = 0 }: { timeoutSeconds?: number } = {}): Promise<void> {
  const { workers } = state();
  const stopping = [...workers].filter(([id]) => databaseId === undefined || id === databaseId);
  await Promise.all(
    stopping.map(async ([id, worker]) => {
      workers.delete(id);
      await worker.stop({ timeoutSeconds });
    }),
  );
}
