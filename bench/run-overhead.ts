/**
 * Run-overhead benchmark: what Agentry itself costs per agent run, against a scripted model that
 * answers at once, in the same process, over real HTTP.
 *
 *   1. Non-streaming runs: POST /agents/{id}/runs (stream=false), sequentially, through the real
 *      route table and dispatcher hosted on a node:http server (IncomingMessage → Fetch Request,
 *      Fetch Response → ServerResponse), driven by fetch with keep-alive.
 *   2. A baseline on the same server and database: a bare node:http handler that does the same
 *      database writes (upsertSession, upsertRun RUNNING, upsertRun COMPLETED with a run_data of
 *      the same size, addSessionMetrics) and the same model HTTP call (a plain non-streaming fetch
 *      to /v1/chat/completions). The two series alternate in blocks (ABBA) so noise hits both.
 *   3. Streaming throughput: ONE SSE connection (stream=true) of a run whose model streams tens of
 *      thousands of tiny deltas with no delay: `data:` frames per second at the client, over HTTP
 *      and through the dispatcher in-process, next to the scripted model's own rate.
 *
 *   npm run bench:run-overhead                     # SQLite in a temporary file (removed at the end)
 *   npm run bench:run-overhead -- --postgres       # PostgreSQL, in a throw-away schema (dropped)
 *   BENCH_DATABASE_URL=postgresql://… npm run bench:run-overhead
 *
 * Options: --runs=500 --warmup=50 --block=25 --chunks=50000 --stream-repeats=3
 *          --url=postgresql://…  --sqlite (ignore BENCH_DATABASE_URL)  --keep (keep the file / schema)
 * See bench/README.md.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

import { startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../e2e/fixtures/model-server.ts";
import type { AgentDefinition } from "../lib/config/define.ts";
import { parseEnv, readEnv } from "../lib/config/env.ts";
import { resolveSettings, type Settings } from "../lib/config/settings.ts";
import { addSessionMetrics, getRun, unsafeSystemScope, upsertRun, upsertSession, type DataScope, type Db } from "../lib/db/index.ts";
import { appState, getDatabase } from "../lib/server/app-context.ts";
import { dispatch } from "../lib/http/dispatch.ts";
import { cachedRoutesFor, serveApi } from "../lib/http/node-server.ts";
import { fmtBytes, table } from "./report.ts";
import { startAgentry, startMastra, treeMemory, type StartedServer, type TreeMemory } from "./server-memory.ts";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test";
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const unknownArgs = args.filter(
  (a) => !/^--(postgres|sqlite|keep|help|server-only|mastra|runs=.*|warmup=.*|block=.*|chunks=.*|stream-repeats=.*|url=.*|server-runs=.*|server-root=.*|compare-root=.*|server-port=.*)$/.test(a),
);
if (flag("help") || unknownArgs.length > 0) {
  if (unknownArgs.length > 0) console.error(`Unknown argument(s): ${unknownArgs.join(" ")}`);
  console.error(
    "usage: tsx bench/run-overhead.ts [--sqlite | --postgres | --url=postgresql://…] [--runs=500] [--warmup=50] [--block=25]\n" +
      "                                [--chunks=50000] [--stream-repeats=3] [--keep]\n" +
      "                                [--server-runs=1000] [--server-only] [--server-root=DIR] [--compare-root=DIR] [--mastra] [--server-port=7951]\n" +
      "       BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test selects PostgreSQL too.",
  );
  process.exit(unknownArgs.length > 0 ? 2 : 0);
}

const intOption = (name: string, fallback: number, min: number): number => {
  const raw = option(name);
  const value = raw === undefined ? fallback : Number(raw.replace(/_/g, ""));
  if (!Number.isInteger(value) || value < min) {
    console.error(`--${name} must be an integer >= ${min}, got '${raw}'`);
    process.exit(2);
  }
  return value;
};
const RUNS = intOption("runs", 500, 1);
const WARMUP = intOption("warmup", 50, 1);
const BLOCK = intOption("block", 25, 1);
const CHUNKS = intOption("chunks", 50_000, 1);
const STREAM_REPEATS = intOption("stream-repeats", 3, 1);
const KEEP = flag("keep");
/** Runs against `agentry start` between the two memory readings; 0 skips the server phase. */
const SERVER_RUNS = intOption("server-runs", 1000, 0);
const SERVER_ONLY = flag("server-only");
const SERVER_PORT = intOption("server-port", 7951, 1);
/** The checkout whose `agentry start` is measured (another one measures an older commit side by side). */
const SERVER_ROOT = resolve(option("server-root") ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
/** A Mastra 1.71 server doing the same runs beside it (bench/mastra, installed with `npm ci --prefix bench/mastra`). */
const MASTRA = flag("mastra");
/** The Node binary the Mastra server runs on: this one unless MASTRA_NODE names another (Mastra 1.71 asks for Node >= 22.13). */
const MASTRA_NODE = process.env.MASTRA_NODE || process.execPath;
/** Another checkout whose `agentry start` runs beside SERVER_ROOT's, the runs alternating between them. */
const COMPARE_ROOT = option("compare-root") === undefined ? null : resolve(option("compare-root")!);

const isPg = (u: string | undefined): u is string => !!u && /^postgres(ql)?:\/\//i.test(u);
const envUrl = process.env.BENCH_DATABASE_URL || undefined;
if (envUrl && !isPg(envUrl)) {
  console.error("BENCH_DATABASE_URL must be a postgresql:// URL (SQLite always runs in a temporary file)");
  process.exit(2);
}
const optionUrl = option("url");
if (optionUrl !== undefined && !isPg(optionUrl)) {
  console.error("--url must be a postgresql:// URL (SQLite always runs in a temporary file)");
  process.exit(2);
}
/** PostgreSQL when asked for (--postgres, --url, BENCH_DATABASE_URL); --sqlite wins over the env var. */
const url = optionUrl ?? (flag("postgres") ? (envUrl ?? DEFAULT_PG_URL) : flag("sqlite") ? undefined : envUrl);
const DIALECT: "sqlite" | "postgres" = isPg(url) ? "postgres" : "sqlite";

// Quiet the "[migrate] …" info lines unless a level is set. agentry.config.ts (imported by lib/http)
// has already parsed and cached the environment, so the cached copy is what lib/log reads.
if (!process.env.AGENTRY_LOG_LEVEL) readEnv().AGENTRY_LOG_LEVEL = "warn";

const HERE = dirname(fileURLToPath(import.meta.url));
const ADMIN: DataScope = unsafeSystemScope("the benchmark writes its baseline runs and reads back its own");
const AGENT_ID = "bench";
const AGENT_NAME = "Bench Agent";
const INSTRUCTIONS =
  "You are a helpful assistant for an operations team. Answer concisely, cite the records you used, " +
  "and ask a clarifying question when the request is ambiguous. Use markdown for lists and tables.";
const USER_MESSAGE = "What is the status of order 4711, and when will it ship?";
const ANSWER = "Order 4711 is packed and ships tomorrow morning by courier.";
const STREAM_MESSAGE = "stream-bench: answer with many tiny deltas";
/** Targets (see bench/README.md). */
const TARGET_RATIO = 2;
const TARGET_EVENTS_PER_SECOND = 20_000;

// ---------------------------------------------------------------------------------------------
// Statistics and formatting
// ---------------------------------------------------------------------------------------------

interface LatencyStats {
  runs: number;
  runsPerSecond: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
}

/** Nearest-rank percentile. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function latencyStats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((a, b) => a + b, 0);
  return {
    runs: samples.length,
    runsPerSecond: samples.length / (total / 1000),
    meanMs: total / samples.length,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    minMs: sorted[0],
    maxMs: sorted[sorted.length - 1],
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const fmtRatio = (r: number) => (r >= 10 ? `${r.toFixed(1)}x` : `${r.toFixed(2)}x`);
const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");

// ---------------------------------------------------------------------------------------------
// Counting SSE frames as they arrive
// ---------------------------------------------------------------------------------------------

const DATA = Buffer.from("data: ");

/** Counts `data: ` lines in a byte stream, across chunk boundaries. */
class FrameCounter {
  frames = 0;
  bytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  /** The byte before `tail`; a newline at the stream start, so a first line counts. */
  private before = 0x0a;

  push(chunk: Uint8Array): void {
    this.bytes += chunk.byteLength;
    const view = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const buf = this.tail.length > 0 ? Buffer.concat([this.tail, view]) : view;
    for (let i = buf.indexOf(DATA); i !== -1; i = buf.indexOf(DATA, i + DATA.length)) {
      if ((i === 0 ? this.before : buf[i - 1]) === 0x0a) this.frames++;
    }
    const keep = Math.min(DATA.length - 1, buf.length);
    if (buf.length > keep) this.before = buf[buf.length - keep - 1];
    this.tail = Buffer.from(buf.subarray(buf.length - keep));
  }
}

interface StreamSample {
  /** `data:` frames received. */
  frames: number;
  bytes: number;
  /** From sending the request to the first body byte. */
  firstByteMs: number;
  /** From the first body byte to the end of the stream. */
  streamMs: number;
  /** frames / streamMs. */
  eventsPerSecond: number;
  /** frames / (request sent → end): includes setting the run up and, for the model alone, its burst before the first byte. */
  eventsPerSecondTotal: number;
}

async function readStream(response: Response, sentAt: number): Promise<StreamSample> {
  if (!response.ok || !response.body) throw new Error(`stream request failed: HTTP ${response.status} ${await response.text()}`);
  const counter = new FrameCounter();
  const reader = response.body.getReader();
  let first = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first === 0) first = performance.now();
    counter.push(value);
  }
  const end = performance.now();
  const streamMs = end - first;
  return {
    frames: counter.frames,
    bytes: counter.bytes,
    firstByteMs: first - sentAt,
    streamMs,
    eventsPerSecond: counter.frames / (streamMs / 1000),
    eventsPerSecondTotal: counter.frames / ((end - sentAt) / 1000),
  };
}

