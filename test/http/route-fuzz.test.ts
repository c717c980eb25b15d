import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db/open-database.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { DIALECTS } from "../support/databases.ts";
import { installChangeLog, takeChanges } from "../support/fuzz/change-log.ts";
import { FuzzFailures, fuzzRunSettings, send, startFuzzApp } from "../support/fuzz/harness.ts";
import { badInputReason, describeCase, fuzzCaseArb, requestFor, type FuzzCase, type FuzzContext, type FuzzLimits } from "../support/fuzz/route-cases.ts";
import type { TestApp } from "../support/test-app.ts";

/**
 * Property: every route answers every input its own schemas (or the storage rules enforced at
 * the edge) reject with a 4xx carrying a JSON `detail`, and writes nothing to any domain table —
 * for every kind of caller, over a database that also holds rows shaped the way Agno writes them
 * (stored-rows.ts). Cases come from the route table itself (route-cases.ts), so routes added
 * later are fuzzed without touching this file. Seeded: AGENTRY_FUZZ_SEED replays a failure (or
 * `random`), AGENTRY_FUZZ_RUNS sets the number of cases (default 20,000 per dialect),
 * AGENTRY_FUZZ_COLLECT=1 runs every case and prints each kind of failure once.
 */

const { seed: SEED, runs: RUNS, collect: COLLECT } = fuzzRunSettings({ defaultSeed: 20261202, defaultRuns: 20_000 });
const LIMITS: FuzzLimits = { maxJsonBytes: 16 * 1024, maxFormFieldBytes: 4 * 1024, maxUploadBytes: 64 * 1024 };

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

/**
 * `GET /knowledge/content/{content_id}/status` answers a content it cannot find as Agno does: 200
 * with `{status: "failed", status_message: "Content not found"}`.
 */
function isUnknownContentStatus(fuzz: FuzzCase, response: Response, body: unknown): boolean {
  return (
    fuzz.routeKey === "GET /knowledge/content/{content_id}/status" &&
    fuzz.spoil.part === "path" &&
    response.status === 200 &&
    (body as { status?: unknown; status_message?: unknown } | undefined)?.status === "failed" &&
    (body as { status_message?: unknown }).status_message === "Content not found"
  );
}

/**
 * `DELETE /learnings/users/{user_id}` deletes the learnings the user owns and answers 204 when it
 * owns none, as Agno's does: a user no row names is no refusal (and nothing is written).
 */
function isDeleteOfUserWithoutLearnings(fuzz: FuzzCase, response: Response): boolean {
  return fuzz.routeKey === "DELETE /learnings/users/{user_id}" && fuzz.spoil.part === "path" && response.status === 204;
}

describe.each(DIALECTS)("route fuzz on $name", (dialect) => {
  let app: TestApp;
  let db: Db;
  let ctx: FuzzContext;

  beforeAll(async () => {
    if (dialect.skipReason) return;
    // Refused input is logged as a warning (dropped form fields, for one); thousands of them are noise here.
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    ({ app, db, ctx } = await startFuzzApp({ dialect, agents: [{ id: "assistant", name: "Assistant", model: null }], limits: LIMITS }));
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
    const failures = new FuzzFailures(COLLECT);
    await fc.assert(
      fc.asyncProperty(fuzzCaseArb(ROUTES, LIMITS), async (fuzz) => {
        const reason = await badInputReason(fuzz, ctx);
        fc.pre(reason !== null && reason !== "route");
        const response = await send(requestFor(fuzz, ctx), app);
        const text = await response.text();
        const changes = await takeChanges(db);
        const what = () => `${describeCase(fuzz, ctx)} [${reason}] → ${response.status} ${text.slice(0, 300)}`;
        const fail = (kind: string, message: string) => failures.fail(kind, `${fuzz.routeKey} ${reason} ${response.status}`, message);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (isResumeRefusal(fuzz, response, text) || isAdminCancelOfUnseenRun(fuzz, response) || isUnknownContentStatus(fuzz, response, body) || isDeleteOfUserWithoutLearnings(fuzz, response)) {
          // Agno's protocol for these: see the four functions.
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
      `[route fuzz] ${dialect.name}: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` + `routes ${routesHit.size}; reasons ${JSON.stringify(Object.fromEntries(reasons))}`,
    );
    failures.finish();
    expect(routesHit.size).toBeGreaterThan(ROUTES.filter((r) => !("public" in r.access)).length / 2);
  });
});
