/**
 * One worker process of `npm run bench:queue`, for one of the three queues. Started by
 * bench/queue.ts as `tsx bench/queue-worker.ts <system> <json options>`; prints `ready` once it
 * listens for jobs, then a `lat <ms>` line for every job that starts (enqueue → start, from the
 * payload's `t` stamp) and answers commands on stdin:
 *   `self <n> <gapMs>`  enqueue n jobs from this very process (same-replica latency), one per gap
 *   `stop`              shut down and exit
 * Every job is a no-op. Agentry's also moves its run PENDING → RUNNING (in the claim) → COMPLETED
 * (with the job's settlement), as a real run does.
 */
import { createInterface } from "node:readline";
import { redisCoordination } from "../lib/coordination/redis-coordination.ts";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "../lib/config/settings.ts";
import { enqueueRunJob, openDatabase, unsafeSystemScope } from "../lib/db/index.ts";
import { QueueWorker } from "../lib/queue/worker.ts";
import { JobCatalog } from "../lib/queue/catalog.ts";
import { runJobKind } from "../lib/queue/run-jobs/run-job.ts";

interface Options {
  url: string;
  /** Agentry's schema, graphile-worker's schema, or pg-boss's schema. */
  schema: string;
  redisUrl?: string;
  redisPrefix?: string;
  /** Agentry: sessions this process may enqueue its own jobs into (one each). */
  sessions?: string[];
}

const [system, raw] = process.argv.slice(2);
const options = JSON.parse(raw) as Options;
const stamp = () => performance.timeOrigin + performance.now();
const started = (payload: { t?: number } | null | undefined) => {
  if (payload?.t) process.stdout.write(`lat ${(stamp() - payload.t).toFixed(3)}\n`);
};

type Worker = { enqueueSelf(i: number): Promise<void>; stop(): Promise<void> };

async function agentry(): Promise<Worker> {
  const db = await openDatabase({ url: options.url, schema: options.schema });
  if (process.env.BENCH_QUEUE_TRACE) {
    const query = db.sql.query.bind(db.sql);
    const stats = new Map<string, { n: number; ms: number; rows: number }>();
    db.sql.query = (async (text: string, params?: readonly unknown[]) => {
      const t = performance.now();
      const rows = await query(text, params);
      const key = text.trim().slice(0, 30).replace(/\s+/g, " ");
      const s = stats.get(key) ?? { n: 0, ms: 0, rows: 0 };
      s.n++;
      s.ms += performance.now() - t;
      s.rows += rows.length;
      stats.set(key, s);
      return rows;
    }) as typeof db.sql.query;
    process.on("exit", () => {
      for (const [k, s] of stats) process.stderr.write(`trace ${k.padEnd(32)} n=${s.n} avg=${(s.ms / s.n).toFixed(2)}ms rows/call=${(s.rows / s.n).toFixed(1)}\n`);
    });
  }
  const queue: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, durable: true, redis: options.redisUrl };
  const coordination = redisCoordination(options.redisUrl, options.redisPrefix ?? "bench:");
  const scope = unsafeSystemScope("the benchmark enqueues and reads every job");
  const worker = new QueueWorker({
    db,
    queue,
    coordination,
    // The claim stored the run RUNNING; the job's end stores it COMPLETED, with the job's, as a real run's does.
    catalog: new JobCatalog([
      runJobKind(() => async ({ job, writer }) => {
        started(job.payload as { t?: number });
        const run = { runId: job.id, sessionId: job.session_id!, runType: "agent" as const, agentId: job.component_id };
        await writer.finish(scope, { ...run, status: "COMPLETED", runData: { run_id: job.id, session_id: job.session_id, status: "COMPLETED", content: null } });
      }),
    ]),
  });
  worker.start();
  const sessions = options.sessions ?? [];
  return {
    async enqueueSelf(i) {
      const sessionId = sessions[i];
      const runId = `self-${process.pid}-${i}-${Date.now()}`;
      await enqueueRunJob(db, {
        scope,
        run: { runId, sessionId, runType: "agent", agentId: "bench", runData: { run_id: runId, session_id: sessionId } },
        job: { componentType: "agent", componentId: "bench", jobType: "run", payload: { t: stamp() }, stream: false, maxAttempts: 1 },
      });
      worker.wake(); // what a submit does for the local worker (wakeWorkers)
      coordination?.publishWake();
    },
    async stop() {
      await worker.stop({ timeoutSeconds: 5 });
      await coordination?.close();
      await db.close();
    },
  };
}

async function graphile(): Promise<Worker> {
  const { run, makeWorkerUtils } = await import("graphile-worker");
  // graphile-worker's documented high-throughput settings (worker.graphile.org/docs/performance).
  const runner = await run({
    connectionString: options.url,
    schema: options.schema,
    concurrency: 24,
    maxPoolSize: 25,
    noHandleSignals: true,
    logger: new (await import("graphile-worker")).Logger(() => () => undefined),
    taskList: { noop: async (payload) => started(payload as { t?: number }) },
    preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  const utils = await makeWorkerUtils({ connectionString: options.url, schema: options.schema });
  return {
    async enqueueSelf() {
      await utils.addJob("noop", { t: stamp() });
    },
    async stop() {
      await runner.stop();
      await utils.release();
    },
  };
}

async function pgBoss(): Promise<Worker> {
  const { default: PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: options.url, schema: options.schema, supervise: false, migrate: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  // Batched fetch: up to 500 jobs a fetch (graphile-worker's local queue size), at pg-boss's
  // shortest polling interval.
  await boss.work<{ t?: number }>("noop", { batchSize: 500, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    for (const job of jobs) started(job.data);
  });
  return {
    async enqueueSelf() {
      await boss.send("noop", { t: stamp() });
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 5000 });
    },
  };
}

const worker = await (system === "agentry" ? agentry() : system === "graphile-worker" ? graphile() : pgBoss());
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [command, ...args] = line.trim().split(/\s+/);
  if (command === "self") {
    const [count, gapMs] = args.map(Number);
    for (let i = 0; i < count; i++) {
      await worker.enqueueSelf(i);
      await new Promise((r) => setTimeout(r, gapMs));
    }
    process.stdout.write("self-done\n");
  } else if (command === "stop") {
    await worker.stop();
    process.stdout.write("stopped\n");
    process.exit(0);
  }
}