// ---------------------------------------------------------------------------------------------
// The HTTP server: Agentry's dispatcher behind a node:http adapter, and the bare baseline route
// ---------------------------------------------------------------------------------------------

interface BaselineContext {
  db: Db;
  model: ModelServer;
  /** run_data of a finished Agentry run of this benchmark: the baseline writes one of the same shape and size. */
  template: Record<string, unknown>;
  /** Bytes of the last COMPLETED run_data the baseline wrote (reported next to Agentry's). */
  lastRunDataBytes: number;
}

function readBodyText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The bare route: the same database writes and model call as an Agentry run, with nothing else —
 * no route factory, validation, AI SDK, events or run registry.
 */
async function baselineRun(ctx: BaselineContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const form = new URLSearchParams(await readBodyText(req));
  const message = form.get("message") ?? "";
  const { db, template } = ctx;
  const sessionId = randomUUID();
  const runId = randomUUID();
  const createdAt = nowSeconds();
  await upsertSession(db, {
    scope: ADMIN,
    session: {
      sessionId,
      sessionType: "agent",
      agentId: AGENT_ID,
      userId: null,
      sessionData: {},
      agentData: { name: AGENT_NAME, agent_id: AGENT_ID, model: { id: "scripted", provider: "openai-compatible" } },
    },
  });
  const running = { ...template, run_id: runId, session_id: sessionId, input: { input_content: message }, content: null, messages: [], status: "RUNNING", created_at: createdAt };
  await upsertRun(db, { scope: ADMIN, run: { runId, sessionId, runType: "agent", agentId: AGENT_ID, parentRunId: null, status: "RUNNING", runData: running, createdAt } });

  const answer = await fetch(`${ctx.model.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer x" },
    body: JSON.stringify({
      model: "scripted",
      messages: [
        { role: "system", content: INSTRUCTIONS },
        { role: "user", content: message },
      ],
    }),
  });
  if (!answer.ok) throw new Error(`baseline: model answered HTTP ${answer.status}`);
  const completion = (await answer.json()) as {
    choices: { message: { content: string | null } }[];
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
  const content = completion.choices[0].message.content ?? "";
  const at = nowSeconds();
  const metrics = {
    input_tokens: completion.usage.prompt_tokens,
    output_tokens: completion.usage.completion_tokens,
    total_tokens: completion.usage.total_tokens,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    time_to_first_token: (performance.now() - started) / 1000,
    duration: (performance.now() - started) / 1000,
  };
  const done = {
    ...template,
    run_id: runId,
    session_id: sessionId,
    input: { input_content: message },
    content,
    messages: [
      { role: "system", content: INSTRUCTIONS, created_at: createdAt },
      { role: "user", content: message, created_at: createdAt },
      { role: "assistant", content, created_at: at },
    ],
    metrics,
    status: "COMPLETED",
    created_at: createdAt,
  };
  await upsertRun(db, { scope: ADMIN, run: { runId, sessionId, runType: "agent", agentId: AGENT_ID, parentRunId: null, status: "COMPLETED", runData: done, createdAt } });
  await addSessionMetrics(db, {
    scope: ADMIN,
    sessionId,
    metrics: {
      input_tokens: metrics.input_tokens,
      output_tokens: metrics.output_tokens,
      total_tokens: metrics.total_tokens,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    },
  });
  const body = JSON.stringify(done);
  ctx.lastRunDataBytes = Buffer.byteLength(body);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function startHttpServer(settings: Settings, baseline: () => BaselineContext): Promise<{ server: Server; origin: string }> {
  return serveApi({
    settings,
    intercept: async (req, res) => {
      if ((req.url ?? "/").split("?")[0] !== "/baseline/runs" || req.method !== "POST") return false;
      await baselineRun(baseline(), req, res);
      return true;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------------------------

const formBody = (fields: Record<string, string>) => ({
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

/** One non-streamed run over HTTP (fetch, keep-alive); returns its latency in ms. */
async function timedRun(origin: string, path: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${origin}${path}`, { method: "POST", ...formBody({ message: USER_MESSAGE, stream: "false" }) });
  const text = await response.text();
  const ms = performance.now() - t0;
  if (response.status !== 200 || !text.includes('"status":"COMPLETED"')) {
    throw new Error(`${path}: HTTP ${response.status}: ${text.slice(0, 500)}`);
  }
  return ms;
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/** Set by SIGINT/SIGTERM: the in-flight work then fails on closed resources, which is not an error to report. */
let interrupted = false;

/** What the phases opened, closed at the end and on SIGINT/SIGTERM (last opened first). */
const cleanups: (() => Promise<void>)[] = [];
async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!().catch((e) => console.error(`cleanup: ${e}`));
}

