/**
 * Learning benchmark (issue 31): what always-mode learning (`learning: true`: a user profile and
 * user memory, both extracted in the background of every run) costs a run.
 *
 * Two server processes (bench/learning-server.ts: the API on node:http, each over its own
 * database) serve the same sample agent, one with `learning: true` and one without; the scripted
 * model (e2e/fixtures/model-server.ts) runs in this process and answers the agent (a tool call
 * `add`, then the answer) and the learning extraction calls (profile: `update_profile` on a
 * user's first call, text after; memory: one `add_memory` per run, then text). Every run is
 * `POST /agents/assistant/runs` with `stream=true` and a `user_id` (several users, sessions of a
 * few runs each), over real HTTP, and the two servers' runs alternate (ABBA) so machine noise hits
 * both.
 *
 *   1. Paced: the model streams at a per-word pace (each pace in --paces; non-streamed answers,
 *      which the extraction calls are, take as long as their streamed form would), several users
 *      at once: time to last byte, p50 and p99, learning ÷ none (target p50 ≤ 1.05×), with the
 *      time split at the first answer chunk and at RunContentCompleted, and how much earlier
 *      than the answer the extraction calls ended.
 *   2. Instant (no pace), one run at a time: server CPU per run (the server process's CPU time
 *      over the runs ÷ runs) and runs/s, learning ÷ none.
 *   Checked: every user has a profile and one memory per run it made, the server without
 *   learning stored none and made no extraction calls. Reported: 8 runs of one user at once
 *   (their own sessions) and how many of their 8 memories were stored.
 *
 *   npm run bench:learning
 *   npm run bench:learning -- --dialects=sqlite --paces=150 --paced-runs=40 --runs=100   # smoke run
 *
 * Options: --dialects=sqlite,postgres --paces=150,25 --users=8 --session-runs=4 --paced-runs=160
 *          --runs=300 --warmup=16 --url=postgresql://… --keep
 * See bench/README.md ("Learning (issue 31)").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";

import { messageText, startModelServer, type AnswerStep, type ChatCompletionRequest, type ModelServer } from "../e2e/fixtures/model-server.ts";
import { checkArgs, flag, intOption, listOption, option, postgresUrlOption } from "./cli.ts";
import { cleanUpOnSignals, cleanupAll, cleanups, git, interrupted, machineLine, removeOnCleanup, runMain, writeResults } from "./harness.ts";
import { fmtBytes, load, ms, ratio, signed, table, verdict } from "./report.ts";
import { percentile, sum } from "./stats.ts";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

checkArgs(
  /^--(keep|help|dialects=.+|paces=.+|users=.+|session-runs=.+|paced-runs=.+|runs=.+|warmup=.+|url=.+)$/,
  "usage: tsx bench/learning.ts [--dialects=sqlite,postgres] [--paces=150,25] [--users=8] [--session-runs=4]\n" +
    "                             [--paced-runs=160] [--runs=300] [--warmup=16] [--url=postgresql://…] [--keep]\n" +
    "       BENCH_DATABASE_URL sets the PostgreSQL server too.",
);

type Dialect = "sqlite" | "postgres";
const DIALECTS = listOption<Dialect>("dialects", ["sqlite", "postgres"]);
/** ms between streamed chunks, one paced series each. */
const PACES: number[] = (() => {
  const raw = option("paces") ?? "150,25";
  const paces = raw.split(",").map((s) => Number(s.trim()));
  if (paces.length === 0 || paces.some((p) => !Number.isInteger(p) || p < 1)) {
    console.error(`--paces takes positive whole milliseconds, e.g. 150,25; got '${raw}'`);
    process.exit(2);
  }
  return paces;
})();
const USERS = intOption("users", 8, 1);
const SESSION_RUNS = intOption("session-runs", 4, 1);
/** Paced: measured runs per side and pace (rounded up so each user's share is whole ABBA cycles). */
const PACED_RUNS = intOption("paced-runs", 160, 4);
/** Instant: measured runs per side, one at a time. */
const RUNS = intOption("runs", 300, 4);
/** Warm-up runs per side, instant, before anything is measured (they also make every user's profile). */
const WARMUP = intOption("warmup", 16, 0);
const KEEP = flag("keep");
const PG_URL = postgresUrlOption();

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
/** Target (issue 31): time to last byte with learning ÷ without, at p50. */
const TARGET_P50 = 1.05;

// ---------------------------------------------------------------------------------------------
// Statistics and formatting
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// The conversation: users, their messages, and the scripted model's answers
// ---------------------------------------------------------------------------------------------

