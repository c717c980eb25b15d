/**
 * Traces benchmark (issue 30): what recording every run as a trace costs, and how the trace reads
 * hold up at scale.
 *
 *   1. Per-run overhead: the sample agent's run (one tool call, then the answer, against the
 *      scripted model) with tracing on and off in the SAME process (setTracingEnabled), in
 *      alternating blocks (ABBA), over real HTTP; p50/p99 on ÷ off, on SQLite and PostgreSQL.
 *   2. Reads at scale: 100,000 traces / 1,000,000 spans seeded into PostgreSQL (10,000 / 100,000
 *      into SQLite); GET /traces page 1 and 500, the dashboard's list query, POST /traces/search
 *      with a structured filter and with a name search (and, reported only, a name no trace has);
 *      p50/p99 against a bare baseline (the same data through hand-written SQL on a plain driver
 *      connection), with the query plans (PostgreSQL: custom and generic, their estimated cost and
 *      any JIT time).
 *   3. Export: spans/s the database exporter sustains (DatabaseSpanExporter.export, batches of
 *      512 as the processor hands them), and spans dropped while 16 clients run agent runs for
 *      60 s (BENCH_TRACES_SECONDS shortens it).
 *
 *   npm run bench:traces
 *   BENCH_TRACES_SECONDS=10 npm run bench:traces -- --rounds=5 --iterations=50 --traces=20000   # smoke run
 *
 * Options: --dialects=sqlite,postgres --phases=overhead,export,load,reads --rounds=25 --block=20
 *          --warmup=40 --iterations=200 --read-warmup=20 --traces=100000 --sqlite-traces=10000
 *          --spans-per-trace=10 --clients=16 --export-spans=20480 --url=postgresql://… --keep
 * See bench/README.md ("Traces (issue 30)").
 */
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import Database from "better-sqlite3";
import pg from "pg";

import { startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../e2e/fixtures/model-server.ts";
import type { AgentDefinition } from "../lib/config/define.ts";
import { readEnv } from "../lib/config/env.ts";
import type { Db } from "../lib/db/open-database.ts";
import { unsafeSystemScope, type DataScope } from "../lib/db/scope.ts";
import { toPostgresPlaceholders } from "../lib/db/sql.ts";
import { traceTime } from "../lib/db/traces/trace-rows.ts";
import { listTraceRowsForDashboard, listTraces, searchTraces, sumDroppedSpans, getSpansOfTraces, writeTraceBatch } from "../lib/db/traces/traces.ts";
import { parseTraceFilter } from "../lib/db/traces/trace-filter.ts";
import { PAGE_SIZE as DASHBOARD_PAGE_SIZE } from "../lib/http/dashboard/list-params.ts";
import { calculatorToolkit } from "../lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "../lib/runtime/tools/host/host.ts";
import { boundSpan } from "../lib/tracing/bounded-attributes.ts";
import { DatabaseSpanExporter } from "../lib/tracing/database-exporter.ts";
import { flushTracing, pendingDroppedSpans, secretsOf, setTracingEnabled } from "../lib/tracing/setup.ts";
import { toSpanRow, traceRowsOf } from "../lib/tracing/span-rows.ts";
import { checkArgs, flag, intOption, listOption, postgresUrlOption } from "./cli.ts";
import { postgresPlans, type Plan } from "./dashboard-plans.ts";
import { recording } from "./dashboard-storage.ts";
import { cleanUpOnSignals, cleanupAll, cleanups, git, interrupted, machineLine, removeOnCleanup, runMain, writeResults } from "./harness.ts";
import { openInProcessApp, type InProcessApp } from "./in-process-app.ts";
import { fmtBytes, int, load, table, verdict } from "./report.ts";
import { percentile, stats, type Stats } from "./stats.ts";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

checkArgs(
  /^--(keep|help|dialects=.+|phases=.+|rounds=.+|block=.+|warmup=.+|iterations=.+|read-warmup=.+|traces=.+|sqlite-traces=.+|spans-per-trace=.+|clients=.+|export-spans=.+|url=.+)$/,
  "usage: tsx bench/traces.ts [--dialects=sqlite,postgres] [--phases=overhead,export,load,reads] [--rounds=25] [--block=20] [--warmup=40]\n" +
    "                           [--iterations=200] [--read-warmup=20] [--traces=100000] [--sqlite-traces=10000] [--spans-per-trace=10]\n" +
    "                           [--clients=16] [--export-spans=20480] [--url=postgresql://…] [--keep]\n" +
    "       BENCH_TRACES_SECONDS=60 sets the length of the 16-client load; BENCH_DATABASE_URL the PostgreSQL server.",
);

type Dialect = "sqlite" | "postgres";
type Phase = "overhead" | "export" | "load" | "reads";
const DIALECTS = listOption<Dialect>("dialects", ["sqlite", "postgres"]);
const PHASES = listOption<Phase>("phases", ["overhead", "export", "load", "reads"]);
/** Overhead: rounds of one block on and one block off (ABBA). */
const ROUNDS = intOption("rounds", 25, 1);
const BLOCK = intOption("block", 20, 1);
const WARMUP = intOption("warmup", 40, 1);
/** Reads: measured requests per case (and per baseline), after READ_WARMUP. */
const ITERATIONS = intOption("iterations", 200, 1);
const READ_WARMUP = intOption("read-warmup", 20, 0);
const PG_TRACES = intOption("traces", 100_000, 1000);
const SQLITE_TRACES = intOption("sqlite-traces", 10_000, 1000);
const SPANS_PER_TRACE = intOption("spans-per-trace", 10, 3);
const CLIENTS = intOption("clients", 16, 1);
const EXPORT_SPANS = intOption("export-spans", 20_480, 512);
const LOAD_SECONDS = (() => {
  const raw = process.env.BENCH_TRACES_SECONDS;
  const value = raw === undefined || raw === "" ? 60 : Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`BENCH_TRACES_SECONDS must be a positive number, got '${raw}'`);
    process.exit(2);
  }
  return value;
})();
const KEEP = flag("keep");
const PG_URL = postgresUrlOption();

// Quiet the "[migrate] …" info lines unless a level is set (the cached environment is what lib/log reads).
if (!process.env.AGENTRY_LOG_LEVEL) readEnv().AGENTRY_LOG_LEVEL = "warn";

const ADMIN: DataScope = unsafeSystemScope("the benchmark reads every trace it seeded");

/** Targets (issue 30). */
const TARGET_OVERHEAD_P50 = 1.1;
const TARGET_READ_P99_MS = 50;
/** The export batch the bounded processor hands the exporter (lib/tracing/drop-counter.ts). */
const EXPORT_BATCH = 512;
const LIST_LIMIT = 20;
const DEEP_PAGE = 500;

// The sample agent (agentry.config.ts's `assistant`), on the scripted model: one tool call, then the answer.
const AGENT_ID = "assistant";
const INSTRUCTIONS = ["Be concise and accurate.", "Say so when you do not know."];
const USER_MESSAGE = "What is 4711 plus 289? Use the calculator.";
const ANSWER = "4711 plus 289 is 5000.";

// ---------------------------------------------------------------------------------------------
// Statistics and formatting
// ---------------------------------------------------------------------------------------------

/** Milliseconds: 2 decimals below 10, 1 below 100, none above. */
const ms = (x: number) => (!Number.isFinite(x) ? "n/a" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
/** A ratio to 2 decimals: "1.02x". */
const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : "n/a");

/** Every target checked, for the summary. */
const checks: { line: string; pass: boolean | null }[] = [];

// ---------------------------------------------------------------------------------------------
// An Agentry app: settings, its database (migrated, tracing bound to it), the API over node:http
// ---------------------------------------------------------------------------------------------

type App = InProcessApp;

const stamp = `${process.pid}_${Date.now()}`;
const tempDir = join(tmpdir(), `agentry-bench-traces-${stamp}`);

function openApp(dialect: Dialect, label: string, agents: AgentDefinition[]): Promise<App> {
  // Tracing as shipped (on, queue 8,192, 16 KiB attributes) but no retention: the seeded traces span 30 days.
  // No scheduler or metrics refresh: nothing in the background but the exporter.
  return openInProcessApp({
    bench: "traces",
    dialect,
    label,
    stamp,
    tempDir,
    pgUrl: PG_URL,
    keep: KEEP,
    file: { agents, tracing: { retentionDays: 0 }, scheduler: false, metrics: { dailyRefresh: false } },
  });
}

