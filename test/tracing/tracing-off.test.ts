import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tracer } from "@/lib/runtime/run-trace.ts";
import { flushTracing, tracingActive } from "@/lib/tracing/setup.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, any>;

describe("tracing off (AGENTRY_TRACING=false)", () => {
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startModelServer();
    const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
    app = await startTestApp({ dialect: sqliteDialect, agents: [{ id: "helper", name: "Helper", model }], env: { AGENTRY_TRACING: "false" } });
    await app.db();
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  it("records nothing, and the routes still answer, with empty lists", async () => {
    expect(app.settings.tracing.enabled).toBe(false);
    expect(tracingActive()).toBe(false);
    // The runtime's spans do not record, so nothing is serialized for them.
    expect(tracer().startSpan("probe").isRecording()).toBe(false);
    server.script([{ text: "Hello." }]);
    const run = (await (await app.call("POST", "/agents/helper/runs", { form: { message: "Hi", stream: "false" } })).json()) as Json;
    expect(run.status).toBe("COMPLETED");
    await flushTracing();
    const db = await app.db();
    expect(await db.sql.query("SELECT span_id FROM agno_spans")).toEqual([]);
    const list = await app.call("GET", `/traces?run_id=${run.run_id}`);
    expect(list.status).toBe(200);
    expect(((await list.json()) as Json).data).toEqual([]);
    expect(((await (await app.call("GET", "/trace_session_stats")).json()) as Json).data).toEqual([]);
    expect(((await (await app.call("POST", "/traces/search", { json: {} })).json()) as Json).data).toEqual([]);
    expect((await app.call("GET", "/traces/filter-schema")).status).toBe(200);
    const config = (await (await app.call("GET", "/config")).json()) as Json;
    expect(config.traces.dbs).toHaveLength(1);
  });
});
