import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJob, getRun, requestJobCancel, type Db } from "@/lib/db/index.ts";
import { agentJobExecutor } from "@/lib/runs/jobs/agent-job.ts";
import { QueueWorker, type JobContext } from "@/lib/queue/worker.ts";
import { getLiveRun, requestCancel } from "@/lib/live-runs/run-registry.ts";
import { hostToolkit } from "@/lib/runtime/tools/host/host.ts";
import type { ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS, type TestDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";
import { afterTool, gatedModel, lastUserText, lockSession } from "./cancel-support.ts";
import { RUN_JOBS, runCatalog } from "@/test/support/run-jobs.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * A cancel the API accepted ends the run CANCELLED whenever it lands between submit and the run's
 * end, and a cancel of a run that has already ended says so. The moments no HTTP timing can hit
 * reliably are forced here: the worker's executor is wrapped so the test acts at the exact step.
 */

type Json = Record<string, unknown>;
type Submitted = { run_id: string; session_id: string };

/**
 * The scripted model: "hold …" answers start, then wait for openGate(); "pause …" asks for the
 * confirmed server_details tool (the run pauses for a human); anything else answers at once.
 */
const scriptedModel = () =>
  gatedModel((body, gate): ScriptStep => {
    const text = lastUserText(body);
    if (text.startsWith("hold")) return { text: "held answer", chunks: ["held ", "answer"], hold: gate };
    if (text.startsWith("pause") && !afterTool(body)) return { toolCalls: [{ name: "server_details", arguments: {} }] };
    return { text: `done: ${text}` };
  });

/** Background submits and cancels through the API of `app()`; `afterSubmit` runs after each 202. */
function runApi(app: () => TestApp, afterSubmit: () => void = () => undefined) {
  return {
    async submit(message: string): Promise<Submitted> {
      const response = await app().call("POST", "/agents/bg/runs", { form: { message, background: "true", stream: "false" } });
      expect(response.status, await response.clone().text()).toBe(202);
      afterSubmit();
      return (await response.json()) as Submitted;
    },
    async cancel(run: Submitted): Promise<{ status: number; body: Json }> {
      const response = await app().call("POST", `/agents/bg/runs/${run.run_id}/cancel?session_id=${run.session_id}`);
      return { status: response.status, body: (await response.json()) as Json };
    },
  };
}

describe.each(DIALECTS)("cancel intents on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let model: Awaited<ReturnType<typeof scriptedModel>>;
    let app: TestApp;
    let db: Db;
    let worker: QueueWorker;
    /** Runs the worker delivered a cancel to (through its poll, heartbeat or a signal). */
    const delivered = new Set<string>();
    /** Called with each claimed job before the real executor runs it. */
    let beforeExecute: (ctx: JobContext) => Promise<void> = async () => undefined;

    beforeAll(async () => {
      model = await scriptedModel();
      app = await startTestApp({
        dialect,
        agents: [{ id: "bg", name: "Background", model: { provider: "openai-compatible", id: "scripted", baseUrl: model.server.url, apiKey: "t" }, tools: [hostToolkit] }],
        // No embedded worker: the test runs its own, around the real executor. Its poll and
        // heartbeat are far apart, so a cancel recorded in the database reaches a running job only
        // when the test lets it (or at the job's end); a submit wakes it through worker.wake().
        env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false", AGENTRY_QUEUE_POLL_INTERVAL_MS: "60000", AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "120" },
      });
      db = await app.db();
      const execute = agentJobExecutor({ db, settings: app.settings });
      worker = new QueueWorker({
        db,
        queue: app.settings.queue,
        catalog: runCatalog(async (ctx) => {
          await beforeExecute(ctx);
          await execute(ctx);
        }),
        onCancel: (runId) => {
          delivered.add(runId);
          requestCancel(runId);
        },
      });
      worker.start();
    });
    afterAll(async () => {
      await worker?.stop({ timeoutSeconds: 0 });
      await app?.close();
      await model?.close();
    });

    const { submit, cancel } = runApi(
      () => app,
      () => worker.wake(),
    );
    const openGate = () => model.openGate();
    const stored = async (runId: string) => (await getRun(db, { scope: adminScope(), runId }))!;
    const ended = (runId: string) => until(`${runId} ended`, async () => ["COMPLETED", "CANCELLED", "ERROR", "PAUSED"].includes((await stored(runId)).status ?? ""), 15_000);
    const events = async (runId: string) => ((await stored(runId)).run_data.events as Json[] | undefined) ?? [];

    it("a cancel recorded after the claim, while the executor is still loading the run, ends it CANCELLED", async () => {
      // The cancel comes through another replica: only the database has it, and the worker's
      // poll delivers it before the executor has registered the run.
      beforeExecute = async (ctx) => {
        beforeExecute = async () => undefined;
        expect(ctx.job.cancel_requested_at).toBeNull();
        await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: ctx.job.id });
        await (worker as unknown as { pollCancels(): Promise<void> }).pollCancels();
        expect(delivered.has(ctx.job.id)).toBe(true);
      };
      const message = `loading ${Date.now()}`;
      const run = await submit(message);
      await ended(run.run_id);
      expect((await stored(run.run_id)).status).toBe("CANCELLED");
      expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "cancelled", attempt: 1 });
      // Stopped before the model was asked.
      expect(model.asked(message)).toBe(false);
      expect((await events(run.run_id)).slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
    });

    it("a job whose run is gone ends cancelled, not failed, when a cancel was recorded (the job-only settlement honours it too)", async () => {
      beforeExecute = async (ctx) => {
        beforeExecute = async () => undefined;
        await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: ctx.job.id });
        // Its session was deleted after the claim: the run row went with it.
        await db.sql.exec("DELETE FROM agno_runs WHERE run_id = ?", [ctx.job.id]);
      };
      const run = await submit(`gone ${Date.now()}`);
      await until("the job ended", async () => !["queued", "running"].includes((await getJob(db, { scope: adminScope(), id: run.run_id }))?.status ?? ""), 15_000);
      expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "cancelled" });
    });

    it("a cancel recorded after the executor started and never delivered to the run still ends it CANCELLED at its end", async () => {
      const message = `hold unnoticed ${Date.now()}`;
      const run = await submit(message);
      await until("the model was asked", () => model.asked(message));
      // Recorded in the database only (no signal reaches this worker, its poll is a minute away):
      // the run finishes its answer, and its end is written as CANCELLED, not COMPLETED.
      expect(await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: run.run_id })).toBe("running");
      openGate();
      await ended(run.run_id);
      expect((await stored(run.run_id)).status).toBe("CANCELLED");
      expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "cancelled" });
      const kept = await events(run.run_id);
      // The refused completion left no trace: the run's only RunCompleted is its cancel's, after RunCancelled.
      expect(kept.slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
      expect(kept.filter((e) => e.event === "RunCompleted")).toHaveLength(1);
      expect(kept.map((e) => e.event_index)).toEqual(kept.map((_, i) => i));
    });

    it.skipIf(dialect.name !== "postgres")("a cancel committed while the run's end waits for the job row is seen: the end is CANCELLED", async () => {
      const message = `hold lockstep ${Date.now()}`;
      const run = await submit(message);
      await until("the model was asked", () => model.asked(message));
      const cancelling = await lockSession(app.settings.database.schema);
      try {
        // The cancel's UPDATE, left uncommitted: the run's end (one statement with the job's
        // settlement) must wait for it, and then see it.
        await cancelling.query("BEGIN");
        const now = Math.floor(Date.now() / 1000);
        await cancelling.query("UPDATE agno_jobs SET cancel_requested_at = $1, updated_at = $1 WHERE id = $2", [now, run.run_id]);
        openGate();
        // Nothing else touches a running job's row meanwhile (no poll or heartbeat is due).
        await until("the run's end waits for the cancel", () => cancelling.blocks());
        await cancelling.query("COMMIT");
      } finally {
        await cancelling.end();
      }
      await ended(run.run_id);
      expect((await stored(run.run_id)).status).toBe("CANCELLED");
      expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "cancelled" });
      // The refused completion left no trace: the only RunCompleted is the cancel's, after RunCancelled.
      const kept = await events(run.run_id);
      expect(kept.slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
      expect(kept.filter((e) => e.event === "RunCompleted")).toHaveLength(1);
    });

    it("a cancel through the API is accepted ({}) while the run runs and answers that it had finished once it has", async () => {
      const message = `hold answered ${Date.now()}`;
      const run = await submit(message);
      await until("the model was asked", () => model.asked(message));
      expect(await cancel(run)).toEqual({ status: 200, body: {} });
      await ended(run.run_id);
      expect((await stored(run.run_id)).status).toBe("CANCELLED");
      // Cancelled already: cancelling again is still accepted (it ends CANCELLED).
      expect(await cancel(run)).toEqual({ status: 200, body: {} });
      openGate();

      const done = await submit(`quick ${Date.now()}`);
      await ended(done.run_id);
      expect((await stored(done.run_id)).status).toBe("COMPLETED");
      const answer = await cancel(done);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ cancelled: false, status: "COMPLETED" });
      expect(answer.body.message).toMatch(/already finished/);
      expect((await stored(done.run_id)).status).toBe("COMPLETED");
    });

    it("a cancel of a paused run ends it CANCELLED at once; a continue afterwards is 409", async () => {
      const run = await submit(`pause ${Date.now()}`);
      await ended(run.run_id);
      expect((await stored(run.run_id)).status).toBe("PAUSED");
      expect(await cancel(run)).toEqual({ status: 200, body: {} });
      expect((await stored(run.run_id)).status).toBe("CANCELLED");
      expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "cancelled" });
      const requirements = (await stored(run.run_id)).run_data.requirements as { tool_execution: { tool_call_id: string } }[];
      const continued = await app.call("POST", `/agents/bg/runs/${run.run_id}/continue`, {
        form: { session_id: run.session_id, stream: "false", tools: JSON.stringify(requirements.map((r) => ({ ...r.tool_execution, confirmed: true }))) },
      });
      expect(continued.status).toBe(409);
    });
  });
});