const countRows = async (db: Db, tableName: string) => Number((await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${tableName}`))[0].n);

// ---------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------

function sampleAgent(model: ModelServer): AgentDefinition {
  return {
    id: AGENT_ID,
    name: "Assistant",
    description: "A helpful general-purpose assistant.",
    model: { provider: "openai-compatible", id: "scripted", baseUrl: model.url, apiKey: "x" },
    instructions: INSTRUCTIONS,
    tools: [calculatorToolkit, hostToolkit],
    addHistoryToContext: true,
    numHistoryRuns: 3,
  };
}

/** The scripted model: a tool call (`add`) to a user message, the answer once the tool's result is in. */
const respond = (body: ChatCompletionRequest): ScriptStep =>
  body.messages.at(-1)?.role === "tool"
    ? { text: ANSWER, usage: { prompt_tokens: 212, completion_tokens: 11 } }
    : { toolCalls: [{ name: "add", arguments: { a: 4711, b: 289 } }], usage: { prompt_tokens: 180, completion_tokens: 18 } };

/** One non-streamed run over HTTP (fetch, keep-alive); its latency in ms (request sent → body read). */
async function timedRun(origin: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${origin}/agents/${AGENT_ID}/runs`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ message: USER_MESSAGE, stream: "false" }).toString(),
  });
  const text = await response.text();
  const elapsed = performance.now() - t0;
  if (response.status !== 200 || !text.includes('"status":"COMPLETED"') || !text.includes(ANSWER)) {
    throw new Error(`POST /agents/${AGENT_ID}/runs: HTTP ${response.status}: ${text.slice(0, 500)}`);
  }
  return elapsed;
}

/** The spans one traced run makes (measured on a warm-up run). */
async function spansOfOneRun(app: App): Promise<number> {
  setTracingEnabled(true);
  await flushTracing();
  const before = await countRows(app.db, "agno_spans");
  await timedRun(app.origin);
  await flushTracing();
  return (await countRows(app.db, "agno_spans")) - before;
}

/** The bounded processor's queue right now (a diagnostic: read from tracing's process state). */
function exporterQueueDepth(): number {
  const state = (globalThis as Record<symbol, { database?: { waiting?: number } } | undefined>)[Symbol.for("agentry.tracing")];
  return state?.database?.waiting ?? 0;
}

// ---------------------------------------------------------------------------------------------
// 1. Per-run overhead: tracing on vs off, same process, alternating blocks
// ---------------------------------------------------------------------------------------------

