/**
 * Studio benchmark (issue 32): what running an agent stored as a Studio component costs against
 * the same agent defined in code, and how `GET /components` holds up at 10,000 components.
 *
 *   1. Warm runs: one process serving the API over real HTTP (node:http, the real route table and
 *      dispatcher) with an agent defined in code and the same agent (same model, same
 *      instructions) created through `POST /components` as a published component. Their runs
 *      (`POST /agents/{id}/runs`, stream=false, a new session each) alternate run by run (ABBA);
 *      p50/p99 component ÷ code (target p50 ≤ 1.05×), and the one read a component's run makes
 *      beyond the code-defined agent's (the version check) timed bare.
 *   2. First run after a publish: 50 times, a new version through the API (`POST
 *      /components/{id}/configs`, then `PATCH …/configs/{v}` `{stage: "published"}`), then the
 *      component's first run on it (the server sees the new current version and builds it) and a
 *      run of the code-defined agent beside it; p50 of the 50 first runs ÷ the code-defined
 *      agent's p50 (target ≤ 1.5×). Every first run is checked to answer from the version just
 *      published (its instructions carry a marker the scripted model echoes).
 *   3. `GET /components` at 10,000 components (bulk-inserted into agno_components and
 *      agno_component_configs: 100 members, owner-less and admin rows, agents/teams/workflows,
 *      published, draft-only and archived rows over 90 days): page 1 with and without
 *      `component_type=agent` and the last page of `component_type=agent`, as an admin and as a
 *      member (who sees its own, owner-less and live published rows); p50/p99 over a few hundred requests (target p99 ≤ 20 ms), beside
 *      two bare baselines: `GET /health` on the same server (the HTTP floor) and the store's own
 *      statements for that page run directly on the app's database connection (the SQL floor).
 *      The query plans are printed; a case over its target gets its full EXPLAIN.
 *
 *   npm run bench:studio
 *   npm run bench:studio -- --dialects=sqlite --rounds=40 --publishes=10 --iterations=50   # smoke run
 *
 * Options: --dialects=sqlite,postgres --phases=runs,publish,list --rounds=1000 --block=1 --warmup=20
 *          --publishes=50 --components=10000 --iterations=300 --read-warmup=30 --limit=20
 *          --url=postgresql://… --keep
 * See bench/README.md ("Studio (issue 32)").
 */
import { createHash } from "node:crypto";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import pg from "pg";

import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../e2e/fixtures/model-server.ts";
import { MEMBER_SCOPES } from "../lib/auth/dashboard/member-scopes.ts";
import type { Principal } from "../lib/auth/principal.ts";
import { listComponents, storeCaller, unsafeComponentHead } from "../lib/components/store.ts";
import type { AgentDefinition } from "../lib/config/define.ts";
import { readEnv } from "../lib/config/env.ts";
import type { Db } from "../lib/db/open-database.ts";
import { toPostgresPlaceholders } from "../lib/db/sql.ts";
import { checkArgs, flag, intOption, listOption, postgresUrlOption } from "./cli.ts";
import { postgresPlans, type PlannedStatement } from "./dashboard-plans.ts";
import { recording } from "./dashboard-storage.ts";
import { openInProcessApp, type InProcessApp } from "./in-process-app.ts";
import { cleanUpOnSignals, cleanupAll, cleanups, git, interrupted, machineLine, removeOnCleanup, runMain, writeResults } from "./harness.ts";
import { int, load, ms, ratio, signed, table, verdict } from "./report.ts";
import { percentile, stats, type Stats } from "./stats.ts";
import { prng } from "./synthetic-text.ts";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

checkArgs(
  /^--(keep|help|dialects=.+|phases=.+|rounds=.+|block=.+|warmup=.+|publishes=.+|components=.+|iterations=.+|read-warmup=.+|limit=.+|url=.+)$/,
  "usage: tsx bench/studio.ts [--dialects=sqlite,postgres] [--phases=runs,publish,list] [--rounds=1000] [--block=1] [--warmup=20]\n" +
    "                           [--publishes=50] [--components=10000] [--iterations=300] [--read-warmup=30] [--limit=20]\n" +
    "                           [--url=postgresql://…] [--keep]\n" +
    "       BENCH_DATABASE_URL sets the PostgreSQL server too.",
);
/** An integer option; its message names the range ("from 1 to 9007199254740991" when there is no upper bound). */
const intArg = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) => intOption(name, fallback, min, max);

type Dialect = "sqlite" | "postgres";
type Phase = "runs" | "publish" | "list";
const DIALECTS = listOption<Dialect>("dialects", ["sqlite", "postgres"]);
const PHASES = listOption<Phase>("phases", ["runs", "publish", "list"]);
/** Warm runs: rounds of one block per side, the order alternating (ABBA); by default single runs, so both sides see the same moment of a busy machine. */
const ROUNDS = intArg("rounds", 1000, 1);
const BLOCK = intArg("block", 1, 1);
/** Warm-up runs per side before anything is measured. */
const WARMUP = intArg("warmup", 20, 1);
const PUBLISHES = intArg("publishes", 50, 1);
const COMPONENTS = intArg("components", 10_000, 100);
/** List: measured requests per case (and per baseline), after READ_WARMUP. */
const ITERATIONS = intArg("iterations", 300, 10);
const READ_WARMUP = intArg("read-warmup", 30, 0);
/** GET /components' page size (Agno's default 20; at most 100). */
const LIMIT = intArg("limit", 20, 1, 100);
const KEEP = flag("keep");
const PG_URL = postgresUrlOption();

