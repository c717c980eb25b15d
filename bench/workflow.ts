/**
 * Workflow and team benchmark.
 *
 * 1. A 10-step workflow of function steps (no model) run through the runtime exactly as the API
 *    runs it (`startAgentRun` on the workflow: session read, run row RUNNING, the step engine with
 *    its events, the COMPLETED row, the session's state), against a baseline that calls the same
 *    10 functions directly and writes one `agno_runs` row (INSERT RUNNING, UPDATE COMPLETED with a
 *    `run_data` of the same size). Per-run time, ratio workflow / baseline (target ≤ 2×).
 * 2. A coordinating team of 3 members against the scripted model answering at once (no delay): the
 *    leader delegates to each member in turn, then answers. Per-run time and model calls per run.
 *
 * Both run on the same database, interleaved, after a warm-up.
 *
 *   npm run bench:workflow                         # SQLite in a temporary file
 *   npm run bench:workflow -- --postgres           # PostgreSQL (throw-away schema)
 *   npm run bench:workflow -- --runs=500 --team-runs=100
 * See bench/README.md.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { AgentDefinition } from "../lib/config/define.ts";
import { defineWorkflow, step, type StepInput } from "../lib/config/workflow.ts";
import { openDatabase, unsafeSystemScope, upsertRun, upsertSession, type Db } from "../lib/db/index.ts";
import { MigrationManager } from "../lib/migrations/migration-manager.ts";
import { startAgentRun } from "../lib/runtime/agent-run.ts";
import { toRuntimeTeam } from "../lib/runtime/team/team-runtime.ts";
import { toRuntimeWorkflow } from "../lib/runtime/workflow/workflow-runtime.ts";
import { messageText, startModelServer, type ChatCompletionRequest } from "../e2e/fixtures/model-server.ts";
import { table } from "./report.ts";

const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test";
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(postgres|sqlite|help|runs=\d+|team-runs=\d+|url=.*)$/.test(a));
if (flag("help") || unknown.length > 0) {
  if (unknown.length > 0) console.error(`Unknown argument(s): ${unknown.join(" ")}`);
  console.error("usage: tsx bench/workflow.ts [--sqlite | --postgres | --url=postgresql://…] [--runs=1000] [--team-runs=200]");
  process.exit(unknown.length > 0 ? 2 : 0);
}
const RUNS = Number(option("runs") ?? 1000);
const TEAM_RUNS = Number(option("team-runs") ?? 200);
const PG_URL = option("url") ?? (flag("postgres") ? (process.env.BENCH_DATABASE_URL ?? DEFAULT_PG_URL) : null);

// The same ten small functions for both sides: a little string work each, as a real step does.
const FUNCTIONS = Array.from({ length: 10 }, (_, i) => {
  const fn = (input: StepInput) => `${String(input.previous_step_content ?? input.input)}|s${i}:${(i * 7919) % 97}`;
  Object.defineProperty(fn, "name", { value: `s${i}` });
  return fn;
});

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

async function open(): Promise<{ db: Db; cleanup: () => Promise<void>; label: string }> {
  if (PG_URL) {
    const schema = `bench_workflow_${process.pid}_${Date.now().toString(36)}`;
    const db = await openDatabase({ url: PG_URL, schema });
    await new MigrationManager(db).up();
    return {
      db,
      label: `PostgreSQL (schema ${schema})`,
      cleanup: async () => {
        await db.close();
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const file = join(tmpdir(), `bench-workflow-${process.pid}.db`);
  const db = await openDatabase({ url: `file:${file}` });
  await new MigrationManager(db).up();
  return {
    db,
    label: "SQLite (temporary file)",
    cleanup: async () => {
      await db.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

const { db, cleanup, label } = await open();
process.on("SIGINT", () => void cleanup().finally(() => process.exit(130)));
console.log(
  `bench:workflow — ${label}; ${RUNS} runs of a 10-step function workflow against a baseline, ${TEAM_RUNS} runs of a 3-member team; load average ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs`,
);

const scope = unsafeSystemScope("the benchmark writes its own rows");
const sessionId = randomUUID();
await upsertSession(db, { scope, session: { sessionId, sessionType: "workflow", workflowId: "ten", userId: null, sessionData: {} } });
const baselineSession = randomUUID();
await upsertSession(db, { scope, session: { sessionId: baselineSession, sessionType: "workflow", workflowId: "baseline", userId: null, sessionData: {} } });

const workflow = toRuntimeWorkflow(defineWorkflow({ id: "ten", name: "Ten", steps: FUNCTIONS.map((fn) => step({ name: fn.name, executor: fn })) }), {});

/** One workflow run, as the API runs it (non-streamed); its stored run_data's size. */
async function workflowRun(message: string): Promise<number> {
  const started = await startAgentRun({ db, agent: workflow, scope, userId: null, message, sessionId, stream: false });
  const output = await started.done;
  if (output.status !== "COMPLETED") throw new Error(`workflow run ended ${output.status}: ${JSON.stringify(output.error)}`);
  return JSON.stringify(output).length;
}

