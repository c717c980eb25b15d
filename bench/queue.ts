/**
 * Durable queue benchmark: Agentry's job queue next to graphile-worker and pg-boss, in the same
 * run on the same PostgreSQL, doing the same no-op jobs (Agentry's also move their run rows
 * RUNNING → COMPLETED, which the others have no equivalent of).
 *
 *   npm run bench:queue [-- --jobs=4000 --workers=1,2,4 --latency-jobs=200 --url=postgresql://… --redis=redis://…]
 *
 * 1. Throughput: for 1, 2 and 4 worker processes, `jobs` jobs are committed in one transaction
 *    while the workers sit idle; jobs/s = jobs / (commit → the last job done).
 * 2. Enqueue → start latency, one worker, jobs enqueued one at a time with a gap: from another
 *    process (cross replica: Agentry wakes workers over Redis, graphile-worker over LISTEN/NOTIFY,
 *    pg-boss polls) and from the worker's own process (same replica).
 * 3. Single-submit enqueue rate: one job at a time, each its own transaction, against pgbench
 *    running the same one-row INSERT into agno_jobs on the same database.
 * See bench/README.md.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { redisCoordination } from "../lib/coordination/redis-coordination.ts";
import { enqueueRunJob, openDatabase, unsafeSystemScope, type Db } from "../lib/db/index.ts";
import { MigrationManager } from "../lib/migrations/migration-manager.ts";
import { table } from "./report.ts";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(jobs|workers|latency-jobs|gap-ms|enqueue-seconds|enqueue-clients|url|redis|systems)=.+$|^--keep$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error(
    `usage: tsx bench/queue.ts [--jobs=4000] [--workers=1,2,4] [--latency-jobs=200] [--gap-ms=10] [--enqueue-seconds=3] [--enqueue-clients=1,8] [--url=postgresql://…] [--redis=redis://…] [--systems=agentry,graphile-worker,pg-boss] [--keep]`,
  );
  process.exit(2);
}
const BENCH_SCOPE = unsafeSystemScope("the benchmark enqueues jobs as the web tier would, with no caller");
const JOBS = Number(option("jobs") ?? 4000);
const WORKER_COUNTS = (option("workers") ?? "1,2,4").split(",").map(Number);
const LATENCY_JOBS = Number(option("latency-jobs") ?? 200);
const GAP_MS = Number(option("gap-ms") ?? 10);
const ENQUEUE_SECONDS = Number(option("enqueue-seconds") ?? 3);
/** Concurrent submitters for the enqueue rate; pgbench runs with as many clients. */
const ENQUEUE_CLIENTS = (option("enqueue-clients") ?? "1,8").split(",").map(Number);
const PG_URL = option("url") ?? process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const REDIS_URL = option("redis") ?? process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const KEEP = args.includes("--keep");

const ALL_SYSTEMS = ["agentry", "graphile-worker", "pg-boss"] as const;
type System = (typeof ALL_SYSTEMS)[number];
/** --systems=agentry,… runs a subset (for profiling); the comparison lines need all three. */
const SYSTEMS = (option("systems")?.split(",") ?? [...ALL_SYSTEMS]).filter((s): s is System => (ALL_SYSTEMS as readonly string[]).includes(s));

const tag = `${process.pid}_${Date.now().toString(36)}`;
const SCHEMAS: Record<System, string> = { agentry: `bench_queue_${tag}`, "graphile-worker": `bench_gw_${tag}`, "pg-boss": `bench_pgboss_${tag}` };
const REDIS_PREFIX = `bench-queue:${tag}:`;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Worker processes
// ---------------------------------------------------------------------------------------------

interface WorkerProcess {
  child: ChildProcess;
  latencies: number[];
  send(line: string): void;
  waitFor(line: string): Promise<void>;
}

let sessionCursor = 0;
/** Agentry sessions, created up front: a session runs one job at a time, so each job gets its own. */
const sessionIds = (n: number) => Array.from({ length: n }, () => `bench-s-${++sessionCursor}`);

