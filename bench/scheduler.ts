/**
 * The cron scheduler on PostgreSQL with real worker processes (`npm run worker`'s entry, which runs
 * the durable queue's worker and the scheduler) and the scripted model server answering at once,
 * next to a bare baseline: processes that only claim due rows with `FOR UPDATE SKIP LOCKED`,
 * re-arm them and record a start per fire, doing none of a fire's work.
 *
 *   npm run bench:scheduler [-- --burst=10000 --rate=100 --seconds=60 --workers=2 --url=postgresql://… --redis=redis://… --keep]
 *
 * (a) burst: `burst` schedules due in the same second: fires/s until all have fired.
 * (b) steady: `rate` schedules due every second for `seconds` s: lag from the due time to the
 *     run's start (the run's model request reaching the model server) at p50/p99.
 * Each schedule's expression is yearly (`0 0 1 1 *`) with `next_run_at` set to its due second, so
 * each fires exactly once in the run. See bench/README.md ("scheduler").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../e2e/fixtures/model-server.ts";
import { openDatabase } from "../lib/db/index.ts";
import { MigrationManager } from "../lib/migrations/migration-manager.ts";
import { table } from "./report.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const PG_URL = option("url") ?? process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

// ---------------------------------------------------------------------------------------------
// The bare baseline's worker: `tsx bench/scheduler.ts --bare-worker=<schema>` (spawned below).
// ---------------------------------------------------------------------------------------------

const bareSchema = option("bare-worker");
if (bareSchema !== undefined) {
  await bareWorker(bareSchema);
  process.exit(0);
}

/**
 * A scheduler reduced to its database work: claim up to 200 due rows (SKIP LOCKED) and re-arm them
 * in one statement, record each fire's start (one multi-row INSERT), and otherwise sleep until the
 * next due time (at most 1 s). Stops when stdin says `stop`.
 */
async function bareWorker(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  let stopping = false;
  let wake: (() => void) | null = null;
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line === "stop") {
      stopping = true;
      wake?.();
    }
  });
  process.stdout.write("ready\n");
  while (!stopping) {
    const now = Math.floor(Date.now() / 1000);
    const { rows } = await client.query<{ id: string; due: string }>(
      `UPDATE bare_schedules s SET next_run_at = s.next_run_at + 31536000
       FROM (SELECT id, next_run_at FROM bare_schedules WHERE next_run_at <= $1 ORDER BY next_run_at LIMIT 200 FOR UPDATE SKIP LOCKED) due
       WHERE s.id = due.id RETURNING s.id, due.next_run_at AS due`,
      [now],
    );
    if (rows.length > 0) {
      const started = Date.now();
      await client.query("INSERT INTO bare_runs (schedule_id, due, started_ms) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])", [
        rows.map((r) => r.id),
        rows.map((r) => r.due),
        rows.map(() => started),
      ]);
      continue;
    }
    const { rows: next } = await client.query<{ at: string | null }>("SELECT min(next_run_at) AS at FROM bare_schedules");
    const sleepMs = next[0]?.at === null || next[0]?.at === undefined ? 1000 : Math.min(1000, Math.max(0, Number(next[0].at) * 1000 - Date.now()));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, sleepMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
  }
  await client.end();
}

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

const unknown = args.filter((a) => !/^--(burst|rate|seconds|workers|url|redis|phases)=.+$|^--keep$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error("usage: tsx bench/scheduler.ts [--burst=10000] [--rate=100] [--seconds=60] [--workers=2] [--phases=burst,steady] [--url=postgresql://…] [--redis=redis://…] [--keep]");
  process.exit(2);
}
const BURST = Number(option("burst") ?? 10_000);
const RATE = Number(option("rate") ?? 100);
const SECONDS = Number(option("seconds") ?? 60);
const WORKERS = Number(option("workers") ?? 2);
const PHASES = (option("phases") ?? "burst,steady").split(",");
const REDIS_URL = option("redis") ?? process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const KEEP = args.includes("--keep");
const TARGET_P99_MS = 250;
const AGENT = "assistant";
/** Time for freshly started processes to settle (migrations checked, connections open) before the first due second. */
const LEAD_SECONDS = 8;
/** Seconds of the steady load fired before the measured ones. */
const WARMUP_SECONDS = 5;

const tag = `${process.pid}_${Date.now().toString(36)}`;
const SCHEMA = `bench_scheduler_${tag}`;

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

