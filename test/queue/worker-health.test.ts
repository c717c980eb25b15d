import { describe, expect, it } from "vitest";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "@/lib/config/settings.ts";
import { enqueueRunJob, getRun, upsertSession } from "@/lib/db/index.ts";
import { QueueWorker } from "@/lib/queue/worker.ts";
import { serveWorkerHealth } from "@/lib/queue/worker-health.ts";
import { DIALECTS, openMigrated, type TestDialect } from "../support/databases.ts";
import { runCatalog } from "@/test/support/run-jobs.ts";
import { adminScope } from "../support/scopes.ts";

/** A standalone worker's GET /health over real HTTP, against a real database. */
describe.each(DIALECTS)("worker health on $name", (dialect: TestDialect) => {
  it.skipIf(dialect.skipReason !== null)("answers 503 while a ready job waits and the loop claims nothing, 200 once it claims, 503 without its database", async () => {
    const db = await openMigrated(dialect);
    const queue: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, durable: true, pollIntervalMs: 100, lockGraceSeconds: 10 };
    const worker = new QueueWorker({
      db,
      queue,
      catalog: runCatalog(async ({ job, writer }) => {
        await writer.finish(adminScope(), { runId: job.id, sessionId: job.session_id!, runType: "agent", status: "COMPLETED", runData: { status: "COMPLETED" } });
      }),
    });
    const health = await serveWorkerHealth({ worker, db, queue, port: 0, host: "127.0.0.1" });
    const get = async () => {
      const response = await fetch(`http://127.0.0.1:${health.port}/health`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      expect(await get()).toMatchObject({ status: 200, body: { status: "ok", worker_id: worker.workerId, running: 0, capacity: 32, oldest_ready_age_seconds: null } });
      const session = await upsertSession(db, { scope: adminScope(), session: { sessionId: `s-${Date.now()}`, sessionType: "agent", agentId: "a" } });
      const now = Math.floor(Date.now() / 1000);
      const runId = `r-${Date.now()}`;
      await enqueueRunJob(db, {
        scope: adminScope(),
        run: { runId, sessionId: session.session_id, runType: "agent", agentId: "a", runData: {} },
        job: { componentType: "agent", componentId: "a", jobType: "run", payload: {}, stream: false, maxAttempts: 1, availableAt: now - 10 },
        now: now - 10,
      });
      // The worker's loop is not running (as if stuck): the job has been ready for 10 s, far past 3 polls.
      const stalled = await get();
      expect(stalled.status).toBe(503);
      expect(stalled.body).toMatchObject({ status: "stalled", last_claim_at: null });
      expect(stalled.body.oldest_ready_age_seconds).toBeGreaterThanOrEqual(10);
      worker.start();
      for (let i = 0; i < 100 && (await getRun(db, { scope: adminScope(), runId }))?.status !== "COMPLETED"; i++) await new Promise((r) => setTimeout(r, 20));
      const healthy = await get();
      expect(healthy).toMatchObject({ status: 200, body: { status: "ok", oldest_ready_age_seconds: null } });
      expect(typeof healthy.body.last_claim_at).toBe("string");
      expect(typeof healthy.body.last_completion_at).toBe("string");
      expect((await fetch(`http://127.0.0.1:${health.port}/other`)).status).toBe(404);
      await worker.stop({ timeoutSeconds: 1 });
      await db.close();
      expect(await get()).toMatchObject({ status: 503, body: { status: "database_unreachable" } });
    } finally {
      health.close();
      await worker.stop({ timeoutSeconds: 0 });
      await db.destroy().catch(() => undefined);
    }
  });
});