function spawnWorker(system: System, extra: Record<string, unknown> = {}): Promise<WorkerProcess> {
  const options = { url: PG_URL, schema: SCHEMAS[system], redisUrl: REDIS_URL, redisPrefix: REDIS_PREFIX, ...extra };
  // BENCH_QUEUE_PROFILE=<dir>: each worker writes a V8 CPU profile there.
  const profile = process.env.BENCH_QUEUE_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_QUEUE_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", join(ROOT, "bench/queue-worker.ts"), system, JSON.stringify(options)], {
    cwd: ROOT,
    env: { ...process.env, AGENTRY_LOG_LEVEL: "warn" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const latencies: number[] = [];
  const waiters = new Map<string, () => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line.startsWith("lat ")) latencies.push(Number(line.slice(4)));
    else waiters.get(line)?.();
  });
  const worker: WorkerProcess = {
    child,
    latencies,
    send: (line) => child.stdin!.write(`${line}\n`),
    waitFor: (line) =>
      new Promise((resolve, reject) => {
        waiters.set(line, () => {
          waiters.delete(line);
          resolve();
        });
        child.once("exit", (code) => reject(new Error(`${system} worker exited (${code}) before '${line}'`)));
      }),
  };
  return worker.waitFor("ready").then(() => worker);
}

async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      const exited = new Promise((r) => w.child.once("exit", r));
      w.send("stop");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      w.child.kill("SIGKILL");
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The three queues: set-up, bulk enqueue, "done" count, single enqueue
// ---------------------------------------------------------------------------------------------

interface Queue {
  /** Commits `n` jobs in one transaction (throughput rounds). */
  bulk(n: number): Promise<void>;
  /** Jobs of this queue finished so far. */
  done(): Promise<number>;
  /** One job, its own transaction, stamped with its enqueue time; wakes workers as a submit does. */
  single(): Promise<void>;
  close(): Promise<void>;
}

