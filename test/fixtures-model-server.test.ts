import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { APICallError, RetryError, generateText, stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import { deferred, messageText, startModelServer, type ModelServer } from "../e2e/fixtures/model-server.ts";

let server: ModelServer;
const model = () => createOpenAI({ baseURL: server.url, apiKey: "test" }).chat("scripted");

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

/** Raw SSE `data:` payloads of a streaming chat completion. */
async function sseEvents(body: Record<string, unknown>): Promise<{ status: number; contentType: string | null; events: string[] }> {
  const res = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "hi" }], stream: true, ...body }),
  });
  const text = await res.text();
  const events = text
    .split("\n\n")
    .filter((block) => block.length > 0)
    .map((block) => {
      expect(block.startsWith("data: ")).toBe(true);
      return block.slice("data: ".length);
    });
  return { status: res.status, contentType: res.headers.get("content-type"), events };
}

describe("model-server fixture: wire format", () => {
  it("listens on 127.0.0.1 with a /v1 base URL, lists models, 404s unknown paths, 400s bad JSON", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = await (await fetch(`${server.url}/models`)).json();
    expect(models).toEqual({ object: "list", data: [expect.objectContaining({ id: "scripted", object: "model" })] });

    const missing = await fetch(`${server.url}/images/generations`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: "invalid_request_error", code: "unknown_url" } });

    const bad = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/not valid JSON/);

    expect(server.requests).toHaveLength(0); // bad requests are not chat requests and consume no step
    expect(server.allRequests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(["GET /v1/models 200", "POST /v1/images/generations 404", "POST /v1/chat/completions 400"]);
  });

  it("answers non-streaming requests with a chat.completion (content or tool_calls, finish_reason, usage)", async () => {
    server.script([{ text: "Hi there", usage: { prompt_tokens: 3, completion_tokens: 2 } }, { toolCalls: [{ name: "lookup", arguments: { q: "x" }, id: "call_fixed" }] }]);
    const post = async () =>
      (
        await fetch(`${server.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-whatever", messages: [{ role: "user", content: "hi" }] }),
        })
      ).json();
    expect(await post()).toMatchObject({
      object: "chat.completion",
      model: "gpt-whatever",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi there" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(await post()).toMatchObject({
      choices: [
        {
          message: { role: "assistant", content: null, tool_calls: [{ id: "call_fixed", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }] },
          finish_reason: "tool_calls",
        },
      ],
    });
  });

  it("streams OpenAI chat.completion.chunk events: role, content deltas, tool-call deltas, finish, usage, [DONE]", async () => {
    server.enqueue(
      { chunks: ["Let me ", "check."], toolCalls: [{ name: "lookup", arguments: { query: "weather in Oslo" }, id: "call_a" }], usage: { prompt_tokens: 9, completion_tokens: 4 } },
      { text: "done" },
    );
    const first = await sseEvents({ stream_options: { include_usage: true } });
    expect(first.status).toBe(200);
    expect(first.contentType).toMatch(/^text\/event-stream/);
    expect(first.events.at(-1)).toBe("[DONE]");
    const chunks = first.events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id)).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant" });
    expect(chunks.flatMap((c) => c.choices.map((ch: { delta: { content?: string } }) => ch.delta.content ?? "")).join("")).toBe("Let me check.");
    const toolDeltas = chunks.flatMap((c) => c.choices.flatMap((ch: { delta: { tool_calls?: unknown[] } }) => ch.delta.tool_calls ?? []));
    expect(toolDeltas[0]).toEqual({ index: 0, id: "call_a", type: "function", function: { name: "lookup", arguments: "" } });
    expect(toolDeltas.length).toBeGreaterThan(2); // arguments arrive in fragments
    expect(toolDeltas.map((d: { function: { arguments: string } }) => d.function.arguments).join("")).toBe('{"query":"weather in Oslo"}');
    const finish = chunks.find((c) => c.choices[0]?.finish_reason != null);
    expect(finish.choices[0].finish_reason).toBe("tool_calls");
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });

    // Without stream_options.include_usage there is no usage chunk.
    const second = await sseEvents({});
    const last = JSON.parse(second.events.at(-2)!);
    expect(last.choices[0].finish_reason).toBe("stop");
    expect(second.events.some((e) => e.includes('"usage"'))).toBe(false);
  });

  it("rejects invalid steps when they are enqueued", () => {
    expect(() => server.enqueue({ text: "abc", chunks: ["ab"] })).toThrow(/chunks join/);
    expect(() => server.enqueue({ error: { status: 200, message: "no" } })).toThrow(/status/);
    expect(() => server.enqueue({ txt: "typo" } as never)).toThrow(/unknown step field "txt"/);
    expect(server.pending).toBe(0);
  });
});

describe("model-server fixture against the real AI SDK (ai v6, @ai-sdk/openai chat)", () => {
  it("generateText gets the scripted text; the server records what the model was sent", async () => {
    server.enqueue({ text: "Paris is the capital of France." });
    const result = await generateText({ model: model(), system: "You are terse.", prompt: "Capital of France?" });

    expect(result.text).toBe("Paris is the capital of France.");
    expect(result.finishReason).toBe("stop");
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req!.stream).toBe(false);
    expect(req!.state).toBe("completed");
    expect(req!.headers.authorization).toBe("Bearer test");
    expect(req!.body.model).toBe("scripted");
    expect(req!.body.messages.map((m) => [m.role, messageText(m)])).toEqual([
      ["system", "You are terse."],
      ["user", "Capital of France?"],
    ]);
    expect(server.pending).toBe(0);
  });

  it("streamText yields the scripted deltas, which concatenate to the full text", async () => {
    server.enqueue({ chunks: ["The ", "quick ", "brown ", "fox."] }, { text: "Split into several words by default." });

    const explicit = streamText({ model: model(), prompt: "Tell me about foxes" });
    const deltas: string[] = [];
    for await (const delta of explicit.textStream) deltas.push(delta);
    expect(deltas).toEqual(["The ", "quick ", "brown ", "fox."]);
    expect(await explicit.text).toBe("The quick brown fox.");
    expect(await explicit.finishReason).toBe("stop");

    const split = streamText({ model: model(), prompt: "again" });
    const splitDeltas: string[] = [];
    for await (const delta of split.textStream) splitDeltas.push(delta);
    expect(splitDeltas.length).toBeGreaterThan(1);
    expect(splitDeltas.join("")).toBe("Split into several words by default.");

    // The SDK always streams with include_usage.
    expect(server.requests.map((r) => [r.stream, r.body.stream_options])).toEqual([
      [true, { include_usage: true }],
      [true, { include_usage: true }],
    ]);
  });

  it("runs a tool call round trip (generateText + stopWhen); the second request carries the tool result", async () => {
    server.script([
      { toolCalls: [{ name: "weather", arguments: { city: "Oslo" }, id: "call_oslo" }], usage: { prompt_tokens: 20, completion_tokens: 5 } },
      { text: "It is 21°C in Oslo.", usage: { prompt_tokens: 40, completion_tokens: 8 } },
    ]);
    const calls: unknown[] = [];
    const result = await generateText({
      model: model(),
      system: "Use tools.",
      prompt: "Weather in Oslo?",
      tools: {
        weather: tool({
          description: "Current weather for a city",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            calls.push(city);
            return { city, celsius: 21 };
          },
        }),
      },
      stopWhen: stepCountIs(5),
    });

    expect(calls).toEqual(["Oslo"]);
    expect(result.text).toBe("It is 21°C in Oslo.");
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.toolCalls).toMatchObject([{ toolCallId: "call_oslo", toolName: "weather", input: { city: "Oslo" } }]);
    expect(result.steps[0]!.finishReason).toBe("tool-calls");

    const [first, second] = server.requests;
    expect(first!.body.tools).toEqual([expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "weather", description: "Current weather for a city" }) })]);
    const messages = second!.body.messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messages[2]!.tool_calls).toEqual([{ id: "call_oslo", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }]);
    expect(messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_oslo" });
    expect(JSON.parse(messages[3]!.content as string)).toEqual({ city: "Oslo", celsius: 21 });

    // Usage: per step, and summed over the steps.
    expect(result.usage).toMatchObject({ inputTokens: 40, outputTokens: 8, totalTokens: 48 });
    expect(result.totalUsage).toMatchObject({ inputTokens: 60, outputTokens: 13, totalTokens: 73 });
  });

  it("without stopWhen, generateText stops after the tool call (one request, tool still executed)", async () => {
    server.enqueue({ toolCalls: [{ name: "echo", arguments: { value: "x" } }] }, { text: "unused" });
    const result = await generateText({
      model: model(),
      prompt: "echo x",
      tools: { echo: tool({ inputSchema: z.object({ value: z.string() }), execute: async ({ value }) => value }) },
    });
    expect(server.requests).toHaveLength(1);
    expect(result.steps).toHaveLength(1);
    expect(result.toolResults).toMatchObject([{ toolName: "echo", output: "x" }]);
    expect(result.text).toBe("");
    expect(server.pending).toBe(1);
  });

  it("runs a streamed tool call round trip (streamText assembles tool-call deltas)", async () => {
    server.script([
      {
        toolCalls: [
          { name: "add", arguments: { a: 2, b: 3 } },
          { name: "add", arguments: { a: 10, b: 1 } },
        ],
      },
      { chunks: ["5 ", "and ", "11"] },
    ]);
    const result = streamText({
      model: model(),
      prompt: "add things",
      tools: { add: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }) },
      stopWhen: stepCountIs(3),
    });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(await result.text).toBe("5 and 11");
    expect(types).toContain("tool-input-delta");
    expect(types.filter((t) => t === "tool-call")).toHaveLength(2);
    expect(types.filter((t) => t === "tool-result")).toHaveLength(2);

    const toolMessages = server.requests[1]!.body.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => [m.tool_call_id, m.content])).toEqual([
      [server.requests[1]!.body.messages[1]!.tool_calls![0]!.id, "5"],
      [server.requests[1]!.body.messages[1]!.tool_calls![1]!.id, "11"],
    ]);
  });

  it("a 401 surfaces as APICallError (statusCode 401, not retried)", async () => {
    server.enqueue({ error: { status: 401, message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } });
    const error = await generateText({ model: model(), prompt: "hi" }).catch((e: unknown) => e);

    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(401);
    expect(apiError.message).toBe("Incorrect API key provided");
    expect(apiError.isRetryable).toBe(false);
    expect(JSON.parse(apiError.responseBody!)).toEqual({
      error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" },
    });
    expect(apiError.url).toBe(`${server.url}/chat/completions`);
    expect(server.requests).toHaveLength(1); // default maxRetries (2), but 401 is not retryable
  });

  it("a 401 while streaming is not thrown: it arrives as an error part / onError", async () => {
    server.enqueue({ error: { status: 401, message: "Incorrect API key provided" } });
    const seen: unknown[] = [];
    const result = streamText({ model: model(), prompt: "hi", onError: ({ error }) => void seen.push(error) });
    const parts: Array<{ type: string; error?: unknown }> = [];
    for await (const part of result.fullStream) parts.push(part);
    const errorPart = parts.find((p) => p.type === "error");
    expect(APICallError.isInstance(errorPart?.error)).toBe(true);
    expect((errorPart!.error as APICallError).statusCode).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it("a 429 with retry-after is retried by the SDK (maxRetries) and then succeeds", async () => {
    server.script([{ error: { status: 429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", headers: { "retry-after": "0" } } }, { text: "after the retry" }]);
    const started = Date.now();
    const result = await generateText({ model: model(), prompt: "hi", maxRetries: 2 });
    expect(result.text).toBe("after the retry");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toEqual(server.requests[0]!.body); // the same request, replayed
    // retry-after: 0 replaces the SDK's default 2 s initial backoff.
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("maxRetries: 0 surfaces the 429 itself; exhausted retries surface a RetryError listing every attempt", async () => {
    const rateLimited = { error: { status: 429, message: "Slow down", headers: { "retry-after-ms": "5" } } };
    server.enqueue(rateLimited);
    const direct = await generateText({ model: model(), prompt: "hi", maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(direct)).toBe(true);
    expect((direct as APICallError).statusCode).toBe(429);
    expect((direct as APICallError).isRetryable).toBe(true);
    expect((direct as APICallError).responseHeaders?.["retry-after-ms"]).toBe("5");

    server.reset();
    server.enqueue(rateLimited, rateLimited, rateLimited);
    const exhausted = await generateText({ model: model(), prompt: "hi", maxRetries: 2 }).catch((e: unknown) => e);
    expect(RetryError.isInstance(exhausted)).toBe(true);
    const retryError = exhausted as RetryError;
    expect(retryError.reason).toBe("maxRetriesExceeded");
    expect(retryError.errors).toHaveLength(3);
    expect(APICallError.isInstance(retryError.lastError)).toBe(true);
    expect(retryError.message).toBe("Failed after 3 attempts. Last error: Slow down");
    expect(server.requests).toHaveLength(3);
  });

  it("hold: the first delta reaches the caller while the model still holds the rest", async () => {
    const gate = deferred();
    server.enqueue({ chunks: ["first", " second", " third"], hold: gate.promise });
    const result = streamText({ model: model(), prompt: "go" });
    const reader = result.textStream[Symbol.asyncIterator]();

    expect(await reader.next()).toEqual({ done: false, value: "first" });
    expect(server.requests[0]!.state).toBe("pending");
    // Nothing more arrives while the gate is closed.
    const next = reader.next();
    const raced = await Promise.race([next.then(() => "delta"), new Promise((r) => setTimeout(() => r("held"), 150))]);
    expect(raced).toBe("held");

    gate.resolve();
    expect(await next).toEqual({ done: false, value: " second" });
    expect(await reader.next()).toEqual({ done: false, value: " third" });
    expect((await reader.next()).done).toBe(true);
    expect(await result.text).toBe("first second third");
    expect(server.requests[0]!.state).toBe("completed");
  });

  it("a hold given as a function is called only when the first chunk has been sent", async () => {
    const order: string[] = [];
    server.enqueue({
      chunks: ["a", "b"],
      hold: async () => {
        order.push("hold called");
      },
    });
    const result = streamText({ model: model(), prompt: "go" });
    for await (const delta of result.textStream) order.push(delta);
    expect(order[0]).toBe("hold called");
    expect(order.slice(1)).toEqual(["a", "b"]);
  });

  it("usage numbers come through generateText and streamText", async () => {
    server.enqueue({ text: "one", usage: { prompt_tokens: 11, completion_tokens: 3 } }, { text: "two", usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 10 } });
    const generated = await generateText({ model: model(), prompt: "x" });
    expect(generated.usage).toMatchObject({
      inputTokens: 11,
      outputTokens: 3,
      totalTokens: 14,
      inputTokenDetails: { noCacheTokens: 11, cacheReadTokens: 0 },
      outputTokenDetails: { textTokens: 3, reasoningTokens: 0 },
    });

    const streamed = streamText({ model: model(), prompt: "x" });
    await streamed.consumeStream();
    // The SDK computes totalTokens as input + output; the provider's total_tokens (10 here) is ignored.
    expect(await streamed.usage).toMatchObject({ inputTokens: 7, outputTokens: 2, totalTokens: 9 });
    expect(await streamed.totalUsage).toMatchObject({ inputTokens: 7, outputTokens: 2, totalTokens: 9 });
    expect((await streamed.usage).raw).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 10 });
  });

  it("survives the client aborting a stream mid-way, and keeps serving", async () => {
    const gate = deferred();
    server.enqueue({ chunks: ["partial", " never", " sent"], hold: gate.promise }, { text: "still alive" });
    const abort = new AbortController();
    let aborted = false;
    const result = streamText({ model: model(), prompt: "go", abortSignal: abort.signal, onAbort: () => void (aborted = true) });
    const reader = result.textStream[Symbol.asyncIterator]();
    expect(await reader.next()).toEqual({ done: false, value: "partial" });

    abort.abort();
    await reader.next().catch(() => undefined);
    await expect.poll(() => server.requests[0]!.state).toBe("aborted");
    expect(aborted).toBe(true);
    gate.resolve(); // the server's held handler wakes up to a closed connection and stops quietly

    const after = await generateText({ model: model(), prompt: "again" });
    expect(after.text).toBe("still alive");
  });

  it("survives a raw client disconnecting while a stream is held", async () => {
    const gate = deferred();
    server.enqueue({ text: "one two three", hold: gate.promise });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "hi" }], stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => server.requests[0]!.state).toBe("aborted");
    gate.resolve();
    await new Promise((r) => setTimeout(r, 20));
    expect((await fetch(`${server.url}/models`)).status).toBe(200);
  });

  it("a rejected hold drops the connection mid-stream; iterating fullStream throws", async () => {
    const gate = deferred();
    server.enqueue({ chunks: ["half", " of it"], hold: gate.promise });
    const errors: unknown[] = [];
    const result = streamText({ model: model(), prompt: "go", onError: ({ error }) => void errors.push(error) });
    const reader = result.fullStream[Symbol.asyncIterator]();
    let part = await reader.next();
    while (!part.done && part.value.type !== "text-delta") part = await reader.next();
    gate.reject(new Error("model crashed"));
    const rest: string[] = [];
    let thrown: unknown;
    try {
      for (part = await reader.next(); !part.done; part = await reader.next()) rest.push(part.value.type);
    } catch (e) {
      thrown = e;
    }
    // A connection lost mid-stream is not an error part: iterating fullStream throws, onError is not
    // called, and nothing is retried once output has started.
    expect(rest).toEqual([]);
    expect(APICallError.isInstance(thrown)).toBe(true);
    expect((thrown as APICallError).message).toBe("Failed to process successful response");
    expect(((thrown as APICallError).cause as Error).message).toBe("terminated");
    expect(errors).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.state).toBe("aborted");
  });

  it("hold on a non-streaming answer withholds the whole response", async () => {
    const gate = deferred();
    server.enqueue({ text: "late", hold: gate.promise });
    let settled = false;
    const pending = generateText({ model: model(), prompt: "go" }).finally(() => (settled = true));
    await server.waitForRequests(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(server.requests[0]!.state).toBe("pending");
    gate.resolve();
    expect((await pending).text).toBe("late");
  });

  it("close() does not wait for held streams: it drops them", async () => {
    const own = await startModelServer({ steps: [{ chunks: ["held", " forever"], hold: new Promise<void>(() => {}) }] });
    const result = streamText({ model: createOpenAI({ baseURL: own.url, apiKey: "k" }).chat("scripted"), prompt: "go" });
    const reader = result.fullStream[Symbol.asyncIterator]();
    let part = await reader.next();
    while (!part.done && part.value.type !== "text-delta") part = await reader.next();
    await own.close();
    await expect(reader.next()).rejects.toThrow(/Failed to process successful response/);
    expect(own.requests[0]!.state).toBe("aborted");
    await own.close(); // idempotent
  });

  it("delayMs paces the chunks", async () => {
    server.enqueue({ chunks: ["a", "b", "c"], delayMs: 40 });
    const stamps: number[] = [];
    const result = streamText({ model: model(), prompt: "go" });
    for await (const _delta of result.textStream) stamps.push(Date.now());
    expect(stamps).toHaveLength(3);
    expect(stamps[2]! - stamps[0]!).toBeGreaterThanOrEqual(60);
  });

  it("an empty queue answers 500 'script exhausted' quickly, or falls back to respond()", async () => {
    const started = Date.now();
    const error = await generateText({ model: model(), prompt: "unscripted" }).catch((e: unknown) => e);
    // 5xx is retryable: the SDK tried 3 times, immediately thanks to retry-after-ms: 0.
    expect(RetryError.isInstance(error)).toBe(true);
    expect((error as RetryError).message).toMatch(/script exhausted/);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(server.requests.map((r) => r.scripted)).toEqual([false, false, false]);

    const fallback = await startModelServer({
      respond: (body) => ({ text: `echo: ${messageText(body.messages.at(-1))}` }),
    });
    try {
      const result = await generateText({ model: createOpenAI({ baseURL: fallback.url, apiKey: "k" }).chat("scripted"), prompt: "ping" });
      expect(result.text).toBe("echo: ping");
    } finally {
      await fallback.close();
    }
  });

  it("steps can be functions of the request; waitForRequests resolves on arrival", async () => {
    server.enqueue((body, request) => ({ text: `request #${request.index} saw ${body.messages.length} message(s)` }));
    const pending = generateText({ model: model(), prompt: "x" });
    const [req] = await server.waitForRequests(1);
    expect(req!.body.messages[0]!.role).toBe("user");
    expect((await pending).text).toBe("request #0 saw 1 message(s)");
    await expect(server.waitForRequests(5, 50)).rejects.toThrow(/waited 50ms for 5/);
  });
});
