import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import {
  cancelJob,
  claimJobs,
  completeJob,
  enqueueJob,
  enqueueRunJob,
  failJob,
  getRun,
  pauseJob,
  requestJobCancel,
  upsertRun,
  upsertSession,
  FRESH_FAILURE_SECONDS,
  type DataScope,
  type Db,
  type JobStatus,
} from "@/lib/db/index.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { JobListSchema, JobSchema, QueueStatsSchema } from "@/lib/http/schemas/queue.ts";
import { clearCancel, isCancelRequested, requestCancel } from "@/lib/live-runs/run-registry.ts";
import { DIALECTS, sqliteDialect, type TestDialect } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { RUN_JOBS } from "@/test/support/run-jobs.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * The /queue operations API over real databases. No worker runs (AGENTRY_EMBEDDED_WORKER=false):
 * each job is moved through its states by the data layer, claimed through a deployment id of its
 * own so a claim never takes another test's job.
 */

const AGENTS = [{ id: "assistant", name: "Assistant", model: null }];
const DURABLE = { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false" };
const DISABLED_DETAIL = "Queue not available: pass a `queue: { durable: true }` to AgentOS to enable this feature.";

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

type Json = Record<string, unknown>;

/** Calls the API: as the trusted admin of auth mode none unless a principal or headers are given. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the zod schemas
async function api(app: TestApp, method: string, path: string, init: { as?: Principal; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  const response = await app.call(method, path, { principal: init.as, headers: init.headers });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** One app (its own database) per test: claims and stats see the whole queue. */
const withApp =
  (dialect: TestDialect, fn: (app: TestApp, db: Db) => Promise<void>, env: Record<string, string> = DURABLE) =>
  async () => {
    const app = await startTestApp({ dialect, agents: AGENTS, env });
    try {
      await fn(app, await app.db());
    } finally {
      await app.close();
    }
  };

interface SeedOptions {
  /** Whose session (and so whose job): default an admin-written, owner-less session. */
  scope?: DataScope;
  /** When it was submitted (epoch seconds). */
  createdAt?: number;
  /** When a claimed job reached its status (epoch seconds). */
  settledAt?: number;
}

/**
 * A job in the given ticket status, written as the runtime would: enqueued (its run PENDING),
 * then claimed and settled through the fenced writes.
 */
async function seedJob(db: Db, status: JobStatus, { scope = adminScope(null), createdAt = nowSeconds() - 600, settledAt = createdAt + 5 }: SeedOptions = {}) {
  const session = await upsertSession(db, { scope, session: { sessionId: uid("s"), sessionType: "agent", agentId: "assistant" } });
  const runId = uid("run");
  const deploymentId = uid("dep");
  await enqueueRunJob(db, {
    scope,
    run: { runId, sessionId: session.session_id, runType: "agent", agentId: "assistant", runData: { run_id: runId, session_id: session.session_id } },
    job: { componentType: "agent", componentId: "assistant", jobType: "run", payload: { input: "hi" }, stream: false, maxAttempts: 1, deploymentId },
    now: createdAt,
  });
  if (status !== "queued") {
    const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: `worker-${deploymentId}`, limit: 1, now: createdAt + 1, leaseSeconds: 60, deploymentId });
    expect(claimed?.id).toBe(runId);
    const fence = { id: claimed.id, attempt: claimed.attempt, workerId: claimed.locked_by };
    if (status === "failed") await failJob(db, { ...fence, error: "boom", retryable: false, retryDelaySeconds: 0, now: settledAt });
    if (status === "completed") expect(await completeJob(db, { ...fence, now: settledAt })).toBe(true);
    if (status === "paused") expect(await pauseJob(db, { ...fence, now: settledAt })).toBe(true);
    if (status === "cancelled") {
      await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: runId, now: settledAt });
      expect(await cancelJob(db, { ...fence, reason: "Run cancelled by request", now: settledAt })).toBe(true);
    }
  }
  return { runId, sessionId: session.session_id };
}