interface Child {
  child: ChildProcess;
  exited: Promise<unknown>;
  output: string[];
}

function spawnChild(script: string[], env: Record<string, string>, readyLine: RegExp): Promise<Child> {
  // BENCH_SCHEDULER_PROFILE=<dir>: each process writes a V8 CPU profile there.
  const profile = process.env.BENCH_SCHEDULER_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SCHEDULER_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", ...script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const output: string[] = [];
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let ready = false;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        if (output.length > 200) output.shift();
        if (!ready && readyLine.test(line)) {
          ready = true;
          resolve({ child, exited, output });
        }
      });
    }
    void exited.then((code) => {
      if (!ready) reject(new Error(`${script.join(" ")} exited (${String(code)}) before it was ready:\n${output.join("\n")}`));
    });
  });
}

function agentryWorker(model: ModelServer): Promise<Child> {
  return spawnChild(
    [join(ROOT, "workers/queue-worker.ts")],
    {
      DATABASE_URL: PG_URL,
      AGENTRY_DB_SCHEMA: SCHEMA,
      AGENTRY_OS_ID: `bench-scheduler-${tag}`,
      AGENTRY_QUEUE_DURABLE: "true",
      REDIS_URL,
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      OPENAI_COMPATIBLE_MODEL: "scripted",
      AGENTRY_LOG_LEVEL: "info",
    },
    /claiming from/,
  );
}

