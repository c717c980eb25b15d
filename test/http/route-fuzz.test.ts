import fc from "fast-check";
import { SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { upsertRun, userScope } from "@/lib/db/index.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { dispatch, notFound } from "@/lib/http/dispatch.ts";
import { ROUTES, routesFor, templateForPath } from "@/lib/http/route-table.ts";
import { DIALECTS } from "../support/databases.ts";
import { installChangeLog, takeChanges } from "../support/fuzz/change-log.ts";
import { badInputReason, describeCase, fuzzCaseArb, requestFor, type FuzzCase, type FuzzContext, type FuzzLimits } from "../support/fuzz/route-cases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Property: every route answers every input its own schemas (or the storage rules enforced at
 * the edge) reject with a 4xx carrying a JSON `detail`, and writes nothing to any domain table —
 * for every kind of caller. Cases come from the route table itself (route-cases.ts), so routes
 * added later are fuzzed without touching this file. Seeded: AGENTRY_FUZZ_SEED replays a failure
 * (or `random`), AGENTRY_FUZZ_RUNS sets the number of cases (default 20,000 per dialect).
 */

/** A fixed seed by default, so CI is reproducible; AGENTRY_FUZZ_SEED=random explores new cases. */
const SEED_SETTING = process.env.AGENTRY_FUZZ_SEED ?? "20261202";
const SEED = SEED_SETTING === "random" ? Math.floor(Math.random() * 2 ** 31) : Number(SEED_SETTING);
const RUNS = Number(process.env.AGENTRY_FUZZ_RUNS ?? 20_000);
/** Exploration: AGENTRY_FUZZ_COLLECT=1 runs every case and prints each kind of failure once, then fails. */
const COLLECT = process.env.AGENTRY_FUZZ_COLLECT === "1";
const SECRET = "route-fuzz-hs256-secret-for-tests-only-0000";
const LIMITS: FuzzLimits = { maxJsonBytes: 16 * 1024, maxFormFieldBytes: 4 * 1024, maxUploadBytes: 64 * 1024 };

const FAMILIES = ["agents", "teams", "workflows", "sessions", "memories", "config", "service_accounts", "schedules", "evals", "knowledge", "metrics", "approvals", "learnings", "traces"];
const MEMBER_SCOPES = FAMILIES.flatMap((f) => ["read", "write", "delete", "run"].map((a) => `${f}:${a}`));

const key = new TextEncoder().encode(SECRET);
const now = () => Math.floor(Date.now() / 1000);
const jwt = (claims: Record<string, unknown>, secret = key, exp = now() + 3600) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime(exp).sign(secret);

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

/**
 * `POST …/runs/{run_id}/resume` answers a run found nowhere the way Agno's resume protocol does:
 * a 200 event stream whose one event is `error` ("Run <id> not found in buffer or database").
 */
function isResumeRefusal(fuzz: FuzzCase, response: Response, text: string): boolean {
  return (
    fuzz.routeKey.endsWith("/resume") &&
    response.status === 200 &&
    (response.headers.get("content-type") ?? "").startsWith("text/event-stream") &&
    /^event: error\ndata: \{[^\n]*"event":"error"[^\n]*\}\n\n$/.test(text)
  );
}

/**
 * An admin may cancel a run before it exists (Agno records the intent for a run not registered
 * yet, so a cancel racing its submit is kept): 200, and no row is written.
 */
function isAdminCancelOfUnseenRun(fuzz: FuzzCase, response: Response): boolean {
  return fuzz.routeKey.endsWith("/cancel") && fuzz.principal === "admin" && fuzz.spoil.part === "path" && fuzz.spoil.param === "run_id" && response.status === 200;
}

async function send(fuzz: FuzzCase, ctx: FuzzContext, app: TestApp): Promise<Response> {
  const request = requestFor(fuzz, ctx);
  const template = templateForPath(new URL(request.url).pathname);
  if (!template) return notFound(request, app.settings);
  return dispatch(request, template, { settings: app.settings, routes: routesFor(template) });
}