// Quiet the "[migrate] …" info lines unless a level is set (the cached environment is what lib/log reads).
if (!process.env.AGENTRY_LOG_LEVEL) readEnv().AGENTRY_LOG_LEVEL = "warn";

/** Targets (issue 32). */
const TARGET_WARM_P50 = 1.05;
const TARGET_FIRST_RUN_P50 = 1.5;
const TARGET_LIST_P99_MS = 20;

// ---------------------------------------------------------------------------------------------
// Statistics and formatting
// ---------------------------------------------------------------------------------------------

const statsRow = (name: string, s: Stats) => [name, String(s.n), ms(s.mean), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
const STATS_HEADERS = ["series", "n", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"];

/** Every target checked, for the summary. */
const checks: { line: string; pass: boolean }[] = [];

// ---------------------------------------------------------------------------------------------
// Callers: JWT bearer tokens (HS256) for an admin and for members
// ---------------------------------------------------------------------------------------------

const JWT_SECRET = "bench-studio-secret-of-a-sufficient-length-0123456789";
const ADMIN_SUB = "bench-admin@bench.test";
/** The member the list phase reads as (owns ~1% of the rows). */
const MEMBER_SUB = "member-007@bench.test";
const MEMBERS = 100;
const memberSub = (i: number) => `member-${String(i).padStart(3, "0")}@bench.test`;
/** What a dashboard member holds, and the Studio scopes (members gain them with issue 32). */
const MEMBER_TOKEN_SCOPES = [...new Set([...MEMBER_SCOPES, "components:read", "components:write", "components:delete", "registry:read"])];

const ADMIN_PRINCIPAL: Principal = { kind: "admin", userId: ADMIN_SUB, scopes: ["agent_os:admin"], authenticatedBy: "jwt", isAdmin: true, isolated: false };
const MEMBER_PRINCIPAL: Principal = { kind: "user", userId: MEMBER_SUB, scopes: MEMBER_TOKEN_SCOPES, authenticatedBy: "jwt", isAdmin: false, isolated: true };

async function mint(sub: string, scopes: readonly string[]): Promise<string> {
  return new SignJWT({ scopes: [...scopes] }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuedAt().setExpirationTime("6h").sign(new TextEncoder().encode(JWT_SECRET));
}

// ---------------------------------------------------------------------------------------------
// The agent: in code, and as a component with the same model and instructions
// ---------------------------------------------------------------------------------------------

const CODE_AGENT_ID = "bench-code-agent";
const AGENT_NAME = "Bench Studio Agent";
/** The instructions of the code-defined agent and of the component's version 1; version n says `V<n>`. */
const instructionsOf = (version: number) => ["Be concise and accurate.", "Say so when you do not know.", `Bench marker V${version}.`];
const USER_MESSAGE = "Which version of the agent is answering?";
const answerOf = (version: number) => `Version V${version} is answering.`;
const MARKER = /Bench marker V(\d+)\./;

/** The scripted model: echoes the marker in the system prompt (which version's instructions the run used). */
function respond(body: ChatCompletionRequest): ScriptStep {
  const system = body.messages
    .filter((m) => m.role === "system")
    .map((m) => messageText(m))
    .join("\n");
  const marker = MARKER.exec(system);
  if (!marker) throw new Error(`the scripted model found no version marker in the system prompt: ${system.slice(0, 300)}`);
  return { text: answerOf(Number(marker[1])), usage: { prompt_tokens: 96, completion_tokens: 9 } };
}

function codeAgent(model: ModelServer): AgentDefinition {
  return {
    id: CODE_AGENT_ID,
    name: AGENT_NAME,
    model: { provider: "openai-compatible", id: "scripted", baseUrl: model.url, apiKey: "x" },
    instructions: instructionsOf(1),
  };
}

/** The component's config (Agno's Agent.to_dict() shape): the model names the registry's scripted model. */
const componentConfig = (version: number) => ({ name: AGENT_NAME, model: { provider: "openai-compatible", id: "scripted" }, instructions: instructionsOf(version) });

// ---------------------------------------------------------------------------------------------
// An Agentry app: settings, its database (migrated), the API over node:http
// ---------------------------------------------------------------------------------------------

type App = InProcessApp;

const stamp = `${process.pid}_${Date.now()}`;
const tempDir = join(tmpdir(), `agentry-bench-studio-${stamp}`);

function openApp(dialect: Dialect, label: string, model: ModelServer): Promise<App> {
  // Tracing as shipped (on both sides alike); no scheduler or metrics refresh in the background.
  return openInProcessApp({
    bench: "studio",
    dialect,
    label,
    stamp,
    tempDir,
    pgUrl: PG_URL,
    keep: KEEP,
    env: { JWT_VERIFICATION_KEY: JWT_SECRET },
    file: {
      agents: [codeAgent(model)],
      registry: { models: [{ provider: "openai-compatible", id: "scripted", baseUrl: model.url, apiKey: "x" }], environmentModel: false },
      scheduler: false,
      metrics: { dailyRefresh: false },
    },
    flushTracingOnClose: true,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = any;

async function api(app: App, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${app.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body: parsed };
}

function expectStatus(what: string, got: { status: number; body: Json }, status: number): void {
  if (got.status !== status) throw new Error(`${what}: HTTP ${got.status} (expected ${status}): ${JSON.stringify(got.body).slice(0, 500)}`);
}

// ---------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------

interface RunSample {
  ms: number;
  /** `agno_component_version` in the run's metadata, when the response carries it. */
  stampedVersion: number | null;
}

/** One non-streamed run over HTTP (fetch, keep-alive), a new session; its latency in ms (request sent → body read). */
async function timedRun(app: App, token: string, agentId: string, expectVersion: number): Promise<RunSample> {
  const t0 = performance.now();
  const response = await fetch(`${app.origin}/agents/${encodeURIComponent(agentId)}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ message: USER_MESSAGE, stream: "false" }).toString(),
  });
  const text = await response.text();
  const elapsed = performance.now() - t0;
  if (response.status !== 200 || !text.includes('"status":"COMPLETED"')) throw new Error(`POST /agents/${agentId}/runs: HTTP ${response.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { content?: unknown; metadata?: Record<string, unknown> | null };
  if (body.content !== answerOf(expectVersion)) {
    throw new Error(`POST /agents/${agentId}/runs answered ${JSON.stringify(body.content)}, expected ${JSON.stringify(answerOf(expectVersion))} (version ${expectVersion})`);
  }
  const stamped = body.metadata?.agno_component_version;
  return { ms: elapsed, stampedVersion: typeof stamped === "number" ? stamped : null };
}

async function createComponent(app: App, token: string): Promise<string> {
  const created = await api(app, token, "POST", "/components", { name: AGENT_NAME, component_type: "agent", config: componentConfig(1), stage: "published" });
  expectStatus("POST /components", created, 201);
  const id = created.body.component_id as string;
  if (!id || id === CODE_AGENT_ID) throw new Error(`POST /components answered the id '${id}'`);
  return id;
}

async function publish(app: App, token: string, componentId: string, version: number): Promise<{ version: number; ms: number }> {
  const t0 = performance.now();
  const draft = await api(app, token, "POST", `/components/${componentId}/configs`, { config: componentConfig(version) });
  expectStatus(`POST /components/${componentId}/configs`, draft, 201);
  const v = draft.body.version as number;
  if (v !== version) throw new Error(`POST /components/${componentId}/configs made version ${v}, expected ${version}`);
  const published = await api(app, token, "PATCH", `/components/${componentId}/configs/${v}`, { stage: "published" });
  expectStatus(`PATCH /components/${componentId}/configs/${v}`, published, 200);
  return { version: v, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------------------------------------
// 1. Warm runs: the component against the code-defined agent, alternating blocks
// ---------------------------------------------------------------------------------------------

async function warmPhase(app: App, admin: string, componentId: string) {
  process.stderr.write(`  … warm runs (${app.dialect}): ${WARMUP} warm-up runs per side, then ${ROUNDS} rounds of ${BLOCK} + ${BLOCK} (ABBA)\n`);
  for (let i = 0; i < WARMUP; i++) {
    await timedRun(app, admin, CODE_AGENT_ID, 1);
    await timedRun(app, admin, componentId, 1);
  }
  const code: number[] = [];
  const component: number[] = [];
  /** Per round: the component block's mean ÷ the code block's (the two ran back to back). */
  const paired: number[] = [];
  let stamped = 0;
  const l0 = loadavg();
  const wall0 = performance.now();
  for (let r = 0; r < ROUNDS && !interrupted(); r++) {
    const round = { code: 0, component: 0 };
    for (const side of r % 2 === 0 ? (["code", "component"] as const) : (["component", "code"] as const)) {
      for (let i = 0; i < BLOCK; i++) {
        if (side === "code") {
          const t = (await timedRun(app, admin, CODE_AGENT_ID, 1)).ms;
          code.push(t);
          round.code += t;
        } else {
          const run = await timedRun(app, admin, componentId, 1);
          if (run.stampedVersion === 1) stamped++;
          component.push(run.ms);
          round.component += run.ms;
        }
      }
    }
    paired.push(round.component / round.code);
  }
  const wallSeconds = (performance.now() - wall0) / 1000;
  const l1 = loadavg();
  // The one statement a component's run makes beyond the code-defined agent's: the version check (lib/components/source.ts), timed bare.
  const head: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await unsafeComponentHead(app.db, componentId);
    head.push(performance.now() - t0);
  }
  const headStats = stats(head);
  const codeStats = stats(code);
  const compStats = stats(component);
  const result = {
    runsEach: code.length,
    code: codeStats,
    component: compStats,
    ratioP50: compStats.p50 / codeStats.p50,
    ratioP99: compStats.p99 / codeStats.p99,
    ratioMean: compStats.mean / codeStats.mean,
    pairedRatioMedian: percentile(paired, 50),
    versionCheck: headStats,
    stampedVersion1: stamped,
    wallSeconds,
    loadAverage: { start: l0, end: l1 },
    pass: compStats.p50 / codeStats.p50 <= TARGET_WARM_P50,
    samples: { code, component },
  };
  console.log("");
  console.log(`Warm runs — ${app.dialect} (${app.where})`);
  console.log(
    `  POST /agents/{id}/runs stream=false over HTTP as an admin (JWT), a new session each; '${CODE_AGENT_ID}' (code) vs '${componentId}' (published component, version 1), same model and instructions`,
  );
  console.log(`  ${ROUNDS} rounds of ${BLOCK} run${BLOCK === 1 ? "" : "s"} per side, the order alternating (ABBA), after ${WARMUP} warm-up runs each`);
  console.log(table(STATS_HEADERS, [statsRow("defined in code", codeStats), statsRow("component", compStats)]));
  console.log(
    `  component / code p50: ${ratio(result.ratioP50)}  ${verdict(result.pass)} (target <= ${TARGET_WARM_P50}x); ${signed(compStats.p50 - codeStats.p50)} ms; ` +
      `p99 ${ratio(result.ratioP99)}, mean ${ratio(result.ratioMean)}; median of the ${paired.length} back-to-back pairs' ratios ${ratio(result.pairedRatioMedian)}`,
  );
  console.log(
    `  the version check a component's run makes (unsafeComponentHead: one primary-key read), bare on the app's connection: p50 ${ms(headStats.p50)} ms, p99 ${ms(headStats.p99)} ms (${headStats.n} reads)`,
  );
  console.log(`  runs stamped agno_component_version 1: ${stamped} of ${component.length}; ${wallSeconds.toFixed(1)} s; load average ${load(l0)} -> ${load(l1)}`);
  checks.push({
    line: `warm ${app.dialect}: component / code p50 ${ratio(result.ratioP50)} (target <= ${TARGET_WARM_P50}x; ${ms(compStats.p50)} / ${ms(codeStats.p50)} ms), p99 ${ratio(result.ratioP99)}, paired median ${ratio(result.pairedRatioMedian)}; version check bare p50 ${ms(headStats.p50)} ms`,
    pass: result.pass,
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// 2. The first run after each of N publishes
// ---------------------------------------------------------------------------------------------

async function publishPhase(app: App, admin: string, componentId: string, firstVersion: number, warmCodeP50: number | null) {
  process.stderr.write(`  … first run after a publish (${app.dialect}): ${PUBLISHES} publishes\n`);
  const first: number[] = [];
  const second: number[] = [];
  const code: number[] = [];
  const publishMs: number[] = [];
  let stamped = 0;
  const l0 = loadavg();
  for (let i = 0; i < PUBLISHES && !interrupted(); i++) {
    const version = firstVersion + i;
    const p = await publish(app, admin, componentId, version);
    publishMs.push(p.ms);
    // The component's first run on the new version, and the code-defined agent's run beside it, in alternating order.
    if (i % 2 === 0) {
      const run = await timedRun(app, admin, componentId, version);
      first.push(run.ms);
      if (run.stampedVersion === version) stamped++;
      code.push((await timedRun(app, admin, CODE_AGENT_ID, 1)).ms);
    } else {
      code.push((await timedRun(app, admin, CODE_AGENT_ID, 1)).ms);
      const run = await timedRun(app, admin, componentId, version);
      first.push(run.ms);
      if (run.stampedVersion === version) stamped++;
    }
    // The second run on that version (its build is kept): what every later run costs.
    second.push((await timedRun(app, admin, componentId, version)).ms);
  }
  const l1 = loadavg();
  const firstStats = stats(first);
  const secondStats = stats(second);
  const codeStats = stats(code);
  const publishStats = stats(publishMs);
  const result = {
    publishes: first.length,
    firstRun: firstStats,
    secondRun: secondStats,
    code: codeStats,
    publish: publishStats,
    ratioP50: firstStats.p50 / codeStats.p50,
    ratioP50VsWarmCode: warmCodeP50 === null ? null : firstStats.p50 / warmCodeP50,
    secondRatioP50: secondStats.p50 / codeStats.p50,
    /** Median over the publishes of (first run ÷ the code-defined run beside it). */
    pairedRatioMedian: percentile(
      first.map((f, i) => f / code[i]),
      50,
    ),
    stampedNewVersion: stamped,
    loadAverage: { start: l0, end: l1 },
    pass: firstStats.p50 / codeStats.p50 <= TARGET_FIRST_RUN_P50,
    samples: { first, second, code, publish: publishMs },
  };
  console.log("");
  console.log(`First run after a publish — ${app.dialect}`);
  console.log(
    `  ${first.length} times: POST /components/${componentId}/configs + PATCH …/configs/{v} {stage: "published"}, then the component's first run on v ` +
      `(answer checked to come from v) and a run of '${CODE_AGENT_ID}' beside it (order alternating), then a second run on v`,
  );
  console.log(
    table(STATS_HEADERS, [
      statsRow("first run on the new version", firstStats),
      statsRow("second run on it", secondStats),
      statsRow("defined in code, beside them", codeStats),
      statsRow("the publish (two requests)", publishStats),
    ]),
  );
  console.log(
    `  first run / code p50: ${ratio(result.ratioP50)}  ${verdict(result.pass)} (target <= ${TARGET_FIRST_RUN_P50}x); ${signed(firstStats.p50 - codeStats.p50)} ms` +
      (result.ratioP50VsWarmCode === null ? "" : `; against the warm series' code p50 (${ms(warmCodeP50!)} ms): ${ratio(result.ratioP50VsWarmCode)}`),
  );
  console.log(
    `  median of the ${first.length} pairs' ratios (first run / the code-defined run beside it) ${ratio(result.pairedRatioMedian)}; ` +
      `second run / code p50: ${ratio(result.secondRatioP50)}; first - second p50 ${signed(firstStats.p50 - secondStats.p50)} ms (the new version's load and build); ` +
      `runs stamped with the new version: ${stamped} of ${first.length}; load average ${load(l0)} -> ${load(l1)}`,
  );
  checks.push({
    line: `first run after publish ${app.dialect}: p50 / code p50 ${ratio(result.ratioP50)} (target <= ${TARGET_FIRST_RUN_P50}x)${
      result.ratioP50VsWarmCode === null ? "" : `, / warm code p50 ${ratio(result.ratioP50VsWarmCode)}`
    }`,
    pass: result.pass,
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// 3. GET /components at 10,000 components: seeding
// ---------------------------------------------------------------------------------------------

const NAMES = ["Support Bot", "Researcher", "SQL Analyst", "Writer", "Planner", "Travel Agent", "Billing Helper", "Code Reviewer", "Translator", "Summarizer", "Triage", "Tutor"];
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");

interface SeedRow {
  component_id: string;
  component_type: "agent" | "team" | "workflow";
  name: string;
  user_id: string | null;
  description: string;
  current_version: number | null;
  metadata: Record<string, unknown> | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  config: Record<string, unknown>;
}

/**
 * The rows: 5% owner-less, 5% the admin's, the rest spread over 100 members (~90 each, under the
 * 100-per-member limit); 60% agents, 25% teams, 15% workflows; 70% published (version 1 current),
 * the rest draft-only; 3% archived; created over the last 90 days. Member ids are minted as the API
 * mints them (the name's slug and 8 hex digits of the owner's digest).
 */
function seedRows(count: number): SeedRow[] {
  const random = prng(32);
  const now = Math.floor(Date.now() / 1000);
  const rows: SeedRow[] = [];
  const taken = new Set<number>();
  for (let i = 0; i < count; i++) {
    const r = random();
    const type = r < 0.6 ? "agent" : r < 0.85 ? "team" : "workflow";
    const o = random();
    const owner = o < 0.05 ? null : o < 0.1 ? ADMIN_SUB : memberSub(Math.floor(random() * MEMBERS));
    const name = `${NAMES[i % NAMES.length]} ${i}`;
    const digest = owner && owner !== ADMIN_SUB ? `-${createHash("sha256").update(owner).digest("hex").slice(0, 8)}` : "";
    const published = random() < 0.7;
    // Unique creation times, so the page order (created_at DESC, then id) is the same in every collation.
    let createdAt = now - Math.floor(random() * 90 * 86_400);
    while (taken.has(createdAt)) createdAt--;
    taken.add(createdAt);
    const archived = random() < 0.03;
    const config =
      type === "agent"
        ? { name, model: { provider: "openai-compatible", id: "scripted" }, instructions: instructionsOf(1), description: `The ${name} agent.`, markdown: true }
        : type === "team"
          ? { name, mode: "coordinate", members: [{ type: "agent", agent_id: CODE_AGENT_ID }], instructions: ["Delegate to the right member."] }
          : { name, steps: [{ type: "Step", name: "answer", agent_id: CODE_AGENT_ID }] };
    rows.push({
      component_id: `${slug(name)}${digest}`,
      component_type: type,
      name,
      user_id: owner,
      description: `The ${name} ${type}.`,
      current_version: published ? 1 : null,
      metadata: i % 4 === 0 ? { team: "ops", seeded: true } : null,
      created_at: createdAt,
      updated_at: createdAt + Math.floor(random() * 3600),
      deleted_at: archived ? createdAt + 7200 : null,
      config,
    });
  }
  return rows;
}

/** Bulk inserts: multi-row INSERTs of 200 rows, all in one transaction (lib/db/sql.ts's batch). */
async function insertRows(db: Db, rows: SeedRow[]): Promise<number> {
  const t0 = performance.now();
  const statements: { text: string; params: unknown[] }[] = [];
  for (let lo = 0; lo < rows.length; lo += 200) {
    const chunk = rows.slice(lo, lo + 200);
    statements.push({
      text: `INSERT INTO agno_components (component_id, component_type, name, user_id, description, current_version, metadata, created_at, updated_at, deleted_at) VALUES ${chunk
        .map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .join(", ")}`,
      params: chunk.flatMap((r) => [r.component_id, r.component_type, r.name, r.user_id, r.description, r.current_version, r.metadata, r.created_at, r.updated_at, r.deleted_at]),
    });
    statements.push({
      text: `INSERT INTO agno_component_configs (component_id, version, label, stage, config, notes, created_at, updated_at) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      params: chunk.flatMap((r) => [r.component_id, 1, null, r.current_version === null ? "draft" : "published", r.config, null, r.created_at, r.updated_at]),
    });
  }
  await db.sql.batch(statements);
  if (db.dialect === "postgres") await db.sql.exec("ANALYZE agno_components, agno_component_configs");
  return (performance.now() - t0) / 1000;
}

/** What a list should answer, from the seed: rows the caller sees, newest first (ties by id). */
function expectedList(rows: SeedRow[], viewer: string | null, type: string | undefined): SeedRow[] {
  return rows
    .filter((r) => r.deleted_at === null && (type === undefined || r.component_type === type))
    .filter((r) => viewer === null || r.user_id === viewer || r.user_id === null || r.current_version !== null)
    .sort((a, b) => b.created_at - a.created_at || (a.component_id < b.component_id ? -1 : a.component_id > b.component_id ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// 3. GET /components at 10,000 components: the cases and their timing
// ---------------------------------------------------------------------------------------------

interface ListCase {
  label: string;
  path: string;
  token: string;
  /** The store's statements for this page (recorded from listComponents), run bare as the SQL baseline. */
  statements: PlannedStatement[];
  expected: { total: number; firstId: string | undefined; lastId: string | undefined; count: number };
  samples: { app: number[]; sql: number[]; health: number[]; statements: number[][] };
}

async function listPhase(dialect: Dialect, model: ModelServer) {
  const app = await openApp(dialect, "list", model);
  const adminToken = await mint(ADMIN_SUB, ["agent_os:admin"]);
  const memberToken = await mint(MEMBER_SUB, MEMBER_TOKEN_SCOPES);
  let pool: pg.Pool | null = null;
  try {
    console.log("");
    console.log(`GET /components at ${int(COMPONENTS)} components — ${dialect} (${app.where})`);
    process.stderr.write(`  … seeding ${int(COMPONENTS)} components (${dialect})\n`);
    const rows = seedRows(COMPONENTS);
    const seconds = await insertRows(app.db, rows);
    const live = rows.filter((r) => r.deleted_at === null);
    const own = rows.filter((r) => r.user_id === MEMBER_SUB).length;
    console.log(
      `  seeded in ${seconds.toFixed(1)} s (multi-row INSERTs in one transaction${dialect === "postgres" ? ", then ANALYZE" : "; no ANALYZE: Agentry never runs it on SQLite"}): ` +
        `${int(rows.filter((r) => r.component_type === "agent").length)} agents, ${int(rows.filter((r) => r.component_type === "team").length)} teams, ` +
        `${int(rows.filter((r) => r.component_type === "workflow").length)} workflows; ${int(rows.filter((r) => r.current_version !== null).length)} published, ` +
        `${int(rows.length - live.length)} archived; ${MEMBERS} members (~${Math.round(rows.filter((r) => r.user_id?.startsWith("member-")).length / MEMBERS)} rows each), ` +
        `${int(rows.filter((r) => r.user_id === null).length)} owner-less, ${int(rows.filter((r) => r.user_id === ADMIN_SUB).length)} the admin's; the member ${MEMBER_SUB} owns ${own}`,
    );

    const adminCaller = storeCaller(ADMIN_PRINCIPAL, app.settings);
    const memberCaller = storeCaller(MEMBER_PRINCIPAL, app.settings);
    const recorder = recording(app.db);
    const makeCase = async (label: string, who: "admin" | "member", type: "agent" | undefined, page: "first" | "last"): Promise<ListCase> => {
      const viewer = who === "admin" ? null : MEMBER_SUB;
      const all = expectedList(rows, viewer, type);
      const pageNo = page === "first" ? 1 : Math.max(1, Math.ceil(all.length / LIMIT));
      const slice = all.slice((pageNo - 1) * LIMIT, pageNo * LIMIT);
      recorder.take();
      const got = await listComponents(recorder.db, app.settings, who === "admin" ? adminCaller : memberCaller, { componentType: type, page: pageNo, limit: LIMIT, includeDeleted: false });
      const statements = recorder.take();
      if (got.total !== all.length || got.data[0]?.component_id !== slice[0]?.component_id || got.data.at(-1)?.component_id !== slice.at(-1)?.component_id) {
        throw new Error(
          `${label}: listComponents answered ${got.data.length} of ${got.total} (${got.data[0]?.component_id}…), the seed says ${slice.length} of ${all.length} (${slice[0]?.component_id}…)`,
        );
      }
      const query = new URLSearchParams({ ...(type ? { component_type: type } : {}), page: String(pageNo), limit: String(LIMIT) });
      return {
        label: `${who}, ${type ? "component_type=agent" : "all types"}, page ${pageNo}${page === "last" ? " (last)" : ""}`,
        path: `/components?${query}`,
        token: who === "admin" ? adminToken : memberToken,
        statements,
        expected: { total: all.length, firstId: slice[0]?.component_id, lastId: slice.at(-1)?.component_id, count: slice.length },
        samples: { app: [], sql: [], health: [], statements: statements.map(() => []) },
      };
    };
    const cases: ListCase[] = [
      await makeCase("admin all p1", "admin", undefined, "first"),
      await makeCase("admin agent p1", "admin", "agent", "first"),
      await makeCase("admin agent last", "admin", "agent", "last"),
      await makeCase("member all p1", "member", undefined, "first"),
      await makeCase("member agent p1", "member", "agent", "first"),
      await makeCase("member agent last", "member", "agent", "last"),
    ];

    const callApp = async (c: ListCase) => {
      const t0 = performance.now();
      const response = await fetch(`${app.origin}${c.path}`, { headers: { authorization: `Bearer ${c.token}` } });
      const text = await response.text();
      const elapsed = performance.now() - t0;
      if (response.status !== 200) throw new Error(`GET ${c.path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
      return { elapsed, text };
    };
    /** The store's statements one after another, as it runs them; each one's time is kept too (measured rounds only). */
    const callSql = async (c: ListCase, keep: boolean) => {
      const t0 = performance.now();
      for (const [i, s] of c.statements.entries()) {
        const s0 = performance.now();
        await app.db.sql.query(s.text, s.params);
        if (keep) c.samples.statements[i].push(performance.now() - s0);
      }
      return performance.now() - t0;
    };
    const callHealth = async () => {
      const t0 = performance.now();
      const response = await fetch(`${app.origin}/health`);
      await response.text();
      if (response.status !== 200) throw new Error(`GET /health: HTTP ${response.status}`);
      return performance.now() - t0;
    };

    // The route answers what the seed says, before anything is timed.
    for (const c of cases) {
      const body = JSON.parse((await callApp(c)).text) as { data: { component_id: string }[]; meta: { total_count: number } };
      const ids = body.data.map((d) => d.component_id);
      if (body.meta.total_count !== c.expected.total || ids.length !== c.expected.count || ids[0] !== c.expected.firstId || ids.at(-1) !== c.expected.lastId) {
        throw new Error(
          `GET ${c.path}: ${ids.length} of ${body.meta.total_count} (${ids[0]}…${ids.at(-1)}), expected ${c.expected.count} of ${c.expected.total} (${c.expected.firstId}…${c.expected.lastId})`,
        );
      }
    }

    process.stderr.write(`  … ${cases.length} cases x (${READ_WARMUP} warm-up + ${ITERATIONS} measured) x (route, SQL, /health)\n`);
    const l0 = loadavg();
    for (let round = 0; round < READ_WARMUP + ITERATIONS && !interrupted(); round++) {
      const order = round % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) {
        const sides = round % 2 === 0 ? (["app", "sql", "health"] as const) : (["health", "sql", "app"] as const);
        const t: Record<string, number> = {};
        for (const side of sides) t[side] = side === "app" ? (await callApp(c)).elapsed : side === "sql" ? await callSql(c, round >= READ_WARMUP) : await callHealth();
        if (round >= READ_WARMUP) {
          c.samples.app.push(t.app);
          c.samples.sql.push(t.sql);
          c.samples.health.push(t.health);
        }
      }
    }
    const l1 = loadavg();

    const results = cases.map((c) => {
      const appStats = stats(c.samples.app);
      const sqlStats = stats(c.samples.sql);
      const healthStats = stats(c.samples.health);
      return { c, appStats, sqlStats, healthStats, pass: appStats.p99 <= TARGET_LIST_P99_MS };
    });
    console.log(`  ${ITERATIONS} requests per case and side (after ${READ_WARMUP} warm-up), route, SQL and /health alternating; ms; limit ${LIMIT}`);
    console.log(
      table(
        ["case", "rows seen", "route p50", "route p99", "SQL p50", "SQL p99", "/health p50", "/health p99", "route-SQL p50", "÷ SQL p50", "÷ /health p99", `p99 <= ${TARGET_LIST_P99_MS} ms`],
        results.map(({ c, appStats, sqlStats, healthStats, pass }) => [
          c.label,
          int(c.expected.total),
          ms(appStats.p50),
          ms(appStats.p99),
          ms(sqlStats.p50),
          ms(sqlStats.p99),
          ms(healthStats.p50),
          ms(healthStats.p99),
          ms(appStats.p50 - sqlStats.p50),
          ratio(appStats.p50 / sqlStats.p50),
          ratio(appStats.p99 / healthStats.p99),
          verdict(pass),
        ]),
      ),
    );
    console.log(
      `  route: GET over HTTP with a JWT (admin: agent_os:admin; member: the dashboard member's scopes + components:*), body read; ` +
        `SQL: the store's ${cases[0].statements.length} statements for that page run directly on the app's connection (no HTTP, auth, validation or JSON); /health: the same server's public health route (no auth, no database)`,
    );
    console.log(`  load average ${load(l0)} -> ${load(l1)}`);
    for (const { c, appStats, sqlStats, healthStats, pass } of results) {
      checks.push({
        line: `list ${dialect} ${c.label}: p99 ${ms(appStats.p99)} ms (target <= ${TARGET_LIST_P99_MS} ms), p50 ${ms(appStats.p50)} ms; ÷ SQL p50 ${ratio(appStats.p50 / sqlStats.p50)}, ÷ /health p99 ${ratio(appStats.p99 / healthStats.p99)}`,
        pass,
      });
    }

    // ---- plans ----------------------------------------------------------------------------------
    console.log("");
    const plans: Record<string, unknown>[] = [];
    if (dialect === "postgres") pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${app.pgSchema},public`, max: 1 });
    console.log(
      dialect === "postgres"
        ? "  Query plans of the store's statements — EXPLAIN (ANALYZE) with the parameters (custom) and the generic plan a named statement may switch to"
        : "  Query plans of the store's statements — EXPLAIN QUERY PLAN",
    );
    let n = 0;
    for (const { c, pass } of results) {
      console.log(`  ${c.label}:`);
      for (const s of c.statements) {
        const sqlText = s.text.replace(/\s+/g, " ");
        const timed = stats(c.samples.statements[c.statements.indexOf(s)]);
        console.log(`     [run bare: p50 ${ms(timed.p50)} ms, p99 ${ms(timed.p99)} ms] ${sqlText.slice(0, 200)}${sqlText.length > 200 ? "…" : ""}`);
        let lines: string[];
        if (pool) {
          const planned = await postgresPlans(pool, s, `bench_studio_plan_${n++}`, { agno_components: COMPONENTS });
          lines = planned.map(
            (p) =>
              `${p.kind.padEnd(7)} ${p.executionMs === null ? "" : `${ms(p.executionMs)} ms: `}${p.scans.map((x) => `${x.node}${x.index ? ` ${x.index}` : ""} on ${x.relation}${x.rowsRead === null ? "" : ` (${int(x.rowsRead)} rows read)`}`).join("; ")}`,
          );
        } else {
          const planRows = await app.db.sql.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.text}`, s.params);
          lines = planRows.map((r) => `sqlite  ${r.detail}`);
        }
        for (const l of lines) console.log(`       ${l}`);
        let full: string | null = null;
        if (!pass) {
          full = pool
            ? (await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${toPostgresPlaceholders(s.text)}`, [...s.params])).rows.map((r) => String(r["QUERY PLAN"])).join("\n")
            : (await app.db.sql.query<{ id: number; parent: number; detail: string }>(`EXPLAIN QUERY PLAN ${s.text}`, s.params)).map((r) => `${r.id} ${r.parent} ${r.detail}`).join("\n");
          console.log(`       over the target — full plan (params ${JSON.stringify(s.params).slice(0, 200)}):`);
          for (const l of full.split("\n")) console.log(`         ${l}`);
        }
        plans.push({ case: c.label, sql: s.text, params: s.params, bare: timed, plan: lines, full });
      }
    }
    return {
      dialect,
      where: app.where,
      components: COMPONENTS,
      seedSeconds: seconds,
      limit: LIMIT,
      loadAverage: { start: l0, end: l1 },
      cases: results.map(({ c, appStats, sqlStats, healthStats, pass }) => ({
        label: c.label,
        path: c.path,
        rowsSeen: c.expected.total,
        route: appStats,
        sql: sqlStats,
        health: healthStats,
        pass,
        samples: c.samples,
      })),
      plans,
    };
  } finally {
    await pool?.end().catch(() => undefined);
    await app.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function runsPhases(dialect: Dialect, model: ModelServer) {
  const app = await openApp(dialect, "runs", model);
  try {
    const admin = await mint(ADMIN_SUB, ["agent_os:admin"]);
    const componentId = await createComponent(app, admin);
    // The component's very first run (built on first use) and the code agent's: reported, not judged.
    const coldCode = (await timedRun(app, admin, CODE_AGENT_ID, 1)).ms;
    const coldComponent = (await timedRun(app, admin, componentId, 1)).ms;
    console.log("");
    console.log(`  ${dialect}: component '${componentId}' created (version 1, published); first runs in the fresh process: code ${ms(coldCode)} ms, component ${ms(coldComponent)} ms`);
    const warm = PHASES.includes("runs") ? await warmPhase(app, admin, componentId) : null;
    const published = PHASES.includes("publish") && !interrupted() ? await publishPhase(app, admin, componentId, 2, warm?.code.p50 ?? null) : null;
    return { componentId, cold: { code: coldCode, component: coldComponent }, warm, published };
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const model = await startModelServer({ respond });
  cleanups.push(() => model.close());
  removeOnCleanup(tempDir, KEEP);
  cleanUpOnSignals();

  const commit = git("rev-parse", "--short", "HEAD") || "unknown";
  const changed = git("status", "--porcelain", "--", "lib/components", "lib/db/components", "lib/http/routes", "lib/runtime", "lib/migrations").split("\n").filter(Boolean).length;
  const load0 = loadavg();
  console.log("Studio benchmark (issue 32)");
  console.log(`  code     : commit ${commit}${changed > 0 ? ` + ${changed} changed files in the working tree (lib/components, lib/db/components, lib/http/routes, lib/runtime, lib/migrations)` : ""}`);
  console.log(machineLine(load0));
  console.log(`  server   : the API on node:http in this process (lib/http/node-server.ts), JWT auth (HS256); the scripted model (e2e/fixtures/model-server.ts) in this process`);
  console.log(`  databases: SQLite in ${tempDir}; PostgreSQL ${PG_URL.replace(/:[^:@/]*@/, ":***@")} in schemas bench_studio_*_${stamp} (dropped at the end${KEEP ? " unless --keep" : ""})`);

  const results: Record<string, unknown>[] = [];
  try {
    for (const dialect of DIALECTS) {
      if (interrupted()) break;
      const runs = PHASES.includes("runs") || PHASES.includes("publish") ? await runsPhases(dialect, model) : null;
      model.reset();
      const list = PHASES.includes("list") && !interrupted() ? await listPhase(dialect, model) : null;
      results.push({ dialect, runs, list });
    }
    const load1 = loadavg();

    console.log("");
    console.log("Summary");
    for (const c of checks) console.log(`  ${verdict(c.pass)} ${c.line}`);
    const failed = checks.filter((c) => !c.pass);
    console.log(`  load average ${load(load0)} -> ${load(load1)}; total ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
    console.log(`  overall: ${verdict(failed.length === 0)}`);

    writeResults("studio", {
      benchmark: "studio",
      startedAt: startedAt.toISOString(),
      code: { commit, changedFiles: changed },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, loadAverageStart: load0, loadAverageEnd: load1 },
      options: {
        dialects: DIALECTS,
        phases: PHASES,
        rounds: ROUNDS,
        block: BLOCK,
        warmup: WARMUP,
        publishes: PUBLISHES,
        components: COMPONENTS,
        iterations: ITERATIONS,
        readWarmup: READ_WARMUP,
        limit: LIMIT,
      },
      targets: { warmP50Ratio: TARGET_WARM_P50, firstRunP50Ratio: TARGET_FIRST_RUN_P50, listP99Ms: TARGET_LIST_P99_MS },
      checks,
      results,
      pass: failed.length === 0,
    });
    process.exitCode = failed.length === 0 ? 0 : 1;
  } finally {
    await cleanupAll();
  }
}

runMain(main);