const PEOPLE = [
  ["Ada Lovelace", "Ada"],
  ["Grace Hopper", "Grace"],
  ["Alan Turing", "Alan"],
  ["Barbara Liskov", "Barbara"],
  ["Donald Knuth", "Don"],
  ["Margaret Hamilton", "Maggie"],
  ["Edsger Dijkstra", "Edsger"],
  ["Frances Allen", "Fran"],
  ["John Backus", "John"],
  ["Katherine Johnson", "Katherine"],
] as const;
interface User {
  id: string;
  name: string;
  nick: string;
}
const users: User[] = Array.from({ length: USERS }, (_, i) => {
  const [name, nick] = PEOPLE[i % PEOPLE.length];
  const n = Math.floor(i / PEOPLE.length);
  return { id: `${nick.toLowerCase()}${n || ""}@bench.test`, name: n ? `${name} ${n + 1}` : name, nick };
});

/** Each run adds a unique number (its tag: extraction prompts and the agent's calls name the run by it) to 289. */
const B = 289;
let nextA = 1000;
const message = (user: User, a: number) => `Hi, I'm ${user.name}; call me ${user.nick}. What is ${a} plus ${B}? Use the calculator.`;
const answerOf = (a: number) => `${a} plus ${B} is ${a + B}.`;

const PROFILE_SYSTEM = "You maintain a user's profile";
const MEMORY_SYSTEM = "You maintain long-term memories about a user: durable facts";
const ASKED = /I'm ([^;]+); call me (\w+)\. What is (\d+) plus (\d+)\?/g;

/** The last run named in a text (an extraction prompt holds the session's history first). */
function lastAsked(text: string): { name: string; nick: string; a: number } | undefined {
  let found: RegExpExecArray | undefined;
  for (const match of text.matchAll(ASKED)) found = match as RegExpExecArray;
  return found ? { name: found[1], nick: found[2], a: Number(found[3]) } : undefined;
}

/** The pace of the current series: ms between streamed chunks (0: instant). */
let pace = 0;

/** How many chunks the scripted model streams for a step (as model-server.ts splits it): role, word deltas, per call a header and ≤3 argument fragments, finish, usage. */
function streamedChunks(step: AnswerStep): number {
  const words = step.text ? (step.text.match(/\s*\S+\s*|\s+/g)?.length ?? 1) : 0;
  const calls = (step.toolCalls ?? []).reduce((n, call) => {
    const length = JSON.stringify(call.arguments).length;
    return n + 1 + (length <= 2 ? 1 : Math.ceil(length / Math.ceil(length / 3)));
  }, 0);
  return 1 + words + calls + 2;
}

type CallKind = "agent" | "profile" | "memory";
interface ModelCall {
  kind: CallKind;
  /** The run's tag. */
  a: number;
  arrivedAt: number;
  /** When the answer is due to end (arrival + its paced duration). */
  endsAt: number;
  afterTool: boolean;
  stream: boolean;
}
/** The calls of the measured paced series (cleared between series). */
const modelCalls: ModelCall[] = [];
let recordCalls = false;

/**
 * The scripted model. Agent: a tool call `add`, then the answer. Profile extraction: on a user's
 * first call (an empty current profile) `update_profile` {name, preferred_name}, otherwise text;
 * its follow-up text. Memory extraction: one `add_memory`, then text. Paced: a streamed answer has
 * `pace` ms between chunks (model-server's delayMs); a non-streamed one (the extractions, made
 * with generateText) is sent after the time its streamed form would take, so the model generates
 * at the same pace whether or not its caller streams.
 */
function respond(body: ChatCompletionRequest): AnswerStep {
  const arrivedAt = performance.now();
  const first = body.messages[0];
  const system = first?.role === "system" ? messageText(first) : "";
  const afterTool = body.messages.at(-1)?.role === "tool";
  const prompt = body.messages.map((m) => messageText(m)).join("\n");
  const asked = lastAsked(prompt);
  if (!asked) throw new Error(`the scripted model cannot tell which run this is: ${prompt.slice(0, 300)}`);
  let kind: CallKind;
  let step: AnswerStep;
  if (system.startsWith(PROFILE_SYSTEM)) {
    kind = "profile";
    step = afterTool
      ? { text: "The profile is up to date." }
      : system.includes("Current profile:\n(empty)")
        ? { toolCalls: [{ name: "update_profile", arguments: { name: asked.name, preferred_name: asked.nick } }] }
        : { text: "Nothing new about the user." };
    step.usage = { prompt_tokens: 240, completion_tokens: 16 };
  } else if (system.startsWith(MEMORY_SYSTEM)) {
    kind = "memory";
    step = afterTool ? { text: "Saved." } : { toolCalls: [{ name: "add_memory", arguments: { memory: `${asked.nick} checks sums with a calculator (asked for ${asked.a} plus ${B}).` } }] };
    step.usage = { prompt_tokens: 260, completion_tokens: 24 };
  } else {
    kind = "agent";
    step = afterTool
      ? { text: answerOf(asked.a), usage: { prompt_tokens: 212, completion_tokens: 11 } }
      : { toolCalls: [{ name: "add", arguments: { a: asked.a, b: B } }], usage: { prompt_tokens: 180, completion_tokens: 18 } };
  }
  const stream = body.stream === true;
  const duration = pace * (streamedChunks(step) - 1);
  if (pace > 0) step.delayMs = stream ? pace : duration;
  if (recordCalls) modelCalls.push({ kind, a: asked.a, arrivedAt, endsAt: arrivedAt + duration, afterTool, stream });
  return step;
}

