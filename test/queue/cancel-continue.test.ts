import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getApproval, getJob, getRun, requestJobCancel, transitionRunStatus, type Db } from "@/lib/db/index.ts";
import { agentJobExecutor } from "@/lib/runs/jobs/agent-job.ts";
import { QueueWorker } from "@/lib/queue/worker.ts";
import { requestCancel } from "@/lib/live-runs/run-registry.ts";
import { hostToolkit } from "@/lib/runtime/tools/host/host.ts";
import type { ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS, type TestDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";
import { afterTool, gatedModel, lastUserText, lockSession } from "./cancel-support.ts";
import { RUN_JOBS, runCatalog } from "@/test/support/run-jobs.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * A cancel recorded in the database ends a run CANCELLED when the run is not a worker's: a paused
 * run continued on this replica (its job, if durable, waits `paused` meanwhile) whose cancel came
 * through another replica — that replica records it and this one hears nothing (no Redis here,
 * its poll a minute away) — and the retry of a durable run whose cancel came before its failure.
 * The other replica's part is played by the statements it runs.
 */

type Json = Record<string, unknown>;
/**
 * The scripted model: "approve …" asks for environment_variable_names (an admin's approval);
 * "pause …" asks for the confirmed server_details tool, and once it has the
 * tool's result answers (after openGate() when the message says "hold"); "fail hold …" waits for
 * the gate, then fails with a 503 (as do its retries, at once); "hold …" answers after openGate();
 * anything else answers at once.
 */
function scriptedModel() {
  const seen = new Map<string, number>();
  return gatedModel((body, gate): ScriptStep => {
    const text = lastUserText(body);
    const calls = (seen.get(text) ?? 0) + 1;
    seen.set(text, calls);
    const hold = text.includes("hold") ? { hold: gate } : {};
    if (text.startsWith("pause")) return afterTool(body) ? { text: `continued: ${text}`, ...hold } : { toolCalls: [{ name: "server_details", arguments: {} }] };
    if (text.startsWith("approve")) return afterTool(body) ? { text: `continued: ${text}` } : { toolCalls: [{ name: "environment_variable_names", arguments: {} }] };
    if (text.startsWith("fail")) {
      const error = { status: 503, message: "overloaded", headers: { "retry-after-ms": "0" } };
      return calls === 1 ? { error, ...hold } : { error };
    }
    return { text: `done: ${text}`, ...(text.startsWith("hold") ? hold : {}) };
  });
}

type Submitted = { run_id: string; session_id: string };

describe.each(DIALECTS)("cancels of continued and retried runs on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let model: Awaited<ReturnType<typeof scriptedModel>>;
    let app: TestApp;
    let db: Db;
    let worker: QueueWorker;

    beforeAll(async () => {
      model = await scriptedModel();
      app = await startTestApp({
        dialect,
        agents: [{ id: "bg", name: "Background", model: { provider: "openai-compatible", id: "scripted", baseUrl: model.server.url, apiKey: "t" }, tools: [hostToolkit] }],
        // No embedded worker and no Redis: cancels recorded by "another replica" reach this one
        // only through the database (the test's worker polls a minute apart).
        env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false", AGENTRY_QUEUE_POLL_INTERVAL_MS: "60000", AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "120" },
        queue: { maxAttempts: 3, retryDelaySeconds: 0 },
      });
      db = await app.db();
      worker = new QueueWorker({ db, queue: app.settings.queue, catalog: runCatalog(agentJobExecutor({ db, settings: app.settings })), onCancel: requestCancel });
      worker.start();
    });
    afterAll(async () => {
      await worker?.stop({ timeoutSeconds: 0 });
      await app?.close();
      await model?.close();
    });

    const stored = async (runId: string) => (await getRun(db, { scope: adminScope(), runId }))!;
    const job = (runId: string) => getJob(db, { scope: adminScope(), id: runId });
    const events = async (runId: string) => ((await stored(runId)).run_data.events as Json[] | undefined) ?? [];
    /** The id of the run (in flight, its answer not back yet) whose input is `message`. */
    const runIdOf = async (message: string) => {
      const rows = await db.sql.query<{ run_id: string; run_data: unknown }>("SELECT run_id, run_data FROM agno_runs");
      const data = (row: { run_data: unknown }) => (typeof row.run_data === "string" ? JSON.parse(row.run_data) : row.run_data) as { input?: { input_content?: string } };
      return rows.find((row) => data(row).input?.input_content === message)!.run_id;
    };
    const ended = (runId: string) => until(`${runId} ended`, async () => ["COMPLETED", "CANCELLED", "ERROR", "PAUSED"].includes((await stored(runId)).status ?? ""), 15_000);

    /** A durable background run that pauses for its confirmation. */
    async function pausedDurable(message: string): Promise<Submitted> {
      const response = await app.call("POST", "/agents/bg/runs", { form: { message, background: "true", stream: "false" } });
      expect(response.status, await response.clone().text()).toBe(202);
      const run = (await response.json()) as Submitted;
      worker.wake();
      await ended(run.run_id);
      expect((await stored(run.run_id)).status).toBe("PAUSED");
      expect(await job(run.run_id)).toMatchObject({ status: "paused" });
      return run;
    }
    /** An inline run (no job) that pauses for its confirmation. */
    async function pausedInline(message: string): Promise<Submitted> {
      const response = await app.call("POST", "/agents/bg/runs", { form: { message, stream: "false" } });
      expect(response.status, await response.clone().text()).toBe(200);
      const run = (await response.json()) as Submitted & { status: string };
      expect(run.status).toBe("PAUSED");
      expect(await job(run.run_id)).toBeNull();
      return run;
    }
    /** Continues the run here, confirming its tool; resolves with the continuation's answer. */
    async function continueHere(run: Submitted): Promise<{ status: number; body: Json }> {
      const requirements = (await stored(run.run_id)).run_data.requirements as { tool_execution: Json }[];
      const response = await app.call("POST", `/agents/bg/runs/${run.run_id}/continue`, {
        form: { session_id: run.session_id, stream: "false", tools: JSON.stringify(requirements.map((r) => ({ ...r.tool_execution, confirmed: true }))) },
      });
      return { status: response.status, body: (await response.json()) as Json };
    }
    const cancelHere = async (run: Submitted) => {
      const response = await app.call("POST", `/agents/bg/runs/${run.run_id}/cancel?session_id=${run.session_id}`);
      return { status: response.status, body: (await response.json()) as Json };
    };
    async function expectCancelled(runId: string) {
      expect((await stored(runId)).status).toBe("CANCELLED");
      const kept = await events(runId);
      // No completion got through: a RunCompleted is only the cancel's own, last, right after RunCancelled.
      const completed = kept.flatMap((e, i) => (e.event === "RunCompleted" ? [i] : []));
      expect(completed.every((i) => i === kept.length - 1 && kept[i - 1]?.event === "RunCancelled")).toBe(true);
    }

    it("cancelling a durable run paused for a required approval cancels the approval with it", async () => {
      const run = await pausedDurable(`approve durable ${Date.now()}`);
      const requirements = (await stored(run.run_id)).run_data.requirements as { tool_execution: Json }[];
      const approvalId = String(requirements[0]!.tool_execution.approval_id);
      expect(await getApproval(db, { scope: adminScope(), id: approvalId })).toMatchObject({ status: "pending", run_status: "PAUSED" });
      expect((await cancelHere(run)).status).toBe(200);
      await expectCancelled(run.run_id);
      expect(await getApproval(db, { scope: adminScope(), id: approvalId })).toMatchObject({ status: "cancelled", run_status: "CANCELLED" });
    });

    it("a durable run's continuation here ends CANCELLED when another replica records a cancel while it runs", async () => {
      const message = `pause hold durable ${Date.now()}`;
      const run = await pausedDurable(message);
      const continuing = continueHere(run);
      await until("the continuation asked the model", () => model.asked(message, { afterTool: true }));
      // Another replica's cancel: the intent on the job row (the job is paused: cancelled with its run at once).
      expect(await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: run.run_id })).toBe("cancelled");
      model.openGate();
      const answer = await continuing;
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe("CANCELLED");
      await expectCancelled(run.run_id);
      expect(await job(run.run_id)).toMatchObject({ status: "cancelled" });
    });

    it("a durable run's continuation that completes completes its job: a cancel afterwards says the run had finished", async () => {
      const run = await pausedDurable(`pause quick ${Date.now()}`);
      const answer = await continueHere(run);
      expect(answer).toMatchObject({ status: 200, body: { status: "COMPLETED" } });
      expect(await job(run.run_id)).toMatchObject({ status: "completed", error: null });
      expect((await job(run.run_id))!.completed_at).not.toBeNull();
      expect(await cancelHere(run)).toMatchObject({ status: 200, body: { cancelled: false, status: "COMPLETED" } });
      expect((await stored(run.run_id)).status).toBe("COMPLETED");
    });

    it("a continuation here of a run with no job ends CANCELLED when another replica cancels its stored row", async () => {
      const message = `pause hold inline ${Date.now()}`;
      const run = await pausedInline(message);
      const continuing = continueHere(run);
      await until("the continuation asked the model", () => model.asked(message, { afterTool: true }));
      // Another replica, where the run is not live: it cancels the run as stored.
      expect(await transitionRunStatus(db, { scope: adminScope(), runId: run.run_id, from: "RUNNING", to: "CANCELLED" })).toBe(true);
      model.openGate();
      expect((await continuing).body.status).toBe("CANCELLED");
      await expectCancelled(run.run_id);
    });

    it.skipIf(dialect.name !== "postgres").each([
      // The durable run's cancel: the intent on its paused job's row.
      { kind: "durable", cancel: "UPDATE agno_jobs SET cancel_requested_at = 1, updated_at = 1 WHERE id = $1", row: "job" },
      // The cancel of a run with no job: its own row.
      { kind: "job-less", cancel: "UPDATE agno_runs SET status = 'CANCELLED' WHERE run_id = $1 AND status = 'RUNNING'", row: "run" },
    ])("a cancel committed while a $kind continuation's end waits for its $row row is seen: the end is CANCELLED", async ({ kind, cancel }) => {
      const message = `pause hold lockstep ${kind} ${Date.now()}`;
      const run = kind === "durable" ? await pausedDurable(message) : await pausedInline(message);
      const continuing = continueHere(run);
      await until("the continuation asked the model", () => model.asked(message, { afterTool: true }));
      const cancelling = await lockSession(app.settings.database.schema);
      try {
        // The cancel's UPDATE, left uncommitted: the continuation's end must wait for it, then see it.
        await cancelling.query("BEGIN");
        expect((await cancelling.query(cancel, [run.run_id])).rowCount).toBe(1);
        model.openGate();
        await until("the continuation's end waits for the cancel", () => cancelling.blocks());
        await cancelling.query("COMMIT");
      } finally {
        await cancelling.end();
      }
      expect((await continuing).body.status).toBe("CANCELLED");
      await expectCancelled(run.run_id);
      if (kind === "durable") expect(await job(run.run_id)).toMatchObject({ status: "cancelled" });
    });

    it("an inline run here ends CANCELLED when another replica cancels its stored row while it runs", async () => {
      const message = `hold inline ${Date.now()}`;
      const running = app.call("POST", "/agents/bg/runs", { form: { message, stream: "false" } });
      await until("the model was asked", () => model.asked(message));
      const runId = await runIdOf(message);
      expect(await transitionRunStatus(db, { scope: adminScope(), runId, from: "RUNNING", to: "CANCELLED" })).toBe(true);
      model.openGate();
      const response = await running;
      expect(((await response.json()) as Json).status).toBe("CANCELLED");
      await expectCancelled(runId);
    });

    it("a retryable failure after a cancel was recorded ends the run CANCELLED and is not retried", async () => {
      const message = `fail hold ${Date.now()}`;
      const response = await app.call("POST", "/agents/bg/runs", { form: { message, background: "true", stream: "false" } });
      const run = (await response.json()) as Submitted;
      worker.wake();
      await until("the model was asked", () => model.asked(message));
      expect(await requestJobCancel(db, { ...RUN_JOBS, scope: adminScope(), id: run.run_id })).toBe("running");
      model.openGate();
      await ended(run.run_id);
      await expectCancelled(run.run_id);
      expect(await job(run.run_id)).toMatchObject({ status: "cancelled", attempt: 1 });
    });
  });
});
