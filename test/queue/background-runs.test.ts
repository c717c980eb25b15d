import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRun } from "@/lib/db/index.ts";
import { backgroundLoad } from "@/lib/runs/background.ts";
import { deferred, startModelServer, type Deferred, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { adminScope } from "../support/scopes.ts";
import { firstSseData } from "../support/api.ts";

type Json = Record<string, unknown>;

describe("background runs (non-durable): the per-replica cap and one run per session", () => {
  let server: ModelServer;
  let app: TestApp;
  let gate: Deferred;

  beforeAll(async () => {
    gate = deferred();
    // Every model call waits at the gate, so runs stay RUNNING until the test opens it.
    server = await startModelServer({ respond: () => ({ text: "done", hold: () => gate.promise }) });
    app = await startTestApp({
      dialect: sqliteDialect,
      agents: [{ id: "bg", name: "Background", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } }],
      env: { AGNO_BACKGROUND_MAX_CONCURRENCY: "32" },
    });
  });
  afterAll(async () => {
    gate.resolve();
    await app.close();
    await server.close();
  });

  const submit = async (fields: Record<string, string> = {}) => {
    const response = await app.call("POST", "/agents/bg/runs", { form: { message: "work", background: "true", stream: "false", ...fields } });
    expect(response.status).toBe(202);
    return (await response.json()) as { run_id: string; session_id: string; status: string };
  };
  const status = async (runId: string) => (await getRun(await app.db(), { scope: adminScope(), runId }))?.status;
  async function until(check: () => Promise<boolean>) {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("condition not reached");
  }

  it("40 submits with maxConcurrency 32: 32 RUNNING, 8 PENDING, then all COMPLETED", async () => {
    const accepted = await Promise.all(Array.from({ length: 40 }, () => submit()));
    expect(accepted.every((a) => a.status === "PENDING")).toBe(true);
    await server.waitForRequests(32, 10_000);
    await until(async () => (await Promise.all(accepted.map((a) => status(a.run_id)))).filter((s) => s === "RUNNING").length === 32);
    const statuses = await Promise.all(accepted.map((a) => status(a.run_id)));
    expect(statuses.filter((s) => s === "RUNNING").length).toBe(32);
    expect(statuses.filter((s) => s === "PENDING").length).toBe(8);
    expect(backgroundLoad()).toEqual({ running: 32, waiting: 8 });
    // The poll endpoint shows PENDING to clients too.
    const pending = accepted[statuses.indexOf("PENDING")];
    const polled = (await (await app.call("GET", `/agents/bg/runs/${pending.run_id}?session_id=${pending.session_id}`)).json()) as Json;
    expect(polled.status).toBe("PENDING");
    gate.resolve();
    await until(async () => (await Promise.all(accepted.map((a) => status(a.run_id)))).every((s) => s === "COMPLETED"));
    expect(backgroundLoad()).toEqual({ running: 0, waiting: 0 });
    gate = deferred();
  });

  it("a second submit to a busy session waits behind the first", async () => {
    const first = await submit();
    await until(async () => (await status(first.run_id)) === "RUNNING");
    const second = await submit({ session_id: first.session_id });
    await new Promise((r) => setTimeout(r, 100));
    expect(await status(second.run_id)).toBe("PENDING");
    gate.resolve();
    await until(async () => (await status(second.run_id)) === "COMPLETED");
    expect(await status(first.run_id)).toBe("COMPLETED");
    gate = deferred();
  });

  it("a PENDING run can be cancelled before it starts, and the model is never called for it", async () => {
    const blocker = await submit();
    await until(async () => (await status(blocker.run_id)) === "RUNNING");
    const queued = await submit({ session_id: blocker.session_id, message: "never-sent-to-the-model" });
    expect((await app.call("POST", `/agents/bg/runs/${queued.run_id}/cancel?session_id=${queued.session_id}`)).status).toBe(200);
    gate.resolve();
    await until(async () => (await status(queued.run_id)) === "CANCELLED");
    expect(await status(blocker.run_id)).toBe("COMPLETED");
    expect(server.requests.some((r) => JSON.stringify(r.body.messages).includes("never-sent-to-the-model"))).toBe(false);
    gate = deferred();
  });

  it("a background stream keeps running after the client disconnects, and can be resumed", async () => {
    const response = await app.call("POST", "/agents/bg/runs", { form: { message: "stream me", background: "true", stream: "true" } });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const started = firstSseData<Json>(first);
    await reader.cancel();
    gate.resolve();
    await until(async () => (await status(String(started.run_id))) === "COMPLETED");
    const resumed = await (await app.call("POST", `/agents/bg/runs/${started.run_id}/resume`, { form: { last_event_index: "0", session_id: String(started.session_id) } })).text();
    expect(resumed).toContain("event: replay");
    expect(resumed).toContain('"event":"RunCompleted"');
  });
});