// ---------------------------------------------------------------------------------------------
// The servers: one process per side, each over its own database
// ---------------------------------------------------------------------------------------------

type Side = "learning" | "none";
const SIDES: readonly Side[] = ["learning", "none"];

interface Server {
  side: Side;
  origin: string;
  child: ChildProcess;
  lines: string[];
  /** SQLite: the file; PostgreSQL: the schema. */
  where: string;
  stop(): Promise<void>;
}

const stamp = `${process.pid}_${Date.now()}`;
const tempDir = join(tmpdir(), `agentry-bench-learning-${stamp}`);

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

async function startServer(dialect: Dialect, side: Side, model: ModelServer): Promise<Server> {
  const sqliteFile = dialect === "sqlite" ? join(tempDir, `${side}.db`) : null;
  const schema = dialect === "postgres" ? `bench_learning_${side}_${stamp}` : null;
  if (sqliteFile) mkdirSync(tempDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_MODEL_URL: model.url,
    BENCH_LEARNING: side === "learning" ? "1" : "0",
    // Responses are checked against their schemas only outside production (lib/http/route.ts): measured as production runs.
    AGENTRY_CHECK_RESPONSES: "false",
    AGENTRY_LOG_LEVEL: process.env.AGENTRY_LOG_LEVEL || "warn",
    ...(sqliteFile ? { DATABASE_URL: `file:${sqliteFile}` } : { DATABASE_URL: PG_URL, AGENTRY_DB_SCHEMA: schema! }),
  };
  // One process (node with tsx's loader, not the tsx CLI, which would run the script in a child): its CPU time is the server's.
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(HERE, "learning-server.ts")], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  const origin = await new Promise<string>((ok, fail) => {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        lines.push(line);
        if (line.startsWith("listening ")) ok(line.slice("listening ".length));
      });
    }
    void exited.then(() => fail(new Error(`the ${side} server exited before it listened:\n${lines.slice(-30).join("\n")}`)));
    setTimeout(() => fail(new Error(`the ${side} server did not listen within 120 s:\n${lines.slice(-30).join("\n")}`)), 120_000).unref();
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((ok) => setTimeout(ok, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    if (KEEP) console.log(`  --keep: left ${sqliteFile ?? `schema ${schema}`} in place`);
    else if (schema) await dropSchema(schema).catch((e) => console.error(`could not drop schema ${schema}: ${e}`));
    else if (sqliteFile) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(sqliteFile + suffix, { force: true });
  };
  cleanups.push(stop);
  return { side, origin, child, lines, where: sqliteFile ?? `schema ${schema}`, stop };
}

interface Cpu {
  userMicros: number;
  systemMicros: number;
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
}
const cpuOf = async (server: Server, { gc = false } = {}): Promise<Cpu> => (await fetch(`${server.origin}/bench/cpu${gc ? "?gc=1" : ""}`)).json() as Promise<Cpu>;
const cpuMs = (a: Cpu, b: Cpu) => (b.userMicros + b.systemMicros - a.userMicros - a.systemMicros) / 1000;

// ---------------------------------------------------------------------------------------------
// One run: a streamed run over HTTP, timed at its milestones
// ---------------------------------------------------------------------------------------------

interface RunTimes {
  /** The run's tag (the number it asks to add to 289). */
  a: number;
  /** Request sent (performance.now() of this process, which the scripted model shares). */
  sentAt: number;
  /** Request sent → the first body byte (RunStarted, written once the run has reached its first model call). */
  firstByte: number;
  /** → the first RunContent frame (the answer's first chunk: after the context, the tool call and the tool). */
  firstContent: number;
  /** → the RunContentCompleted frame (the answer is out; what follows waits for the background work and stores the run). */
  contentDone: number;
  /** → the last byte. */
  last: number;
}

/** Per (side, user): runs so far, for the session they belong to. */
const runsSoFar = new Map<string, number>();

async function streamedRun(server: Server, user: User, { session }: { session?: string } = {}): Promise<RunTimes> {
  const key = `${server.side}/${user.id}`;
  const n = runsSoFar.get(key) ?? 0;
  runsSoFar.set(key, n + 1);
  const sessionId = session ?? `${server.side}-${user.id}-${Math.floor(n / SESSION_RUNS)}`;
  const a = nextA++;
  const t0 = performance.now();
  const response = await fetch(`${server.origin}/agents/assistant/runs`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ message: message(user, a), stream: "true", user_id: user.id, session_id: sessionId }).toString(),
  });
  if (!response.body) throw new Error(`POST /agents/assistant/runs: HTTP ${response.status}, no body`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let firstByte = NaN;
  let firstContent = NaN;
  let contentDone = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const now = performance.now();
    if (Number.isNaN(firstByte)) firstByte = now - t0;
    text += decoder.decode(value, { stream: true });
    if (Number.isNaN(firstContent) && text.includes("event: RunContent\n")) firstContent = now - t0;
    if (Number.isNaN(contentDone) && text.includes("event: RunContentCompleted\n")) contentDone = now - t0;
  }
  const last = performance.now() - t0;
  if (response.status !== 200 || !text.includes("event: RunCompleted\n") || !text.includes(answerOf(a)) || Number.isNaN(firstContent) || Number.isNaN(contentDone)) {
    throw new Error(`POST /agents/assistant/runs (${server.side}, ${user.id}): HTTP ${response.status}: ${text.slice(-800)}`);
  }
  return { a, sentAt: t0, firstByte, firstContent, contentDone, last };
}

