/**
 * Durable queue benchmark: Agentry's job queue next to graphile-worker and pg-boss, in the same
 * run on the same PostgreSQL. Agentry's jobs do a run's work (the run row PENDING → RUNNING →
 * COMPLETED); the peers' jobs do the same work through their own APIs ("equal work": the run row
 * inserted PENDING in the enqueue's transaction, updated by the handler), and, for reference,
 * nothing at all ("no-op").
 *
 *   npm run bench:queue [-- --jobs=4000 --workers=1,2,4 --rounds=3 --latency-jobs=200 --url=postgresql://… --redis=redis://…]
 *
 * 1. Throughput: for 1, 2 and 4 worker processes, `jobs` jobs are committed in one transaction
 *    while the workers sit idle; jobs/s = jobs / (commit → the last job done); the median of
 *    `rounds` rounds per cell.
 * 2. Enqueue → start latency, one worker, jobs enqueued one at a time with a gap: from another
 *    process (cross replica: Agentry wakes workers over Redis, graphile-worker over LISTEN/NOTIFY,
 *    pg-boss polls) and from the worker's own process (same replica).
 * 3. Single-submit enqueue rate: one job at a time, each its own transaction, against pgbench
 *    running the same one-row INSERT into agno_jobs on the same database.
 * See bench/README.md.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const unknown = args.filter((a) => !/^--(jobs|workers|rounds|latency-jobs|gap-ms|enqueue-seconds|enqueue-clients|url|redis|systems)=.+$|^--keep$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error(
    `usage: tsx bench/queue.ts [--jobs=4000] [--workers=1,2,4] [--rounds=3] [--latency-jobs=200] [--gap-ms=10] [--enqueue-seconds=3] [--enqueue-clients=1,8] [--url=postgresql://…] [--redis=redis://…] [--systems=agentry,graphile-worker,pg-boss] [--keep]`,
  );
  process.exit(2);
}
const BENCH_SCOPE = unsafeSystemScope("the benchmark enqueues jobs as the web tier would, with no caller");
const JOBS = Number(option("jobs") ?? 4000);
const WORKER_COUNTS = (option("workers") ?? "1,2,4").split(",").map(Number);
const ROUNDS = Number(option("rounds") ?? 3);
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

type Mode = "noop" | "equal";

interface Queue {
  /** Commits `n` jobs in one transaction (throughput rounds): no-op jobs, or jobs each with its run row PENDING. */
  bulk(n: number, mode: Mode): Promise<void>;
  /** Jobs of this queue finished so far. */
  done(mode: Mode): Promise<number>;
  /** One job, its own transaction, stamped with its enqueue time; wakes workers as a submit does. */
  single(): Promise<void>;
  close(): Promise<void>;
}

/** The peers' run table: Agentry's own migrations in the peer's schema, so agno_runs has the same DDL, every index included. */
async function migrateRunsInto(schema: string): Promise<Db> {
  const db = await openDatabase({ url: PG_URL, schema });
  await new MigrationManager(db).up();
  return db;
}

/** A session per run (agno_runs.session_id references agno_sessions), made before the round's clock starts, as Agentry's are. */
async function createPeerSessions(pool: pg.Pool, schema: string, ids: string[]): Promise<void> {
  await pool.query(`INSERT INTO "${schema}".agno_sessions (session_id, session_type, agent_id, created_at) SELECT id, 'agent', 'bench', 0 FROM unnest($1::text[]) AS id`, [ids]);
}

/** The PENDING run rows of a bulk round, as Agentry's bulk writes them (`ids` are the run ids and their session ids). */
const pendingRunsSql = (schema: string) => `INSERT INTO "${schema}".agno_runs (run_id, session_id, run_type, agent_id, status, run_index, run_data, created_at, updated_at)
  SELECT s, s, 'agent', 'bench', 'PENDING', 0, jsonb_build_object('run_id', s, 'status', 'PENDING'), $2, $2 FROM unnest($1::text[]) AS s`;

/**
 * A peer's equal-work bulk round: a session per run (before the clock starts), then in one
 * transaction the PENDING runs and the peer's own enqueue of their jobs, made on that transaction's client.
 */