describe.each(DIALECTS)("route fuzz on $name", (dialect) => {
  let app: TestApp;
  let db: Db;
  let ctx: FuzzContext;

  beforeAll(async () => {
    if (dialect.skipReason) return;
    // Refused input is logged as a warning (dropped form fields, for one); thousands of them are noise here.
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    app = await startTestApp({
      dialect,
      agents: [{ id: "assistant", name: "Assistant", model: null }],
      env: {
        JWT_VERIFICATION_KEY: SECRET,
        AGENTRY_QUEUE_DURABLE: "true",
        // No worker loop: nothing but the fuzzed requests may write.
        AGENTRY_EMBEDDED_WORKER: "false",
        AGENTRY_MAX_UPLOAD_BYTES: String(LIMITS.maxUploadBytes),
        AGENTRY_MAX_FORM_FIELD_BYTES: String(LIMITS.maxFormFieldBytes),
      },
      limits: { maxJsonBytes: LIMITS.maxJsonBytes },
    });
    db = await app.db();
    const tag = Math.random().toString(36).slice(2, 8);
    const userA = `fuzz-a-${tag}`;
    const credentials = {
      admin: `Bearer ${await jwt({ sub: `fuzz-admin-${tag}`, scopes: ["agent_os:admin"] })}`,
      member: `Bearer ${await jwt({ sub: userA, scopes: MEMBER_SCOPES })}`,
      scopeless: `Bearer ${await jwt({ sub: `fuzz-b-${tag}`, scopes: [] })}`,
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
      scope: userScope(userA),
      run: { runId, sessionId, runType: "agent", agentId: "assistant", status: "COMPLETED", runData: { run_id: runId, session_id: sessionId, content: "done" } },
    });
    const account = await call("POST", "/service-accounts", {
      name: `fuzz-${tag}`,
      scopes: ["sessions:read", "sessions:write", "memories:read", "memories:write", "agents:read", "agents:run"].map((scope) => ({ scope, effect: "allow" })),
      expires_in_days: 30,
    });
    credentials.service_account = `Bearer ${account.token}`;
    ctx = {
      baseUrl: "http://127.0.0.1:7777",
      limits: LIMITS,
      ids: {
        existing: { session_id: sessionId, run_id: runId, memory_id: memory.memory_id, service_account_id: account.id, job_id: runId },
        agentId: "assistant",
        dbId: app.settings.database.id,
      },
      credentials,
      forged: await forgedCredentials(),
    };
    await installChangeLog(db);
  });

  afterAll(async () => {
    await app?.close();
  });

  it.skipIf(!!dialect.skipReason)(`${RUNS} bad inputs across the route table: each a 4xx with a detail, none writes (seed ${SEED})`, { timeout: 240_000 }, async () => {
    console.log(`[route fuzz] ${dialect.name}: seed ${SEED} (replay with AGENTRY_FUZZ_SEED=${SEED}), ${RUNS} cases`);
    const statuses = new Map<number, number>();
    const reasons = new Map<string, number>();
    const routesHit = new Set<string>();
    await takeChanges(db);
    const collected = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(fuzzCaseArb(ROUTES, LIMITS), async (fuzz) => {
        const reason = await badInputReason(fuzz, ctx);
        fc.pre(reason !== null && reason !== "route");
        const response = await send(fuzz, ctx, app);
        const text = await response.text();
        const changes = await takeChanges(db);
        const what = () => `${describeCase(fuzz, ctx)} [${reason}] → ${response.status} ${text.slice(0, 300)}`;
        const fail = (kind: string, message: string) => {
          if (!COLLECT) throw new Error(`${kind}: ${message}`);
          collected.set(`${kind} ${fuzz.routeKey} ${reason} ${response.status}`, message);
        };
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (isResumeRefusal(fuzz, response, text) || isAdminCancelOfUnseenRun(fuzz, response)) {
          // Agno's protocol for these: see the two functions.
        } else if (response.status < 400 || response.status > 499) fail("not a 4xx", what());
        else if (!body || typeof body !== "object" || !("detail" in body)) fail("no JSON detail", what());
        else if (/Error\b|TypeError|RangeError|Prisma|SQLITE|syntax error/.test(JSON.stringify((body as { detail: unknown }).detail))) {
          fail("an internal error name reached the client", what());
        }
        if (changes.length > 0) fail(`wrote ${JSON.stringify(changes.slice(0, 5))}`, what());
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        routesHit.add(fuzz.routeKey);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true, maxSkipsPerRun: 1000 },
    );
    console.log(
      `[route fuzz] ${dialect.name}: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
        `routes ${routesHit.size}; reasons ${JSON.stringify(Object.fromEntries(reasons))}`,
    );
    if (collected.size > 0) throw new Error(`${collected.size} kinds of failure:\n${[...collected].map(([k, m]) => `- ${k}\n    ${m}`).join("\n")}`);
    expect(routesHit.size).toBeGreaterThan(ROUTES.filter((r) => !("public" in r.access)).length / 2);
  });
});
