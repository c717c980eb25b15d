import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "@/lib/config/settings.ts";
import { enqueueJob, enqueueRunJob, getJob, getRun, requestJobCancel, unsafeSweepExpiredLeases, upsertSession, type Db } from "@/lib/db/index.ts";
import { JobCancelledError, JobCatalog, PermanentJobError, defineJobKind, type JobContext } from "@/lib/queue/catalog.ts";
import { runJobKind } from "@/lib/runs/jobs/run-job.ts";
import { QueueWorker } from "@/lib/queue/worker.ts";
import { LeaseLostError } from "@/lib/runtime/run-writer.ts";
import { DIALECTS, openMigrated, type TestDb, type TestDialect } from "../support/databases.ts";
import { until as poll } from "../support/until.ts";
import { adminScope } from "../support/scopes.ts";

const until = (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000) => poll(what, check, timeoutMs, 20);

/**
 * A second kind of job beside run jobs, through the whole queue: claim, lease loss, retry with
 * backoff, permanent failure, a payload its schema refuses, cancel — and no run row anywhere.
 */

const BEHAVIOURS = ["complete", "fail-twice", "always-fail", "permanent", "hang-first", "wait-for-cancel"] as const;
const payload = z.object({ n: z.number().int(), behaviour: z.enum(BEHAVIOURS) });

interface Seen {
  id: string;
  attempt: number;
  n: number;
  reason?: unknown;
}

function echoKind(seen: Seen[]) {
  return defineJobKind({
    jobType: "test_echo",
    payload,
    maxAttempts: () => 3,
    retryDelaySeconds: () => 0,
    executor: () => async (ctx: JobContext<z.infer<typeof payload>>) => {
      const mine: Seen = { id: ctx.job.id, attempt: ctx.job.attempt, n: ctx.payload.n };
      seen.push(mine);
      const { behaviour } = ctx.payload;
      if (behaviour === "fail-twice" && ctx.job.attempt < 3) throw new Error(`flaky ${ctx.job.attempt}`);
      if (behaviour === "always-fail") throw new Error("still broken");
      if (behaviour === "permanent") throw new PermanentJobError("cannot ever work");
      if ((behaviour === "hang-first" && ctx.job.attempt === 1) || behaviour === "wait-for-cancel") {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        mine.reason = ctx.signal.reason;
        throw ctx.signal.reason;
      }
    },
  });
}

let seq = 0;
const queue: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, durable: true, pollIntervalMs: 50, lockGraceSeconds: 60 };

async function enqueueEcho(db: Db, body: unknown, owner: string | null = "user-a"): Promise<string> {
  const { job } = await enqueueJob(db, {
    owner,
    job: { jobType: "test_echo", componentType: "test_echo", componentId: `subject-${++seq}`, payload: body as Record<string, unknown>, maxAttempts: 3 },
  });
  return job.id;
}

/** A queued run job (its session, its PENDING run), as a durable submit stores it. */
async function enqueueRun(db: Db): Promise<string> {
  const session = await upsertSession(db, { scope: adminScope(), session: { sessionId: `jc-s-${Date.now()}-${++seq}`, sessionType: "agent", agentId: "a" } });
  const runId = `jc-r-${Date.now()}-${++seq}`;
  await enqueueRunJob(db, {
    scope: adminScope(),
    run: { runId, sessionId: session.session_id, runType: "agent", agentId: "a", runData: {} },
    job: { componentType: "agent", componentId: "a", jobType: "run", payload: {}, stream: false, maxAttempts: 1 },
  });
  return runId;
}