async function stop(children: Child[], how: "SIGTERM" | "stdin"): Promise<void> {
  await Promise.all(
    children.map(async ({ child, exited }) => {
      if (how === "stdin") child.stdin!.write("stop\n");
      else child.kill("SIGTERM");
      await Promise.race([exited, sleep(15_000)]);
      child.kill("SIGKILL");
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Schedules
// ---------------------------------------------------------------------------------------------

/** `count` schedules named `<prefix>-<i>`, schedule i due at `firstDue + floor(i / perSecond)`, ten owners. */
async function insertSchedules(client: pg.Client, target: "agno_schedules" | "bare_schedules", prefix: string, count: number, firstDue: number, perSecond: number): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  if (target === "bare_schedules") {
    await client.query(`INSERT INTO bare_schedules (id, next_run_at) SELECT $1 || '-' || i, $2 + i / $3 FROM generate_series(0, $4 - 1) AS t(i)`, [prefix, firstDue, perSecond, count]);
    return;
  }
  await client.query(
    `INSERT INTO agno_schedules (id, user_id, name, method, endpoint, payload, cron_expr, timezone, timeout_seconds, max_retries,
       retry_delay_seconds, enabled, next_run_at, created_at)
     SELECT $1 || '-' || i, 'bench-user-' || (i % 10), $1 || '-' || i, 'POST', '/agents/${AGENT}/runs',
            jsonb_build_object('message', $1 || '-' || i), '0 0 1 1 *', 'UTC', 120, 0, 60, true, $2 + i / $3, $5
     FROM generate_series(0, $4 - 1) AS t(i)`,
    [prefix, firstDue, perSecond, count, now],
  );
}

interface PhaseResult {
  fires: number;
  /** ms from the (first) due second to the last fire's start. */
  spanMs: number;
  /** ms from the due time to each fire's start. */
  lags: number[];
  /** ms from the due second to every schedule run recorded as ended (Agentry only). */
  settledMs?: number;
}

/** `skip`: the first schedules (a warm-up) are fired like the rest but left out of the figures. */
function summarize(allDue: Map<string, number>, allStarts: Map<string, number>, skip = 0): PhaseResult {
  const measured = (name: string) => Number(name.slice(name.lastIndexOf("-") + 1)) >= skip;
  const starts = new Map([...allStarts].filter(([name]) => measured(name)));
  const due = new Map([...allDue].filter(([name]) => measured(name)));
  const lags = [...starts].map(([id, at]) => at - due.get(id)! * 1000).sort((a, b) => a - b);
  const firstDue = Math.min(...due.values()) * 1000;
  return { fires: starts.size, spanMs: Math.max(...starts.values()) - firstDue, lags };
}

// ---------------------------------------------------------------------------------------------
// Agentry
// ---------------------------------------------------------------------------------------------

/** Schedule name → when its run's model request arrived (the run has started by then). */
const modelArrivals = new Map<string, number>();

async function agentryPhase(client: pg.Client, model: ModelServer, prefix: string, count: number, perSecond: number, skip: number): Promise<PhaseResult> {
  const firstDue = Math.floor(Date.now() / 1000) + LEAD_SECONDS;
  await insertSchedules(client, "agno_schedules", prefix, count, firstDue, perSecond);
  const due = new Map(Array.from({ length: count }, (_, i) => [`${prefix}-${i}`, firstDue + Math.floor(i / perSecond)] as const));
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => agentryWorker(model)));
  const margin = firstDue * 1000 - Date.now();
  if (margin < 500) {
    await stop(workers, "SIGTERM");
    throw new Error(`the workers took until ${-margin + firstDue * 1000 - Date.now()} ms before the first due second to start: the machine is too busy for this measurement`);
  }
  const deadline = Date.now() + (LEAD_SECONDS + count / perSecond + 300) * 1000;
  let settledMs: number | undefined;
  try {
    for (;;) {
      const { rows } = await client.query<{ n: string; bad: string }>(
        `SELECT count(*) FILTER (WHERE r.status = 'success') AS n, count(*) FILTER (WHERE r.status NOT IN ('success', 'running')) AS bad
         FROM agno_schedule_runs r JOIN agno_schedules s ON s.id = r.schedule_id WHERE s.name LIKE $1`,
        [`${prefix}-%`],
      );
      if (Number(rows[0]!.bad) > 0) {
        const { rows: failed } = await client.query("SELECT status, status_code, error FROM agno_schedule_runs WHERE status NOT IN ('success', 'running') LIMIT 3");
        throw new Error(`${rows[0]!.bad} schedule runs did not succeed, e.g. ${JSON.stringify(failed)}`);
      }
      if (Number(rows[0]!.n) >= count) {
        settledMs = Date.now() - firstDue * 1000;
        break;
      }
      if (Date.now() > deadline) throw new Error(`${prefix}: only ${rows[0]!.n} of ${count} schedule runs succeeded in time`);
      await sleep(250);
    }
  } catch (error) {
    for (const [i, w] of workers.entries()) console.error(`--- worker ${i} (last lines)\n${w.output.slice(-20).join("\n")}`);
    throw error;
  } finally {
    await stop(workers, "SIGTERM");
  }
  const starts = new Map([...modelArrivals].filter(([name]) => name.startsWith(`${prefix}-`)));
  if (starts.size !== count) throw new Error(`${prefix}: ${starts.size} model requests for ${count} schedules (each schedule's run makes exactly one)`);
  return { ...summarize(due, starts, skip), settledMs };
}

// ---------------------------------------------------------------------------------------------
// The bare baseline
// ---------------------------------------------------------------------------------------------

async function barePhase(client: pg.Client, prefix: string, count: number, perSecond: number, skip: number): Promise<PhaseResult> {
  const firstDue = Math.floor(Date.now() / 1000) + 3;
  await insertSchedules(client, "bare_schedules", prefix, count, firstDue, perSecond);
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => spawnChild([fileURLToPath(import.meta.url), `--bare-worker=${SCHEMA}`, `--url=${PG_URL}`], {}, /^ready$/)));
  const deadline = Date.now() + (3 + count / perSecond + 120) * 1000;
  try {
    for (;;) {
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM bare_runs WHERE schedule_id LIKE $1", [`${prefix}-%`]);
      if (Number(rows[0]!.n) >= count) break;
      if (Date.now() > deadline) throw new Error(`bare ${prefix}: only ${rows[0]!.n} of ${count} fired in time`);
      await sleep(100);
    }
  } finally {
    await stop(workers, "stdin");
  }
  const { rows } = await client.query<{ schedule_id: string; due: string; started_ms: string }>("SELECT schedule_id, due, started_ms FROM bare_runs WHERE schedule_id LIKE $1", [`${prefix}-%`]);
  if (rows.length !== count) throw new Error(`bare ${prefix}: ${rows.length} fires for ${count} schedules`);
  return summarize(new Map(rows.map((r) => [r.schedule_id, Number(r.due)])), new Map(rows.map((r) => [r.schedule_id, Number(r.started_ms)])), skip);
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const respond = (body: ChatCompletionRequest): ScriptStep => {
  const user = [...body.messages].reverse().find((m) => m.role === "user");
  const name = messageText(user).trim();
  if (!modelArrivals.has(name)) modelArrivals.set(name, Date.now());
  return { text: "ok", usage: { prompt_tokens: 20, completion_tokens: 1 } };
};

