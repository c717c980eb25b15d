import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * agent-ui does not parse SSE lines: it scans the raw text for balanced top-level `{…}` JSON
 * objects (string- and escape-aware) and uses each one that carries a string `event`. This is
 * that algorithm, so a stream that only works for line-based parsers fails here.
 */
function agentUiParse(raw: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0) {
        const parsed = JSON.parse(raw.slice(start, i + 1)) as Record<string, unknown>;
        if (typeof parsed.event === "string") out.push(parsed.data === undefined ? parsed : { event: parsed.event, ...(parsed.data as object) });
      }
    }
  }
  return out;
}

describe("the stream as Agno's chat UI reads it", () => {
  let server: ModelServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startModelServer();
    app = await startTestApp({
      dialect: sqliteDialect,
      agents: [{ id: "ui", name: "UI", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } }],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it("yields every event, with braces and quotes inside content intact, and the session id on RunStarted", async () => {
    const tricky = 'Here is JSON: {"a": "b}"} and a quote \\" and a brace }';
    server.script([{ text: tricky, chunks: ['Here is JSON: {"a": ', '"b}"} and a quote \\" ', "and a brace }"] }]);
    const form = new FormData();
    form.set("message", "show me");
    form.set("stream", "true");
    form.set("session_id", "");
    const raw = await (await app.call("POST", "/agents/ui/runs", { form })).text();
    const events = agentUiParse(raw);
    expect(events[0]).toMatchObject({ event: "RunStarted" });
    expect(typeof events[0].session_id).toBe("string");
    const content = events
      .filter((e) => e.event === "RunContent")
      .map((e) => e.content)
      .join("");
    expect(content).toBe(tricky);
    expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: tricky });
  });
});
