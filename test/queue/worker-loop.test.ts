import { describe, expect, it } from "vitest";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "@/lib/config/settings.ts";
import { enqueueRunJob, getJob, getRun, requestJobCancel, unsafeSweepExpiredLeases, upsertSession, type Db } from "@/lib/db/index.ts";
import { LeaseLostError } from "@/lib/runtime/run-writer.ts";
import { QueueWorker } from "@/lib/queue/worker.ts";
import { DIALECTS, openMigrated, type TestDialect } from "../support/databases.ts";
import { until as poll } from "../support/until.ts";
import { RUN_JOBS, runCatalog } from "@/test/support/run-jobs.ts";
import type { RunJobContext } from "@/lib/runs/jobs/run-job.ts";
import { adminScope } from "../support/scopes.ts";

const until = (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000) => poll(what, check, timeoutMs, 20);

/** QueueWorker's own bookkeeping against a real database: what no HTTP test reaches. */

let seq = 0;
async function enqueue(db: Db): Promise<string> {
  const session = await upsertSession(db, { scope: adminScope(), session: { sessionId: `wl-s-${Date.now()}-${++seq}`, sessionType: "agent", agentId: "a" } });
  const runId = `wl-r-${Date.now()}-${++seq}`;
  await enqueueRunJob(db, {
    scope: adminScope(),
    run: { runId, sessionId: session.session_id, runType: "agent", agentId: "a", runData: {} },
    job: { componentType: "agent", componentId: "a", jobType: "run", payload: {}, stream: false, maxAttempts: 1 },
  });
  return runId;
}

const finish = (ctx: RunJobContext) =>
  ctx.writer.finish(adminScope(), { runId: ctx.job.id, sessionId: ctx.job.session_id!, runType: "agent", status: "COMPLETED", runData: { status: "COMPLETED", attempt: ctx.job.attempt } });

describe.each(DIALECTS)("the worker loop on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    const queue: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, durable: true, pollIntervalMs: 50, lockGraceSeconds: 60 };

    it("claiming its own job again (its lease was swept) stops the older attempt and keeps the new one's bookkeeping", async () => {
      const db = await openMigrated(dialect);
      const seen: { attempt: number; reason?: unknown }[] = [];
      const worker = new QueueWorker({
        db,
        queue,
        catalog: runCatalog(async (ctx) => {
          const mine = { attempt: ctx.job.attempt } as { attempt: number; reason?: unknown };
          seen.push(mine);
          if (ctx.job.attempt === 1) {
            // The first attempt hangs until it is told to stop.
            await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
            mine.reason = ctx.signal.reason;
            return;
          }
          await finish(ctx);
        }),
      });
      try {
        const runId = await enqueue(db);
        worker.start();
        await until("attempt 1 started", () => seen.length === 1);
        // As after an outage longer than the lease: the sweeper (this worker's or another's) takes it back.
        // (A negative lease makes every running job count as expired, now.)
        const swept = await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: Math.floor(Date.now() / 1000), leaseSeconds: -1000 });
        expect(swept.requeued).toEqual([runId]);
        worker.wake();
        await until("COMPLETED by attempt 2", async () => (await getRun(db, { scope: adminScope(), runId }))?.status === "COMPLETED");
        expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
        expect(seen[0].reason).toBeInstanceOf(LeaseLostError);
        expect(await getJob(db, { scope: adminScope(), id: runId })).toMatchObject({ status: "completed", attempt: 2, lease_losses: 1 });
        await until("bookkeeping empty", () => worker.size === 0);
      } finally {
        await worker.stop({ timeoutSeconds: 0 });
        await db.destroy();
      }
    });

    it.each([
      ["its timeout: the job fails, the run is ERROR", 1, false],
      ["its timeout after a cancel was accepted: the job and the run are CANCELLED", 1, true],
      // The worker's poll delivers the cancel; the run ignores it and is given up a grace period (5 s) later.
      ["a cancel: it is given up CANCELLED a grace period after the cancel, not at its timeout (1 h)", 3600, true],
    ] as const)(
      "gives up an attempt that ignores %s; the slot is free",
      async (_what, timeoutSeconds, cancel) => {
        const db = await openMigrated(dialect);
        let started = 0;
        const worker = new QueueWorker({
          db,
          queue: { ...queue, timeoutSeconds, lockGraceSeconds: 1 },
          catalog: runCatalog(async () => {
            started++;
            await new Promise(() => undefined); // a tool that never returns and ignores the abort
          }),
        });
        try {
          const runId = await enqueue(db);
          worker.start();
          await until("started", () => started === 1);
          if (cancel) expect(await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: runId })).toBe("running");
          await until("given up", async () => (await getJob(db, { scope: adminScope(), id: runId }))?.status !== "running", 20_000);
          expect(started).toBe(1);
          expect(worker.size).toBe(0);
          const job = (await getJob(db, { scope: adminScope(), id: runId }))!;
          const run = (await getRun(db, { scope: adminScope(), runId }))!;
          if (cancel) {
            expect(job.status).toBe("cancelled");
            expect(run.status).toBe("CANCELLED");
            expect(run.run_data.error).toMatchObject({ error_type: "run_cancelled" });
          } else {
            expect(job.status).toBe("failed");
            expect(job.error).toMatch(/did not stop/);
            expect(run.status).toBe("ERROR");
            expect(run.run_data.error).toMatchObject({ error_type: "run_timeout_error" });
          }
        } finally {
          await worker.stop({ timeoutSeconds: 0 });
          await db.destroy();
        }
      },
      30_000,
    );
  });
});