/** ABBA: run k of a sequence goes to learning, none, none, learning, … */
const sideOf = (k: number): Side => SIDES[[0, 1, 1, 0][k % 4]];

// ---------------------------------------------------------------------------------------------
// Phases
// ---------------------------------------------------------------------------------------------

interface Series {
  runs: RunTimes[];
  cpuMs: number;
  wallMs: number;
}
const emptySeries = (): Record<Side, Series> => ({ learning: { runs: [], cpuMs: 0, wallMs: 0 }, none: { runs: [], cpuMs: 0, wallMs: 0 } });

/** Reads each server's CPU time around `work`. */
async function withCpu(servers: Record<Side, Server>, series: Record<Side, Series>, work: () => Promise<void>): Promise<void> {
  const before = { learning: await cpuOf(servers.learning), none: await cpuOf(servers.none) };
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  for (const side of SIDES) {
    series[side].cpuMs += cpuMs(before[side], await cpuOf(servers[side]));
    series[side].wallMs += wall;
  }
}

/** One run at a time, alternating ABBA, users in turn. */
async function sequential(servers: Record<Side, Server>, runsPerSide: number, series?: Record<Side, Series>): Promise<void> {
  for (let k = 0; k < runsPerSide * 2 && !interrupted(); k++) {
    const side = sideOf(k);
    const times = await streamedRun(servers[side], users[Math.floor(k / 2) % users.length]);
    series?.[side].runs.push(times);
  }
}

/** Every user at once, each running its share one after another, alternating ABBA (offset per user, so both sides are always in flight). */
async function concurrent(servers: Record<Side, Server>, runsPerSide: number, series: Record<Side, Series>): Promise<void> {
  const perUser = Math.ceil((runsPerSide * 2) / users.length / 4) * 4;
  await Promise.all(
    users.map(async (user, u) => {
      for (let r = 0; r < perUser && !interrupted(); r++) {
        const side = sideOf(r + u);
        series[side].runs.push(await streamedRun(servers[side], user));
      }
    }),
  );
}

const statsOf = (runs: readonly RunTimes[], pick: (r: RunTimes) => number) => {
  const values = runs.map(pick);
  return { p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99), max: Math.max(...values), mean: sum(values) / values.length };
};

/**
 * What the scripted model saw of a series' runs: request sent → the agent's first model call
 * (the run's set-up: session, context, and with learning the extraction's start), and per
 * learning run how long its extraction calls took and how long before the answer's end they
 * ended (negative: after it, so the run waited for them).
 */
function modelSide(series: Record<Side, Series>) {
  const byRun = new Map<number, ModelCall[]>();
  for (const call of modelCalls) byRun.set(call.a, [...(byRun.get(call.a) ?? []), call]);
  const toModel = (runs: readonly RunTimes[]) =>
    runs.flatMap((r) => {
      const agent = (byRun.get(r.a) ?? []).filter((c) => c.kind === "agent");
      return agent.length > 0 ? [Math.min(...agent.map((c) => c.arrivedAt)) - r.sentAt] : [];
    });
  const slack: number[] = [];
  const extractionMs: number[] = [];
  const answerMs: number[] = [];
  const agentBehind: number[] = [];
  for (const r of series.learning.runs) {
    const calls = byRun.get(r.a) ?? [];
    const agent = calls.filter((c) => c.kind === "agent");
    const extraction = calls.filter((c) => c.kind !== "agent");
    if (extraction.length === 0 || agent.length === 0) throw new Error(`learning run ${r.a}: the model saw ${agent.length} agent and ${extraction.length} extraction calls`);
    const answerEnd = Math.max(...agent.map((c) => c.endsAt));
    const extractionEnd = Math.max(...extraction.map((c) => c.endsAt));
    slack.push(answerEnd - extractionEnd);
    extractionMs.push(extractionEnd - Math.min(...extraction.map((c) => c.arrivedAt)));
    answerMs.push(answerEnd - Math.min(...agent.map((c) => c.arrivedAt)));
    agentBehind.push(Math.min(...agent.map((c) => c.arrivedAt)) - Math.min(...extraction.map((c) => c.arrivedAt)));
  }
  const extractionCalls = series.none.runs.reduce((n, r) => n + (byRun.get(r.a) ?? []).filter((c) => c.kind !== "agent").length, 0);
  if (extractionCalls > 0) throw new Error(`the server without learning made ${extractionCalls} extraction calls`);
  return {
    toModelP50: { learning: percentile(toModel(series.learning.runs), 50), none: percentile(toModel(series.none.runs), 50) },
    extraction: {
      runs: slack.length,
      slackP50: percentile(slack, 50),
      slackMin: Math.min(...slack),
      afterAnswer: slack.filter((x) => x < 0).length,
      extractionMsP50: percentile(extractionMs, 50),
      answerMsP50: percentile(answerMs, 50),
      /** The agent's first model call after the extraction's first (ms; negative: before it). */
      agentBehindP50: percentile(agentBehind, 50),
      agentFirst: agentBehind.filter((x) => x < 0).length,
    },
  };
}