async function enqueueWithRuns(pool: pg.Pool, schema: string, ids: string[], enqueue: (client: pg.PoolClient) => Promise<unknown>): Promise<void> {
  await createPeerSessions(pool, schema, ids);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(pendingRunsSql(schema), [ids, Math.floor(Date.now() / 1000)]);
    await enqueue(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
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
  const schema = SCHEMAS["graphile-worker"];
  const { runMigrations, makeWorkerUtils } = await import("graphile-worker");
  await runMigrations({ connectionString: PG_URL, schema });
  const runsDb = await migrateRunsInto(schema);
  const utils = await makeWorkerUtils({ connectionString: PG_URL, schema });
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  let added = 0;
  let round = 0;
  return {
    async bulk(n, mode) {
      if (mode === "noop") {
        await utils.addJobs(Array.from({ length: n }, () => ({ identifier: "noop", payload: {} })));
      } else {
        // The runs and their jobs in the caller's transaction: graphile-worker's add_jobs called inside it.
        const r = ++round;
        const ids = Array.from({ length: n }, (_, i) => `g${r}-${i}`);
        await enqueueWithRuns(pool, schema, ids, (client) =>
          client.query(
            `SELECT "${schema}".add_jobs(ARRAY(SELECT ROW('equal', json_build_object('run_id', s, 'session_id', s), NULL, NULL, NULL, NULL, NULL, NULL)::"${schema}".job_spec FROM unnest($1::text[]) AS s))`,
            [ids],
          ),
        );
      }
      added += n;
    },
    async done() {
      // Finished jobs are deleted: done = added − still there (rounds run one at a time).
      const { rows } = await pool.query(`SELECT COUNT(*)::int AS n FROM "${schema}"._private_jobs`);
      return added - rows[0].n;
    },
    async single() {
      await utils.addJob("noop", { t: stamp() });
      added++;
    },
    async close() {
      await utils.release();
      await pool.end();
      await runsDb.close();
    },
  };
}

async function pgBossQueue(): Promise<Queue> {
  const schema = SCHEMAS["pg-boss"];
  const { PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: PG_URL, schema, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  boss.on("warning", () => undefined);
  await boss.start();
  // notify: workers listening (useListenNotify) are woken when a job is created.
  await boss.createQueue("noop", { notify: true });
  await boss.createQueue("equal", { notify: true });
  const runsDb = await migrateRunsInto(schema);
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  let round = 0;
  return {
    async bulk(n, mode) {
      if (mode === "noop") {
        await boss.insert(
          "noop",
          Array.from({ length: n }, () => ({ data: {} })),
        );
        return;
      }
      // The runs and their jobs in one transaction: pg-boss's insert given the transaction's client as its db.
      const r = ++round;
      const ids = Array.from({ length: n }, (_, i) => `p${r}-${i}`);
      await enqueueWithRuns(pool, schema, ids, (client) =>
        boss.insert(
          "equal",
          ids.map((id) => ({ data: { run_id: id, session_id: id } })),
          { db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) } },
        ),
      );
    },
    async done(mode) {
      const { rows } = await pool.query(`SELECT COUNT(*)::int AS n FROM "${schema}".job WHERE name = $1 AND state = 'completed'`, [mode]);
      return rows[0].n;
    },
    async single() {
      await boss.send("noop", { t: stamp() });
    },
    async close() {
      await boss.stop({ graceful: false });
      await pool.end();
      await runsDb.close();
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

async function throughput(system: System, queue: Queue, workers: number, mode: Mode): Promise<number> {
  const procs = await Promise.all(Array.from({ length: workers }, () => spawnWorker(system, { mode })));
  try {
    const before = await queue.done(mode);
    const t0 = performance.now();
    await queue.bulk(JOBS, mode);
    const committed = performance.now();
    const workerPids = procs.map((p) => p.child.pid ?? -1);
    const cpuBefore = machineCpu();
    const splitBefore = processCpu(workerPids);
    for (;;) {
      if ((await queue.done(mode)) - before >= JOBS) break;
      if (performance.now() - t0 > 600_000) throw new Error(`${system}: ${JOBS} jobs not done within 10 minutes`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const seconds = (performance.now() - committed) / 1000;
    if (process.env.BENCH_QUEUE_CPU) {
      // The whole machine's CPU over the round (workers, PostgreSQL, this process): how full it was, and its cost per job.
      const cpu = machineCpu();
      const busy = (cpu.busy - cpuBefore.busy) / CLOCK_TICKS;
      const total = (cpu.total - cpuBefore.total) / CLOCK_TICKS;
      const split = processCpu(workerPids);
      const perJob = (ticks: number) => (((ticks / CLOCK_TICKS) * 1000) / JOBS).toFixed(3);
      process.stdout.write(
        `  cpu ${system}/${mode} ${workers}w: ${((busy / total) * 100).toFixed(0)}% busy, ${((busy * 1000) / JOBS).toFixed(3)} CPU-ms per job ` +
          `(workers ${perJob(split.workers - splitBefore.workers)}, PostgreSQL ${perJob(split.postgres - splitBefore.postgres)})\n`,
      );
    }
    return JOBS / seconds;
  } finally {
    await stopWorkers(procs);
  }
}

const median = (values: number[]) => percentile(values, 50);

/** Linux's USER_HZ: /proc/stat counts in these ticks. */
const CLOCK_TICKS = 100;
/** Busy and total CPU ticks of the whole machine so far (/proc/stat's first line; zeros where there is none). */
function machineCpu(): { busy: number; total: number } {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = fields[3]! + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * CPU ticks so far of the worker processes (`workerPids`) and of PostgreSQL's processes (named
 * `postgres`) on this machine, from /proc/<pid>/stat (utime + stime); zeros where there is no /proc.
 */
function processCpu(workerPids: readonly number[]): { workers: number; postgres: number } {
  const result = { workers: 0, postgres: 0 };
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return result;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid … utime stime …": comm may hold spaces, so fields count from its ')'.
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (workerPids.includes(Number(pid))) result.workers += ticks;
    else if (comm === "postgres") result.postgres += ticks;
  }
  return result;
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

/** The installed version of a peer (its package.json). */
function versionOf(name: string): string {
  const file = join(ROOT, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

/** One throughput series: a queue doing no-op jobs or a run's work. Agentry's jobs always do a run's work. */
type Series = { system: System; mode: Mode; label: string };
const SERIES: Series[] = [
  { system: "agentry", mode: "equal", label: "agentry" },
  { system: "graphile-worker", mode: "equal", label: "graphile-worker (equal work)" },
  { system: "pg-boss", mode: "equal", label: "pg-boss (equal work)" },
  { system: "graphile-worker", mode: "noop", label: "graphile-worker (no-op)" },
  { system: "pg-boss", mode: "noop", label: "pg-boss (no-op)" },
];
const seriesKey = (s: Series) => `${s.system}/${s.mode}`;

async function main(): Promise<void> {
  const load = loadavg();
  console.log("Queue benchmark — PostgreSQL");
  console.log(`  database : ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (schemas ${Object.values(SCHEMAS).join(", ")}${KEEP ? ", kept" : ", dropped at the end"})`);
  console.log(`  machine  : ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, load average ${load.map((l) => l.toFixed(2)).join(" ")} at start`);
  console.log(`  jobs     : ${JOBS} jobs per throughput round, median of ${ROUNDS} rounds per cell; ${LATENCY_JOBS} for each latency series, ${GAP_MS} ms apart`);
  console.log("  agentry  : durable queue (batch claims, batched fenced settlement), Redis wake-ups; each job's run goes PENDING (enqueue) → RUNNING (claim) → COMPLETED (settlement)");
  console.log(
    `  graphile : graphile-worker ${versionOf("graphile-worker")}, concurrency 16, pool 17 (4 processes stay under max_connections 100), localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0 (its documented high-throughput preset)`,
  );
  console.log(
    `  pg-boss  : pg-boss ${versionOf("pg-boss")}, work() batchSize 100, burstWhenBatchFull, pollingIntervalSeconds 0.5, queues with notify and useListenNotify (batched fetch and completion)`,
  );
  console.log("  equal work: the peer's job inserts its run row PENDING in the enqueue's transaction (graphile-worker add_jobs, pg-boss insert with its db option);");
  console.log("              its handler updates it RUNNING when it starts and COMPLETED with Agentry's run_data when it ends, one statement each (pg-boss: per batch);");
  console.log("              each peer's agno_runs is made by Agentry's migrations in the peer's schema (same DDL, every index)");
  const makers: Record<System, () => Promise<Queue>> = { agentry: agentryQueue, "graphile-worker": graphileQueue, "pg-boss": pgBossQueue };
  const queues = {} as Record<System, Queue> & { agentry: Awaited<ReturnType<typeof agentryQueue>> };
  for (const system of SYSTEMS) Object.assign(queues, { [system]: await makers[system]() });
  const series = SERIES.filter((s) => SYSTEMS.includes(s.system));
  const results: Record<string, unknown> = {};
  try {
    const samples: Record<string, Record<number, number[]>> = {};
    for (const workers of WORKER_COUNTS) {
      // Interleaved per worker count and round, so slow drift in the machine touches every series alike.
      for (let round = 1; round <= ROUNDS; round++) {
        for (const s of series) {
          process.stdout.write(`  … throughput ${s.label}, ${workers} worker(s), round ${round}/${ROUNDS}\n`);
          ((samples[seriesKey(s)] ??= {})[workers] ??= []).push(await throughput(s.system, queues[s.system], workers, s.mode));
        }
      }
    }
    const rate = (s: Pick<Series, "system" | "mode">, workers: number) => median(samples[`${s.system}/${s.mode}`]?.[workers] ?? []);
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
    const top = Math.max(...WORKER_COUNTS);
    // The physical reference for one durable write per job: pgbench's one-row INSERT rate with as many clients as workers.
    pgbenchTps[top] ??= queues.agentry ? pgbench(top) : null;
    await queues.agentry?.db.sql.exec(`DELETE FROM agno_jobs WHERE status = 'pgbench'`);

    const row = (s: Series) => [s.label, ...WORKER_COUNTS.map((w) => `${rate(s, w).toFixed(0)} (${(samples[seriesKey(s)]?.[w] ?? []).map((v) => v.toFixed(0)).join("/")})`)];
    console.log(`\nThroughput at equal work (jobs/s, median of ${ROUNDS} rounds, the rounds in brackets; commit of the batch → last job done)`);
    console.log(table(["queue", ...WORKER_COUNTS.map((w) => `${w} worker${w > 1 ? "s" : ""}`)], series.filter((s) => s.mode === "equal").map(row)));
    console.log(`\nThroughput, no-op jobs, for reference (the peers' jobs do nothing; Agentry's row repeated: its jobs always do a run's work)`);
    console.log(table(["queue", ...WORKER_COUNTS.map((w) => `${w} worker${w > 1 ? "s" : ""}`)], series.filter((s) => s.mode === "noop" || s.system === "agentry").map(row)));
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
    const agentryTop = rate({ system: "agentry", mode: "equal" }, top);
    const vsGraphile = agentryTop / rate({ system: "graphile-worker", mode: "equal" }, top);
    const vsPgBoss = agentryTop / rate({ system: "pg-boss", mode: "equal" }, top);
    const vsGraphileNoop = agentryTop / rate({ system: "graphile-worker", mode: "noop" }, top);
    const vsPgBossNoop = agentryTop / rate({ system: "pg-boss", mode: "noop" }, top);
    const vsInsert = pgbenchTps[top] ? agentryTop / pgbenchTps[top]! : NaN;
    const latencyRatio = percentile(lat.agentry.same, 99) / percentile(lat["graphile-worker"].same, 99);
    const enqueueRatios = ENQUEUE_CLIENTS.map((c) => (pgbenchTps[c] ? enqueue.agentry[c] / pgbenchTps[c]! : NaN));
    const enqueueRatio = enqueueRatios[0];
    const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
    console.log("");
    console.log(`vs graphile-worker (equal work): ${vsGraphile.toFixed(2)}x (throughput at ${top} workers; target >= 1.0x) ${verdict(vsGraphile >= 1)}`);
    console.log(`vs pg-boss (equal work): ${vsPgBoss.toFixed(2)}x (throughput at ${top} workers; target >= 2x) ${verdict(vsPgBoss >= 2)}`);
    console.log(`  no-op jobs, for reference: ${vsGraphileNoop.toFixed(2)}x graphile-worker, ${vsPgBossNoop.toFixed(2)}x pg-boss`);
    console.log(
      `agentry at ${top} workers vs pgbench one-row INSERT with ${top} clients: ${vsInsert.toFixed(2)}x (${agentryTop.toFixed(0)} jobs/s vs ${pgbenchTps[top]?.toFixed(0) ?? "n/a"} inserts/s; aim >= 1.0x)`,
    );
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
      rounds: ROUNDS,
      versions: { "graphile-worker": versionOf("graphile-worker"), "pg-boss": versionOf("pg-boss") },
      samples,
      latency: Object.fromEntries(
        SYSTEMS.map((s) => [s, { same: { p50: percentile(lat[s].same, 50), p99: percentile(lat[s].same, 99) }, cross: { p50: percentile(lat[s].cross, 50), p99: percentile(lat[s].cross, 99) } }]),
      ),
      enqueue,
      pgbenchTps,
      vsGraphile,
      vsPgBoss,
      vsGraphileNoop,
      vsPgBossNoop,
      vsInsert,
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
