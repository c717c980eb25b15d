import { describe, expect, it } from "vitest";
import { abandonJob, claimJobs, enqueueRunJob, failJob, getJob, getRun, releaseJob, requestJobCancel, unsafeSweepExpiredLeases, upsertSession, type Db } from "@/lib/db/index.ts";
import { DIALECTS, openMigrated, type TestDialect } from "../support/databases.ts";
import { RUN_JOBS } from "@/test/support/run-jobs.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * A job the queue gives up on — an attempt that outlived its timeout and ignores its abort, a
 * lease lost a third time, a graceful release — ends CANCELLED when a cancel was recorded for it
 * (the cancel was accepted), never failed or queued again; and a failed attempt with a cancel
 * recorded is not queued for a retry. (The worker's own giving up: worker-loop.test.ts.)
 */

const NOW = 1_800_000_000;
const LEASE = 60;

let seq = 0;
async function enqueue(db: Db, { maxAttempts = 1, now }: { maxAttempts?: number; now?: number } = {}): Promise<string> {
  const session = await upsertSession(db, { scope: adminScope(), session: { sessionId: `gu-s-${Date.now()}-${++seq}`, sessionType: "agent", agentId: "a" } });
  const runId = `gu-r-${Date.now()}-${++seq}`;
  await enqueueRunJob(db, {
    scope: adminScope(),
    run: { runId, sessionId: session.session_id, runType: "agent", agentId: "a", runData: { run_id: runId } },
    job: { componentType: "agent", componentId: "a", jobType: "run", payload: {}, stream: false, maxAttempts },
    now,
  });
  return runId;
}

async function claim(db: Db, runId: string, workerId: string, now: number) {
  const [job] = await claimJobs(db, { ...RUN_JOBS, workerId, limit: 1, now, leaseSeconds: LEASE });
  expect(job?.id).toBe(runId);
  return { id: job.id, attempt: job.attempt, workerId };
}

const job = (db: Db, id: string) => getJob(db, { scope: adminScope(), id });
const run = async (db: Db, runId: string) => (await getRun(db, { scope: adminScope(), runId }))!;

describe.each(DIALECTS)("jobs given up with a cancel recorded on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    const withDb = (test: (db: Db) => Promise<void>) => async () => {
      const db = await openMigrated(dialect);
      try {
        await test(db);
      } finally {
        await db.destroy();
      }
    };

    it(
      "a lease that expires with a cancel recorded ends the job and its run CANCELLED instead of queueing it again",
      withDb(async (db) => {
        const runId = await enqueue(db, { now: NOW });
        await claim(db, runId, "dies", NOW);
        expect(await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: runId, now: NOW + 1 })).toBe("running");
        const swept = await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + LEASE + 1, leaseSeconds: LEASE });
        expect(swept).toEqual({ requeued: [], failed: [], cancelled: [runId] });
        expect(await job(db, runId)).toMatchObject({ status: "cancelled", lease_losses: 1, locked_by: null, completed_at: NOW + LEASE + 1 });
        expect(await run(db, runId)).toMatchObject({ status: "CANCELLED", run_data: { status: "CANCELLED", error: { error_type: "run_cancelled" } } });
        // Nothing to claim: it does not run again.
        expect(await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW + 1000, leaseSeconds: LEASE })).toEqual([]);
      }),
    );

    it(
      "the third lost lease of a job with a cancel recorded ends it CANCELLED, not failed with its run ERROR",
      withDb(async (db) => {
        const runId = await enqueue(db, { now: NOW });
        let now = NOW;
        for (let loss = 1; loss <= 2; loss++) {
          await claim(db, runId, `dies-${loss}`, now);
          now += LEASE + 1;
          expect((await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now, leaseSeconds: LEASE })).requeued).toEqual([runId]);
        }
        await claim(db, runId, "dies-3", now);
        expect(await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: runId, now: now + 1 })).toBe("running");
        now += LEASE + 1;
        expect(await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now, leaseSeconds: LEASE })).toEqual({ requeued: [], failed: [], cancelled: [runId] });
        expect(await job(db, runId)).toMatchObject({ status: "cancelled", lease_losses: 3, attempt: 3, completed_at: now });
        expect(await run(db, runId)).toMatchObject({ status: "CANCELLED", run_data: { status: "CANCELLED", error: { error_type: "run_cancelled" } } });
      }),
    );

    it(
      "a graceful release of a job with a cancel recorded ends it CANCELLED, on its first lost lease and on its third",
      withDb(async (db) => {
        const first = await enqueue(db, { now: NOW });
        const fence = await claim(db, first, "stopping", NOW);
        await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: first, now: NOW + 1 });
        expect(await releaseJob(db, { ...RUN_JOBS, ...fence, now: NOW + 2 })).toBe(true);
        expect(await job(db, first)).toMatchObject({ status: "cancelled", lease_losses: 1, locked_by: null, completed_at: NOW + 2 });
        expect((await run(db, first)).status).toBe("CANCELLED");

        const third = await enqueue(db, { now: NOW });
        for (let i = 0; i < 2; i++) expect(await releaseJob(db, { ...RUN_JOBS, ...(await claim(db, third, "stopping", NOW + 10 + i)), now: NOW + 10 + i })).toBe(true);
        const last = await claim(db, third, "stopping", NOW + 20);
        await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: third, now: NOW + 21 });
        expect(await releaseJob(db, { ...RUN_JOBS, ...last, now: NOW + 22 })).toBe(true);
        expect(await job(db, third)).toMatchObject({ status: "cancelled", lease_losses: 3, completed_at: NOW + 22 });
        expect((await run(db, third)).status).toBe("CANCELLED");
      }),
    );

    it(
      "an attempt given up after its timeout ends CANCELLED when a cancel was recorded before, ERROR otherwise",
      withDb(async (db) => {
        const cancelled = await enqueue(db, { now: NOW });
        const plain = await enqueue(db, { now: NOW });
        const fences = [await claim(db, cancelled, "stuck", NOW), await claim(db, plain, "stuck", NOW)];
        await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: cancelled, now: NOW + 1 });
        for (const fence of fences) {
          expect(await abandonJob(db, { ...RUN_JOBS, jobType: "run", ...fence, reason: "Run timed out and did not stop", errorType: "run_timeout_error", now: NOW + 5 })).toBe(true);
        }
        expect(await job(db, cancelled)).toMatchObject({ status: "cancelled", completed_at: NOW + 5 });
        expect(await run(db, cancelled)).toMatchObject({ status: "CANCELLED", run_data: { status: "CANCELLED", error: { error_type: "run_cancelled" } } });
        expect(await job(db, plain)).toMatchObject({ status: "failed", error: "Run timed out and did not stop" });
        expect(await run(db, plain)).toMatchObject({ status: "ERROR", run_data: { error: { error_type: "run_timeout_error" } } });
      }),
    );

    it(
      "a failed attempt with a cancel recorded is not queued for a retry",
      withDb(async (db) => {
        const runId = await enqueue(db, { maxAttempts: 3, now: NOW });
        const fence = await claim(db, runId, "w", NOW);
        await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: runId, now: NOW + 1 });
        expect(await failJob(db, { ...fence, error: "flaky", retryable: true, retryDelaySeconds: 0, now: NOW + 2 })).toEqual({ applied: false });
        expect(await job(db, runId)).toMatchObject({ status: "running", attempt: 1 });
        expect(await claimJobs(db, { ...RUN_JOBS, workerId: "w2", limit: 1, now: NOW + 1000, leaseSeconds: LEASE })).toEqual([]);
      }),
    );
  });
});