interface LearningRows {
  profiles: number;
  memoryRows: number;
  /** Memories stored per user id. */
  memoriesOf: Record<string, number>;
  memoriesPerUser: { min: number; max: number };
  memoryRowBytes: number;
}

/** What the server's learnings hold (GET /learnings). */
async function learningRows(server: Server): Promise<LearningRows> {
  const response = await fetch(`${server.origin}/learnings?limit=100`);
  const body = (await response.json()) as { data: { learning_type: string; user_id: string | null; content: { memories?: unknown[] } }[] };
  if (response.status !== 200) throw new Error(`GET /learnings: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  const memories = body.data.filter((l) => l.learning_type === "user_memory");
  const counts = memories.map((m) => m.content.memories?.length ?? 0);
  return {
    profiles: body.data.filter((l) => l.learning_type === "user_profile").length,
    memoryRows: memories.length,
    memoriesOf: Object.fromEntries(memories.map((m) => [m.user_id ?? "", m.content.memories?.length ?? 0])),
    memoriesPerUser: { min: counts.length ? Math.min(...counts) : 0, max: counts.length ? Math.max(...counts) : 0 },
    memoryRowBytes: memories.length ? Math.max(...memories.map((m) => Buffer.byteLength(JSON.stringify(m.content)))) : 0,
  };
}

function printModelSide(seen: ReturnType<typeof modelSide>, { paced }: { paced: boolean }): void {
  const x = seen.extraction;
  console.log(
    `  request sent -> the agent's first model call (p50): learning ${ms(seen.toModelP50.learning)} ms, none ${ms(seen.toModelP50.none)} ms ` +
      `(${signed(seen.toModelP50.learning - seen.toModelP50.none)} ms: the learning context's reads and the extraction's start come first)`,
  );
  console.log(
    `  the extraction's first model call reached the model before the agent's in ${x.runs - x.agentFirst} of ${x.runs} learning runs; the agent's came ${ms(x.agentBehindP50)} ms after it (p50)`,
  );
  if (!paced) return;
  console.log(
    `  extraction (model side, ${x.runs} learning runs): its calls took ${ms(x.extractionMsP50)} ms beside the answer's ${ms(x.answerMsP50)} ms (p50) ` +
      `and ended ${ms(x.slackP50)} ms before the answer did (p50; closest ${ms(x.slackMin)} ms); after it in ${x.afterAnswer} runs`,
  );
}

/** Runs of one user at once (each its own session), instant: does every run's memory survive? The measured series never run one user's runs at once. */
const BURST = 8;
async function sameUserBurst(server: Server): Promise<{ runs: number; memories: number }> {
  pace = 0;
  const user: User = { id: "burst@bench.test", name: "Burst Tester", nick: "Burst" };
  await Promise.all(Array.from({ length: BURST }, (_, i) => streamedRun(server, user, { session: `burst-${stamp}-${i}` })));
  const memories = (await learningRows(server)).memoriesOf[user.id] ?? 0;
  console.log(
    `  ${memories === BURST ? "ok" : "LOST UPDATES"}: ${BURST} runs of one user at once (each its own session) stored ${memories} of their ${BURST} memories` +
      (memories === BURST ? "" : " (each add reads the user's memory row and writes it back whole; concurrent adds overwrite each other)"),
  );
  return { runs: BURST, memories };
}

const SPLIT_HEADERS = ["series", "runs", "first byte", "first content", "content done", "last byte p50", "p90", "p99", "max", "tail p50"];
const splitRow = (label: string, runs: readonly RunTimes[]) => {
  const last = statsOf(runs, (r) => r.last);
  return [
    label,
    String(runs.length),
    ms(statsOf(runs, (r) => r.firstByte).p50),
    ms(statsOf(runs, (r) => r.firstContent).p50),
    ms(statsOf(runs, (r) => r.contentDone).p50),
    ms(last.p50),
    ms(last.p90),
    ms(last.p99),
    ms(last.max),
    ms(statsOf(runs, (r) => r.last - r.contentDone).p50),
  ];
};

