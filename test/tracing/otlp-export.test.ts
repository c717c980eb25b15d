import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flushTracing } from "@/lib/tracing/setup.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, any>;

/** A minimal OTLP/HTTP receiver: keeps every JSON export request's headers and body. */
async function startReceiver(): Promise<{ url: string; requests: { path: string; headers: IncomingHttpHeaders; body: Json }[]; close(): Promise<void> }> {
  const requests: { path: string; headers: IncomingHttpHeaders; body: Json }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Json });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** OTLP's `{key, value: {stringValue|intValue|…}}` attributes as a plain object. */
function attributesOf(list: { key: string; value: Json }[]): Json {
  return Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? value.arrayValue))]),
  );
}

describe("OTLP export: the same spans reach a collector", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startModelServer();
    const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "sk-otlp-secret-99a1b2c3" };
    app = await startTestApp({
      dialect: sqliteDialect,
      agents: [{ id: "helper", name: "Helper", model }],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: "x-team=blue,x-api-key=collector%20key", OTEL_SERVICE_NAME: "agentry-under-test" },
    });
    await app.db();
  });
  afterAll(async () => {
    await flushTracing();
    await app?.close();
    await server?.close();
    await receiver?.close();
  });

  it("sends the run's spans with their attributes, the configured headers and the service name", async () => {
    server.script([{ text: "Hello.", usage: { prompt_tokens: 7, completion_tokens: 2 } }]);
    const run = (await (await app.call("POST", "/agents/helper/runs", { form: { message: "Hi", stream: "false" } })).json()) as Json;
    const spans = () =>
      receiver.requests.flatMap((r) =>
        (r.body.resourceSpans ?? []).flatMap((rs: Json) => (rs.scopeSpans ?? []).flatMap((ss: Json) => (ss.spans ?? []).map((s: Json) => ({ ...s, resource: rs.resource, request: r })))),
      );
    await until("the run's spans reach the receiver", async () => {
      await flushTracing();
      return spans().some((s) => s.name === "Helper.run" && attributesOf(s.attributes)["agno.run.id"] === run.run_id);
    });
    const root = spans().find((s) => s.name === "Helper.run" && attributesOf(s.attributes)["agno.run.id"] === run.run_id)!;
    const llm = spans().find((s) => s.traceId === root.traceId && s.name === "OpenAILike.invoke")!;
    expect(root.request.path).toBe("/v1/traces");
    expect(root.request.headers).toMatchObject({ "x-team": "blue", "x-api-key": "collector key" });
    expect(attributesOf(root.resource.attributes)).toMatchObject({ "service.name": "agentry-under-test" });
    expect(attributesOf(root.attributes)).toMatchObject({ "openinference.span.kind": "AGENT", "input.value": "Hi", "output.value": "Hello.", "session.id": run.session_id, "agno.agent.id": "helper" });
    expect(attributesOf(llm.attributes)).toMatchObject({ "openinference.span.kind": "LLM", "llm.model_name": "scripted", "llm.token_count.prompt": 7, "llm.token_count.completion": 2 });
    expect(llm.parentSpanId).toBe(root.spanId);
    // The database holds the same span, with the same attributes.
    const db = await app.db();
    const [stored] = await db.sql.query<{ attributes: unknown }>("SELECT attributes FROM agno_spans WHERE span_id = ?", [llm.spanId]);
    const attributes = typeof stored!.attributes === "string" ? JSON.parse(stored!.attributes) : stored!.attributes;
    expect(attributes).toMatchObject({ "llm.model_name": "scripted", "llm.token_count.prompt": 7 });
    expect(JSON.stringify(receiver.requests.map((r) => r.body))).not.toContain("sk-otlp-secret-99a1b2c3");
  });
});