const model = await startModelServer({ respond });
const client = new pg.Client({ connectionString: PG_URL });
await client.connect();
const db = await openDatabase({ url: PG_URL, schema: SCHEMA });
let exitCode = 0;
try {
  await new MigrationManager(db).up();
  await db.close();
  await client.query(`SET search_path TO "${SCHEMA}"`);
  await client.query("CREATE TABLE bare_schedules (id text PRIMARY KEY, next_run_at bigint NOT NULL)");
  await client.query("CREATE INDEX ON bare_schedules (next_run_at)");
  await client.query("CREATE TABLE bare_runs (id bigserial PRIMARY KEY, schedule_id text NOT NULL, due bigint NOT NULL, started_ms bigint NOT NULL)");
  const { rows: version } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  console.log(
    `scheduler bench: PostgreSQL ${version[0]!.v}, ${WORKERS} worker processes (queue worker + scheduler each, durable queue, Redis), scripted model answering at once; ` +
      `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );

  const rows: string[][] = [];
  const results: Record<string, { agentry: PhaseResult; bare: PhaseResult }> = {};
  for (const phase of PHASES) {
    // The steady phase starts with WARMUP_SECONDS at the same rate, left out of its figures (a running scheduler is warm).
    const [count, perSecond, skip] = phase === "burst" ? [BURST, BURST, 0] : [RATE * (WARMUP_SECONDS + SECONDS), RATE, RATE * WARMUP_SECONDS];
    console.log(`\n${phase}: ${count} schedules${phase === "burst" ? " due in the same second" : `, ${RATE} due every second for ${WARMUP_SECONDS} s of warm-up + ${SECONDS} s measured`}`);
    const bare = await barePhase(client, phase, count, perSecond, skip);
    console.log(`  bare poller: ${bare.fires} fires, last ${bare.spanMs} ms after the first due second`);
    const agentry = await agentryPhase(client, model, phase, count, perSecond, skip);
    console.log(`  Agentry: ${agentry.fires} runs started, last ${agentry.spanMs} ms after the first due second; every schedule run recorded ended after ${agentry.settledMs} ms`);
    results[phase] = { agentry, bare };
    for (const [who, r] of [
      ["Agentry", agentry],
      ["bare SKIP LOCKED poller", bare],
    ] as const) {
      rows.push([
        `${phase}: ${who}`,
        String(r.fires),
        ((r.fires / Math.max(1, r.spanMs)) * 1000).toFixed(0),
        percentile(r.lags, 50).toFixed(0),
        percentile(r.lags, 99).toFixed(0),
        r.lags[r.lags.length - 1]!.toFixed(0),
      ]);
    }
  }
  console.log(`\n${table(["", "fires", "fires/s", "lag p50 ms", "lag p99 ms", "lag max ms"], rows)}`);
  console.log("\n(fires/s: fires / (first due second → last start); lag: due time → start. Agentry's start is its run's model request; the bare poller's is its INSERT.)");
  if (results.burst) {
    const a = results.burst.agentry;
    const b = results.burst.bare;
    console.log(
      `burst fires/s: ${((a.fires / a.spanMs) * 1000).toFixed(0)} (bare poller ${((b.fires / Math.max(1, b.spanMs)) * 1000).toFixed(0)}; Agentry takes ${(a.spanMs / Math.max(1, b.spanMs)).toFixed(0)}x as long)`,
    );
  }
  if (results.steady) {
    const p99 = percentile(results.steady.agentry.lags, 99);
    const bareP99 = percentile(results.steady.bare.lags, 99);
    console.log(
      `steady lag p99: ${p99.toFixed(0)} ms (target <= ${TARGET_P99_MS} ms) ${p99 <= TARGET_P99_MS ? "PASS" : "FAIL"}; p50 ${percentile(results.steady.agentry.lags, 50).toFixed(0)} ms; ` +
        `bare poller p99 ${bareP99.toFixed(0)} ms (ratio ${(p99 / Math.max(1, bareP99)).toFixed(2)}x)`,
    );
  }
} catch (error) {
  console.error(`bench:scheduler failed: ${(error as Error).stack ?? String(error)}`);
  exitCode = 1;
} finally {
  if (!KEEP) await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`).catch(() => undefined);
  else console.log(`kept schema ${SCHEMA}`);
  await client.end();
  await model.close();
}
process.exit(exitCode);
