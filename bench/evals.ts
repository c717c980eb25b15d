/**
 * What a performance eval adds to what it measures: a performance eval of 50 iterations, through
 * `POST /eval-runs` (the route table, the real runtime and a real database), of an agent whose
 * model answers after exactly 100 ms — a model server written here that holds each request 100 ms
 * from its arrival and times itself. The eval's reported mean run time minus the server's own mean
 * time per call is the eval's overhead per run (the agent run's session and run rows, the
 * runtime, the AI SDK's request and the HTTP round trip), as a share of 100 ms (target ≤ 5%).
 * Beside it, a bare AI SDK call to the same server (no agent, no database) shows the floor of the
 * HTTP round trip alone. Memory per run is Node's heap growth across the run (process.memoryUsage()).
 *
 *   npm run bench:evals                    # SQLite (temporary file), then PostgreSQL when reachable
 *   npm run bench:evals -- --sqlite        # SQLite only
 *   npm run bench:evals -- --postgres      # PostgreSQL only (postgresql://postgres@127.0.0.1:5432/test, or --url=)
 *          --iterations=50 --warmup=2 --delay-ms=100 --rounds=3
 *
 * See bench/README.md ("evals").
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";
import pg from "pg";
import type { AgentDefinition } from "../lib/config/define.ts";
import { parseEnv, readEnv } from "../lib/config/env.ts";
import { resolveSettings } from "../lib/config/settings.ts";
import { dispatch } from "../lib/http/dispatch.ts";
import { cachedRoutesFor } from "../lib/http/node-server.ts";
import { appState, getDatabase } from "../lib/server/app-context.ts";
import { table } from "./report.ts";

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(iterations|warmup|delay-ms|rounds|url)=.+$|^--(sqlite|postgres)$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error("usage: tsx bench/evals.ts [--sqlite|--postgres] [--iterations=50] [--warmup=2] [--delay-ms=100] [--rounds=3] [--url=postgresql://…]");
  process.exit(2);
}
const ITERATIONS = Number(option("iterations") ?? 50);
const WARMUP = Number(option("warmup") ?? 2);
const DELAY_MS = Number(option("delay-ms") ?? 100);
const ROUNDS = Number(option("rounds") ?? 3);
const PG_URL = option("url") ?? process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const TARGET_SHARE = 0.05;

// Quiet the "[migrate] …" lines unless a level is set (the cached environment is what lib/log reads).
if (!process.env.AGENTRY_LOG_LEVEL) readEnv().AGENTRY_LOG_LEVEL = "warn";

/**
 * An OpenAI-compatible chat-completions server that answers every request after exactly
 * `delayMs` from its arrival, and records its own time per call (arrival to the response's end).
 */