/** The run row as the runtime leaves it when its job failed or was cancelled. */
async function settleRun(db: Db, seeded: { runId: string; sessionId: string }, status: "ERROR" | "CANCELLED") {
  await upsertRun(db, {
    scope: adminScope(),
    run: {
      runId: seeded.runId,
      sessionId: seeded.sessionId,
      runType: "agent",
      agentId: "assistant",
      status,
      runData: { run_id: seeded.runId, session_id: seeded.sessionId, status, error: { message: "boom" } },
    },
  });
}

describe("permissions", () => {
  it("declares agent_os:admin on every /queue route, and registers the four routes", () => {
    const declared = Object.fromEntries(
      ROUTES.filter((r) => r.path.startsWith("/queue") && !r.hidden).map((r) => [`${r.method} ${r.path}`, "permission" in r.access ? r.access.permission : "public"]),
    );
    expect(declared).toEqual({
      "GET /queue/jobs": "agent_os:admin",
      "GET /queue/jobs/{job_id}": "agent_os:admin",
      "POST /queue/jobs/{job_id}/requeue": "agent_os:admin",
      "GET /queue/stats": "agent_os:admin",
    });
  });
});

describe("durable queue off", () => {
  it(
    "answers every /queue route with Agno's 503 stub message, before validating the query",
    withApp(
      sqliteDialect,
      async (app) => {
        expect(app.settings.queue.durable).toBe(false);
        for (const [method, path] of [
          ["GET", "/queue/jobs"],
          ["GET", "/queue/jobs?status=bogus&limit=0"],
          ["GET", "/queue/jobs/some-job"],
          ["POST", "/queue/jobs/some-job/requeue?force=maybe"],
          ["GET", "/queue/stats"],
          ["GET", "/queue"],
          ["DELETE", "/queue/anything/else"],
        ] as const) {
          const res = await api(app, method, path);
          expect(res.status, `${method} ${path}`).toBe(503);
          expect(res.body).toEqual({ detail: DISABLED_DETAIL });
        }
      },
      { AGENTRY_EMBEDDED_WORKER: "false" },
    ),
  );
});