async function overheadPhase(app: App, model: ModelServer, spansPerRun: number) {
  process.stderr.write(`  … overhead (${app.dialect}): warm-up ${WARMUP} + ${WARMUP}, then ${ROUNDS} rounds of ${BLOCK} on / ${BLOCK} off\n`);
  for (const on of [true, false, true, false]) {
    setTracingEnabled(on);
    for (let i = 0; i < WARMUP / 2; i++) await timedRun(app.origin);
  }
  setTracingEnabled(true);
  await flushTracing();
  model.reset();
  const spansBefore = await countRows(app.db, "agno_spans");
  const dropsBefore = (await sumDroppedSpans(app.db)) + pendingDroppedSpans();
  const on: number[] = [];
  const off: number[] = [];
  const flushMs: number[] = [];
  const wall0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    // ABBA: on off | off on | on off …
    for (const tracing of r % 2 === 0 ? [true, false] : [false, true]) {
      setTracingEnabled(tracing);
      for (let i = 0; i < BLOCK; i++) (tracing ? on : off).push(await timedRun(app.origin));
      if (tracing) {
        // The block's spans are exported now, so that work never lands on the next (untraced) block; timed apart.
        const t0 = performance.now();
        await flushTracing();
        flushMs.push(performance.now() - t0);
      }
    }
  }
  const wallSeconds = (performance.now() - wall0) / 1000;
  setTracingEnabled(true);
  await flushTracing();
  const stored = (await countRows(app.db, "agno_spans")) - spansBefore;
  const dropped = (await sumDroppedSpans(app.db)) + pendingDroppedSpans() - dropsBefore;
  if (stored + dropped !== on.length * spansPerRun) {
    throw new Error(`overhead: ${on.length} traced runs should have made ${on.length * spansPerRun} spans; ${stored} stored, ${dropped} dropped (untraced runs must make none)`);
  }
  const onStats = stats(on);
  const offStats = stats(off);
  const flushTotal = flushMs.reduce((a, b) => a + b, 0);
  const result = {
    dialect: app.dialect,
    runsEach: on.length,
    spansPerRun,
    on: onStats,
    off: offStats,
    ratioP50: onStats.p50 / offStats.p50,
    ratioP99: onStats.p99 / offStats.p99,
    ratioMean: onStats.mean / offStats.mean,
    exportMsPerRun: flushTotal / on.length,
    ratioMeanWithExport: (onStats.mean + flushTotal / on.length) / offStats.mean,
    spansStored: stored,
    spansDropped: dropped,
    wallSeconds,
    pass: onStats.p50 / offStats.p50 <= TARGET_OVERHEAD_P50,
  };
  console.log("");
  console.log(`Per-run overhead — ${app.dialect} (${app.where})`);
  console.log(`  the sample agent's run: POST /agents/${AGENT_ID}/runs stream=false over HTTP, model: tool call 'add', then the answer (${spansPerRun} spans per traced run)`);
  console.log(`  ${ROUNDS} rounds of ${BLOCK} runs traced and ${BLOCK} not (ABBA), same process; after each traced block its spans are flushed (timed apart)`);
  const row = (name: string, s: Stats) => [name, String(s.n), ms(s.mean), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
  console.log(table(["series", "runs", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"], [row("tracing on", onStats), row("tracing off", offStats)]));
  console.log(`  on / off p50 : ${ratio(result.ratioP50)}  ${verdict(result.pass)} (target <= ${TARGET_OVERHEAD_P50}x); +${ms(onStats.p50 - offStats.p50)} ms per run`);
  console.log(`  on / off p99 : ${ratio(result.ratioP99)}`);
  console.log(
    `  export (flush after each traced block): ${ms(result.exportMsPerRun)} ms per traced run; mean with it ${ratio(result.ratioMeanWithExport)} of untraced ` +
      `(mean alone ${ratio(result.ratioMean)}); ${int(stored)} spans stored, ${int(dropped)} dropped; ${wallSeconds.toFixed(1)} s`,
  );
  checks.push({ line: `overhead ${app.dialect}: on/off p50 ${ratio(result.ratioP50)} (target <= ${TARGET_OVERHEAD_P50}x), p99 ${ratio(result.ratioP99)}`, pass: result.pass });
  return result;
}

// ---------------------------------------------------------------------------------------------
// 3a. Export throughput: DatabaseSpanExporter.export, batches of 512, one after another
// ---------------------------------------------------------------------------------------------

/** Finished SDK spans shaped like runs' (an AGENT root, LLM, TOOL, LLM), in the order they end. */
function makeSpans(count: number): ReadableSpan[] {
  const collected: ReadableSpan[] = [];
  const collector: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => void collected.push(span),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  const tracer = new BasicTracerProvider({ spanProcessors: [collector] }).getTracer("agentry");
  const system = INSTRUCTIONS.join("\n");
  for (let n = 0; collected.length < count; n++) {
    const message = `${USER_MESSAGE} (request ${n}: please also list the steps you took and keep it short)`;
    const root = tracer.startSpan("Assistant.run", {}, ROOT_CONTEXT);
    root.setAttributes({
      "openinference.span.kind": "AGENT",
      "input.value": message,
      "agno.run.id": `run-${stamp}-${n}`,
      "agent.name": "Assistant",
      "graph.node.id": AGENT_ID,
      "graph.node.name": "Assistant",
      "session.id": `session-${stamp}-${n}`,
      "user.id": `user-${n % 50}@bench.test`,
      "agno.agent.id": AGENT_ID,
      "agno.tools": ["add", "subtract", "multiply", "divide", "server_details", "current_time"],
    });
    const parent = trace.setSpan(ROOT_CONTEXT, root);
    const llm = (i: number, tool: boolean) => {
      const span = tracer.startSpan("OpenAILike.invoke", {}, parent);
      const history: Attributes[string] = JSON.stringify({
        messages: [{ role: "system", content: system }, { role: "user", content: message }, ...(tool ? [] : [{ role: "tool", content: '{"result":5000}' }])],
      });
      span.setAttributes({
        "openinference.span.kind": "LLM",
        "llm.model_name": "scripted",
        "llm.provider": "openai-compatible",
        "llm.invocation_parameters": '{"stream":false}',
        "input.value": history,
        "output.value": tool ? '{"content":null,"tool_calls":[{"name":"add","arguments":{"a":4711,"b":289}}]}' : ANSWER,
        "llm.token_count.prompt": 180 + i,
        "llm.token_count.completion": 18,
        "llm.token_count.total": 198 + i,
        "agno.tools": ["add", "subtract", "multiply", "divide", "server_details", "current_time"],
      });
      span.setStatus({ code: SpanStatusCode.OK });
      span.end();
    };
    llm(0, true);
    const tool = tracer.startSpan("add", {}, parent);
    tool.setAttributes({
      "openinference.span.kind": "TOOL",
      "tool.name": "add",
      "tool.description": "Add two numbers",
      "tool.parameters": '{"a":4711,"b":289}',
      "input.value": '{"a":4711,"b":289}',
      "output.value": '{"result":5000}',
      "agno.tool.call_id": `call_${n}`,
    });
    tool.setStatus({ code: SpanStatusCode.OK });
    tool.end();
    llm(32, false);
    root.setAttributes({ "agno.run.status": "COMPLETED", "output.value": ANSWER });
    root.setStatus({ code: SpanStatusCode.OK });
    root.end();
  }
  return collected.slice(0, count);
}

const batchesOf = <T>(items: readonly T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

async function exportPhase(app: App) {
  process.stderr.write(`  … export throughput (${app.dialect}): ${int(EXPORT_SPANS)} spans, batches of ${EXPORT_BATCH}\n`);
  const policy = { maxBytes: app.settings.tracing.maxAttributeBytes, secrets: secretsOf(app.settings) };
  const exporter = new DatabaseSpanExporter(
    () => app.db,
    () => policy,
  );
  const exportBatch = (spans: ReadableSpan[]) =>
    new Promise<void>((ok, fail) => exporter.export(spans, (r) => (r.code === ExportResultCode.SUCCESS ? ok() : fail(r.error ?? new Error("export failed")))));
  await exportBatch(makeSpans(EXPORT_BATCH)); // warm-up
  const spans = makeSpans(EXPORT_SPANS);
  const before = await countRows(app.db, "agno_spans");
  const batchMs: number[] = [];
  const t0 = performance.now();
  for (const batch of batchesOf(spans, EXPORT_BATCH)) {
    const b0 = performance.now();
    await exportBatch(batch);
    batchMs.push(performance.now() - b0);
  }
  const exportSeconds = (performance.now() - t0) / 1000;
  const stored = (await countRows(app.db, "agno_spans")) - before;
  if (stored !== spans.length) throw new Error(`export: ${spans.length} spans exported, ${stored} stored`);

  // The same again, split: the rows alone (bounded attributes, span and trace rows: CPU), then writeTraceBatch alone.
  const again = batchesOf(makeSpans(EXPORT_SPANS), EXPORT_BATCH);
  const c0 = performance.now();
  const rowBatches = again.map((batch) => {
    const createdAt = traceTime(Date.now());
    const rows = batch.map((span) => toSpanRow(boundSpan(span, policy), createdAt));
    return { traces: traceRowsOf(rows, createdAt), spans: rows };
  });
  const convertSeconds = (performance.now() - c0) / 1000;
  const w0 = performance.now();
  for (const rows of rowBatches) await writeTraceBatch(app.db, rows);
  const writeSeconds = (performance.now() - w0) / 1000;
  const payloadBytes = rowBatches.reduce((sum, b) => sum + Buffer.byteLength(JSON.stringify(b.spans)), 0) / EXPORT_SPANS;

  const result = {
    dialect: app.dialect,
    spans: EXPORT_SPANS,
    batch: EXPORT_BATCH,
    spansPerSecond: EXPORT_SPANS / exportSeconds,
    batchMs: stats(batchMs),
    rowsOnlySpansPerSecond: EXPORT_SPANS / convertSeconds,
    writeOnlySpansPerSecond: EXPORT_SPANS / writeSeconds,
    spanRowBytes: payloadBytes,
  };
  console.log("");
  console.log(`Export throughput — ${app.dialect}: DatabaseSpanExporter.export, ${int(EXPORT_SPANS)} run-shaped spans in batches of ${EXPORT_BATCH}, one at a time`);
  console.log(
    `  ${int(result.spansPerSecond)} spans/s (batch p50 ${ms(result.batchMs.p50)} ms, p99 ${ms(result.batchMs.p99)} ms); ` +
      `split: rows alone ${int(result.rowsOnlySpansPerSecond)} spans/s (CPU), writeTraceBatch alone ${int(result.writeOnlySpansPerSecond)} spans/s; ~${fmtBytes(payloadBytes)} per span row`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// 3b. Load: CLIENTS concurrent clients running agent runs for LOAD_SECONDS; spans dropped
// ---------------------------------------------------------------------------------------------

async function loadPhase(app: App, model: ModelServer, spansPerRun: number) {
  process.stderr.write(`  … load (${app.dialect}): ${CLIENTS} clients for ${LOAD_SECONDS} s\n`);
  setTracingEnabled(true);
  await flushTracing();
  model.reset();
  const spansBefore = await countRows(app.db, "agno_spans");
  const dropsBefore = (await sumDroppedSpans(app.db)) + pendingDroppedSpans();
  const samples: number[] = [];
  let failures = 0;
  let lastFailure = "";
  let maxDepth = 0;
  const depthSamples: number[] = [];
  const sampler = setInterval(() => {
    const depth = exporterQueueDepth();
    depthSamples.push(depth);
    maxDepth = Math.max(maxDepth, depth);
  }, 100);
  // The scripted model keeps every request it served: forget them now and then.
  const resetter = setInterval(() => model.reset(), 5_000);
  const deadline = performance.now() + LOAD_SECONDS * 1000;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < deadline && !interrupted()) {
          try {
            samples.push(await timedRun(app.origin));
          } catch (error) {
            failures++;
            lastFailure = error instanceof Error ? error.message : String(error);
          }
        }
      }),
    );
  } finally {
    clearInterval(sampler);
    clearInterval(resetter);
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const backlog = exporterQueueDepth();
  const droppedBeforeFlush = pendingDroppedSpans();
  const f0 = performance.now();
  await flushTracing();
  const drainMs = performance.now() - f0;
  const stored = (await countRows(app.db, "agno_spans")) - spansBefore;
  const dropped = (await sumDroppedSpans(app.db)) + pendingDroppedSpans() - dropsBefore;
  const runs = samples.length;
  const result = {
    dialect: app.dialect,
    clients: CLIENTS,
    seconds: LOAD_SECONDS,
    runs,
    failures,
    lastFailure,
    runsPerSecond: runs / wallSeconds,
    latency: stats(samples),
    spansMade: stored + dropped,
    expectedSpans: runs * spansPerRun,
    spansPerSecond: (stored + dropped) / wallSeconds,
    stored,
    dropped,
    droppedBeforeFlush,
    maxQueueDepth: maxDepth,
    queueDepthP50: percentile(depthSamples, 50),
    maxQueueSize: app.settings.tracing.maxQueueSize,
    backlogAtEnd: backlog,
    drainMs,
    wallSeconds,
  };
  console.log("");
  console.log(`Load — ${app.dialect}: ${CLIENTS} concurrent clients running the sample agent for ${LOAD_SECONDS} s, tracing on (queue ${int(result.maxQueueSize)} spans)`);
  console.log(
    `  ${int(runs)} runs (${result.runsPerSecond.toFixed(1)}/s, ${failures} failed${failures ? `: ${lastFailure.slice(0, 200)}` : ""}); latency p50 ${ms(result.latency.p50)} ms, p99 ${ms(result.latency.p99)} ms`,
  );
  console.log(
    `  spans: ${int(result.spansMade)} made (${int(result.spansPerSecond)}/s; ${int(result.expectedSpans)} expected from ${spansPerRun} per run), ${int(stored)} stored, ${int(dropped)} dropped; ` +
      `exporter queue p50 ${int(result.queueDepthP50)}, max ${int(maxDepth)}; backlog at the end ${int(backlog)} spans, drained in ${ms(drainMs)} ms`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// 2. Reads at scale: seeding
// ---------------------------------------------------------------------------------------------

const AGENT_NAMES = [
  "Assistant",
  "Researcher",
  "Support Bot",
  "SQL Analyst",
  "Writer",
  "Planner",
  "Travel Agent",
  "Billing Helper",
  "Code Reviewer",
  "Data Cleaner",
  "Scheduler",
  "Translator",
  "Summarizer",
  "Recruiter",
  "Legal Reader",
  "Sales Coach",
  "Ops Monitor",
  "Finance Bot",
  "Tutor",
  "Triage",
];
const agentIdOf = (name: string) => name.toLowerCase().replace(/\s+/g, "-");
const spanNameOf = (name: string) => `${name.replace(/[\s-]/g, "_")}.run`;
const TOOLS = ["add", "search_knowledge_base", "current_time", "multiply"];
const MESSAGES = [
  "What is the status of order 4711, and when will it ship?",
  "Summarize the quarterly revenue report for the board in five bullet points.",
  "Find me a flight and a hotel in Lisbon for the first week of March.",
  "Why did the nightly build fail, and which commit broke it?",
  "Draft a polite reply to the customer asking for a refund on invoice 2043.",
  "Which of our stores had the highest growth in the last quarter?",
  "Translate the onboarding guide's first section into Spanish.",
  "What is the weather in Oslo tomorrow, and should the field team go out?",
  "List the open support tickets older than a week, by priority.",
  "How much did we spend on cloud hosting last month compared to budget?",
  "Explain the difference between the two pricing plans to a new customer.",
  "Schedule a review meeting with the data team for next Tuesday afternoon.",
];
const ANSWERS = MESSAGES.map((m, i) => `Here is what I found about "${m.slice(0, 40)}…": the records show ${i + 2} relevant items; details follow in the table below.`);
const SYSTEM_PROMPT = "You are a helpful assistant for an operations team. Answer concisely, cite the records you used, and ask a clarifying question when the request is ambiguous.";
const ERROR_MESSAGE = "Model provider returned 429: rate limit exceeded";

interface SeedInfo {
  traces: number;
  spans: number;
  seconds: number;
  /** Two agents for the search filter, and 7 days ago in the stored format. */
  agents: [string, string];
  since: string;
  tableBytes: string;
}

/** PostgreSQL: generate_series into a temporary table of trace parameters, then INSERT … SELECT the traces and, in chunks, their spans. */
async function seedPostgres(app: App, traces: number): Promise<SeedInfo> {
  const t0 = performance.now();
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${app.pgSchema},public` });
  await client.connect();
  try {
    const fmt = (ts: string) => `(to_char((${ts}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '+00:00')`;
    const uuid = (text: string) =>
      `(substr(md5(${text}), 1, 8) || '-' || substr(md5(${text}), 9, 4) || '-4' || substr(md5(${text}), 14, 3) || '-a' || substr(md5(${text}), 18, 3) || '-' || substr(md5(${text}), 21, 12))`;
    await client.query("SELECT setseed(0.4711)");
    await client.query(
      `CREATE TEMP TABLE seed_traces AS
       SELECT i, md5('trace-' || i) AS trace_id, substr(md5('root-' || i), 1, 16) AS root_id,
              a, u, err, st, dur_ms, q,
              ($2::text[])[a + 1] AS agent_id, ($3::text[])[a + 1] AS name,
              'user-' || lpad(u::text, 2, '0') || '@bench.test' AS user_id,
              ${uuid("'run-' || i")} AS run_id,
              ${uuid("'session-' || u || '-' || a || '-' || (i % 97)")} AS session_id
         FROM (SELECT i, floor(random() * 20)::int AS a, floor(random() * 50)::int AS u, random() < 0.05 AS err,
                      $1::timestamptz - random() * interval '30 days' AS st, (800 + floor(random() * 29200))::int AS dur_ms,
                      floor(random() * ${MESSAGES.length})::int AS q
                 FROM generate_series(1, $4::int) AS i) g`,
      [new Date().toISOString(), AGENT_NAMES.map(agentIdOf), AGENT_NAMES.map(spanNameOf), traces],
    );
    await client.query(
      `INSERT INTO agno_traces (trace_id, name, status, start_time, end_time, duration_ms, run_id, session_id, user_id, agent_id, team_id, workflow_id, created_at)
       SELECT trace_id, name, CASE WHEN err THEN 'ERROR' ELSE 'OK' END, ${fmt("st")}, ${fmt("st + dur_ms * interval '1 millisecond'")}, dur_ms,
              run_id, session_id, user_id, agent_id, NULL, NULL, ${fmt("st + (dur_ms + 40) * interval '1 millisecond'")}
         FROM seed_traces ORDER BY i`,
    );
    const K = SPANS_PER_TRACE;
    const lastLlm = K - 1 - ((K - 1) % 2 === 0 ? 1 : 0); // the last odd k: the final model call
    const chunk = Math.max(1000, Math.floor(100_000 / K));
    for (let lo = 1; lo <= traces; lo += chunk) {
      process.stderr.write(`\r  … seeding spans ${int((lo - 1) * K)} / ${int(traces * K)}`);
      await client.query(
        `INSERT INTO agno_spans (span_id, trace_id, parent_span_id, name, span_kind, status_code, status_message, start_time, end_time, duration_ms, attributes, created_at)
         SELECT CASE WHEN k = 0 THEN t.root_id ELSE substr(md5(t.trace_id || '-' || k), 1, 16) END,
                t.trace_id,
                CASE WHEN k = 0 THEN NULL ELSE t.root_id END,
                CASE WHEN k = 0 THEN t.name WHEN k % 2 = 1 THEN 'OpenAIChat.invoke' ELSE ($3::text[])[(k / 2 + t.i) % 4 + 1] END,
                'INTERNAL',
                CASE WHEN t.err AND (k = 0 OR k = ${lastLlm}) THEN 'ERROR' ELSE 'OK' END,
                CASE WHEN t.err AND (k = 0 OR k = ${lastLlm}) THEN '${ERROR_MESSAGE}' END,
                ${fmt("t.st + w.s_ms * interval '1 millisecond'")}, ${fmt("t.st + w.e_ms * interval '1 millisecond'")}, w.e_ms - w.s_ms,
                CASE
                  WHEN k = 0 THEN jsonb_build_object(
                    'openinference.span.kind', 'AGENT', 'input.value', ($4::text[])[t.q + 1],
                    'output.value', CASE WHEN t.err THEN NULL ELSE ($5::text[])[t.q + 1] END,
                    'agno.run.id', t.run_id, 'session.id', t.session_id, 'user.id', t.user_id, 'agno.agent.id', t.agent_id,
                    'agent.name', t.name, 'graph.node.id', t.agent_id, 'agno.tools', to_jsonb($3::text[]),
                    'agno.run.status', CASE WHEN t.err THEN 'ERROR' ELSE 'COMPLETED' END)
                  WHEN k % 2 = 1 THEN jsonb_build_object(
                    'openinference.span.kind', 'LLM', 'llm.model_name', 'gpt-4o-mini', 'llm.provider', 'openai',
                    'llm.invocation_parameters', '{"stream": false}',
                    'input.value', jsonb_build_object('messages', jsonb_build_array(
                      jsonb_build_object('role', 'system', 'content', $6::text),
                      jsonb_build_object('role', 'user', 'content', ($4::text[])[t.q + 1])))::text,
                    'output.value', ($5::text[])[t.q + 1],
                    'llm.token_count.prompt', 300 + (t.i * 37 + k * 101) % 1700,
                    'llm.token_count.completion', 20 + (t.i * 13 + k * 7) % 480,
                    'llm.token_count.total', 320 + (t.i * 37 + k * 101) % 1700 + (t.i * 13 + k * 7) % 480)
                  ELSE jsonb_build_object(
                    'openinference.span.kind', 'TOOL', 'tool.name', ($3::text[])[(k / 2 + t.i) % 4 + 1], 'tool.description', 'A tool of the agent',
                    'tool.parameters', '{"a": ' || (t.i % 1000) || ', "b": ' || k || '}', 'input.value', '{"a": ' || (t.i % 1000) || ', "b": ' || k || '}',
                    'output.value', '{"result": ' || (t.i % 1000 + k) || '}', 'agno.tool.call_id', 'call_' || substr(md5(t.trace_id || k), 1, 12))
                END,
                ${fmt("t.st + (t.dur_ms + 40) * interval '1 millisecond'")}
           FROM seed_traces t
          CROSS JOIN generate_series(0, ${K - 1}) AS k
          CROSS JOIN LATERAL (SELECT CASE WHEN k = 0 THEN 0 ELSE t.dur_ms * (k - 1) / ${K - 1} END AS s_ms,
                                     CASE WHEN k = 0 THEN t.dur_ms ELSE t.dur_ms * k / ${K - 1} END AS e_ms) w
          WHERE t.i BETWEEN $1 AND $2`,
        [lo, Math.min(traces, lo + chunk - 1), TOOLS, MESSAGES, ANSWERS, SYSTEM_PROMPT],
      );
    }
    process.stderr.write("\n");
    await client.query("DROP TABLE seed_traces");
    process.stderr.write("  … VACUUM ANALYZE\n");
    await client.query("VACUUM ANALYZE agno_traces, agno_spans");
    const { rows } = await client.query(
      `SELECT relname, pg_relation_size(c.oid) AS heap, pg_total_relation_size(c.oid) AS total FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND relname IN ('agno_traces', 'agno_spans') ORDER BY relname DESC`,
      [app.pgSchema],
    );
    const tableBytes = rows.map((r) => `${r.relname} ${fmtBytes(Number(r.heap))} heap, ${fmtBytes(Number(r.total))} with indexes and TOAST`).join("; ");
    return seedInfo(app, traces, t0, tableBytes);
  } finally {
    await client.end();
  }
}

/** SQLite: the same rows from a recursive CTE, on the benchmark's own connection to the file, in one transaction. */
async function seedSqlite(app: App, connection: Database.Database, traces: number): Promise<SeedInfo> {
  const t0 = performance.now();
  const fmt = (us: string) => `(strftime('%Y-%m-%dT%H:%M:%S', (${us}) / 1000000, 'unixepoch') || printf('.%06d+00:00', (${us}) % 1000000))`;
  const rnd = (n: number) => `(abs(random()) % ${n})`;
  const nowUs = Date.now() * 1000;
  const K = SPANS_PER_TRACE;
  const lastLlm = K - 1 - ((K - 1) % 2 === 0 ? 1 : 0);
  const lookup = (name: string, values: string[]) => {
    connection.exec(`CREATE TEMP TABLE ${name} (n INTEGER PRIMARY KEY, v TEXT NOT NULL)`);
    const insert = connection.prepare(`INSERT INTO ${name} (n, v) VALUES (?, ?)`);
    for (const [n, v] of values.entries()) insert.run(n, v);
  };
  connection.transaction(() => {
    lookup("seed_agent_ids", AGENT_NAMES.map(agentIdOf));
    lookup("seed_agent_names", AGENT_NAMES.map(spanNameOf));
    lookup("seed_tools", TOOLS);
    lookup("seed_messages", MESSAGES);
    lookup("seed_answers", ANSWERS);
    // The random draws are stored first: SQLite would draw again at every reference (and once for all rows in a join key).
    connection.exec(
      `CREATE TEMP TABLE seed_base AS
       WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${traces})
       SELECT i, lower(hex(randomblob(16))) AS trace_id, lower(hex(randomblob(8))) AS root_id,
              ${rnd(20)} AS a, ${rnd(50)} AS u, ${rnd(100)} < 5 AS err,
              ${nowUs} - ${rnd(30 * 86_400 * 1_000_000)} AS st_us, 800 + ${rnd(29_200)} AS dur_ms, ${rnd(MESSAGES.length)} AS q,
              lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) AS run_id
         FROM seq`,
    );
    connection.exec(
      `CREATE TEMP TABLE seed_traces AS
       SELECT g.*, ai.v AS agent_id, an.v AS name, 'user-' || printf('%02d', g.u) || '@bench.test' AS user_id,
              'session-' || g.u || '-' || g.a || '-' || (g.i % 97) AS session_id
         FROM seed_base g JOIN seed_agent_ids ai ON ai.n = g.a JOIN seed_agent_names an ON an.n = g.a`,
    );
    connection.exec(
      `INSERT INTO agno_traces (trace_id, name, status, start_time, end_time, duration_ms, run_id, session_id, user_id, agent_id, team_id, workflow_id, created_at)
       SELECT trace_id, name, CASE WHEN err THEN 'ERROR' ELSE 'OK' END, ${fmt("st_us")}, ${fmt("st_us + dur_ms * 1000")}, dur_ms,
              run_id, session_id, user_id, agent_id, NULL, NULL, ${fmt("st_us + (dur_ms + 40) * 1000")}
         FROM seed_traces ORDER BY i`,
    );
    const sMs = `(CASE WHEN k = 0 THEN 0 ELSE t.dur_ms * (k - 1) / ${K - 1} END)`;
    const eMs = `(CASE WHEN k = 0 THEN t.dur_ms ELSE t.dur_ms * k / ${K - 1} END)`;
    connection
      .prepare(
        `INSERT INTO agno_spans (span_id, trace_id, parent_span_id, name, span_kind, status_code, status_message, start_time, end_time, duration_ms, attributes, created_at)
         WITH RECURSIVE ks(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM ks WHERE k < ${K - 1})
         SELECT CASE WHEN k = 0 THEN t.root_id ELSE lower(hex(randomblob(8))) END,
                t.trace_id,
                CASE WHEN k = 0 THEN NULL ELSE t.root_id END,
                CASE WHEN k = 0 THEN t.name WHEN k % 2 = 1 THEN 'OpenAIChat.invoke' ELSE tl.v END,
                'INTERNAL',
                CASE WHEN t.err AND (k = 0 OR k = ${lastLlm}) THEN 'ERROR' ELSE 'OK' END,
                CASE WHEN t.err AND (k = 0 OR k = ${lastLlm}) THEN '${ERROR_MESSAGE}' END,
                ${fmt(`t.st_us + ${sMs} * 1000`)}, ${fmt(`t.st_us + ${eMs} * 1000`)}, ${eMs} - ${sMs},
                CASE
                  WHEN k = 0 THEN json_object(
                    'openinference.span.kind', 'AGENT', 'input.value', m.v, 'output.value', CASE WHEN t.err THEN NULL ELSE an.v END,
                    'agno.run.id', t.run_id, 'session.id', t.session_id, 'user.id', t.user_id, 'agno.agent.id', t.agent_id,
                    'agent.name', t.name, 'graph.node.id', t.agent_id, 'agno.tools', json_array(${TOOLS.map((x) => `'${x}'`).join(", ")}),
                    'agno.run.status', CASE WHEN t.err THEN 'ERROR' ELSE 'COMPLETED' END)
                  WHEN k % 2 = 1 THEN json_object(
                    'openinference.span.kind', 'LLM', 'llm.model_name', 'gpt-4o-mini', 'llm.provider', 'openai',
                    'llm.invocation_parameters', '{"stream": false}',
                    'input.value', '' || json_object('messages', json_array(json_object('role', 'system', 'content', '${SYSTEM_PROMPT.replace(/'/g, "''")}'), json_object('role', 'user', 'content', m.v))),
                    'output.value', an.v,
                    'llm.token_count.prompt', 300 + (t.i * 37 + k * 101) % 1700,
                    'llm.token_count.completion', 20 + (t.i * 13 + k * 7) % 480,
                    'llm.token_count.total', 320 + (t.i * 37 + k * 101) % 1700 + (t.i * 13 + k * 7) % 480)
                  ELSE json_object(
                    'openinference.span.kind', 'TOOL', 'tool.name', tl.v, 'tool.description', 'A tool of the agent',
                    'tool.parameters', '{"a": ' || (t.i % 1000) || ', "b": ' || k || '}', 'input.value', '{"a": ' || (t.i % 1000) || ', "b": ' || k || '}',
                    'output.value', '{"result": ' || (t.i % 1000 + k) || '}', 'agno.tool.call_id', 'call_' || lower(hex(randomblob(6))))
                END,
                ${fmt("t.st_us + (t.dur_ms + 40) * 1000")}
           FROM seed_traces t
          CROSS JOIN ks
           JOIN seed_messages m ON m.n = t.q
           JOIN seed_answers an ON an.n = t.q
           JOIN seed_tools tl ON tl.n = (k / 2 + t.i) % 4`,
      )
      .run();
    for (const name of ["seed_base", "seed_traces", "seed_agent_ids", "seed_agent_names", "seed_tools", "seed_messages", "seed_answers"]) connection.exec(`DROP TABLE ${name}`);
  })();
  return seedInfo(app, traces, t0, "");
}

async function seedInfo(app: App, traces: number, t0: number, tableBytes: string): Promise<SeedInfo> {
  const seconds = (performance.now() - t0) / 1000;
  const [spans, stored] = [await countRows(app.db, "agno_spans"), await countRows(app.db, "agno_traces")];
  if (stored !== traces || spans !== traces * SPANS_PER_TRACE) throw new Error(`seed: expected ${traces} traces and ${traces * SPANS_PER_TRACE} spans, found ${stored} and ${spans}`);
  return { traces, spans, seconds, agents: [agentIdOf(AGENT_NAMES[2]), agentIdOf(AGENT_NAMES[7])], since: traceTime(Date.now() - 7 * 86_400_000), tableBytes };
}

// ---------------------------------------------------------------------------------------------
// 2. Reads at scale: the cases, their bare baselines, timing and plans
// ---------------------------------------------------------------------------------------------

type Row = Record<string, unknown>;
interface Statement {
  text: string;
  params: readonly unknown[];
}

/** The baseline's own connection(s): plain pg (named statements, two connections) or better-sqlite3. */
interface RawRunner {
  query(statement: Statement): Promise<Row[]>;
  /** PostgreSQL runs the page and its count concurrently (as the app does); SQLite one after the other. */
  concurrent: boolean;
}

function pgRunner(pool: pg.Pool): RawRunner {
  const names = new Map<string, string>();
  return {
    concurrent: true,
    async query({ text, params }) {
      const converted = toPostgresPlaceholders(text);
      let name = names.get(converted);
      if (!name) names.set(converted, (name = `bench_raw_${names.size}`));
      return (await pool.query({ name, text: converted, values: [...params] })).rows as Row[];
    },
  };
}

function sqliteRunner(connection: Database.Database): RawRunner {
  const cache = new Map<string, Database.Statement>();
  return {
    concurrent: false,
    async query({ text, params }) {
      let prepared = cache.get(text);
      if (!prepared) cache.set(text, (prepared = connection.prepare(text)));
      return prepared.all(...params) as Row[];
    },
  };
}

const TRACE_COLUMNS = ["trace_id", "name", "status", "start_time", "end_time", "duration_ms", "run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id", "created_at"];
const SPAN_COLUMNS = "span_id, trace_id, parent_span_id, name, span_kind, status_code, status_message, start_time, end_time, duration_ms, attributes, created_at";
const attrText = (dialect: Dialect, key: string) => (dialect === "postgres" ? `(s.attributes ->> '${key}')` : `json_extract(s.attributes, '$."${key}"')`);
const attrNumber = (dialect: Dialect, key: string) => (dialect === "postgres" ? `((s.attributes ->> '${key}')::numeric)` : `json_extract(s.attributes, '$."${key}"')`);

/**
 * The bare baseline of a list page: the page of traces (LIMIT/OFFSET on start_time), joined with
 * their spans for the counts and the root's input (and the LLM tokens for the dashboard), and the
 * total — the same data as the app's statements, written by hand.
 */
function baselineStatements(dialect: Dialect, filter: { where: string; params: unknown[] }, page: number, limit: number, tokens: boolean): Statement[] {
  const cols = TRACE_COLUMNS.map((c) => `t.${c}`).join(", ");
  const llm = `${attrText(dialect, "openinference.span.kind")} = 'LLM'`;
  const tokenColumns = tokens
    ? `, SUM(CASE WHEN ${llm} THEN ${attrNumber(dialect, "llm.token_count.prompt")} ELSE 0 END) AS input_tokens,
         SUM(CASE WHEN ${llm} THEN ${attrNumber(dialect, "llm.token_count.completion")} ELSE 0 END) AS output_tokens`
    : "";
  const where = filter.where ? `WHERE ${filter.where}` : "";
  return [
    {
      text: `SELECT ${cols}, COUNT(s.span_id) AS total_spans, SUM(CASE WHEN s.status_code = 'ERROR' THEN 1 ELSE 0 END) AS error_count,
       MAX(CASE WHEN s.parent_span_id IS NULL THEN ${attrText(dialect, "input.value")} END) AS input${tokenColumns}
  FROM (SELECT * FROM agno_traces ${where} ORDER BY start_time DESC, trace_id DESC LIMIT ? OFFSET ?) t
  LEFT JOIN agno_spans s ON s.trace_id = t.trace_id
 GROUP BY ${cols}
 ORDER BY t.start_time DESC, t.trace_id DESC`,
      params: [...filter.params, limit, (page - 1) * limit],
    },
    { text: `SELECT COUNT(*) AS n FROM agno_traces ${where}`, params: filter.params },
  ];
}

interface ReadCase {
  label: string;
  /** What the app side is: an HTTP request or a function call. */
  app: string;
  baselineLabel: string;
  /** The app side: resolves to its trace ids and total (the body is read inside the timing). */
  callApp(): Promise<() => { ids: string[]; total: number }>;
  callBaseline(): Promise<{ ids: string[]; total: number }>;
  /** The app's statements for this case, as its list function runs them (recorded), for the plans. */
  statements: Statement[];
  /** Held to the p99 target (the issue's cases); otherwise reported only. */
  judged: boolean;
  samples: { app: number[]; baseline: number[] };
}

async function buildReadCases(app: App, raw: RawRunner, seed: SeedInfo): Promise<ReadCase[]> {
  const http = (method: "GET" | "POST", path: string, body?: unknown) => async () => {
    const response = await fetch(`${app.origin}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
    return () => {
      const parsed = JSON.parse(text) as { data: { trace_id: string }[]; meta: { total_count: number } };
      return { ids: parsed.data.map((d) => d.trace_id), total: parsed.meta.total_count };
    };
  };
  const rawList = (statements: Statement[], withSpans: boolean) => async () => {
    const [rows, count] = raw.concurrent ? await Promise.all(statements.map((s) => raw.query(s))) : [await raw.query(statements[0]), await raw.query(statements[1])];
    const ids = rows.map((r) => String(r.trace_id));
    if (withSpans && ids.length > 0) {
      // The search answers each trace with its span tree: the spans of the page's traces, in one statement.
      await raw.query({ text: `SELECT ${SPAN_COLUMNS} FROM agno_spans WHERE trace_id IN (${ids.map(() => "?").join(", ")}) ORDER BY trace_id, start_time, span_id`, params: ids });
    }
    return { ids, total: Number(count[0].n) };
  };
  const recorder = recording(app.db);
  const recorded = async (fn: (db: Db) => Promise<{ rows: { trace_id: string }[] }>, spans: boolean): Promise<Statement[]> => {
    recorder.take();
    const page = await fn(recorder.db);
    // A search reads its page's spans in one statement.
    if (spans && page.rows.length > 0) await getSpansOfTraces(recorder.db, { traceIds: page.rows.map((r) => r.trace_id) });
    return recorder.take();
  };
  const searchAnd = {
    op: "AND",
    conditions: [
      { op: "EQ", key: "status", value: "ERROR" },
      { op: "IN", key: "agent_id", values: seed.agents },
      { op: "GTE", key: "start_time", value: seed.since },
    ],
  };
  const searchName = { op: "CONTAINS", key: "name", value: "run" };
  // Not one of the issue's cases: a name no trace has, so the page query too reads every row before it knows.
  const searchNoName = { op: "CONTAINS", key: "name", value: "zzz" };
  const make = (label: string, appLabel: string, baselineLabel: string, callApp: ReadCase["callApp"], callBaseline: ReadCase["callBaseline"], statements: Statement[], judged = true): ReadCase => ({
    label,
    app: appLabel,
    baselineLabel,
    callApp,
    callBaseline,
    statements,
    judged,
    samples: { app: [], baseline: [] },
  });
  const none = { where: "", params: [] as unknown[] };
  const andFilter = { where: "status = ? AND agent_id IN (?, ?) AND start_time >= ?", params: ["ERROR", ...seed.agents, seed.since] };
  const nameFilter = { where: "LOWER(name) LIKE ? ESCAPE '\\'", params: ["%run%"] };
  const noNameFilter = { where: "LOWER(name) LIKE ? ESCAPE '\\'", params: ["%zzz%"] };
  const d = app.dialect;
  const searchCase = async (label: string, baselineLabel: string, filter: unknown, baseline: { where: string; params: unknown[] }, judged = true) =>
    make(
      label,
      "POST /traces/search",
      baselineLabel,
      http("POST", "/traces/search", { filter, page: 1, limit: LIST_LIMIT }),
      rawList(baselineStatements(d, baseline, 1, LIST_LIMIT, false), true),
      await recorded((db) => searchTraces(db, { scope: ADMIN, filter: parseTraceFilter(filter), page: 1, limit: LIST_LIMIT }), true),
      judged,
    );
  // Page 500 (or the last page of a smaller seed).
  const deep = Math.min(DEEP_PAGE, Math.ceil(seed.traces / LIST_LIMIT));
  return [
    make(
      `GET /traces page 1 (limit ${LIST_LIMIT})`,
      `GET /traces?page=1&limit=${LIST_LIMIT}`,
      "page + spans join, count",
      http("GET", `/traces?page=1&limit=${LIST_LIMIT}`),
      rawList(baselineStatements(d, none, 1, LIST_LIMIT, false), false),
      await recorded((db) => listTraces(db, { scope: ADMIN, page: 1, limit: LIST_LIMIT }), false),
    ),
    make(
      `GET /traces page ${deep} (limit ${LIST_LIMIT})`,
      `GET /traces?page=${deep}&limit=${LIST_LIMIT}`,
      `OFFSET ${int((deep - 1) * LIST_LIMIT)}`,
      http("GET", `/traces?page=${deep}&limit=${LIST_LIMIT}`),
      rawList(baselineStatements(d, none, deep, LIST_LIMIT, false), false),
      await recorded((db) => listTraces(db, { scope: ADMIN, page: deep, limit: LIST_LIMIT }), false),
    ),
    make(
      `dashboard list page 1 (limit ${DASHBOARD_PAGE_SIZE})`,
      "listTraceRowsForDashboard()",
      "+ LLM token sums",
      async () => {
        const page = await listTraceRowsForDashboard(app.db, { scope: ADMIN, page: 1, limit: DASHBOARD_PAGE_SIZE });
        return () => ({ ids: page.rows.map((r) => r.trace_id), total: page.totalCount });
      },
      rawList(baselineStatements(d, none, 1, DASHBOARD_PAGE_SIZE, true), false),
      await recorded((db) => listTraceRowsForDashboard(db, { scope: ADMIN, page: 1, limit: DASHBOARD_PAGE_SIZE }), false),
    ),
    await searchCase("search AND(status=ERROR, agent IN 2, start >= 7 days ago)", "+ the page's spans", searchAnd, andFilter),
    await searchCase('search name CONTAINS "run"', "+ the page's spans", searchName, nameFilter),
    await searchCase('search name CONTAINS "zzz" (no match; reported)', "same, no spans", searchNoName, noNameFilter, false),
  ];
}

/**
 * What a plan is estimated to cost and what JIT compilation added to it (PostgreSQL compiles a plan
 * whose estimate passes jit_above_cost, 100,000 by default): the custom plan, and the generic plan
 * a named statement (the app's executor names every statement) may switch to after five runs.
 */
async function pgPlanCosts(pool: pg.Pool, s: Statement, name: string): Promise<{ kind: string; cost: number; jitMs: number | null; executionMs: number }[]> {
  const client = await pool.connect();
  const read = (rows: Row[]) => {
    const raw = rows[0]["QUERY PLAN"];
    const doc = ((typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: { "Total Cost": number }; "Execution Time": number; JIT?: { Timing?: { Total?: number } } }[])[0];
    return { cost: doc.Plan["Total Cost"], jitMs: doc.JIT?.Timing?.Total ?? null, executionMs: doc["Execution Time"] };
  };
  try {
    const text = toPostgresPlaceholders(s.text);
    const custom = read((await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, [...s.params])).rows);
    await client.query(`PREPARE ${name} AS ${text}`);
    await client.query("SET plan_cache_mode = force_generic_plan");
    const literals = s.params.map((p) => (typeof p === "number" ? String(p) : client.escapeLiteral(String(p))));
    const generic = read((await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}${literals.length > 0 ? `(${literals.join(", ")})` : ""}`)).rows);
    await client.query(`DEALLOCATE ${name}`);
    await client.query("RESET plan_cache_mode");
    return [
      { kind: "custom", ...custom },
      { kind: "generic", ...generic },
    ];
  } finally {
    client.release();
  }
}

/** A plan's scans in one line; `!!` marks a Seq Scan of a trace table, or an index scan reading most of one. */
function planLine(plan: Plan, tableRows: Record<string, number>): { line: string; bad: boolean } {
  let bad = false;
  const parts = plan.scans.map((s) => {
    const big = (s.rowsRead ?? 0) > 5000 && (s.rowsRead ?? 0) >= 0.5 * (tableRows[s.relation] ?? Infinity);
    const flagged = (s.relation === "agno_traces" || s.relation === "agno_spans") && (s.node.startsWith("Seq Scan") || big);
    bad ||= flagged;
    return `${flagged ? "!! " : ""}${s.node}${s.index ? ` ${s.index}` : ""} on ${s.relation}${s.rowsRead === null ? "" : ` (${int(s.rowsRead)} rows read)`}`;
  });
  return { line: `${plan.executionMs === null ? "" : `${ms(plan.executionMs)} ms: `}${parts.join("; ")}`, bad };
}

async function readsPhase(dialect: Dialect, traces: number) {
  const app = await openApp(dialect, "reads", []);
  console.log("");
  console.log(`Reads at scale — ${dialect}: ${int(traces)} traces, ${int(traces * SPANS_PER_TRACE)} spans (${app.where})`);
  process.stderr.write(`  … seeding ${int(traces)} traces and ${int(traces * SPANS_PER_TRACE)} spans (${dialect})\n`);
  let pool: pg.Pool | null = null;
  let connection: Database.Database | null = null;
  try {
    let seed: SeedInfo;
    let raw: RawRunner;
    if (dialect === "postgres") {
      seed = await seedPostgres(app, traces);
      pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${app.pgSchema},public`, max: 2 });
      pool.on("error", () => undefined);
      raw = pgRunner(pool);
    } else {
      connection = new Database(app.sqliteFile!, { timeout: 5000 });
      seed = await seedSqlite(app, connection, traces);
      raw = sqliteRunner(connection);
      const pages = connection.pragma("page_count", { simple: true }) as number;
      const size = connection.pragma("page_size", { simple: true }) as number;
      seed.tableBytes = `file ${fmtBytes(pages * size)} (no ANALYZE: Agentry never runs it on SQLite)`;
    }
    console.log(
      `  seeded in ${seed.seconds.toFixed(1)} s${dialect === "postgres" ? " (then VACUUM ANALYZE)" : ""}: ${SPANS_PER_TRACE} spans per trace (an AGENT root with input.value, LLM spans with token counts, tools),`,
    );
    console.log(`  ~5% ERROR, 50 users, 20 agents, start times over 30 days; ${seed.tableBytes}`);
    const cases = await buildReadCases(app, raw, seed);

    // Both sides return the same traces, before anything is timed.
    for (const c of cases) {
      const got = (await c.callApp())();
      const want = await c.callBaseline();
      if (got.total !== want.total || got.ids.length !== want.ids.length || got.ids[0] !== want.ids[0] || got.ids.at(-1) !== want.ids.at(-1)) {
        throw new Error(`${c.label}: the app returned ${got.ids.length} of ${got.total} (${got.ids[0]}…), the baseline ${want.ids.length} of ${want.total} (${want.ids[0]}…)`);
      }
      if (got.ids.length === 0 && c.judged) throw new Error(`${c.label}: no rows: the seed does not exercise this case`);
    }

    process.stderr.write(`  … ${cases.length} cases x (${READ_WARMUP} warm-up + ${ITERATIONS} measured) x (app, baseline)\n`);
    const l0 = loadavg();
    for (let round = 0; round < READ_WARMUP + ITERATIONS; round++) {
      const order = round % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) {
        const timeApp = async () => {
          const t0 = performance.now();
          await c.callApp();
          return performance.now() - t0;
        };
        const timeBaseline = async () => {
          const t0 = performance.now();
          await c.callBaseline();
          return performance.now() - t0;
        };
        let a: number;
        let b: number;
        if (round % 2 === 0) {
          a = await timeApp();
          b = await timeBaseline();
        } else {
          b = await timeBaseline();
          a = await timeApp();
        }
        if (round >= READ_WARMUP) {
          c.samples.app.push(a);
          c.samples.baseline.push(b);
        }
      }
    }
    const l1 = loadavg();

    const tableRows = { agno_traces: traces, agno_spans: traces * SPANS_PER_TRACE };
    const results = cases.map((c) => {
      const appStats = stats(c.samples.app);
      const baseStats = stats(c.samples.baseline);
      return { c, appStats, baseStats, pass: appStats.p99 <= TARGET_READ_P99_MS, judged: c.judged };
    });
    console.log(`  medians and tails over ${ITERATIONS} requests per side (after ${READ_WARMUP} warm-up), app and baseline alternating; ms`);
    console.log(
      table(
        ["case", "app", "app p50", "app p99", "baseline", "base p50", "base p99", "p50 ratio", "p99 ratio", `p99 <= ${TARGET_READ_P99_MS} ms`],
        results.map(({ c, appStats, baseStats, pass, judged }) => [
          c.label,
          c.app,
          ms(appStats.p50),
          ms(appStats.p99),
          c.baselineLabel,
          ms(baseStats.p50),
          ms(baseStats.p99),
          ratio(appStats.p50 / baseStats.p50),
          ratio(appStats.p99 / baseStats.p99),
          judged ? verdict(pass) : `(${verdict(pass).toLowerCase()})`,
        ]),
      ),
    );
    console.log(
      `  baseline: hand-written SQL on the benchmark's own ${dialect === "postgres" ? "pg pool (2 connections, named statements; page and count concurrently)" : "better-sqlite3 connection"}`,
    );
    console.log(`  load average ${load(l0)} -> ${load(l1)}`);
    for (const { c, appStats, baseStats, pass, judged } of results) {
      checks.push({
        line: `reads ${dialect} ${c.label}: p99 ${ms(appStats.p99)} ms (target <= ${TARGET_READ_P99_MS} ms), p50 ${ms(appStats.p50)} ms; / baseline p50 ${ratio(appStats.p50 / baseStats.p50)}, p99 ${ratio(appStats.p99 / baseStats.p99)}`,
        pass: judged ? pass : null,
      });
    }

    // ---- plans ----------------------------------------------------------------------------------
    console.log("");
    const plans: Record<string, unknown>[] = [];
    if (dialect === "postgres") {
      console.log("  Query plans of the app's statements — EXPLAIN (ANALYZE) with the parameters (custom), and the generic plan a named statement may switch to");
      let n = 0;
      for (const { c, pass, judged } of results) {
        console.log(`  ${c.label}:`);
        for (const s of c.statements) {
          const planned = await postgresPlans(pool!, { text: s.text, params: [...s.params] }, `bench_plan_${n++}`, tableRows);
          const lines = planned.map((p) => ({ kind: p.kind, ...planLine(p, tableRows) }));
          for (const l of lines) console.log(`    ${l.bad ? "!!" : "  "} ${l.kind.padEnd(7)} ${l.line}`);
          const costs = await pgPlanCosts(pool!, s, `bench_cost_${n++}`);
          console.log(`       estimated cost: ${costs.map((c) => `${c.kind} ${int(c.cost)}${c.jitMs === null ? "" : ` (JIT ${ms(c.jitMs)} ms of ${ms(c.executionMs)} ms)`}`).join(", ")}`);
          let text: string | null = null;
          if ((judged && !pass) || lines.some((l) => l.bad)) {
            const { rows } = await pool!.query(`EXPLAIN (ANALYZE, BUFFERS) ${toPostgresPlaceholders(s.text)}`, [...s.params]);
            text = rows.map((r) => String(r["QUERY PLAN"])).join("\n");
            console.log(`       SQL: ${s.text.replace(/\s+/g, " ").slice(0, 400)}  params ${JSON.stringify(s.params).slice(0, 200)}`);
            console.log(text.replace(/^/gm, "         "));
          }
          plans.push({ case: c.label, text: s.text, params: s.params, plans: planned, costs, explain: text });
        }
      }
    } else {
      console.log("  Query plans of the app's statements — EXPLAIN QUERY PLAN");
      for (const { c } of results) {
        console.log(`  ${c.label}:`);
        for (const s of c.statements) {
          const rows = connection!.prepare(`EXPLAIN QUERY PLAN ${s.text}`).all(...s.params) as { detail: string }[];
          console.log(`       ${rows.map((r) => r.detail).join("; ")}`);
          plans.push({ case: c.label, text: s.text, params: s.params, plan: rows.map((r) => r.detail) });
        }
      }
    }
    return {
      dialect,
      seed,
      loadAverage: { start: l0, end: l1 },
      cases: results.map(({ c, appStats, baseStats, pass, judged }) => ({
        label: c.label,
        app: c.app,
        baseline: c.baselineLabel,
        appStats,
        baselineStats: baseStats,
        ratioP50: appStats.p50 / baseStats.p50,
        ratioP99: appStats.p99 / baseStats.p99,
        pass: judged ? pass : null,
        samples: c.samples,
      })),
      plans,
    };
  } finally {
    await pool?.end();
    connection?.close();
    await app.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date();
  const model = await startModelServer({ respond });
  cleanups.push(() => model.close());
  removeOnCleanup(tempDir, KEEP);
  cleanUpOnSignals(() => {
    readEnv().AGENTRY_LOG_LEVEL = "silent";
  });

  const load0 = loadavg();
  // Which code is measured: the commit, and the tracing files changed in the working tree since.
  const commit = git("rev-parse", "--short", "HEAD") || "unknown";
  const changed = git("status", "--porcelain", "--", "lib/db/traces", "lib/tracing", "lib/runtime/run-trace.ts", "lib/migrations/tables/specs.ts", "lib/http/routes/traces.ts")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.slice(3));
  console.log("Traces benchmark (issue 30)");
  console.log(`  code     : commit ${commit}${changed.length > 0 ? ` + working-tree changes in ${changed.join(", ")}` : ""}`);
  console.log(machineLine(load0));
  console.log(
    `  databases: SQLite in ${tempDir}; PostgreSQL ${PG_URL.replace(/:[^:@/]*@/, ":***@")} in throw-away schemas bench_traces_*_${stamp} (dropped at the end${KEEP ? " unless --keep" : ""})`,
  );
  console.log(`  server   : the route table and dispatcher on node:http (lib/http/node-server.ts serveApi), in this process with the scripted model and the clients`);
  console.log(`  phases   : ${PHASES.join(", ")} on ${DIALECTS.join(", ")}`);

  const overhead: Record<string, unknown>[] = [];
  const exports: Record<string, unknown>[] = [];
  const loads: Record<string, unknown>[] = [];
  const reads: Record<string, unknown>[] = [];
  try {
    for (const dialect of DIALECTS) {
      if (!PHASES.some((p) => p !== "reads")) break;
      const app = await openApp(dialect, "runs", [sampleAgent(model)]);
      try {
        const spansPerRun = await spansOfOneRun(app);
        if (PHASES.includes("overhead")) overhead.push(await overheadPhase(app, model, spansPerRun));
        if (PHASES.includes("export")) exports.push(await exportPhase(app));
        if (PHASES.includes("load")) {
          const load = await loadPhase(app, model, spansPerRun);
          loads.push(load);
          const none = load.dropped === 0 && load.failures === 0;
          checks.push({
            line: `load ${dialect}: ${CLIENTS} clients x ${LOAD_SECONDS} s, ${int(load.runs)} runs, ${int(load.spansMade)} spans, ${int(load.dropped)} dropped${dialect === "postgres" ? " (target: none)" : " (reported)"}`,
            pass: dialect === "postgres" ? none : null,
          });
        }
        setTracingEnabled(true);
        await flushTracing();
      } finally {
        await app.close();
      }
    }
    if (PHASES.includes("reads")) {
      for (const dialect of DIALECTS) reads.push(await readsPhase(dialect, dialect === "postgres" ? PG_TRACES : SQLITE_TRACES));
    }
    const load1 = loadavg();

    // ---- summary ------------------------------------------------------------------------------
    console.log("");
    console.log("Summary");
    for (const e of exports as { dialect: string; spansPerSecond: number; writeOnlySpansPerSecond: number }[]) {
      console.log(`  INFO export ${e.dialect}: ${int(e.spansPerSecond)} spans/s through DatabaseSpanExporter.export (writeTraceBatch alone ${int(e.writeOnlySpansPerSecond)} spans/s)`);
    }
    for (const c of checks) console.log(`  ${c.pass === null ? "INFO" : verdict(c.pass)} ${c.line}`);
    const judged = checks.filter((c) => c.pass !== null);
    const failed = judged.filter((c) => !c.pass);
    console.log(`  load average ${load(load0)} -> ${load(load1)}; total ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
    console.log(`  overall: ${verdict(failed.length === 0)} (${judged.length - failed.length} of ${judged.length} targets met)`);

    writeResults("traces", {
      benchmark: "traces",
      startedAt: startedAt.toISOString(),
      code: { commit, changed },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, loadAverageStart: load0, loadAverageEnd: load1 },
      options: {
        dialects: DIALECTS,
        phases: PHASES,
        rounds: ROUNDS,
        block: BLOCK,
        warmup: WARMUP,
        iterations: ITERATIONS,
        readWarmup: READ_WARMUP,
        pgTraces: PG_TRACES,
        sqliteTraces: SQLITE_TRACES,
        spansPerTrace: SPANS_PER_TRACE,
        clients: CLIENTS,
        loadSeconds: LOAD_SECONDS,
        exportSpans: EXPORT_SPANS,
      },
      targets: { overheadP50RatioMax: TARGET_OVERHEAD_P50, readP99MsMax: TARGET_READ_P99_MS, droppedOnPostgres: 0 },
      overhead,
      export: exports,
      load: loads,
      reads,
      checks,
      pass: failed.length === 0,
    });
  } finally {
    await cleanupAll();
  }
}

runMain(main);
