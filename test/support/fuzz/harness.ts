import { SignJWT, UnsecuredJWT } from "jose";
import { expect } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { upsertRun } from "@/lib/db/index.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { dispatch, notFound } from "@/lib/http/dispatch.ts";
import { routesFor, templateForPath } from "@/lib/http/route-table.ts";
import type { TestDialect } from "../databases.ts";
import { startTestApp, type TestApp } from "../test-app.ts";
import type { FuzzContext, FuzzLimits } from "./route-cases.ts";
import { seedAgnoShapedRows } from "./stored-rows.ts";
import { userScope } from "../scopes.ts";

/**
 * What the route fuzz suites share: the seed and case count settings, the callers (one token per
 * principal kind, and forged credentials), and the app over a database holding the members' rows
 * and rows shaped the way Agno writes them (stored-rows.ts).
 */

export interface FuzzRunSettings {
  seed: number;
  runs: number;
  /** AGENTRY_FUZZ_COLLECT=1: run every case and report each kind of failure once, at the end. */
  collect: boolean;
}

/**
 * A fixed seed by default, so CI is reproducible; AGENTRY_FUZZ_SEED replays one (or `random`
 * explores new cases); AGENTRY_FUZZ_RUNS sets the number of cases.
 */
export function fuzzRunSettings({ defaultSeed, defaultRuns }: { defaultSeed: number; defaultRuns: number }): FuzzRunSettings {
  const setting = process.env.AGENTRY_FUZZ_SEED ?? String(defaultSeed);
  return {
    seed: setting === "random" ? Math.floor(Math.random() * 2 ** 31) : Number(setting),
    runs: Number(process.env.AGENTRY_FUZZ_RUNS ?? defaultRuns),
    collect: process.env.AGENTRY_FUZZ_COLLECT === "1",
  };
}

/**
 * Failures of a property: thrown at once, or in collect mode kept (one message per kind) and
 * thrown together by `finish`.
 */
export class FuzzFailures {
  private readonly kinds = new Map<string, string>();
  constructor(private readonly collect: boolean) {}

  /** `kind` names the failure; `where` (route, status…) tells its occurrences apart when collecting. */
  fail(kind: string, where: string, message: string): void {
    if (!this.collect) throw new Error(`${kind}: ${message}`);
    this.kinds.set(`${kind} ${where}`, message);
  }

  finish(): void {
    if (this.kinds.size === 0) return;
    throw new Error(`${this.kinds.size} kinds of failure:\n${[...this.kinds].map(([k, m]) => `- ${k}\n    ${m}`).join("\n")}`);
  }
}

export const FUZZ_SECRET = "route-fuzz-hs256-secret-for-tests-only-0000";
const FAMILIES = [
  "agents",
  "teams",
  "workflows",
  "sessions",
  "memories",
  "config",
  "service_accounts",
  "schedules",
  "evals",
  "knowledge",
  "metrics",
  "approvals",
  "learnings",
  "traces",
  "registry",
  "components",
];
export const MEMBER_SCOPES = FAMILIES.flatMap((f) => ["read", "write", "delete", "run"].map((a) => `${f}:${a}`));

const key = new TextEncoder().encode(FUZZ_SECRET);
const now = () => Math.floor(Date.now() / 1000);
const jwt = (claims: Record<string, unknown>, secret = key, exp = now() + 3600) => new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime(exp).sign(secret);

async function forgedCredentials(): Promise<string[]> {
  return [
    "Bearer not-a-jwt",
    "Bearer",
    "Basic dXNlcjpwYXNz",
    `Bearer ${await jwt({ sub: "mallory", scopes: ["agent_os:admin"] }, new TextEncoder().encode("another-secret-that-is-long-enough-000"))}`,
    `Bearer ${await jwt({ sub: 42, scopes: MEMBER_SCOPES })}`,
    `Bearer ${await jwt({ sub: { id: "x" }, scopes: MEMBER_SCOPES })}`,
    `Bearer ${await jwt({ sub: ["a"], scopes: MEMBER_SCOPES })}`,
    `Bearer ${await jwt({ sub: "late", scopes: MEMBER_SCOPES }, key, now() - 3600)}`,
    `Bearer ${await jwt({ sub: "__scheduler__", scopes: MEMBER_SCOPES })}`,
    `Bearer ${await jwt({ sub: "sa:someone", scopes: MEMBER_SCOPES })}`,
    `Bearer ${new UnsecuredJWT({ sub: "root", scopes: ["agent_os:admin"] }).encode()}`,
    "Bearer agno_pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    `Bearer ${"a".repeat(9000)}`,
  ];
}

export interface FuzzApp {
  app: TestApp;
  db: Db;
  ctx: FuzzContext;
  /** The member's user id (owner of the member's rows and of the Agno-shaped ones). */
  member: string;
  /** Puts the Agno-shaped rows back as Agno wrote them (after requests changed or deleted them). */
  restoreAgnoRows(): Promise<void>;
}

/**
 * The app for a fuzz suite: JWT auth, the durable queue without a worker loop (nothing runs in
 * the background unless a case starts it), the given body caps; then the member's session, run,
 * memory and service account, and the Agno-shaped rows, whose ids the cases use as path ids.
 */