async function agentryQueue(): Promise<Queue & { db: Db }> {
  const db = await openDatabase({ url: PG_URL, schema: SCHEMAS.agentry });
  await new MigrationManager(db).up();
  const coordination = redisCoordination(REDIS_URL, REDIS_PREFIX);
  let round = 0;
  const singles: string[] = [];
  let refill: Promise<void> | null = null;
  const createSessions = async (ids: string[]) => {
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      await db.sql.exec(`INSERT INTO agno_sessions (session_id, session_type, agent_id, created_at) SELECT id, 'agent', 'bench', 0 FROM unnest(?::text[]) AS id`, [`{${chunk.join(",")}}`]);
    }
  };
  return {
    db,
    async bulk(n) {
      const r = ++round;
      const ids = sessionIds(n);
      await createSessions(ids);
      const now = Math.floor(Date.now() / 1000);
      // The rows enqueueRunJob writes (a PENDING run + its queued job per session), for n jobs at once.
      await db.sql.batch([
        {
          text: `INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, status, run_index, run_data, created_at, updated_at)
                 SELECT 'b${r}-' || s, s, 'agent', 'bench', 'PENDING', 0, jsonb_build_object('run_id', 'b${r}-' || s, 'status', 'PENDING'), ?, ?
                   FROM unnest(?::text[]) AS s`,
          params: [now, now, `{${ids.join(",")}}`],
        },
        {
          text: `INSERT INTO agno_jobs (id, component_type, job_type, component_id, session_id, payload, status, attempt, lease_losses, max_attempts, available_at, created_at, updated_at)
                 SELECT 'b${r}-' || s, 'agent', 'run', 'bench', s, '{}'::jsonb, 'queued', 0, 0, 1, ?, ?, ?
                   FROM unnest(?::text[]) AS s`,
          params: [now, now, now, `{${ids.join(",")}}`],
        },
      ]);
      coordination?.publishWake();
    },
    async done() {
      const [row] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_jobs WHERE status = 'completed'`);
      return Number(row.n);
    },
    async single() {
      // Sessions come in blocks, created before any submit takes one from the block.
      while (singles.length === 0) {
        refill ??= (async () => {
          const block = sessionIds(2000);
          await createSessions(block);
          singles.push(...block);
          refill = null;
        })();
        await refill;
      }
      const sessionId = singles.pop()!;
      const runId = `one-${sessionId}`;
      await enqueueRunJob(db, {
        scope: BENCH_SCOPE,
        run: { runId, sessionId, runType: "agent", agentId: "bench", runData: { run_id: runId, session_id: sessionId } },
        job: { componentType: "agent", componentId: "bench", jobType: "run", payload: { t: stamp() }, stream: false, maxAttempts: 1 },
      });
      coordination?.publishWake(); // what a web replica's submit does (wakeWorkers)
    },
    async close() {
      await coordination?.close();
      await db.close();
    },
  };
}

async function graphileQueue(): Promise<Queue> {
  const { runMigrations, makeWorkerUtils } = await import("graphile-worker");
  await runMigrations({ connectionString: PG_URL, schema: SCHEMAS["graphile-worker"] });
  const utils = await makeWorkerUtils({ connectionString: PG_URL, schema: SCHEMAS["graphile-worker"] });
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  let completed = 0;
  let added = 0;
  return {
    async bulk(n) {
      await utils.addJobs(Array.from({ length: n }, () => ({ identifier: "noop", payload: {} })));
      added += n;
    },
    async done() {
      // Finished jobs are deleted: done = added − still there.
      const { rows } = await pool.query(`SELECT COUNT(*)::int AS n FROM "${SCHEMAS["graphile-worker"]}"._private_jobs`);
      completed = added - rows[0].n;
      return completed;
    },
    async single() {
      await utils.addJob("noop", { t: stamp() });
      added++;
    },
    async close() {
      await utils.release();
      await pool.end();
    },
  };
}

async function pgBossQueue(): Promise<Queue> {
  const { default: PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: PG_URL, schema: SCHEMAS["pg-boss"], supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.createQueue("noop");
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  return {
    async bulk(n) {
      await boss.insert(Array.from({ length: n }, () => ({ name: "noop", data: {} })));
    },
    async done() {
      const { rows } = await pool.query(`SELECT COUNT(*)::int AS n FROM "${SCHEMAS["pg-boss"]}".job WHERE name = 'noop' AND state = 'completed'`);
      return rows[0].n;
    },
    async single() {
      await boss.send("noop", { t: stamp() });
    },
    async close() {
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function throughput(system: System, queue: Queue, workers: number): Promise<number> {
  const procs = await Promise.all(Array.from({ length: workers }, () => spawnWorker(system)));
  try {
    const before = await queue.done();
    const t0 = performance.now();
    await queue.bulk(JOBS);
    const committed = performance.now();
    for (;;) {
      if ((await queue.done()) - before >= JOBS) break;
      if (performance.now() - t0 > 600_000) throw new Error(`${system}: ${JOBS} jobs not done within 10 minutes`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return JOBS / ((performance.now() - committed) / 1000);
  } finally {
    await stopWorkers(procs);
  }
}

async function latency(system: System, queue: Queue): Promise<{ cross: number[]; same: number[] }> {
  const sessions = system === "agentry" ? sessionIds(LATENCY_JOBS) : [];
  if (system === "agentry")
    await (queue as Awaited<ReturnType<typeof agentryQueue>>).db.sql.exec(
      `INSERT INTO agno_sessions (session_id, session_type, agent_id, created_at) SELECT id, 'agent', 'bench', 0 FROM unnest(?::text[]) AS id`,
      [`{${sessions.join(",")}}`],
    );
  const [worker] = await Promise.all([spawnWorker(system, { sessions })]);
  try {
    await new Promise((r) => setTimeout(r, 500)); // let it settle into its idle loop
    for (let i = 0; i < LATENCY_JOBS; i++) {
      await queue.single();
      await new Promise((r) => setTimeout(r, GAP_MS));
    }
    while (worker.latencies.length < LATENCY_JOBS) await new Promise((r) => setTimeout(r, 20));
    const cross = worker.latencies.splice(0);
    const selfDone = worker.waitFor("self-done");
    worker.send(`self ${LATENCY_JOBS} ${GAP_MS}`);
    await selfDone;
    while (worker.latencies.length < LATENCY_JOBS) await new Promise((r) => setTimeout(r, 20));
    return { cross, same: worker.latencies.splice(0) };
  } finally {
    await stopWorkers([worker]);
  }
}

async function enqueueRate(queue: Queue, clients: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  const end = t0 + ENQUEUE_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        await queue.single();
        n++;
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** pgbench with `clients` clients, the one-row INSERT of a job into agno_jobs: transactions per second. */
function pgbench(clients: number): number | null {
  const url = new URL(PG_URL);
  const script = join(tmpdir(), `bench-queue-${tag}.sql`);
  writeFileSync(
    script,
    `INSERT INTO "${SCHEMAS.agentry}".agno_jobs (id, component_type, job_type, component_id, session_id, payload, status, attempt, lease_losses, max_attempts, available_at, created_at, updated_at)
     VALUES (md5(random()::text || clock_timestamp()::text), 'agent', 'run', 'bench', NULL, '{"t":0}', 'pgbench', 0, 0, 1, 0, 0, 0);\n`,
  );
  const result = spawnSync(
    "pgbench",
    [
      "-n",
      "-c",
      String(clients),
      "-j",
      String(Math.min(clients, 2)),
      "-T",
      String(ENQUEUE_SECONDS),
      "-f",
      script,
      "-h",
      url.hostname,
      "-p",
      url.port || "5432",
      "-U",
      decodeURIComponent(url.username || "postgres"),
      url.pathname.slice(1) || "postgres",
    ],
    { encoding: "utf8", env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
  );
  rmSync(script, { force: true });
  const tps = /tps = ([\d.]+)/.exec(result.stdout ?? "");
  if (!tps) {
    console.error(`pgbench failed: ${result.error?.message ?? result.stderr}`);
    return null;
  }
  return Number(tps[1]);
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function dropSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of Object.values(SCHEMAS)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

async function main(): Promise<void> {
  const load = loadavg();
  console.log("Queue benchmark — PostgreSQL");
  console.log(`  database : ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (schemas ${Object.values(SCHEMAS).join(", ")}${KEEP ? ", kept" : ", dropped at the end"})`);
  console.log(`  machine  : ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, load average ${load.map((l) => l.toFixed(2)).join(" ")} at start`);
  console.log(`  jobs     : ${JOBS} no-op jobs per throughput round; ${LATENCY_JOBS} for each latency series, ${GAP_MS} ms apart`);
  console.log("  agentry  : durable queue (batch claims, batched fenced settlement), Redis wake-ups; each job's run goes RUNNING (claim) and COMPLETED (settlement)");
  console.log("  graphile : graphile-worker 0.17.3, concurrency 24, localQueue.size 500, completeJobBatchDelay 0 (its documented high-throughput preset)");
  console.log("  pg-boss  : pg-boss 10.4.2, batchSize 500, pollingIntervalSeconds 0.5 (batched fetch, its shortest poll)");
  const makers: Record<System, () => Promise<Queue>> = { agentry: agentryQueue, "graphile-worker": graphileQueue, "pg-boss": pgBossQueue };
  const queues = {} as Record<System, Queue> & { agentry: Awaited<ReturnType<typeof agentryQueue>> };
  for (const system of SYSTEMS) Object.assign(queues, { [system]: await makers[system]() });
  const results: Record<string, unknown> = {};
  try {
    const rates: Record<System, Record<number, number>> = { agentry: {}, "graphile-worker": {}, "pg-boss": {} };
    for (const workers of WORKER_COUNTS) {
      // Interleaved per worker count, so slow drift in the machine touches all three alike.
      for (const system of SYSTEMS) {
        process.stdout.write(`  … throughput ${system}, ${workers} worker(s)\n`);
        rates[system][workers] = await throughput(system, queues[system], workers);
      }
    }
    const lat: Record<System, { cross: number[]; same: number[] }> = {} as never;
    for (const system of SYSTEMS) {
      process.stdout.write(`  … latency ${system}\n`);
      lat[system] = await latency(system, queues[system]);
    }
    const enqueue: Record<System, Record<number, number>> = {} as never;
    const pgbenchTps: Record<number, number | null> = {};
    for (const clients of ENQUEUE_CLIENTS) {
      for (const system of SYSTEMS) (enqueue[system] ??= {})[clients] = await enqueueRate(queues[system], clients);
      pgbenchTps[clients] = queues.agentry ? pgbench(clients) : null;
    }
    await queues.agentry?.db.sql.exec(`DELETE FROM agno_jobs WHERE status = 'pgbench'`);

    console.log("\nThroughput (jobs/s, no-op jobs, commit of the batch → last job done)");
    console.log(
      table(
        ["queue", ...WORKER_COUNTS.map((w) => `${w} worker${w > 1 ? "s" : ""}`)],
        SYSTEMS.map((s) => [s, ...WORKER_COUNTS.map((w) => rates[s][w].toFixed(0))]),
      ),
    );
    console.log("\nEnqueue → start latency (ms, one worker, one job at a time)");
    console.log(
      table(
        ["queue", "same replica p50", "same p99", "cross replica p50", "cross p99"],
        SYSTEMS.map((s) => [s, percentile(lat[s].same, 50).toFixed(2), percentile(lat[s].same, 99).toFixed(2), percentile(lat[s].cross, 50).toFixed(2), percentile(lat[s].cross, 99).toFixed(2)]),
      ),
    );
    console.log(`\nSingle-submit enqueue rate (jobs/s: one job per submit, each its own transaction)`);
    console.log(
      table(
        ["enqueuer", ...ENQUEUE_CLIENTS.map((c) => `${c} client${c > 1 ? "s" : ""}`)],
        [
          ...SYSTEMS.map((s) => [s, ...ENQUEUE_CLIENTS.map((c) => enqueue[s][c].toFixed(0))]),
          ["pgbench (one-row INSERT into agno_jobs)", ...ENQUEUE_CLIENTS.map((c) => pgbenchTps[c]?.toFixed(0) ?? "n/a")],
        ],
      ),
    );

    if (SYSTEMS.length < ALL_SYSTEMS.length) return; // a partial run has nothing to compare
    const top = Math.max(...WORKER_COUNTS);
    const vsGraphile = rates.agentry[top] / rates["graphile-worker"][top];
    const vsPgBoss = rates.agentry[top] / rates["pg-boss"][top];
    const latencyRatio = percentile(lat.agentry.same, 99) / percentile(lat["graphile-worker"].same, 99);
    const enqueueRatios = ENQUEUE_CLIENTS.map((c) => (pgbenchTps[c] ? enqueue.agentry[c] / pgbenchTps[c]! : NaN));
    const enqueueRatio = enqueueRatios[0];
    const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
    console.log("");
    console.log(`vs graphile-worker: ${vsGraphile.toFixed(2)}x (throughput at ${top} workers; target >= 1.0x) ${verdict(vsGraphile >= 1)}`);
    console.log(`vs pg-boss: ${vsPgBoss.toFixed(2)}x (throughput at ${top} workers; target >= 2x) ${verdict(vsPgBoss >= 2)}`);
    console.log(`same-replica latency p99 vs graphile-worker: ${latencyRatio.toFixed(2)}x (target <= 2x) ${verdict(latencyRatio <= 2)}`);
    console.log(`single-submit enqueue vs pgbench: ${enqueueRatio.toFixed(2)}x with 1 client (target >= 0.5x) ${verdict(enqueueRatio >= 0.5)}`);
    for (let i = 1; i < ENQUEUE_CLIENTS.length; i++) console.log(`  with ${ENQUEUE_CLIENTS[i]} clients: ${enqueueRatios[i].toFixed(2)}x`);
    console.log(
      `  load average at end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    Object.assign(results, {
      jobs: JOBS,
      rates,
      latency: Object.fromEntries(
        SYSTEMS.map((s) => [s, { same: { p50: percentile(lat[s].same, 50), p99: percentile(lat[s].same, 99) }, cross: { p50: percentile(lat[s].cross, 50), p99: percentile(lat[s].cross, 99) } }]),
      ),
      enqueue,
      pgbenchTps,
      vsGraphile,
      vsPgBoss,
      latencyRatio,
      enqueueRatios,
    });
    mkdirSync(join(ROOT, "bench/results"), { recursive: true });
    writeFileSync(join(ROOT, "bench/results/queue.json"), JSON.stringify({ at: new Date().toISOString(), cpus: cpus().length, ...results }, null, 2));
    console.log("\nResults written to bench/results/queue.json");
  } finally {
    for (const queue of Object.values(queues)) await queue.close().catch(() => undefined);
    if (!KEEP) await dropSchemas();
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void dropSchemas().finally(() => process.exit(130)));
await main();
process.exit(0);