/** The in-process phases: non-streamed runs against the bare baseline, then streaming throughput. */
async function inProcessPhase(model: ModelServer, stamp: string): Promise<Record<string, unknown>> {
  const sqliteFile = join(tmpdir(), `agentry-bench-run-overhead-${stamp}.db`);
  const pgSchema = `bench_run_overhead_${stamp}`;
  const dbId = `bench-run-overhead-${stamp}`;
  const agents: AgentDefinition[] = [
    {
      id: AGENT_ID,
      name: AGENT_NAME,
      model: { provider: "openai-compatible", id: "scripted", baseUrl: model.url, apiKey: "x" },
      instructions: INSTRUCTIONS,
    },
  ];
  // Responses are checked against their schemas only outside production (lib/http/route.ts): measured as production runs.
  const production = { AGENTRY_CHECK_RESPONSES: "false" };
  const env: Record<string, string> = DIALECT === "sqlite" ? { ...production, DATABASE_URL: `file:${sqliteFile}` } : { ...production, DATABASE_URL: url!, AGENTRY_DB_SCHEMA: pgSchema };
  const settings = resolveSettings({ env: parseEnv(env), file: { database: { id: dbId }, agents } });
  const db = await getDatabase(settings);

  let baselineContext: BaselineContext | undefined;
  const { server, origin } = await startHttpServer(settings, () => {
    if (!baselineContext) throw new Error("baseline called before its template was taken");
    return baselineContext;
  });
  cleanups.push(async () => {
    await new Promise<void>((ok) => {
      server.close(() => ok());
      server.closeAllConnections();
    });
    if (KEEP) {
      console.log(`\n--keep: left ${DIALECT === "sqlite" ? sqliteFile : `schema ${pgSchema}`} in place`);
    } else if (DIALECT === "postgres") {
      await db.sql.exec(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).catch((e) => console.error(`could not drop schema ${pgSchema}: ${e}`));
    }
    appState().databases.delete(dbId);
    await db.close().catch(() => undefined);
    if (DIALECT === "sqlite" && !KEEP) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(sqliteFile + suffix, { force: true });
  });

  const agentryPath = `/agents/${AGENT_ID}/runs`;
  const baselinePath = "/baseline/runs";
  const where = DIALECT === "sqlite" ? `SQLite file ${sqliteFile}` : `PostgreSQL ${db.location}, schema ${pgSchema}`;
  const loadAtStart = loadavg();
  console.log(`In process`);
  console.log(`  database : ${where} (removed at the end${KEEP ? " unless --keep" : ""})`);
  console.log(`  server   : node:http on ${origin}; the model server (${model.url}), the API and the client share this process`);
  console.log(`  agentry  : POST ${agentryPath} stream=false → IncomingMessage→Request adapter → dispatch (real route table) → Response streamed back`);
  console.log(`  baseline : POST ${baselinePath} on the same server: upsertSession, upsertRun RUNNING, fetch /v1/chat/completions`);
  console.log(`             (non-streaming), upsertRun COMPLETED (run_data as large as Agentry's), addSessionMetrics, JSON answer`);
  console.log(`  series   : ${WARMUP} warm-up runs each, then ${RUNS} measured runs each, alternating in blocks of ${BLOCK} (ABBA)`);

  // ---- non-streaming: warm-up -------------------------------------------------------------------
  process.stderr.write("  … warm-up\n");
  for (let i = 0; i < WARMUP; i++) await timedRun(origin, agentryPath);
  // The baseline's run_data: the stored run of a finished Agentry run.
  const probe = await fetch(`${origin}${agentryPath}`, { method: "POST", ...formBody({ message: USER_MESSAGE, stream: "false" }) });
  const probeOutput = (await probe.json()) as { run_id: string };
  const stored = await getRun(db, { scope: ADMIN, runId: probeOutput.run_id });
  if (stored?.status !== "COMPLETED") throw new Error("the probe run was not stored as COMPLETED");
  baselineContext = { db, model, template: stored.run_data, lastRunDataBytes: 0 };
  for (let i = 0; i < WARMUP; i++) await timedRun(origin, baselinePath);
  const agentryRunDataBytes = Buffer.byteLength(JSON.stringify(stored.run_data));

  // ---- non-streaming: measured, interleaved -----------------------------------------------------
  process.stderr.write(`  … ${RUNS} + ${RUNS} non-streamed runs\n`);
  const agentrySamples: number[] = [];
  const baselineSamples: number[] = [];
  const blocks = Math.ceil(RUNS / BLOCK);
  const wall0 = performance.now();
  for (let b = 0; b < blocks; b++) {
    const size = Math.min(BLOCK, RUNS - b * BLOCK);
    // ABBA: A B | B A | A B | …, so neither series always goes first.
    const order = b % 2 === 0 ? (["agentry", "baseline"] as const) : (["baseline", "agentry"] as const);
    for (const series of order) {
      for (let i = 0; i < size; i++) {
        if (series === "agentry") agentrySamples.push(await timedRun(origin, agentryPath));
        else baselineSamples.push(await timedRun(origin, baselinePath));
      }
    }
  }
  const nonStreamingWallMs = performance.now() - wall0;
  const agentry = latencyStats(agentrySamples);
  const baseline = latencyStats(baselineSamples);

  // Sanity: every run of both series is stored as COMPLETED.
  const [completed] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs WHERE status = 'COMPLETED' AND agent_id = ?", [AGENT_ID]);
  const expectedRuns = 2 * WARMUP + 1 + 2 * RUNS;
  if (Number(completed.n) !== expectedRuns) throw new Error(`expected ${expectedRuns} COMPLETED runs, found ${completed.n}`);
  const baselineRunDataBytes = baselineContext.lastRunDataBytes;

  // ---- streaming ----------------------------------------------------------------------------------
  process.stderr.write(`  … streaming (${fmtInt(CHUNKS)} deltas, ${STREAM_REPEATS} x 3 connections)\n`);
  const streamForm = (message: string) => formBody({ message, stream: "true" });
  const overHttp = async (message: string): Promise<StreamSample> => {
    const t0 = performance.now();
    const response = await fetch(`${origin}${agentryPath}`, { method: "POST", ...streamForm(message) });
    return readStream(response, t0);
  };
  const inProcess = async (message: string): Promise<StreamSample> => {
    const t0 = performance.now();
    const { headers, body } = streamForm(message);
    const request = new Request(`${origin}${agentryPath}`, { method: "POST", headers, body });
    const response = await dispatch(request, "/agents/{agent_id}/runs", { settings, routes: cachedRoutesFor("/agents/{agent_id}/runs") });
    return readStream(response, t0);
  };
  const modelAlone = async (message: string): Promise<StreamSample> => {
    const t0 = performance.now();
    const response = await fetch(`${model.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: JSON.stringify({ model: "scripted", stream: true, messages: [{ role: "user", content: message }] }),
    });
    return readStream(response, t0);
  };
  // Warm-up: JIT for the streaming paths, on shorter streams.
  await overHttp("stream-warm");
  await inProcess("stream-warm");
  await modelAlone("stream-warm");
  const httpSamples: StreamSample[] = [];
  const inProcessSamples: StreamSample[] = [];
  const modelSamples: StreamSample[] = [];
  for (let r = 0; r < STREAM_REPEATS; r++) {
    const steps: [StreamSample[], (m: string) => Promise<StreamSample>][] = [
      [httpSamples, overHttp],
      [inProcessSamples, inProcess],
      [modelSamples, modelAlone],
    ];
    if (r % 2 === 1) steps.reverse();
    for (const [into, run] of steps) into.push(await run(STREAM_MESSAGE));
  }
  const expectedFrames = CHUNKS + 2; // at least the deltas, RunStarted and RunCompleted
  for (const s of [...httpSamples, ...inProcessSamples]) {
    if (s.frames < expectedFrames) throw new Error(`a streamed run delivered ${s.frames} data frames, expected at least ${expectedFrames}`);
  }
  const pick = (samples: StreamSample[]) => {
    const rates = samples.map((s) => s.eventsPerSecond);
    const m = median(rates);
    return { medianEventsPerSecond: m, samples, medianSample: samples[rates.indexOf(m)] ?? samples[0] };
  };
  const streamHttp = pick(httpSamples);
  const streamInProcess = pick(inProcessSamples);
  const streamModel = pick(modelSamples);

  const loadAtEnd = loadavg();

  // ---- results --------------------------------------------------------------------------------
  console.log("");
  console.log(`Non-streaming runs (${RUNS} each, sequential, one keep-alive connection; latency = request sent → body read)`);
  const latencyRow = (name: string, s: LatencyStats) => [name, s.runsPerSecond.toFixed(1), fmtMs(s.meanMs), fmtMs(s.p50Ms), fmtMs(s.p90Ms), fmtMs(s.p99Ms), fmtMs(s.maxMs)];
  console.log(
    table(["series", "runs/s", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"], [latencyRow("agentry  POST /agents/{id}/runs", agentry), latencyRow("baseline bare route, same work", baseline)]),
  );
  const ratios = {
    p50: agentry.p50Ms / baseline.p50Ms,
    p99: agentry.p99Ms / baseline.p99Ms,
    mean: agentry.meanMs / baseline.meanMs,
    overheadP50Ms: agentry.p50Ms - baseline.p50Ms,
  };
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const p50Pass = ratios.p50 <= TARGET_RATIO;
  const p99Pass = ratios.p99 <= TARGET_RATIO;
  console.log("");
  console.log(`  agentry / baseline p50 : ${fmtRatio(ratios.p50)}  ${verdict(p50Pass)} (target <= ${TARGET_RATIO}x); Agentry adds ${fmtMs(ratios.overheadP50Ms)} ms per run at p50`);
  console.log(`  agentry / baseline p99 : ${fmtRatio(ratios.p99)}  ${verdict(p99Pass)} (target <= ${TARGET_RATIO}x)`);
  console.log(`  run_data per run (COMPLETED): Agentry ${agentryRunDataBytes} B, baseline ${baselineRunDataBytes} B`);

  console.log("");
  console.log(`Streaming: one SSE connection, ${fmtInt(CHUNKS)} model deltas (no delay); events/s = data: frames / (first byte → end), median of ${STREAM_REPEATS}`);
  const streamRow = (name: string, s: ReturnType<typeof pick>, target: boolean) => [
    name,
    fmtInt(s.medianEventsPerSecond),
    s.samples.map((x) => fmtInt(x.eventsPerSecond)).join(" / "),
    fmtInt(s.medianSample.frames),
    fmtBytes(s.medianSample.bytes),
    fmtMs(s.medianSample.firstByteMs),
    fmtMs(s.medianSample.streamMs),
    fmtInt(s.medianSample.eventsPerSecondTotal),
    target ? verdict(s.medianEventsPerSecond >= TARGET_EVENTS_PER_SECOND) : "",
  ];
  const streamPass = streamHttp.medianEventsPerSecond >= TARGET_EVENTS_PER_SECOND;
  console.log(
    table(
      ["path", "events/s", "each run", "frames", "bytes", "1st byte ms", "stream ms", "events/s incl. setup", `>= ${fmtInt(TARGET_EVENTS_PER_SECOND)}/s`],
      [streamRow("agentry over HTTP", streamHttp, true), streamRow("agentry in-process dispatch", streamInProcess, false), streamRow("scripted model alone (ref.)", streamModel, false)],
    ),
  );
  // The model server, the API and the client share one thread: the scripted model's own work
  // (its request → end time when read alone) falls inside Agentry's stream window.
  const modelMs = streamModel.medianSample.firstByteMs + streamModel.medianSample.streamMs;
  const withoutModel = streamHttp.medianSample.frames / ((streamHttp.medianSample.streamMs - modelMs) / 1000);
  console.log(
    `  the scripted model itself needs ~${fmtMs(modelMs)} ms for the ${fmtInt(CHUNKS)} deltas (request → end, read alone), on this same thread;\n` +
      `  without it, Agentry over HTTP would deliver ~${fmtInt(withoutModel)} events/s`,
  );
  console.log("");
  console.log(
    `  load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")} -> ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}; ` +
      `non-streaming phase ${(nonStreamingWallMs / 1000).toFixed(1)} s, total ${((performance.now() - wall0) / 1000).toFixed(1)} s`,
  );
  const allPass = p50Pass && p99Pass && streamPass;
  console.log(`  overall: ${allPass ? "PASS" : "FAIL"} (p50 ${verdict(p50Pass)}, p99 ${verdict(p99Pass)}, streaming ${verdict(streamPass)})`);

  return {
    database: DIALECT === "sqlite" ? { file: sqliteFile } : { url: db.location, schema: pgSchema },
    loadAverage: { start: loadAtStart, end: loadAtEnd },
    nonStreaming: {
      agentry,
      baseline,
      ratios,
      pass: { p50: p50Pass, p99: p99Pass },
      runDataBytes: { agentry: agentryRunDataBytes, baseline: baselineRunDataBytes },
      wallSeconds: nonStreamingWallMs / 1000,
    },
    streaming: {
      chunks: CHUNKS,
      agentryHttp: streamHttp,
      agentryInProcess: streamInProcess,
      modelAlone: streamModel,
      modelOwnMs: modelMs,
      agentryHttpWithoutModelEventsPerSecond: withoutModel,
      pass: streamPass,
    },
    pass: allPass,
  };
}

/**
 * The memory target: a Mastra 1.71 server doing the same runs on a machine of this kind held
 * 452 MiB resident (--mastra measures one side by side: bench/README.md).
 */
const TARGET_SERVER_RSS_MIB = 452;
/** How long the server is left alone after /health first answers before the idle reading. */
const IDLE_SETTLE_MS = 5_000;
const MiB = 1024 * 1024;

interface ServerUnderTest {
  label: string;
  root: string;
  server: StartedServer;
  sqliteFile: string;
  pgSchema: string;
  stopped: Awaited<ReturnType<StartedServer["stop"]>> | null;
  /** One run; its latency in ms. */
  run: () => Promise<number>;
  idle?: TreeMemory;
  after?: TreeMemory;
  peakRss: number;
  samples: number[];
}

/**
 * `agentry start` as an operator runs it, its sample agent (agentry.config.ts: `assistant`,
 * model from OPENAI_COMPATIBLE_*) pointed at the scripted model: the resident memory of every
 * process the command leaves running, idle and after SERVER_RUNS non-streamed runs. With
 * --compare-root, that checkout's `agentry start` runs beside it, and with --mastra a Mastra 1.71
 * server doing the same runs (bench/mastra/server.mjs); the runs alternate between the servers in
 * ABBA blocks, so load on the machine hits them alike.
 */
async function serverPhase(model: ModelServer, stamp: string): Promise<Record<string, unknown> & { pass: boolean }> {
  // The build each server serves (built first when older than the sources), relative to its root.
  const distDir = process.env.AGENTRY_NEXT_DIST_DIR || "scratch/next-bench";
  const roots = [{ label: COMPARE_ROOT ? "this" : "agentry", root: SERVER_ROOT }, ...(COMPARE_ROOT ? [{ label: "compare", root: COMPARE_ROOT }] : [])];
  const path = "/agents/assistant/runs";
  console.log("");
  const several = roots.length > 1 || MASTRA;
  console.log(`agentry start (what npm start runs), ${SERVER_RUNS} runs${several ? " each" : ""}`);
  for (const [i, { label, root }] of roots.entries()) console.log(`  ${label.padEnd(8)} : node bin/agentry.mjs start in ${root}, build ${distDir}, port ${SERVER_PORT + i}`);
  const mastraPort = SERVER_PORT + roots.length;
  if (MASTRA) {
    console.log(`  mastra   : bench/mastra/server.mjs (Mastra 1.71, Hono adapter, LibSQL storage with Memory) on ${MASTRA_NODE}, port ${mastraPort};`);
    console.log(`             POST /api/agents/assistant/generate {messages, memory: {thread: <new>, resource}} per run`);
  }
  console.log(`  database : ${DIALECT === "sqlite" ? "a temporary SQLite file" : "a throw-away PostgreSQL schema"} per server (removed at the end${KEEP ? " unless --keep" : ""})`);
  console.log(
    `  runs     : POST ${path} stream=false, one after another, each a new session; the scripted model in the benchmark process` +
      (several ? `;\n             alternating between the servers in blocks of ${BLOCK} (ABBA)` : ""),
  );
  console.log(`  memory   : RSS (and PSS) of the command and every process descended from it, ${IDLE_SETTLE_MS / 1000} s after /health first answers, and after the runs`);

  const servers: ServerUnderTest[] = [];
  for (const [i, { label, root }] of roots.entries()) {
    const sqliteFile = join(tmpdir(), `agentry-bench-run-overhead-${stamp}-${label}.db`);
    const pgSchema = `bench_run_overhead_${stamp}_${label}`;
    const env: Record<string, string> = {
      ...(DIALECT === "sqlite" ? { DATABASE_URL: `file:${sqliteFile}` } : { DATABASE_URL: url!, AGENTRY_DB_SCHEMA: pgSchema }),
      AGENTRY_NEXT_DIST_DIR: distDir,
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      OPENAI_COMPATIBLE_MODEL: "scripted",
      OPENAI_COMPATIBLE_API_KEY: "x",
      AGENTRY_LOG_LEVEL: process.env.AGENTRY_LOG_LEVEL || "warn",
    };
    const log = join(HERE, "results", `run-overhead-server-${DIALECT}-${label}.log`);
    process.stderr.write(`  … starting ${label} (it builds first when the build is stale; output in ${log})\n`);
    const server = await startAgentry({ root, port: SERVER_PORT + i, env, log });
    const run = () => timedRun(server.origin, path);
    const entry: ServerUnderTest = { label, root, server, sqliteFile, pgSchema, stopped: null, run, peakRss: 0, samples: [] };
    servers.push(entry);
    cleanups.push(async () => {
      entry.stopped ??= await server.stop();
      if (KEEP) console.log(`\n--keep: left ${DIALECT === "sqlite" ? sqliteFile : `schema ${pgSchema}`} in place`);
      else if (DIALECT === "postgres") {
        const client = new pg.Client({ connectionString: url! });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).catch((e) => console.error(`could not drop schema ${pgSchema}: ${e}`));
        await client.end();
      } else for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(sqliteFile + suffix, { force: true });
    });
  }

  if (MASTRA) {
    const database = join(tmpdir(), `agentry-bench-run-overhead-${stamp}-mastra.db`);
    const log = join(HERE, "results", `run-overhead-server-${DIALECT}-mastra.log`);
    process.stderr.write(`  … starting mastra (output in ${log})\n`);
    const server = await startMastra({ port: mastraPort, modelUrl: model.url, database, log, node: MASTRA_NODE });
    const run = async () => {
      const t0 = performance.now();
      const response = await fetch(`${server.origin}/api/agents/assistant/generate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: USER_MESSAGE }], memory: { thread: randomUUID(), resource: "bench" } }),
      });
      const text = await response.text();
      const ms = performance.now() - t0;
      if (response.status !== 200 || !text.includes(ANSWER)) throw new Error(`mastra: HTTP ${response.status}: ${text.slice(0, 500)}`);
      return ms;
    };
    const entry: ServerUnderTest = { label: "mastra", root: "bench/mastra", server, sqliteFile: database, pgSchema: "", stopped: null, run, peakRss: 0, samples: [] };
    servers.push(entry);
    cleanups.push(async () => {
      entry.stopped ??= await server.stop();
      if (!KEEP) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(database + suffix, { force: true });
    });
  }

  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  for (const s of servers) {
    s.idle = treeMemory(s.server.child.pid!);
    s.peakRss = s.idle.rssBytes;
  }
  process.stderr.write(`  … ${SERVER_RUNS} runs${several ? " against each" : ""}\n`);
  const sampler = setInterval(() => {
    for (const s of servers) s.peakRss = Math.max(s.peakRss, treeMemory(s.server.child.pid!).rssBytes);
  }, 1000);
  const wall0 = performance.now();
  try {
    for (let b = 0; b * BLOCK < SERVER_RUNS; b++) {
      const size = Math.min(BLOCK, SERVER_RUNS - b * BLOCK);
      const order = b % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) for (let i = 0; i < size; i++) s.samples.push(await s.run());
    }
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - wall0;
  for (const s of servers) {
    s.after = treeMemory(s.server.child.pid!);
    s.peakRss = Math.max(s.peakRss, s.after.rssBytes);
  }
  for (const s of servers) s.stopped = await s.server.stop();

  const mib = (bytes: number | null) => (bytes === null ? "—" : (bytes / MiB).toFixed(1));
  const processRows = (label: string, tree: TreeMemory) => [
    ...tree.processes.map((p) => [`${label}  ${p.pid} ${p.command.slice(0, 60)}`, mib(p.rssBytes), mib(p.pssBytes)]),
    [`${label}  total (${tree.processes.length} process${tree.processes.length === 1 ? "" : "es"})`, mib(tree.rssBytes), mib(tree.pssBytes)],
  ];
  const results = servers.map((s) => {
    const latency = latencyStats(s.samples);
    const ratio = s.after!.rssBytes / (TARGET_SERVER_RSS_MIB * MiB);
    return { s, latency, ratio, pass: s.after!.rssBytes <= TARGET_SERVER_RSS_MIB * MiB };
  });
  for (const { s, ratio, pass } of results) {
    console.log("");
    console.log(`${s.label}: ${s.root}`);
    console.log(table(["processes", "RSS MiB", "PSS MiB"], [...processRows("idle ", s.idle!), ...processRows("after", s.after!)]));
    console.log(`  started in ${(s.server.startMs / 1000).toFixed(1)} s (spawn → first 200); SIGTERM → exit in ${fmtMs(s.stopped!.ms)} ms (code ${s.stopped!.code}, signal ${s.stopped!.signal})`);
    console.log(`  total RSS idle ${mib(s.idle!.rssBytes)} MiB, after ${SERVER_RUNS} runs ${mib(s.after!.rssBytes)} MiB (peak while running ${mib(s.peakRss)} MiB)`);
    if (s.label !== "mastra") console.log(`  after the runs / Mastra 1.71 (${TARGET_SERVER_RSS_MIB} MiB, the target): ${fmtRatio(ratio)}  ${pass ? "PASS" : "FAIL"} (target <= 1x)`);
  }
  console.log("");
  const latencyRow = (name: string, l: LatencyStats) => [name, l.runsPerSecond.toFixed(1), fmtMs(l.meanMs), fmtMs(l.p50Ms), fmtMs(l.p90Ms), fmtMs(l.p99Ms), fmtMs(l.maxMs)];
  console.log(
    table(
      ["runs through the server", "runs/s", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"],
      results.map((r) => latencyRow(r.s.label, r.latency)),
    ),
  );
  const [first, ...others] = results;
  for (const other of others) {
    console.log(
      `  ${first.s.label} / ${other.s.label}: p50 ${fmtRatio(first.latency.p50Ms / other.latency.p50Ms)}, p99 ${fmtRatio(first.latency.p99Ms / other.latency.p99Ms)}; ` +
        `RSS idle ${fmtRatio(first.s.idle!.rssBytes / other.s.idle!.rssBytes)}, after the runs ${fmtRatio(first.s.after!.rssBytes / other.s.after!.rssBytes)}`,
    );
  }
  console.log(`  (wall ${(wallMs / 1000).toFixed(1)} s)`);
  return {
    distDir,
    runs: SERVER_RUNS,
    servers: results.map(({ s, latency, ratio, pass }) => ({
      label: s.label,
      root: s.root,
      startMs: s.server.startMs,
      idle: s.idle,
      afterRuns: s.after,
      peakRssBytes: s.peakRss,
      latency,
      ratioToTarget: ratio,
      stop: s.stopped,
      pass,
    })),
    wallSeconds: wallMs / 1000,
    pass: first.pass,
  };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const stamp = `${process.pid}_${startedAt.getTime()}`;

  // The scripted model: a short answer at once; the streaming run gets CHUNKS tiny deltas.
  const streamChunks = Array.from({ length: CHUNKS }, () => "x ");
  const warmChunks = streamChunks.slice(0, Math.min(CHUNKS, 5_000));
  const respond = (body: ChatCompletionRequest): ScriptStep => {
    const last = body.messages.at(-1)?.content;
    const text = typeof last === "string" ? last : Array.isArray(last) ? last.map((p) => p.text ?? "").join("") : "";
    if (text.startsWith("stream-warm")) return { chunks: warmChunks };
    if (text.startsWith("stream-bench")) return { chunks: streamChunks };
    return { text: ANSWER };
  };
  const model = await startModelServer({ respond });
  cleanups.push(() => model.close());

  const onSignal = () => {
    interrupted = true;
    // Runs still in flight fail once their tables are gone; that is expected here, not worth a log line.
    readEnv().AGENTRY_LOG_LEVEL = "silent";
    console.error("\ninterrupted: cleaning up");
    void cleanupAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    const loadAtStart = loadavg();
    console.log(`Run-overhead benchmark — ${DIALECT}`);
    console.log(
      `  machine  : ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")} at start` +
        (loadAtStart[0] >= cpus().length ? " — the machine is busy, timings may be noisy" : ""),
    );
    const inProcess = SERVER_ONLY ? null : await inProcessPhase(model, stamp);
    const server = SERVER_RUNS > 0 ? await serverPhase(model, stamp) : null;
    const loadAtEnd = loadavg();
    const pass = (inProcess?.pass ?? true) === true && (server?.pass ?? true) === true;
    if (inProcess && server) console.log(`\noverall: ${pass ? "PASS" : "FAIL"} (in process ${inProcess.pass ? "PASS" : "FAIL"}, memory ${server.pass ? "PASS" : "FAIL"})`);

    // ---- JSON -----------------------------------------------------------------------------------
    const outDir = join(HERE, "results");
    mkdirSync(outDir, { recursive: true });
    const outFile = join(outDir, `run-overhead-${DIALECT}${SERVER_ONLY ? "-server" : ""}.json`);
    writeFileSync(
      outFile,
      `${JSON.stringify(
        {
          benchmark: "run-overhead",
          dialect: DIALECT,
          startedAt: startedAt.toISOString(),
          machine: {
            cpus: cpus().length,
            cpuModel: cpus()[0]?.model ?? null,
            node: process.version,
            platform: process.platform,
            loadAverageStart: loadAtStart,
            loadAverageEnd: loadAtEnd,
          },
          options: {
            runs: RUNS,
            warmup: WARMUP,
            block: BLOCK,
            chunks: CHUNKS,
            streamRepeats: STREAM_REPEATS,
            serverRuns: SERVER_RUNS,
            serverOnly: SERVER_ONLY,
            serverRoot: SERVER_ROOT,
            compareRoot: COMPARE_ROOT,
            mastra: MASTRA ? { node: MASTRA_NODE } : null,
          },
          definitions: {
            latency: "ms from sending the request (fetch, keep-alive) to having read the whole response body",
            runsPerSecond: "runs / sum of latencies (the runs are sequential)",
            percentiles: "nearest rank",
            baseline:
              "bare node:http route: upsertSession (new session), upsertRun RUNNING, non-streaming fetch to the scripted model, upsertRun COMPLETED (run_data shaped and sized like Agentry's), addSessionMetrics, JSON answer",
            eventsPerSecond: "SSE `data:` frames received by the client / ms from the first body byte to the end of the stream",
            rss: "VmRSS from /proc/<pid>/status, summed over `node bin/agentry.mjs start` and every process descended from it",
            pss: "Pss from /proc/<pid>/smaps_rollup (shared pages split between the processes mapping them), summed likewise",
          },
          targets: { latencyRatioMax: TARGET_RATIO, eventsPerSecondMin: TARGET_EVENTS_PER_SECOND, serverRssAfterRunsMaxMiB: TARGET_SERVER_RSS_MIB },
          ...(inProcess ?? {}),
          ...(server ? { server } : {}),
          pass,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`\nResults written to ${resolve(outFile)}`);
  } finally {
    await cleanupAll();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    if (interrupted) return; // the signal handler exits once cleanup is done
    console.error(error);
    process.exit(1);
  },
);