async function startTimedModel(delayMs: number) {
  const times: number[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { model?: string };
      const payload = JSON.stringify({
        id: `chatcmpl-${randomUUID()}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? "timed",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
      });
      setTimeout(
        () => {
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
          res.end(payload, () => times.push(performance.now() - arrived));
        },
        Math.max(0, delayMs - (performance.now() - arrived)),
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, times, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface Round {
  evalMeanMs: number;
  serverMeanMs: number;
  overheadMs: number;
  heapMiB: number;
  p95Ms: number;
  tokens: number;
}

async function runDialect(dialect: "sqlite" | "postgres", model: Awaited<ReturnType<typeof startTimedModel>>): Promise<Round[]> {
  const stamp = `${Date.now().toString(36)}_${process.pid}`;
  const sqliteFile = join(tmpdir(), `agentry-bench-evals-${stamp}.db`);
  const schema = `bench_evals_${stamp}`;
  const agents: AgentDefinition[] = [{ id: "bench", name: "Bench", model: { provider: "openai-compatible", id: "timed", baseUrl: model.url, apiKey: "x" }, instructions: "Answer briefly." }];
  // Responses are checked against their schemas only outside production: measured as production runs.
  const env = dialect === "sqlite" ? { AGENTRY_CHECK_RESPONSES: "false", DATABASE_URL: `file:${sqliteFile}` } : { AGENTRY_CHECK_RESPONSES: "false", DATABASE_URL: PG_URL, AGENTRY_DB_SCHEMA: schema };
  const settings = resolveSettings({ env: parseEnv(env), file: { database: { id: `bench-evals-${stamp}` }, agents, scheduler: false, metrics: { dailyRefresh: false } } });
  const db = await getDatabase(settings);
  const rounds: Round[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      model.times.length = 0;
      const body = JSON.stringify({ agent_id: "bench", eval_type: "performance", input: "Say ok.", num_iterations: ITERATIONS, warmup_runs: WARMUP, name: `bench-${round}` });
      const request = new Request("http://127.0.0.1/eval-runs", { method: "POST", headers: { "content-type": "application/json" }, body });
      const response = await dispatch(request, "/eval-runs", { settings, routes: cachedRoutesFor("/eval-runs") });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`POST /eval-runs answered ${response.status}: ${text}`);
      const data = (JSON.parse(text) as { eval_data: Record<string, number> }).eval_data;
      // The server's calls of the measured runs: the warm-up runs came first.
      const measured = model.times.slice(WARMUP);
      if (measured.length !== ITERATIONS) throw new Error(`expected ${ITERATIONS} measured model calls, the server saw ${measured.length}`);
      const evalMeanMs = data.avg_run_time! * 1000;
      const serverMeanMs = mean(measured);
      rounds.push({ evalMeanMs, serverMeanMs, overheadMs: evalMeanMs - serverMeanMs, heapMiB: data.avg_memory_usage!, p95Ms: data.p95_run_time! * 1000, tokens: data.avg_tokens_per_run! });
      process.stderr.write(`  ${dialect} round ${round}: eval mean ${evalMeanMs.toFixed(2)} ms, server ${serverMeanMs.toFixed(2)} ms\n`);
    }
  } finally {
    appState().databases.delete(settings.database.id);
    await db.close();
    if (dialect === "sqlite") for (const suffix of ["", "-wal", "-shm"]) rmSync(`${sqliteFile}${suffix}`, { force: true });
    else {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
  return rounds;
}

/** The floor: the same request through the AI SDK alone, no agent and no database. */
async function bareCalls(model: Awaited<ReturnType<typeof startTimedModel>>): Promise<{ callMs: number; serverMs: number }> {
  const sdk = createOpenAI({ baseURL: model.url, apiKey: "x" }).chat("timed");
  for (let i = 0; i < WARMUP; i++) await generateText({ model: sdk, prompt: "Say ok.", maxRetries: 0 });
  model.times.length = 0;
  const calls: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    await generateText({ model: sdk, system: "Answer briefly.", prompt: "Say ok.", maxRetries: 0 });
    calls.push(performance.now() - t0);
  }
  return { callMs: mean(calls), serverMs: mean(model.times) };
}

const dialects: ("sqlite" | "postgres")[] = args.includes("--sqlite") ? ["sqlite"] : args.includes("--postgres") ? ["postgres"] : ["sqlite", "postgres"];
const model = await startTimedModel(DELAY_MS);
try {
  console.log(`bench:evals — a performance eval of ${ITERATIONS} iterations (${WARMUP} warm-up runs) through POST /eval-runs; the model answers after ${DELAY_MS} ms; ${ROUNDS} rounds, medians shown`);
  const bare = await bareCalls(model);
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const dialect of dialects) {
    if (dialect === "postgres" && !(await postgresReachable())) {
      console.log(`PostgreSQL at ${PG_URL} is not reachable: skipped`);
      continue;
    }
    const rounds = await runDialect(dialect, model);
    const overhead = median(rounds.map((r) => r.overheadMs));
    const share = overhead / DELAY_MS;
    rows.push([
      dialect,
      median(rounds.map((r) => r.evalMeanMs)).toFixed(2),
      median(rounds.map((r) => r.serverMeanMs)).toFixed(2),
      overhead.toFixed(2),
      `${(share * 100).toFixed(2)}%`,
      median(rounds.map((r) => r.p95Ms)).toFixed(2),
      median(rounds.map((r) => r.heapMiB)).toFixed(3),
      median(rounds.map((r) => r.tokens)).toFixed(0),
    ]);
    summary.push(
      `eval overhead on ${dialect}: ${(share * 100).toFixed(2)}% of ${DELAY_MS} ms (${overhead.toFixed(2)} ms per run; target <= ${TARGET_SHARE * 100}%) ${share <= TARGET_SHARE ? "PASS" : "FAIL"}`,
    );
  }
  rows.push([
    "bare AI SDK call (no agent, no database)",
    bare.callMs.toFixed(2),
    bare.serverMs.toFixed(2),
    (bare.callMs - bare.serverMs).toFixed(2),
    `${(((bare.callMs - bare.serverMs) / DELAY_MS) * 100).toFixed(2)}%`,
    "—",
    "—",
    "—",
  ]);
  console.log(table(["", "eval mean run (ms)", "server time/call (ms)", "overhead (ms)", "share of delay", "eval p95 (ms)", "heap growth/run (MiB)", "tokens/run"], rows));
  console.log("heap growth/run: Node's heap growth across each measured run (process.memoryUsage().heapUsed after − before), as the eval reports it");
  for (const line of summary) console.log(line);
} finally {
  await model.close();
}
