import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { runEventStream } from "@/lib/http/sse.ts";
import { makeEvent } from "@/lib/live-runs/events.ts";
import { ModelProviderError } from "@/lib/models/model-provider-error.ts";
import { finishRun, publish, registerRun } from "@/lib/live-runs/run-registry.ts";

const apiError = (statusCode: number | undefined, body = "", headers: Record<string, string> = {}) =>
  new APICallError({ message: `HTTP ${statusCode}`, url: "http://model/v1/chat/completions", requestBodyValues: {}, statusCode, responseBody: body, responseHeaders: headers });

describe("ModelProviderError.classify", () => {
  it("classifies provider failures and marks the retryable ones", () => {
    const cases: [unknown, string, boolean][] = [
      [apiError(401), "auth", false],
      [apiError(403), "auth", false],
      [apiError(429, "", { "retry-after": "7" }), "rate_limit", true],
      [apiError(400, '{"error":{"code":"context_length_exceeded","message":"maximum context length is 8192 tokens"}}'), "context_length", false],
      [apiError(503), "server", true],
      [apiError(422), "invalid_request", false],
      [Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }), "network", true],
      [new Error("something odd"), "unknown", false],
    ];
    for (const [error, kind, retryable] of cases) {
      const classified = ModelProviderError.classify(error);
      expect([classified.kind, classified.retryable], String((error as Error).message)).toEqual([kind, retryable]);
    }
    expect(ModelProviderError.classify(apiError(429, "", { "retry-after": "7" })).retryAfterSeconds).toBe(7);
    expect(ModelProviderError.classify(apiError(401)).errorType).toBe("model_auth_error");
  });

  it("looks through a retry wrapper at the last error", () => {
    const wrapped = Object.assign(new Error("Failed after 3 attempts"), { lastError: apiError(500) });
    expect(ModelProviderError.classify(wrapped).kind).toBe("server");
  });
});

describe("the run event stream", () => {
  it("sends heartbeat comments while idle and closes when the run ends", async () => {
    const live = registerRun({ runId: `hb-${Date.now()}`, sessionId: "s", componentType: "agent", componentId: "a", userId: null });
    const base = { agent_id: "a", agent_name: "A", run_id: live.runId, session_id: "s" };
    publish(live, makeEvent(base, "RunStarted"));
    const reader = runEventStream({ live, lastEventIndex: null, heartbeatMs: 10 }).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes(": heartbeat")) text += decoder.decode((await reader.read()).value);
    publish(live, makeEvent(base, "RunCompleted", { content: "done" }));
    finishRun(live, "COMPLETED");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text.indexOf("event: RunStarted")).toBeLessThan(text.indexOf(": heartbeat"));
    expect(text).toMatch(/event: RunCompleted\ndata: \{[^\n]*"event":"RunCompleted"/);
  });
});
