/**
 * One worker process of `npm run bench:queue`, for one of the three queues. Started by
 * bench/queue.ts as `tsx bench/queue-worker.ts <system> <json options>`; prints `ready` once it
 * listens for jobs, then a `lat <ms>` line for every job that starts (enqueue → start, from the
 * payload's `t` stamp) and answers commands on stdin:
 *   `self <n> <gapMs>`  enqueue n jobs from this very process (same-replica latency), one per gap
 *   `stop`              shut down and exit
 * Agentry's jobs always do a run's work: the run PENDING → RUNNING (in the claim) → COMPLETED (with
 * the job's settlement), as a real run does. The peers' jobs are no-ops (`mode: "noop"`) or do the
 * same work through their own API (`mode: "equal"`): the handler updates the job's run row (in the
 * peer's schema, created by Agentry's migrations) to RUNNING when it starts and to COMPLETED with
 * the same run_data Agentry's worker writes when it ends, one statement each (pg-boss's batch
 * handler: one statement per state for its whole batch).
 */
import { createInterface } from "node:readline";
import { redisCoordination } from "../lib/coordination/redis-coordination.ts";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "../lib/config/settings.ts";
import { enqueueRunJob, openDatabase, unsafeSystemScope } from "../lib/db/index.ts";
import { QueueWorker } from "../lib/queue/worker.ts";
import { JobCatalog } from "../lib/queue/catalog.ts";
import { runJobKind } from "../lib/runs/jobs/run-job.ts";

interface Options {
  url: string;
  /** Agentry's schema, graphile-worker's schema, or pg-boss's schema. */
  schema: string;
  redisUrl?: string;
  redisPrefix?: string;
  /** Agentry: sessions this process may enqueue its own jobs into (one each). */
  sessions?: string[];
  /** The peers: no-op jobs, or jobs that do a run's work (see above). */
  mode?: "noop" | "equal";
}

/** What Agentry's worker below stores as a finished run's run_data; the peers store the same. */
const completedRunData = (runId: string, sessionId: string | null) => ({ run_id: runId, session_id: sessionId, status: "COMPLETED", content: null });

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
        await writer.finish(scope, { ...run, status: "COMPLETED", runData: completedRunData(job.id, job.session_id) });
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

const runs = `"${options.schema}".agno_runs`;
const epoch = () => Math.floor(Date.now() / 1000);
type RunPayload = { t?: number; run_id?: string; session_id?: string };

async function graphile(): Promise<Worker> {
  const { run, makeWorkerUtils, Logger } = await import("graphile-worker");
  const task =
    options.mode === "equal"
      ? {
          // A run's work, as a graphile-worker task does it: one statement when it starts, one when it ends.
          equal: async (raw: unknown, helpers: { query(text: string, values?: unknown[]): Promise<unknown> }) => {
            const payload = raw as RunPayload;
            started(payload);
            await helpers.query(`UPDATE ${runs} SET status = 'RUNNING', updated_at = $2 WHERE run_id = $1`, [payload.run_id, epoch()]);
            await helpers.query(`UPDATE ${runs} SET status = 'COMPLETED', run_data = $2::jsonb, updated_at = $3 WHERE run_id = $1`, [
              payload.run_id,
              JSON.stringify(completedRunData(payload.run_id!, payload.session_id ?? null)),
              epoch(),
            ]);
          },
        }
      : { noop: async (payload: unknown) => started(payload as RunPayload) };
  // graphile-worker's documented high-throughput settings (local queue, batched completion), with
  // concurrency 16 (pool 17) rather than 24: an equal-work task holds a connection, and four
  // processes of 25 would pass PostgreSQL's default max_connections (100).
  const runner = await run({
    connectionString: options.url,
    schema: options.schema,
    concurrency: 16,
    maxPoolSize: 17,
    noHandleSignals: true,
    logger: new Logger(() => () => undefined),
    taskList: task as never,
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

/** pg-boss's work() settings here: batched fetch, fetching on at once while batches come back full, woken by NOTIFY. */
const PG_BOSS_WORK = { batchSize: 100, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true } as const;

async function pgBoss(): Promise<Worker> {
  const { PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: options.url, schema: options.schema, supervise: false, migrate: false, schedule: false, useListenNotify: true });
  boss.on("error", () => undefined);
  boss.on("warning", () => undefined);
  await boss.start();
  const pool = boss.getDb();
  if (options.mode === "equal") {
    // A run's work for the whole batch, as pg-boss's batch handler may do it: one statement per
    // state; pg-boss completes the batch when the handler returns.
    await boss.work<RunPayload>("equal", PG_BOSS_WORK, async (jobs) => {
      for (const job of jobs) started(job.data);
      const ids = jobs.map((j) => j.data.run_id!);
      await pool.executeSql(`UPDATE ${runs} SET status = 'RUNNING', updated_at = $2 WHERE run_id = ANY($1::text[])`, [ids, epoch()]);
      await pool.executeSql(
        `UPDATE ${runs} r SET status = 'COMPLETED', run_data = d.data, updated_at = $3
           FROM unnest($1::text[], $2::jsonb[]) AS d(id, data) WHERE r.run_id = d.id`,
        [ids, jobs.map((j) => JSON.stringify(completedRunData(j.data.run_id!, j.data.session_id ?? null))), epoch()],
      );
    });
  } else {
    await boss.work<RunPayload>("noop", PG_BOSS_WORK, async (jobs) => {
      for (const job of jobs) started(job.data);
    });
  }
  return {
    async enqueueSelf() {
      await boss.send("noop", { t: stamp() });
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 5000 });
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