describe.each(DIALECTS)("the /queue API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    const principals = mintPrincipals();

    it(
      "lists jobs of every user with the ticket status, filtered by repeatable status",
      withApp(dialect, async (app, db) => {
        const queued = await seedJob(db, "queued", { scope: principals.scopes.a });
        const running = await seedJob(db, "running", { scope: principals.scopes.b });
        const failed = await seedJob(db, "failed", { scope: principals.scopes.a });
        const cancelled = await seedJob(db, "cancelled");
        const completed = await seedJob(db, "completed");
        const paused = await seedJob(db, "paused");

        const all = await api(app, "GET", "/queue/jobs");
        expect(all.status).toBe(200);
        const page = JobListSchema.parse(all.body);
        expect(page.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 6 });
        expect(new Map(page.data.map((j) => [j.id, j.status]))).toEqual(
          new Map<string, JobStatus>([
            [queued.runId, "queued"],
            [running.runId, "running"],
            [failed.runId, "failed"],
            [cancelled.runId, "cancelled"],
            [completed.runId, "completed"],
            [paused.runId, "paused"],
          ]),
        );
        // The admin sees every user's jobs, with the job's own fields.
        expect(page.data.find((j) => j.id === queued.runId)).toMatchObject({
          user_id: principals.userA,
          session_id: queued.sessionId,
          component_type: "agent",
          component_id: "assistant",
          job_type: "run",
          payload: { input: "hi", stream: false },
          attempt: 0,
          max_attempts: 1,
          locked_by: null,
        });
        expect(page.data.find((j) => j.id === running.runId)).toMatchObject({ user_id: principals.userB, attempt: 1, locked_by: expect.stringMatching(/^worker-/) });
        expect(page.data.find((j) => j.id === failed.runId)).toMatchObject({ error: "boom", completed_at: expect.any(Number) });

        const one = await api(app, "GET", "/queue/jobs?status=failed");
        expect(one.body.data.map((j: Json) => j.id)).toEqual([failed.runId]);
        expect(one.body.meta.total_count).toBe(1);

        const deadLetters = await api(app, "GET", "/queue/jobs?status=failed&status=cancelled");
        expect(deadLetters.body.data.map((j: Json) => j.id).sort()).toEqual([failed.runId, cancelled.runId].sort());
        expect(deadLetters.body.meta.total_count).toBe(2);

        const live = await api(app, "GET", "/queue/jobs?status=queued&status=paused&status=running&status=completed");
        expect(live.body.meta.total_count).toBe(4);
      }),
    );

    it(
      "answers an unknown status with Agno's 400 (its words), and an unknown sort field or bad page with a 422",
      withApp(dialect, async (app) => {
        const choices = "('queued', 'running', 'completed', 'failed', 'cancelled', 'paused')";
        expect(await api(app, "GET", "/queue/jobs?status=bogus")).toEqual({ status: 400, body: { detail: `Invalid status 'bogus'; expected one of ${choices}` } });
        // Repeated: the first unknown value among known ones is named.
        expect(await api(app, "GET", "/queue/jobs?status=failed&status=exploded&status=PENDING")).toEqual({
          status: 400,
          body: { detail: `Invalid status 'exploded'; expected one of ${choices}` },
        });
        expect((await api(app, "GET", "/queue/jobs?status=")).status).toBe(400);
        // Known statuses of another case are unknown too: ticket statuses are lower case.
        expect((await api(app, "GET", "/queue/jobs?status=FAILED")).status).toBe(400);

        for (const [query, field] of [
          ["sort_by=payload", "sort_by"],
          ["sort_order=sideways", "sort_order"],
          ["limit=1001", "limit"],
          ["limit=0", "limit"],
          ["page=0", "page"],
        ]) {
          const res = await api(app, "GET", `/queue/jobs?${query}`);
          expect(res.status, query).toBe(422);
          expect(res.body.detail[0].loc, query).toEqual(["query", field]);
        }
      }),
    );

    it(
      "paginates and sorts (created_at desc by default; available_at, updated_at, completed_at, status)",
      withApp(dialect, async (app, db) => {
        const base = nowSeconds() - 10_000;
        // Submitted one minute apart, oldest first; settled in the opposite order.
        const statuses: JobStatus[] = ["completed", "failed", "cancelled", "queued", "paused"];
        const ids: string[] = [];
        for (const [i, status] of statuses.entries()) {
          ids.push((await seedJob(db, status, { createdAt: base + i * 60, settledAt: base + 1000 - i * 10 })).runId);
        }
        const list = async (query: string) => {
          const res = await api(app, "GET", `/queue/jobs?${query}`);
          expect(res.status, query).toBe(200);
          return JobListSchema.parse(res.body);
        };

        expect((await list("")).data.map((j) => j.id)).toEqual([...ids].reverse());
        expect((await list("sort_order=asc")).data.map((j) => j.id)).toEqual(ids);

        const second = await list("limit=2&page=2");
        expect(second.data.map((j) => j.id)).toEqual([ids[2], ids[1]]);
        expect(second.meta).toMatchObject({ page: 2, limit: 2, total_pages: 3, total_count: 5 });
        expect((await list("limit=2&page=3")).data.map((j) => j.id)).toEqual([ids[0]]);
        expect((await list("limit=2&page=4")).data).toEqual([]);

        expect((await list("sort_by=status&sort_order=asc")).data.map((j) => j.status)).toEqual(["cancelled", "completed", "failed", "paused", "queued"]);
        // The queued job was last touched when submitted; the others settled in reverse order of submission.
        expect((await list("sort_by=updated_at&sort_order=asc")).data.map((j) => j.id)).toEqual([ids[3], ids[4], ids[2], ids[1], ids[0]]);
        // Only finished jobs have completed_at; jobs without one come last whatever the order.
        const byCompletion = (await list("sort_by=completed_at&sort_order=asc")).data.map((j) => j.id);
        expect(byCompletion.slice(0, 3)).toEqual([ids[2], ids[1], ids[0]]);
        expect(byCompletion.slice(3).sort()).toEqual([ids[3], ids[4]].sort());
        expect((await list("sort_by=available_at&sort_order=desc&limit=1")).data.map((j) => j.id)).toEqual([ids[4]]);
      }),
    );

    it(
      "gets one job, and answers 404 for an unknown one",
      withApp(dialect, async (app, db) => {
        const { runId, sessionId } = await seedJob(db, "paused", { scope: principals.scopes.a });
        const res = await api(app, "GET", `/queue/jobs/${runId}`);
        expect(res.status).toBe(200);
        expect(JobSchema.parse(res.body)).toMatchObject({ id: runId, session_id: sessionId, status: "paused", user_id: principals.userA, attempt: 1 });

        const missing = await api(app, "GET", "/queue/jobs/no-such-job");
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ detail: "Job queue job no-such-job not found" });
        // Requeue answers an unknown job as Agno does: a 400, not a 404.
        expect(await api(app, "POST", "/queue/jobs/no-such-job/requeue?force=true")).toEqual({ status: 400, body: { detail: "Job no-such-job not found or not in a requeueable state" } });
        // Unknown sub-paths of an enabled queue are plain 404s.
        expect((await api(app, "GET", "/queue/nothing-here")).status).toBe(404);
      }),
    );

    it(
      "requeues only failed jobs: queued, running and completed are Agno's 400, a fresh failure Agno's 409 without force, the run goes back to PENDING",
      withApp(dialect, async (app, db) => {
        const queued = await seedJob(db, "queued");
        const running = await seedJob(db, "running");
        const completed = await seedJob(db, "completed");
        for (const { runId } of [queued, running, completed]) {
          const res = await api(app, "POST", `/queue/jobs/${runId}/requeue?force=true`);
          expect(res, runId).toEqual({ status: 400, body: { detail: `Job ${runId} not found or not in a requeueable state` } });
        }

        const fresh = await seedJob(db, "failed", { settledAt: nowSeconds() });
        await settleRun(db, fresh, "ERROR");
        const refused = await api(app, "POST", `/queue/jobs/${fresh.runId}/requeue`);
        expect(refused).toEqual({
          status: 409,
          body: {
            detail: `Job ${fresh.runId} failed within the last ${FRESH_FAILURE_SECONDS}s and its worker may still be executing (a sweep proves lost heartbeats, not stopped execution). Retry after the lock grace elapses, or pass force=true to override.`,
          },
        });
        expect((await getRun(db, { scope: adminScope(), runId: fresh.runId }))?.status).toBe("ERROR");

        const forced = await api(app, "POST", `/queue/jobs/${fresh.runId}/requeue?force=true`);
        expect(forced.status).toBe(200);
        expect(JobSchema.parse(forced.body)).toMatchObject({ id: fresh.runId, status: "queued", error: null, completed_at: null, locked_by: null, attempt: 1, max_attempts: 2 });
        expect(forced.body.available_at).toBeGreaterThanOrEqual(nowSeconds() - 5);
        const run = await getRun(db, { scope: adminScope(), runId: fresh.runId });
        expect(run?.status).toBe("PENDING");
        expect(run?.run_data.status).toBe("PENDING");
        expect(run?.run_data.error).toBeUndefined();
        // Requeued once: it is queued now, so a second requeue is refused.
        expect((await api(app, "POST", `/queue/jobs/${fresh.runId}/requeue?force=true`)).status).toBe(400);

        // An old failure needs no force.
        const old = await seedJob(db, "failed", { settledAt: nowSeconds() - 3600 });
        await settleRun(db, old, "ERROR");
        const plain = await api(app, "POST", `/queue/jobs/${old.runId}/requeue`);
        expect(plain.status).toBe(200);
        expect(plain.body.status).toBe("queued");
        expect((await getRun(db, { scope: adminScope(), runId: old.runId }))?.status).toBe("PENDING");

        const listed = await api(app, "GET", "/queue/jobs?status=queued");
        expect(listed.body.data.map((j: Json) => j.id).sort()).toEqual([queued.runId, fresh.runId, old.runId].sort());
        expect((await api(app, "POST", `/queue/jobs/${fresh.runId}/requeue?force=perhaps`)).status).toBe(422);
      }),
    );

    it(
      "requeues a cancelled job keeping its cancel intent, or forgetting it with clear_cancellation",
      withApp(dialect, async (app, db) => {
        const kept = await seedJob(db, "cancelled");
        await settleRun(db, kept, "CANCELLED");
        requestCancel(kept.runId);
        try {
          // As in Agno: requeued, and cancelled again when a worker starts it (the intent stays recorded).
          const requeued = await api(app, "POST", `/queue/jobs/${kept.runId}/requeue?force=true`);
          expect(requeued.status).toBe(200);
          expect(JobSchema.parse(requeued.body)).toMatchObject({ status: "queued", cancel_requested_at: expect.any(Number) });
          expect(isCancelRequested(kept.runId)).toBe(true);
        } finally {
          clearCancel(kept.runId);
        }

        const cancelled = await seedJob(db, "cancelled");
        await settleRun(db, cancelled, "CANCELLED");
        requestCancel(cancelled.runId);
        try {
          const res = await api(app, "POST", `/queue/jobs/${cancelled.runId}/requeue?clear_cancellation=true`);
          expect(res.status).toBe(200);
          expect(JobSchema.parse(res.body)).toMatchObject({ status: "queued", cancel_requested_at: null, error: null });
          expect(isCancelRequested(cancelled.runId)).toBe(false);
          expect((await getRun(db, { scope: adminScope(), runId: cancelled.runId }))?.status).toBe("PENDING");
        } finally {
          clearCancel(cancelled.runId);
        }

        // A refused requeue leaves a live cancel intent alone (here a queued job's).
        const queued = await seedJob(db, "queued");
        requestCancel(queued.runId);
        try {
          expect((await api(app, "POST", `/queue/jobs/${queued.runId}/requeue?clear_cancellation=true`)).status).toBe(400);
          expect(isCancelRequested(queued.runId)).toBe(true);
        } finally {
          clearCancel(queued.runId);
        }
      }),
    );

    it(
      "shows run jobs only unless job_type names other kinds; those are listed and counted when named",
      withApp(dialect, async (app, db) => {
        const run = await seedJob(db, "queued", { scope: principals.scopes.a });
        const { job: other } = await enqueueJob(db, {
          owner: principals.userA,
          job: { jobType: "test_echo", componentType: "test_echo", componentId: "subject-1", payload: { n: 1 }, maxAttempts: 1 },
        });
        const ids = async (query: string) => (await api(app, "GET", `/queue/jobs${query}`)).body.data.map((j: Json) => j.id);
        expect(await ids("")).toEqual([run.runId]);
        expect(await ids("?job_type=test_echo")).toEqual([other.id]);
        expect((await ids("?job_type=test_echo&job_type=run")).sort()).toEqual([run.runId, other.id].sort());
        expect(await ids("?job_type=nothing")).toEqual([]);
        const named = (await api(app, "GET", "/queue/jobs?job_type=test_echo")).body.data[0];
        expect(named).toMatchObject({ session_id: null, component_type: "test_echo", component_id: "subject-1", job_type: "test_echo", status: "queued" });
        const counts = async (query: string) => QueueStatsSchema.parse((await api(app, "GET", `/queue/stats${query}`)).body).counts.queued;
        expect(await counts("")).toBe(1);
        expect(await counts("?job_type=test_echo")).toBe(1);
        expect(await counts("?job_type=test_echo&job_type=run")).toBe(2);
      }),
    );

    it(
      "reports counts per status (zeros included) and the oldest queued job's age",
      withApp(dialect, async (app, db) => {
        const empty = await api(app, "GET", "/queue/stats");
        expect(empty.status).toBe(200);
        expect(QueueStatsSchema.parse(empty.body)).toEqual({
          counts: { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0, paused: 0 },
          oldest_queued_age_seconds: null,
        });

        const now = nowSeconds();
        await seedJob(db, "queued", { createdAt: now - 100, scope: principals.scopes.a });
        await seedJob(db, "queued", { createdAt: now - 30, scope: principals.scopes.b });
        // Older, but not queued: it does not count for the age.
        await seedJob(db, "failed", { createdAt: now - 5000 });
        await seedJob(db, "failed", { createdAt: now - 4000 });
        await seedJob(db, "running", { createdAt: now - 3000 });
        await seedJob(db, "completed", { createdAt: now - 2000 });

        const stats = QueueStatsSchema.parse((await api(app, "GET", "/queue/stats")).body);
        expect(stats.counts).toEqual({ queued: 2, running: 1, completed: 1, failed: 2, cancelled: 0, paused: 0 });
        expect(stats.oldest_queued_age_seconds).toBeGreaterThanOrEqual(100);
        expect(stats.oldest_queued_age_seconds).toBeLessThan(160);
      }),
    );

    it(
      "refuses non-admins with 403, before anything is read or changed",
      withApp(dialect, async (app, db) => {
        const failed = await seedJob(db, "failed", { scope: principals.scopes.a, settledAt: nowSeconds() - 3600 });
        const owner = principals.a;
        for (const [method, path] of [
          ["GET", "/queue/jobs"],
          ["GET", `/queue/jobs/${failed.runId}`],
          ["POST", `/queue/jobs/${failed.runId}/requeue`],
          ["GET", "/queue/stats"],
        ] as const) {
          const res = await api(app, method, path, { as: owner });
          expect(res.status, `${method} ${path}`).toBe(403);
          expect(res.body.detail).toBe("Insufficient permissions. Required scope(s): agent_os:admin");
        }
        // A service account granted agent_os:admin passes the scope check but is never an admin.
        const serviceAccount: Principal = {
          kind: "service_account",
          userId: "sa:ops-bot",
          scopes: ["agent_os:admin"],
          authenticatedBy: "service_account",
          isAdmin: false,
          isolated: true,
        };
        for (const [method, path] of [
          ["GET", "/queue/jobs"],
          ["POST", `/queue/jobs/${failed.runId}/requeue`],
        ] as const) {
          const res = await api(app, method, path, { as: serviceAccount });
          expect(res.status, `${method} ${path}`).toBe(403);
          expect(res.body.detail).toBe("Job queue operations require an admin scope");
        }
        expect((await api(app, "GET", `/queue/jobs/${failed.runId}`)).body.status).toBe("failed");
      }),
    );
  });
});

describe("JWT authentication", () => {
  const SECRET = "queue-routes-secret-of-sufficient-length";
  const mint = (sub: string, scopes: string[]) => new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));

  it(
    "serves a token holding agent_os:admin, refuses others (403) and anonymous callers (401)",
    withApp(
      sqliteDialect,
      async (app, db) => {
        await seedJob(db, "queued");
        const bearer = async (sub: string, scopes: string[]) => ({ authorization: `Bearer ${await mint(sub, scopes)}` });
        const admin = await api(app, "GET", "/queue/jobs", { headers: await bearer("root", ["agent_os:admin"]) });
        expect(admin.status).toBe(200);
        expect(admin.body.meta.total_count).toBe(1);
        const user = await api(app, "GET", "/queue/stats", { headers: await bearer("alice", ["agents:read", "agents:run", "sessions:read"]) });
        expect(user.status).toBe(403);
        expect((await api(app, "GET", "/queue/stats")).status).toBe(401);
      },
      { ...DURABLE, JWT_VERIFICATION_KEY: SECRET },
    ),
  );
});
