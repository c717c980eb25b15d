import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { processDeployment } from "../queue/process-deployment.ts";
import { postgresDialect } from "../support/databases.ts";
import { redisSkipReason } from "../support/redis.ts";
import { readSse } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

/**
 * The sample Brief workflow (agentry.config.ts) as a deployment runs it: submitted durably to one
 * web replica, executed by a standalone worker, followed from the other replica over Redis, and
 * continued (after its review step paused it) through that other replica.
 */
describe.skipIf(postgresDialect.skipReason !== null || redisSkipReason !== null)("a durable workflow run across processes (PostgreSQL and Redis)", () => {
  let model: ModelServer;
  let d: Awaited<ReturnType<typeof processDeployment>>;
  beforeAll(async () => {
    model = await startModelServer({ respond: (body) => ({ text: `noted: ${messageText(body.messages.at(-1))}`, chunks: ["noted: ", messageText(body.messages.at(-1))] }) });
    d = await processDeployment("wf_resume", model);
  }, 120_000);
  afterAll(async () => {
    await d?.destroy();
    await model?.close();
  });

  it("one replica queues it, a worker runs it, the other replica streams it to its pause and continues it", async () => {
    const a = await d.api("web-a");
    const b = await d.api("web-b");
    await d.worker("w1");
    const form = new FormData();
    form.set("message", "storms");
    form.set("background", "true");
    form.set("stream", "false");
    const submitted = (await (await fetch(`${a.origin}/workflows/brief/runs`, { method: "POST", body: form })).json()) as Json;
    expect(submitted).toMatchObject({ status: "PENDING" });
    // Replica B follows the run wherever it executes (Redis, then the database), from the start.
    const resume = new FormData();
    resume.set("session_id", String(submitted.session_id));
    resume.set("last_event_index", "-1");
    const events = await readSse(await fetch(`${b.origin}/workflows/brief/runs/${submitted.run_id}/resume`, { method: "POST", body: resume }));
    const names = events.map((e) => e.event);
    expect(names).toContain("WorkflowStarted");
    expect(names.filter((n) => n === "StepCompleted")).toHaveLength(2);
    expect(names.at(-1)).toBe("WorkflowPaused");
    const paused = events.at(-1)!;
    expect(paused).toMatchObject({ paused_step_name: "file" });
    await until("the run is stored PAUSED", async () => {
      const run = (await (await fetch(`${b.origin}/workflows/brief/runs/${submitted.run_id}?session_id=${submitted.session_id}`)).json()) as Json;
      return run.status === "PAUSED";
    });
    const requirement = (paused.step_requirements as Json[])[0]!;
    const go = new FormData();
    go.set("session_id", String(submitted.session_id));
    go.set("stream", "false");
    go.set("step_requirements", JSON.stringify([{ ...requirement, confirmed: true }]));
    const done = (await (await fetch(`${b.origin}/workflows/brief/runs/${submitted.run_id}/continue`, { method: "POST", body: go })).json()) as Json;
    expect(done).toMatchObject({ status: "COMPLETED", content: "Filed: noted: noted: storms" });
    const db = await d.db();
    const [job] = await db.sql.query<{ component_type: string; status: string }>("SELECT component_type, status FROM agno_jobs WHERE id = ?", [submitted.run_id]);
    expect(job).toMatchObject({ component_type: "workflow" });
  }, 120_000);
});