describe.each(DIALECTS)("a second job kind on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    let worker: QueueWorker | undefined;
    afterEach(async () => {
      await worker?.stop({ timeoutSeconds: 0 });
      worker = undefined;
      await db?.destroy();
    });
    const start = async (seen: Seen[], catalog = new JobCatalog([echoKind(seen)])) => {
      db = await openMigrated(dialect);
      worker = new QueueWorker({ db, queue, catalog });
      return worker;
    };
    const job = async (id: string) => (await getJob(db, { scope: adminScope(), id }))!;
    const ended = (id: string) => until(`${id} ended`, async () => ["completed", "failed", "cancelled"].includes((await job(id)).status));

    it("is enqueued with no session and its kind as component_type, claimed, run and completed; no run row is written", async () => {
      const seen: Seen[] = [];
      const w = await start(seen);
      const id = await enqueueEcho(db, { n: 1, behaviour: "complete" });
      expect(await job(id)).toMatchObject({ status: "queued", session_id: null, component_type: "test_echo", job_type: "test_echo", user_id: "user-a", max_attempts: 3 });
      w.start();
      await ended(id);
      expect(await job(id)).toMatchObject({ status: "completed", attempt: 1, lease_losses: 0, error: null });
      expect(seen).toEqual([{ id, attempt: 1, n: 1 }]);
      expect(await getRun(db, { scope: adminScope(), runId: id })).toBeNull();
    });

    it("retries a failing attempt after its backoff and completes on the third; one that keeps failing fails after max_attempts", async () => {
      const seen: Seen[] = [];
      const w = await start(seen);
      const flaky = await enqueueEcho(db, { n: 2, behaviour: "fail-twice" });
      const broken = await enqueueEcho(db, { n: 3, behaviour: "always-fail" });
      w.start();
      await ended(flaky);
      await ended(broken);
      expect(await job(flaky)).toMatchObject({ status: "completed", attempt: 3, error: null });
      expect(await job(broken)).toMatchObject({ status: "failed", attempt: 3, error: "still broken" });
      expect(seen.filter((s) => s.id === flaky).map((s) => s.attempt)).toEqual([1, 2, 3]);
      expect(seen.filter((s) => s.id === broken).map((s) => s.attempt)).toEqual([1, 2, 3]);
    });

    it("fails a PermanentJobError at once, and a payload its schema refuses before the executor runs", async () => {
      const seen: Seen[] = [];
      const w = await start(seen);
      const permanent = await enqueueEcho(db, { n: 4, behaviour: "permanent" });
      const invalid = await enqueueEcho(db, { n: "four", behaviour: "complete" });
      w.start();
      await ended(permanent);
      await ended(invalid);
      expect(await job(permanent)).toMatchObject({ status: "failed", attempt: 1, error: "cannot ever work" });
      const refused = await job(invalid);
      expect(refused).toMatchObject({ status: "failed", attempt: 1 });
      expect(refused.error).toMatch(/^Invalid payload for job type test_echo: .*n/);
      expect(seen.map((s) => s.id)).toEqual([permanent]);
    });

    it("a lost lease spends no attempt: the swept job is claimed again and completes, the old attempt told LeaseLostError", async () => {
      const seen: Seen[] = [];
      const w = await start(seen);
      const id = await enqueueEcho(db, { n: 5, behaviour: "hang-first" });
      w.start();
      await until("attempt 1 started", () => seen.length === 1);
      const swept = await unsafeSweepExpiredLeases(db, { now: Math.floor(Date.now() / 1000), leaseSeconds: -1000, subjects: w.subjects });
      expect(swept.requeued).toEqual([id]);
      w.wake();
      await ended(id);
      expect(await job(id)).toMatchObject({ status: "completed", attempt: 2, lease_losses: 1 });
      expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
      expect(seen[0].reason).toBeInstanceOf(LeaseLostError);
    });

    it("a cancel recorded while it runs aborts its signal with JobCancelledError and ends it cancelled", async () => {
      const seen: Seen[] = [];
      const w = await start(seen);
      const id = await enqueueEcho(db, { n: 6, behaviour: "wait-for-cancel" });
      w.start();
      await until("started", () => seen.length === 1);
      expect(await requestJobCancel(db, { scope: adminScope(), id, subjects: w.subjects })).toBe("running");
      await ended(id);
      expect(await job(id)).toMatchObject({ status: "cancelled", attempt: 1 });
      expect(seen[0].reason).toBeInstanceOf(JobCancelledError);
    });

    it("an attempt past its kind's timeout fails, even when its executor returns after the abort; a cancel recorded before the claim aborts the signal at once", async () => {
      const seen: Seen[] = [];
      const slow = defineJobKind({
        jobType: "test_slow",
        payload: z.object({}),
        maxAttempts: () => 3,
        timeoutSeconds: () => 1,
        executor: () => async (ctx: JobContext<unknown>) => {
          seen.push({ id: ctx.job.id, attempt: ctx.job.attempt, n: 0 });
          await new Promise<void>((resolve) => {
            if (ctx.signal.aborted) resolve();
            ctx.signal.addEventListener("abort", () => resolve(), { once: true });
          });
          // Returns normally, as if the abort had not happened.
        },
      });
      const w = await start(seen, new JobCatalog([slow]));
      const enqueueSlow = async () => (await enqueueJob(db, { owner: null, job: { jobType: "test_slow", componentType: "test_slow", componentId: `s-${++seq}`, payload: {}, maxAttempts: 3 } })).job.id;
      const timedOut = await enqueueSlow();
      const cancelledFirst = await enqueueSlow();
      expect(await requestJobCancel(db, { scope: adminScope(), id: cancelledFirst, subjects: w.subjects })).toBe("cancelled");
      w.start();
      await ended(timedOut);
      expect(await job(timedOut)).toMatchObject({ status: "failed", attempt: 1 });
      expect((await job(timedOut)).error).toMatch(/timed out|1 s/);
      expect(await job(cancelledFirst)).toMatchObject({ status: "cancelled", attempt: 0 });
    });

    it("sweeps only the kinds of its catalog (a run job's lease is left to a worker that can move its run); an Idempotency-Key of another kind is a ConflictError", async () => {
      const seen: Seen[] = [];
      const w = await start(seen);
      const runId = await enqueueRun(db);
      await db.sql.exec(`UPDATE agno_jobs SET status = 'running', attempt = 1, locked_by = 'gone', locked_at = 0 WHERE id = ?`, [runId]);
      const swept = await unsafeSweepExpiredLeases(db, { now: Math.floor(Date.now() / 1000), leaseSeconds: 10, subjects: w.subjects, jobTypes: w.jobTypes });
      expect(swept.requeued).toEqual([]);
      expect(await job(runId)).toMatchObject({ status: "running", locked_by: "gone" });

      const keyed = { jobType: "test_echo", componentType: "test_echo", componentId: "one", payload: { n: 1, behaviour: "complete" }, maxAttempts: 1, idempotencyKey: "k-1" };
      const first = await enqueueJob(db, { owner: "user-a", job: keyed });
      expect(await enqueueJob(db, { owner: "user-a", job: keyed })).toEqual({ duplicate: true, job: first.job });
      await expect(enqueueJob(db, { owner: "user-a", job: { ...keyed, componentId: "two" } })).rejects.toThrow(/Idempotency-Key was already used for a test_echo job/);
    });

    it("a worker claims only the kinds of its catalog; in one with both kinds, a run job and an echo job settle together, each as its kind", async () => {
      const seen: Seen[] = [];
      const runsOnly = new JobCatalog([runJobKind(() => async () => undefined)]);
      const w = await start(seen, runsOnly);
      const echo = await enqueueEcho(db, { n: 7, behaviour: "complete" });
      w.start();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await job(echo)).toMatchObject({ status: "queued", attempt: 0 });
      await w.stop({ timeoutSeconds: 0 });
      // Both kinds: the run's row is written with its job's settlement, the echo job alone.
      const runId = await enqueueRun(db);
      const both = new JobCatalog([
        echoKind(seen),
        runJobKind(() => async ({ job: claimed, writer }) => {
          await writer.finish(adminScope(), { runId: claimed.id, sessionId: claimed.session_id!, runType: "agent", status: "COMPLETED", runData: { status: "COMPLETED", content: "done" } });
        }),
      ]);
      worker = new QueueWorker({ db, queue, catalog: both });
      worker.start();
      await ended(echo);
      await ended(runId);
      expect(await job(echo)).toMatchObject({ status: "completed", attempt: 1 });
      expect(await job(runId)).toMatchObject({ status: "completed", attempt: 1 });
      expect(await getRun(db, { scope: adminScope(), runId })).toMatchObject({ status: "COMPLETED", run_data: { content: "done" } });
      expect(await getRun(db, { scope: adminScope(), runId: echo })).toBeNull();
    });
  });
});
