import { request as httpRequest } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";

/**
 * The scripted model server's Anthropic Messages API (POST /v1/messages), as Anthropic's own
 * client reads it: text and tool_use blocks, streamed and not, usage, errors, and a proxy CONNECT
 * recorded and refused.
 */
describe("the scripted model server speaks Anthropic's Messages API", () => {
  let server: ModelServer;
  let client: Anthropic;

  beforeAll(async () => {
    server = await startModelServer();
    client = new Anthropic({ baseURL: server.origin, apiKey: "test", maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers a non-streamed request with text and tool_use blocks, its stop_reason and usage", async () => {
    server.script([{ text: "Let me look.", toolCalls: [{ name: "lookup", arguments: { q: "tides" } }], usage: { prompt_tokens: 11, completion_tokens: 4 } }]);
    const message = await client.messages.create({
      model: "claude-scripted",
      max_tokens: 100,
      system: "Be brief.",
      messages: [{ role: "user", content: "Tides?" }],
      tools: [{ name: "lookup", input_schema: { type: "object", properties: { q: { type: "string" } } } }],
    });
    expect(message).toMatchObject({
      role: "assistant",
      model: "claude-scripted",
      stop_reason: "tool_use",
      usage: { input_tokens: 11, output_tokens: 4 },
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", name: "lookup", input: { q: "tides" }, id: expect.stringMatching(/^toolu_/) },
      ],
    });
    const recorded = server.requests.at(-1)!;
    expect(recorded).toMatchObject({ path: "/v1/messages", stream: false, scripted: true });
    expect(recorded.body).toMatchObject({ system: "Be brief.", messages: [{ role: "user", content: "Tides?" }] });
    expect(recorded.headers.authorization ?? recorded.headers["x-api-key"]).toMatch(/^(Bearer )?test$/);
  });

  it("streams text deltas and a tool call's input as JSON deltas, which the client assembles", async () => {
    server.script([{ chunks: ["Hel", "lo"] }, { toolCalls: [{ name: "lookup", arguments: { q: "moon", n: 2 }, id: "toolu_fixed" }] }]);
    const deltas: string[] = [];
    const text = client.messages.stream({ model: "claude-scripted", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] }).on("text", (delta) => deltas.push(delta));
    const first = await text.finalMessage();
    expect(deltas).toEqual(["Hel", "lo"]);
    expect(first).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "Hello" }] });
    const second = await client.messages.stream({ model: "claude-scripted", max_tokens: 100, messages: [{ role: "user", content: "Moon?" }] }).finalMessage();
    expect(second).toMatchObject({ stop_reason: "tool_use", content: [{ type: "tool_use", id: "toolu_fixed", name: "lookup", input: { q: "moon", n: 2 } }] });
    expect(server.requests.slice(-2).map((r) => r.stream)).toEqual([true, true]);
  });

  it("answers a scripted error in Anthropic's error shape", async () => {
    server.script([{ error: { status: 400, message: "prompt is too long: 300000 tokens > 200000 maximum" } }]);
    const failure = await client.messages.create({ model: "claude-scripted", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    expect((failure as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 300000 tokens > 200000 maximum" },
    });
  });

  it("refuses a proxy CONNECT and records the host it asked for", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const connect = httpRequest({ host: "127.0.0.1", port: server.port, method: "CONNECT", path: "api.anthropic.com:443" });
      connect.on("connect", (response, socket) => {
        socket.destroy();
        resolve(response.statusCode ?? 0);
      });
      connect.on("error", reject);
      connect.end();
    });
    expect(status).toBe(403);
    expect(server.allRequests.filter((r) => r.method === "CONNECT").map((r) => r.path)).toEqual(["api.anthropic.com:443"]);
  });
});