let runDataSize = 0;
/** The baseline: the same functions called in a row, one run row inserted RUNNING and updated COMPLETED with run_data of the workflow's size. */
async function baselineRun(message: string): Promise<void> {
  const runId = randomUUID();
  const createdAt = Math.floor(Date.now() / 1000);
  await upsertRun(db, {
    scope,
    run: { runId, sessionId: baselineSession, runType: "workflow", workflowId: "baseline", status: "RUNNING", runData: { run_id: runId, status: "RUNNING", input: message }, createdAt },
  });
  let content: unknown = message;
  const results: { step_name: string; content: unknown }[] = [];
  for (const fn of FUNCTIONS) {
    content = fn({ input: message, previous_step_content: content } as StepInput);
    results.push({ step_name: fn.name, content });
  }
  const data: Record<string, unknown> = { run_id: runId, status: "COMPLETED", input: message, content, step_results: results };
  const pad = runDataSize - JSON.stringify(data).length;
  if (pad > 0) data.padding = "x".repeat(pad);
  await upsertRun(db, { scope, run: { runId, sessionId: baselineSession, runType: "workflow", workflowId: "baseline", status: "COMPLETED", runData: data, createdAt } });
}

// Warm-up (JIT, statement caches), then interleaved measurement.
for (let i = 0; i < 50; i++) runDataSize = await workflowRun(`warm ${i}`);
for (let i = 0; i < 50; i++) await baselineRun(`warm ${i}`);
const timesWorkflow: number[] = [];
const timesBaseline: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const order = i % 2 === 0;
  for (const side of order ? ["workflow", "baseline"] : ["baseline", "workflow"]) {
    const t0 = performance.now();
    if (side === "workflow") await workflowRun(`input ${i}`);
    else await baselineRun(`input ${i}`);
    (side === "workflow" ? timesWorkflow : timesBaseline).push(performance.now() - t0);
  }
}
const sortedW = [...timesWorkflow].sort((a, b) => a - b);
const sortedB = [...timesBaseline].sort((a, b) => a - b);
const meanW = timesWorkflow.reduce((a, b) => a + b, 0) / RUNS;
const meanB = timesBaseline.reduce((a, b) => a + b, 0) / RUNS;

// The team: a coordinating leader and three members, the model answering at once.
let modelCalls = 0;
const model = await startModelServer({
  respond: (body: ChatCompletionRequest) => {
    modelCalls++;
    const system = messageText(body.messages.find((m) => m.role === "system"));
    if (!system.includes("<team_members>")) return { text: `member answer to: ${messageText(body.messages.at(-1))}` };
    const delegated = body.messages.filter((m) => m.role === "tool").length;
    if (delegated < 3) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: `m${delegated}`, task: `part ${delegated}` } }] };
    return { text: "combined answer" };
  },
});
const spec = { provider: "openai-compatible" as const, id: "scripted", baseUrl: model.url, apiKey: "bench" };
const members: AgentDefinition[] = [0, 1, 2].map((i) => ({ id: `m${i}`, name: `Member ${i}`, model: spec }));
const team = toRuntimeTeam({ id: "trio", name: "Trio", model: spec, members }, {});
const teamTimes: number[] = [];
for (let i = 0; i < 10; i++) await (await startAgentRun({ db, agent: team, scope, userId: null, message: `warm ${i}`, stream: false })).done;
modelCalls = 0;
for (let i = 0; i < TEAM_RUNS; i++) {
  const t0 = performance.now();
  const output = await (await startAgentRun({ db, agent: team, scope, userId: null, message: `question ${i}`, stream: false })).done;
  teamTimes.push(performance.now() - t0);
  if (output.status !== "COMPLETED" || output.content !== "combined answer") throw new Error(`team run ended ${output.status}: ${String(output.content)}`);
}
await model.close();
const sortedT = [...teamTimes].sort((a, b) => a - b);

console.log("");
console.log(
  table(
    ["series", "runs", "mean ms", "p50 ms", "p99 ms"],
    [
      ["10-step workflow (runtime)", String(RUNS), ms(meanW), ms(percentile(sortedW, 50)), ms(percentile(sortedW, 99))],
      ["baseline: 10 calls + 1 run row", String(RUNS), ms(meanB), ms(percentile(sortedB, 50)), ms(percentile(sortedB, 99))],
      ["3-member coordinating team", String(TEAM_RUNS), ms(teamTimes.reduce((a, b) => a + b, 0) / TEAM_RUNS), ms(percentile(sortedT, 50)), ms(percentile(sortedT, 99))],
    ],
  ),
);
const ratio = percentile(sortedW, 50) / percentile(sortedB, 50);
console.log("");
console.log(`workflow run_data size: ${runDataSize} bytes (the baseline's row is padded to it)`);
console.log(`workflow per-run time vs baseline (p50): ${ratio.toFixed(2)}x (target <= 2x) ${ratio <= 2 ? "PASS" : "FAIL"}`);
console.log(`workflow per-run time vs baseline (mean): ${(meanW / meanB).toFixed(2)}x`);
console.log(`team per-run time p50: ${ms(percentile(sortedT, 50))} ms; model calls per run: ${(modelCalls / TEAM_RUNS).toFixed(1)} (1 leader call per delegation + 1 answer, 1 per member)`);
await cleanup();
process.exit(ratio <= 2 ? 0 : 1);