export async function startFuzzApp({ dialect, agents, limits }: { dialect: TestDialect; agents: AgentDefinition[]; limits: FuzzLimits }): Promise<FuzzApp> {
  const app = await startTestApp({
    dialect,
    agents,
    env: {
      JWT_VERIFICATION_KEY: FUZZ_SECRET,
      AGENTRY_QUEUE_DURABLE: "true",
      AGENTRY_EMBEDDED_WORKER: "false",
      AGENTRY_MAX_UPLOAD_BYTES: String(limits.maxUploadBytes),
      AGENTRY_MAX_FORM_FIELD_BYTES: String(limits.maxFormFieldBytes),
    },
    limits: { maxJsonBytes: limits.maxJsonBytes },
  });
  const db = await app.db();
  const tag = Math.random().toString(36).slice(2, 8);
  const member = `fuzz-a-${tag}`;
  const agnoRows = await seedAgnoShapedRows(db, { owner: member, tag });
  const admin = `fuzz-admin-${tag}`;
  const other = `fuzz-b-${tag}`;
  const credentials = {
    admin: `Bearer ${await jwt({ sub: admin, scopes: ["agent_os:admin"] })}`,
    member: `Bearer ${await jwt({ sub: member, scopes: MEMBER_SCOPES })}`,
    scopeless: `Bearer ${await jwt({ sub: other, scopes: [] })}`,
    no_sub: `Bearer ${await jwt({ scopes: MEMBER_SCOPES })}`,
    service_account: "",
  };
  const call = async (method: string, path: string, json: unknown) => {
    const response = await app.call(method, path, { json, headers: { authorization: credentials.member } });
    expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
    return response.json();
  };
  const sessionId = `fuzz-session-${tag}`;
  await call("POST", "/sessions?type=agent", { session_id: sessionId, session_name: "fuzz", agent_id: "assistant" });
  const memory = await call("POST", "/memories", { memory: "likes fuzzing", topics: ["tests"] });
  const runId = `fuzz-run-${tag}`;
  await upsertRun(db, {
    scope: userScope(member),
    run: { runId, sessionId, runType: "agent", agentId: "assistant", status: "COMPLETED", runData: { run_id: runId, session_id: sessionId, content: "done" } },
  });
  const newAccount = (name: string) =>
    call("POST", "/service-accounts", {
      name,
      scopes: ["sessions:read", "sessions:write", "memories:read", "memories:write", "agents:read", "agents:run"].map((scope) => ({ scope, effect: "allow" })),
      expires_in_days: 30,
    });
  const account = await newAccount(`fuzz-${tag}`);
  credentials.service_account = `Bearer ${account.token}`;
  // Studio components of the member's: a published agent (with a newer draft), a draft-only one, a team pinning the first.
  const publishedAgent = await call("POST", "/components", { name: `Fuzz helper ${tag}`, component_type: "agent", config: { instructions: "Help." }, stage: "published" });
  await call("POST", `/components/${publishedAgent.component_id}/configs`, { config: { instructions: "Help more." } });
  const draftAgent = await call("POST", "/components", { name: `Fuzz draft ${tag}`, component_type: "agent", config: { instructions: "Draft." } });
  const team = await call("POST", "/components", {
    name: `Fuzz desk ${tag}`,
    component_type: "team",
    config: {
      members: [
        { type: "agent", agent_id: publishedAgent.component_id },
        { type: "agent", agent_id: agents[0].id },
      ],
    },
    stage: "published",
  });
  // The path id cases name is another account's, so a revoke never takes the caller's token away.
  const spare = await newAccount(`fuzz-spare-${tag}`);
  const ctx: FuzzContext = {
    baseUrl: "http://127.0.0.1:7777",
    limits,
    ids: {
      existing: {
        // Parallel lists: run_id[i] is a run of session_id[i] (a case may draw both with one pick).
        session_id: [sessionId, ...agnoRows.runs.map((r) => r.sessionId)],
        run_id: [runId, ...agnoRows.runs.map((r) => r.runId)],
        memory_id: [memory.memory_id, ...agnoRows.memoryIds],
        learning_id: agnoRows.learningIds,
        // The configured agent, and the member's stored components.
        component_id: [agents[0].id, publishedAgent.component_id, draftAgent.component_id, team.component_id],
        // Parallel lists: span_id[i] is a span of trace_id[i].
        trace_id: agnoRows.traces.map((t) => t.traceId),
        span_id: agnoRows.traces.map((t) => t.spanId),
        service_account_id: [spare.id],
        job_id: [runId],
        user_id: [member, other, admin],
        // The tables a `table` query parameter may name (with `db_id`).
        table: ["agno_sessions", "agno_runs", "agno_memories", "agno_learnings"],
      },
      agentId: agents[0].id,
      dbId: app.settings.database.id,
    },
    credentials,
    forged: await forgedCredentials(),
  };
  return { app, db, ctx, member, restoreAgnoRows: async () => void (await seedAgnoShapedRows(db, { owner: member, tag })) };
}

/** Sends a request the way the server would route it (404 for a path no template serves). */
export async function send(request: Request, app: TestApp): Promise<Response> {
  const template = templateForPath(new URL(request.url).pathname);
  if (!template) return notFound(request, app.settings);
  return dispatch(request, template, { settings: app.settings, routes: routesFor(template) });
}