async function runDialect(dialect: Dialect, model: ModelServer) {
  process.stderr.write(`  … ${dialect}: starting the two servers\n`);
  const [learning, none] = await Promise.all([startServer(dialect, "learning", model), startServer(dialect, "none", model)]);
  runsSoFar.clear(); // each dialect's servers start empty
  const servers: Record<Side, Server> = { learning, none };
  try {
    // Warm-up: instant, one at a time; makes every user's profile (the profile's tool-call path runs here).
    pace = 0;
    process.stderr.write(`  … ${dialect}: warm-up ${WARMUP} runs per side\n`);
    await sequential(servers, Math.max(WARMUP, 4));
    // Idle CPU of each server (the trace exporter's timer and little else).
    const idle0 = { learning: await cpuOf(learning), none: await cpuOf(none) };
    await new Promise((ok) => setTimeout(ok, 2000));
    const idleMsPerSecond = { learning: cpuMs(idle0.learning, await cpuOf(learning)) / 2, none: cpuMs(idle0.none, await cpuOf(none)) / 2 };

    // 1. Paced series.
    const paced = [];
    for (const p of PACES) {
      if (interrupted()) break;
      pace = p;
      const series = emptySeries();
      process.stderr.write(`  … ${dialect}: paced ${p} ms/chunk, ${users.length} users at once, ~${PACED_RUNS} runs per side\n`);
      const l0 = loadavg();
      modelCalls.length = 0;
      recordCalls = true;
      await withCpu(servers, series, () => concurrent(servers, PACED_RUNS, series));
      recordCalls = false;
      const l1 = loadavg();
      const seen = modelSide(series);
      model.reset();
      const [on, off] = [statsOf(series.learning.runs, (r) => r.last), statsOf(series.none.runs, (r) => r.last)];
      const result = {
        paceMs: p,
        runsEach: series.learning.runs.length,
        learning: on,
        none: off,
        ratioP50: on.p50 / off.p50,
        ratioP99: on.p99 / off.p99,
        split: Object.fromEntries(
          SIDES.map((side) => [
            side,
            {
              firstByteP50: statsOf(series[side].runs, (r) => r.firstByte).p50,
              firstContentP50: statsOf(series[side].runs, (r) => r.firstContent).p50,
              contentDoneP50: statsOf(series[side].runs, (r) => r.contentDone).p50,
              tailP50: statsOf(series[side].runs, (r) => r.last - r.contentDone).p50,
              tailP99: statsOf(series[side].runs, (r) => r.last - r.contentDone).p99,
            },
          ]),
        ),
        toModelP50: seen.toModelP50,
        extraction: seen.extraction,
        cpuMsPerRun: { learning: series.learning.cpuMs / series.learning.runs.length, none: series.none.cpuMs / series.none.runs.length },
        loadAverage: { start: l0, end: l1 },
        pass: on.p50 / off.p50 <= TARGET_P50,
        samples: { learning: series.learning.runs, none: series.none.runs },
      };
      paced.push(result);
      console.log("");
      console.log(`Paced — ${dialect}, ${p} ms between streamed chunks; ${users.length} users at once, each one run after another (ABBA), ${result.runsEach} runs per side`);
      console.log(table(SPLIT_HEADERS, [splitRow("learning", series.learning.runs), splitRow("none", series.none.runs)]));
      console.log(`  (ms from sending the request, p50 unless marked; tail = last byte - RunContentCompleted)`);
      console.log(
        `  learning / none, time to last byte: p50 ${ratio(result.ratioP50)} ${verdict(result.pass)} (target <= ${TARGET_P50}x), p99 ${ratio(result.ratioP99)}; ${signed(on.p50 - off.p50)} ms at p50`,
      );
      printModelSide(seen, { paced: true });
      console.log(`  server CPU per run: learning ${ms(result.cpuMsPerRun.learning)} ms, none ${ms(result.cpuMsPerRun.none)} ms; load average ${load(l0)} -> ${load(l1)}`);
    }

    // 2. Instant, one run at a time: CPU per run and runs/s.
    pace = 0;
    const series = emptySeries();
    process.stderr.write(`  … ${dialect}: instant, ${RUNS} runs per side one at a time\n`);
    const l0 = loadavg();
    modelCalls.length = 0;
    recordCalls = true;
    // In two halves, each with the memories a user held at its start: extraction reads and rewrites all of them.
    const halves: { memoriesPerUser: number; cpuMsPerRun: Record<Side, number>; runsPerSecond: Record<Side, number> }[] = [];
    for (const runs of [Math.floor(RUNS / 2), RUNS - Math.floor(RUNS / 2)]) {
      const memoriesPerUser = (await learningRows(learning)).memoriesPerUser.min;
      const half = emptySeries();
      await withCpu(servers, half, () => sequential(servers, runs, half));
      for (const side of SIDES) {
        series[side].runs.push(...half[side].runs);
        series[side].cpuMs += half[side].cpuMs;
        series[side].wallMs += half[side].wallMs;
      }
      const rate = (side: Side) => half[side].runs.length / (sum(half[side].runs.map((r) => r.last)) / 1000);
      halves.push({
        memoriesPerUser,
        cpuMsPerRun: { learning: half.learning.cpuMs / half.learning.runs.length, none: half.none.cpuMs / half.none.runs.length },
        runsPerSecond: { learning: rate("learning"), none: rate("none") },
      });
    }
    recordCalls = false;
    const l1 = loadavg();
    const seen = modelSide(series);
    model.reset();
    const per = (side: Side) => {
      const s = series[side];
      const latency = sum(s.runs.map((r) => r.last));
      return { runs: s.runs.length, runsPerSecond: s.runs.length / (latency / 1000), cpuMsPerRun: s.cpuMs / s.runs.length, lastByte: statsOf(s.runs, (r) => r.last) };
    };
    const instant = {
      learning: per("learning"),
      none: per("none"),
      idleCpuMsPerSecond: idleMsPerSecond,
      halves,
      toModelP50: seen.toModelP50,
      // After a full collection: what each server retains once its runs are over.
      memory: await (async () => {
        const [l, n] = [await cpuOf(learning, { gc: true }), await cpuOf(none, { gc: true })];
        const pick = (key: keyof Cpu) => ({ learning: l[key], none: n[key] });
        return { rssBytes: pick("rssBytes"), heapUsedBytes: pick("heapUsedBytes"), heapTotalBytes: pick("heapTotalBytes"), externalBytes: pick("externalBytes") };
      })(),
      loadAverage: { start: l0, end: l1 },
      samples: { learning: series.learning.runs, none: series.none.runs },
    };
    const instantRatios = {
      cpuPerRun: instant.learning.cpuMsPerRun / instant.none.cpuMsPerRun,
      runsPerSecond: instant.learning.runsPerSecond / instant.none.runsPerSecond,
      p50: instant.learning.lastByte.p50 / instant.none.lastByte.p50,
    };
    console.log("");
    console.log(`Instant — ${dialect}: no pace, one run at a time (ABBA), ${RUNS} runs per side`);
    console.log(
      table(
        ["series", "runs", "runs/s", "server CPU ms/run", "last byte p50", "p99", "content done p50", "tail p50"],
        SIDES.map((side) => {
          const s = instant[side];
          return [
            side,
            String(s.runs),
            s.runsPerSecond.toFixed(1),
            ms(s.cpuMsPerRun),
            ms(s.lastByte.p50),
            ms(s.lastByte.p99),
            ms(statsOf(series[side].runs, (r) => r.contentDone).p50),
            ms(statsOf(series[side].runs, (r) => r.last - r.contentDone).p50),
          ];
        }),
      ),
    );
    console.log(
      `  learning / none: server CPU per run ${ratio(instantRatios.cpuPerRun)}, runs/s ${ratio(instantRatios.runsPerSecond)}, last byte p50 ${ratio(instantRatios.p50)}; ` +
        `${signed(instant.learning.cpuMsPerRun - instant.none.cpuMsPerRun)} ms CPU per run`,
    );
    console.log(
      `  (runs/s = runs / the sum of their latencies; CPU = the server process's user+system time over the series / runs, ` +
        `its idle rate ${instant.idleCpuMsPerSecond.learning.toFixed(1)} / ${instant.idleCpuMsPerSecond.none.toFixed(1)} ms/s included); load average ${load(l0)} -> ${load(l1)}`,
    );

    for (const [i, h] of halves.entries()) {
      console.log(
        `  ${i === 0 ? "first" : "second"} half (users held ${h.memoriesPerUser}+ memories): CPU ${ms(h.cpuMsPerRun.learning)} vs ${ms(h.cpuMsPerRun.none)} ms/run = ${ratio(h.cpuMsPerRun.learning / h.cpuMsPerRun.none)}, ` +
          `${h.runsPerSecond.learning.toFixed(1)} vs ${h.runsPerSecond.none.toFixed(1)} runs/s`,
      );
    }
    printModelSide(seen, { paced: false });

    // What the learning rows hold now; the server without learning must have none.
    const rows = { learning: await learningRows(learning), none: await learningRows(none) };
    if (rows.none.profiles + rows.none.memoryRows > 0) throw new Error(`the server without learning stored learnings: ${JSON.stringify(rows.none)}`);
    if (rows.learning.profiles !== users.length || rows.learning.memoryRows !== users.length) {
      throw new Error(`expected a profile and a memory row per user (${users.length}); found ${JSON.stringify(rows.learning)}`);
    }
    // One memory per run (each user's runs one after another): none may be missing.
    const missing = users.filter((u) => rows.learning.memoriesOf[u.id] !== runsSoFar.get(`learning/${u.id}`));
    if (missing.length > 0) {
      throw new Error(`memories lost: ${missing.map((u) => `${u.id} ran ${runsSoFar.get(`learning/${u.id}`)} runs and has ${rows.learning.memoriesOf[u.id]} memories`).join("; ")}`);
    }
    console.log(
      `  learnings: ${rows.learning.profiles} profiles, ${rows.learning.memoryRows} memory rows holding ${rows.learning.memoriesPerUser.min}–${rows.learning.memoriesPerUser.max} memories each ` +
        `(one per run of that user; the largest row ${fmtBytes(rows.learning.memoryRowBytes)} of JSON, rewritten by every add); after a full GC, learning / none: heap used ${fmtBytes(instant.memory.heapUsedBytes.learning)} / ${fmtBytes(instant.memory.heapUsedBytes.none)}, ` +
        `heap total ${fmtBytes(instant.memory.heapTotalBytes.learning)} / ${fmtBytes(instant.memory.heapTotalBytes.none)}, external ${fmtBytes(instant.memory.externalBytes.learning)} / ${fmtBytes(instant.memory.externalBytes.none)}, ` +
        `RSS ${fmtBytes(instant.memory.rssBytes.learning)} / ${fmtBytes(instant.memory.rssBytes.none)}`,
    );
    const burst = await sameUserBurst(learning);
    return { dialect, where: { learning: learning.where, none: none.where }, paced, instant: { ...instant, ratios: instantRatios }, learnings: rows.learning, burst };
  } finally {
    await none.stop();
    await learning.stop();
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
  cleanUpOnSignals();

  const commit = git("rev-parse", "--short", "HEAD") || "unknown";
  const changed = git("status", "--porcelain", "--", "lib/learning", "lib/runtime", "lib/db/learnings", "lib/server/features.ts")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.replace(/^\s*\S+\s+/, ""));
  const load0 = loadavg();
  console.log("Learning benchmark (issue 31)");
  console.log(`  code     : commit ${commit}${changed.length > 0 ? ` + working-tree changes in ${changed.join(", ")}` : ""}`);
  console.log(machineLine(load0));
  console.log(`  servers  : two processes (bench/learning-server.ts: serveApi on node:http), the sample agent with learning: true / without; each its own database`);
  console.log(`  databases: SQLite in ${tempDir}; PostgreSQL ${PG_URL.replace(/:[^:@/]*@/, ":***@")} in schemas bench_learning_*_${stamp} (dropped at the end${KEEP ? " unless --keep" : ""})`);
  console.log(
    `  runs     : POST /agents/assistant/runs stream=true, ${users.length} users, sessions of ${SESSION_RUNS} runs (history: 3 runs); ` +
      `paces ${PACES.join(", ")} ms/chunk (${PACED_RUNS} runs per side, users at once), then instant (${RUNS} per side, one at a time); warm-up ${WARMUP} per side`,
  );

  const results = [];
  try {
    for (const dialect of DIALECTS) {
      if (interrupted()) break;
      results.push(await runDialect(dialect, model));
    }
    const load1 = loadavg();

    console.log("");
    console.log("Summary");
    for (const r of results) {
      for (const p of r.paced) {
        console.log(
          `  ${verdict(p.pass)} ${r.dialect} paced ${p.paceMs} ms: last byte p50 ${ms(p.learning.p50)} vs ${ms(p.none.p50)} ms = ${ratio(p.ratioP50)} (target <= ${TARGET_P50}x); ` +
            `p99 ${ms(p.learning.p99)} vs ${ms(p.none.p99)} ms = ${ratio(p.ratioP99)}`,
        );
      }
      const i = r.instant;
      console.log(
        `  INFO ${r.dialect} instant: server CPU ${ms(i.learning.cpuMsPerRun)} vs ${ms(i.none.cpuMsPerRun)} ms/run = ${ratio(i.ratios.cpuPerRun)}; ` +
          `${i.learning.runsPerSecond.toFixed(1)} vs ${i.none.runsPerSecond.toFixed(1)} runs/s = ${ratio(i.ratios.runsPerSecond)}`,
      );
    }
    for (const r of results) {
      console.log(`  ${r.burst.memories === r.burst.runs ? "INFO" : "LOST"} ${r.dialect} ${r.burst.runs} runs of one user at once: ${r.burst.memories} of ${r.burst.runs} memories stored`);
    }
    const failed = results.flatMap((r) => r.paced).filter((p) => !p.pass);
    console.log(`  load average ${load(load0)} -> ${load(load1)}; total ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
    console.log(`  overall: ${verdict(failed.length === 0)} (the latency target; the same-user burst is reported)`);

    writeResults("learning", {
      benchmark: "learning",
      startedAt: startedAt.toISOString(),
      code: { commit, changed },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, loadAverageStart: load0, loadAverageEnd: load1 },
      options: { dialects: DIALECTS, paces: PACES, users: users.length, sessionRuns: SESSION_RUNS, pacedRuns: PACED_RUNS, runs: RUNS, warmup: WARMUP },
      targets: { lastByteP50RatioMax: TARGET_P50 },
      results,
      pass: failed.length === 0,
    });
  } finally {
    await cleanupAll();
  }
}

runMain(main);