describe.each(DIALECTS)("cancel answers for non-durable runs on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let model: Awaited<ReturnType<typeof scriptedModel>>;
    let app: TestApp;
    let db: Db;

    beforeAll(async () => {
      model = await scriptedModel();
      app = await startTestApp({
        dialect,
        agents: [{ id: "bg", name: "Background", model: { provider: "openai-compatible", id: "scripted", baseUrl: model.server.url, apiKey: "t" } }],
        // One background run at a time: a second one waits for the slot.
        env: { AGNO_BACKGROUND_MAX_CONCURRENCY: "1" },
      });
      db = await app.db();
    });
    afterAll(async () => {
      await app?.close();
      await model?.close();
    });

    const { submit, cancel } = runApi(() => app);
    const openGate = () => model.openGate();
    const status = async (runId: string) => (await getRun(db, { scope: adminScope(), runId }))?.status;

    it("a running run and one waiting for a slot are accepted ({}) and end CANCELLED; a finished one says it had finished", async () => {
      const runningMessage = `hold running ${Date.now()}`;
      const running = await submit(runningMessage);
      await until("the model was asked", () => model.asked(runningMessage));
      const waitingMessage = `waiting ${Date.now()}`;
      const waiting = await submit(waitingMessage);
      expect(await status(waiting.run_id)).toBe("PENDING");
      expect(await cancel(waiting)).toEqual({ status: 200, body: {} });
      expect(await cancel(running)).toEqual({ status: 200, body: {} });
      expect(await status(running.run_id)).toBe("CANCELLED");
      await until("the waiting run CANCELLED", async () => (await status(waiting.run_id)) === "CANCELLED");
      expect(model.asked(waitingMessage)).toBe(false);

      const done = await submit(`quick ${Date.now()}`);
      await until("COMPLETED", async () => (await status(done.run_id)) === "COMPLETED");
      const answer = await cancel(done);
      expect(answer).toMatchObject({ status: 200, body: { cancelled: false, status: "COMPLETED" } });
      expect(await status(done.run_id)).toBe("COMPLETED");
    });

    it.skipIf(dialect.name !== "postgres")("a cancel that lands while the run writes its end says the run had finished", async () => {
      const message = `hold final ${Date.now()}`;
      const run = await submit(message);
      await until("the model was asked", () => model.asked(message));
      const holder = await lockSession(app.settings.database.schema);
      let answer: Promise<{ status: number; body: Json }>;
      try {
        await holder.query("BEGIN");
        await holder.query("SELECT 1 FROM agno_runs WHERE run_id = $1 FOR UPDATE", [run.run_id]);
        openGate();
        // The answer is complete; the run's final write (COMPLETED) waits for the row.
        await until("the run's end waits for the row", () => holder.blocks());
        answer = cancel(run);
        await until("the cancel reached the run", () => getLiveRun(run.run_id)?.controller.signal.aborted === true);
        await holder.query("COMMIT");
      } finally {
        await holder.end();
      }
      expect(await answer).toMatchObject({ status: 200, body: { cancelled: false, status: "COMPLETED" } });
      expect(await status(run.run_id)).toBe("COMPLETED");
    });
  });
});
