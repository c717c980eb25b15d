import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, ModelSpec } from "@/lib/config/define.ts";
import { getRun } from "@/lib/db/index.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";
import { UnsendableAttachmentError, userMessageContent, type Attachment } from "@/lib/runtime/user-content.ts";
import { messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * The Mistral, Cerebras, Groq and Google Gemini providers, each through a real agent run over
 * the API (streamed and not, with a tool call between two model calls) against a server speaking
 * its format: the scripted model server for the three that speak OpenAI's chat completions, and
 * a small scripted generateContent server below for Gemini. Also: what each provider's `options`
 * become in the request, and a provider failure classified the same whichever provider reports it.
 */

type Json = Record<string, unknown>;

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

// ---------------------------------------------------------------------------------------------
// A scripted Gemini server: POST /v1beta/models/{id}:generateContent and
// :streamGenerateContent?alt=sse, answering from a queue, recording what it was sent.
// ---------------------------------------------------------------------------------------------

type GeminiStep = { text: string } | { functionCall: { name: string; args: Json } } | { error: { status: number; message: string } };
interface GeminiRequest {
  path: string;
  stream: boolean;
  headers: IncomingHttpHeaders;
  body: { contents: { role: string; parts: Json[] }[]; systemInstruction?: { parts: { text: string }[] }; tools?: { functionDeclarations: { name: string }[] }[]; generationConfig?: Json };
}

async function startGeminiServer() {
  const queue: GeminiStep[] = [];
  const requests: GeminiRequest[] = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url ?? "/", "http://x");
    const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: 404, message: "not found", status: "NOT_FOUND" } }));
      return;
    }
    const stream = match[2] === "streamGenerateContent";
    requests.push({ path: url.pathname, stream, headers: req.headers, body: JSON.parse(raw) });
    const step = queue.shift() ?? { error: { status: 500, message: "script exhausted" } };
    if ("error" in step) {
      res.writeHead(step.error.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: step.error.status, message: step.error.message, status: "INVALID_ARGUMENT" } }));
      return;
    }
    const part = "text" in step ? { text: step.text } : { functionCall: step.functionCall };
    const usageMetadata = { promptTokenCount: 11, candidatesTokenCount: 4, totalTokenCount: 15 };
    const answer = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: match[1] };
    if (!stream) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    if ("text" in step) {
      // Two chunks, the second closing the answer, as Gemini streams text.
      const [first, ...rest] = step.text.split(" ");
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: `${first} ` }] }, index: 0 }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: rest.join(" ") }] }, finishReason: "STOP", index: 0 }], usageMetadata })}\n\n`);
    } else {
      res.write(`data: ${JSON.stringify(answer)}\n\n`);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1beta`,
    requests,
    script: (steps: GeminiStep[]) => queue.push(...steps),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const OPENAI_LIKE = ["mistral", "cerebras", "groq"] as const;

describe.each(DIALECTS)("Mistral, Cerebras, Groq and Gemini agents on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let gemini: Awaited<ReturnType<typeof startGeminiServer>>;
    let app: TestApp;

    beforeAll(async () => {
      server = await startModelServer();
      gemini = await startGeminiServer();
      const agents: AgentDefinition[] = [
        ...OPENAI_LIKE.map((provider) => ({
          id: provider,
          name: provider,
          model: { provider, id: `${provider}-scripted`, baseUrl: server.url, apiKey: `key-${provider}` },
          instructions: `You run on ${provider}.`,
          tools: [add],
        })),
        { id: "gemini", name: "Gemini", model: { provider: "google", id: "gemini-3.7-flash", baseUrl: gemini.baseUrl, apiKey: "key-google" }, instructions: "You run on Gemini.", tools: [add] },
      ];
      app = await startTestApp({ dialect, agents });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
      await gemini?.close();
    });

    const run = (agent: string, fields: Record<string, string>) => app.call("POST", `/agents/${agent}/runs`, { form: fields });

    it.each(OPENAI_LIKE)("%s: a streamed run calls a tool and answers, through the provider's SDK at the scripted server", async (provider) => {
      server.reset();
      server.script([{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "The sum is 5." }]);
      const events = await readSse(await run(provider, { message: "What is 2 + 3?" }));
      expect(events[0]).toMatchObject({ event: "RunStarted", model: `${provider}-scripted`, model_provider: provider });
      expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "The sum is 5." });
      expect(events.find((e) => e.event === "ToolCallCompleted")).toMatchObject({ tool: { tool_name: "add", result: { sum: 5 } } });
      expect(server.requests.map((r) => [r.path, r.stream, r.headers.authorization, r.body.model])).toEqual([
        ["/v1/chat/completions", true, `Bearer key-${provider}`, `${provider}-scripted`],
        ["/v1/chat/completions", true, `Bearer key-${provider}`, `${provider}-scripted`],
      ]);
      expect(server.requests[0]!.body.tools?.map((t) => t.function.name)).toEqual(["add"]);
      expect(messageText(server.requests[0]!.body.messages[0])).toContain(`You run on ${provider}.`);
      // The second call carries the tool's result.
      expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining('"sum":5') });
    });

    it.each(OPENAI_LIKE)("%s: a non-streamed run answers with its RunOutput and is stored", async (provider) => {
      server.reset();
      server.script([{ text: `Hello from ${provider}.`, usage: { prompt_tokens: 9, completion_tokens: 4 } }]);
      const response = await run(provider, { message: "Hi", stream: "false" });
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: `Hello from ${provider}.`, model: `${provider}-scripted`, model_provider: provider });
      expect(output.metrics).toMatchObject({ input_tokens: 9, output_tokens: 4 });
      expect(server.requests.map((r) => r.stream)).toEqual([false]);
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(output.run_id) });
      expect(stored?.status).toBe("COMPLETED");
    });

    it("google: a streamed run calls a tool and answers, through generateContent with the key in x-goog-api-key", async () => {
      gemini.script([{ functionCall: { name: "add", args: { a: 4, b: 5 } } }, { text: "The sum is 9." }]);
      const before = gemini.requests.length;
      const events = await readSse(await run("gemini", { message: "What is 4 + 5?" }));
      expect(events[0]).toMatchObject({ event: "RunStarted", model: "gemini-3.7-flash", model_provider: "google" });
      expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "The sum is 9." });
      expect(events.find((e) => e.event === "ToolCallCompleted")).toMatchObject({ tool: { tool_name: "add", result: { sum: 9 } } });
      const sent = gemini.requests.slice(before);
      expect(sent.map((r) => [r.path, r.stream, r.headers["x-goog-api-key"]])).toEqual([
        ["/v1beta/models/gemini-3.7-flash:streamGenerateContent", true, "key-google"],
        ["/v1beta/models/gemini-3.7-flash:streamGenerateContent", true, "key-google"],
      ]);
      expect(sent[0]!.body.systemInstruction?.parts.map((p) => p.text).join("")).toContain("You run on Gemini.");
      expect(sent[0]!.body.tools?.[0]?.functionDeclarations.map((f) => f.name)).toEqual(["add"]);
      expect(sent[0]!.body.contents.at(-1)).toMatchObject({ role: "user", parts: [{ text: "What is 4 + 5?" }] });
      // The second call carries the call and its result.
      expect(sent[1]!.body.contents.at(-1)).toMatchObject({ role: "user", parts: [{ functionResponse: { name: "add" } }] });
    });

    it("google: a non-streamed run answers with its RunOutput", async () => {
      gemini.script([{ text: "Hello from Gemini." }]);
      const before = gemini.requests.length;
      const response = await run("gemini", { message: "Hi", stream: "false" });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: "COMPLETED", content: "Hello from Gemini.", metrics: { input_tokens: 11, output_tokens: 4 } });
      expect(gemini.requests.slice(before).map((r) => r.path)).toEqual(["/v1beta/models/gemini-3.7-flash:generateContent"]);
    });

    it("traces name each provider's model calls with Agno's class names (MistralChat, Cerebras, Groq, Gemini)", async () => {
      const names: Record<string, string> = { mistral: "MistralChat", cerebras: "Cerebras", groq: "Groq", gemini: "Gemini" };
      for (const agent of Object.keys(names)) {
        if (agent === "gemini") gemini.script([{ text: "traced" }]);
        else server.script([{ text: "traced" }]);
        const output = (await (await run(agent, { message: "trace me", stream: "false" })).json()) as Json;
        expect(output.status, agent).toBe("COMPLETED");
        await flushTracing();
        const list = (await (await app.call("GET", `/traces?run_id=${output.run_id}`)).json()) as { data: { trace_id: string }[] };
        const trace = (await (await app.call("GET", `/traces/${list.data[0]!.trace_id}`)).json()) as { tree: { spans: { type: string; name: string }[] }[] };
        expect(
          trace.tree[0]!.spans.map((span) => [span.type, span.name]),
          agent,
        ).toEqual([["LLM", `${names[agent]}.invoke`]]);
      }
    });

    it("a provider's refusal is classified alike whichever provider reports it: a context-window 400 is context_window_exceeded_error", async () => {
      for (const provider of OPENAI_LIKE) {
        server.reset();
        server.script([{ error: { status: 400, message: "This model's maximum context length is 8192 tokens." } }]);
        const events = await readSse(await run(provider, { message: "A very long question" }));
        expect(events.at(-1), provider).toMatchObject({ event: "RunError", error_type: "context_window_exceeded_error" });
        expect(String(events.at(-1)!.content)).toContain("maximum context length is 8192 tokens");
        // Not retried: the same request would be refused again.
        expect(server.requests, provider).toHaveLength(1);
      }
      gemini.script([{ error: { status: 400, message: "The input token count exceeds the model's maximum (1048576)." } }]);
      const before = gemini.requests.length;
      const events = await readSse(await run("gemini", { message: "A very long question" }));
      expect(events.at(-1)).toMatchObject({ event: "RunError", error_type: "context_window_exceeded_error" });
      expect(String(events.at(-1)!.content)).toContain("Model provider returned 400: The input token count exceeds the model's maximum");
      expect(gemini.requests.length - before).toBe(1);
    });
  });
});

describe("what each provider's options become in the request", () => {
  let server: ModelServer;
  let gemini: Awaited<ReturnType<typeof startGeminiServer>>;
  let app: TestApp;
  const spec = (provider: ModelSpec["provider"], options: Json): ModelSpec => ({ provider, id: "scripted", baseUrl: provider === "google" ? gemini.baseUrl : server.url, apiKey: "k", options });

  beforeAll(async () => {
    server = await startModelServer({ respond: () => ({ text: "ok" }) });
    gemini = await startGeminiServer();
    app = await startTestApp({
      dialect: DIALECTS[0]!,
      agents: [
        { id: "mistral", name: "M", model: spec("mistral", { safePrompt: true, reasoningEffort: "high" }) },
        { id: "groq", name: "G", model: spec("groq", { serviceTier: "flex", reasoningFormat: "hidden" }) },
        { id: "cerebras", name: "C", model: spec("cerebras", { reasoningEffort: "low", clear_thinking: false }) },
        { id: "gemini", name: "Gem", model: spec("google", { thinkingConfig: { thinkingBudget: 0 } }) },
        { id: "groq-bad", name: "GB", model: spec("groq", { serviceTier: "scale" }) },
      ],
    });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
    await gemini?.close();
  });

  it("Mistral, Groq and Cerebras: their AI SDK's options, named as that SDK names them, in the chat-completions body", async () => {
    for (const agent of ["mistral", "groq", "cerebras"]) expect((await app.call("POST", `/agents/${agent}/runs`, { form: { message: "hi", stream: "false" } })).status).toBe(200);
    const [mistral, groq, cerebras] = server.requests.map((r) => r.body as Json);
    expect(mistral).toMatchObject({ safe_prompt: true, reasoning_effort: "high" });
    expect(groq).toMatchObject({ service_tier: "flex", reasoning_format: "hidden" });
    // Cerebras speaks through the AI SDK's OpenAI-compatible model: its known options mapped, any other key sent as it is.
    expect(cerebras).toMatchObject({ reasoning_effort: "low", clear_thinking: false });
  });

  it("Gemini: its AI SDK's options in generationConfig", async () => {
    gemini.script([{ text: "ok" }]);
    expect((await app.call("POST", "/agents/gemini/runs", { form: { message: "hi", stream: "false" } })).status).toBe(200);
    expect(gemini.requests.at(-1)!.body.generationConfig).toMatchObject({ thinkingConfig: { thinkingBudget: 0 } });
  });

  it("a value another provider's SDK does not know is refused by that SDK before any request, and the run says why", async () => {
    const before = server.requests.length;
    const events = await readSse(await app.call("POST", "/agents/groq-bad/runs", { form: { message: "hi" } }));
    expect(events.at(-1)).toMatchObject({ event: "RunError" });
    expect(String(events.at(-1)!.content)).toMatch(/serviceTier/);
    expect(server.requests.length).toBe(before);
  });
});

describe("uploads each new provider's model is sent, and the ones its AI SDK would refuse", () => {
  const file = (mediaType: string): Attachment => ({ kind: mediaType.startsWith("image/") ? "image" : "file", data: new Uint8Array([1, 2, 3]), mediaType, filename: `f.${mediaType.split("/")[1]}` });
  const takes = (provider: ModelSpec["provider"], mediaType: string) => {
    try {
      return userMessageContent({ provider }, "hi", [file(mediaType)]).length === 2;
    } catch (error) {
      expect(error).toBeInstanceOf(UnsendableAttachmentError);
      return false;
    }
  };

  it("Mistral: images and PDFs; Groq: images only; Cerebras: images, PDFs, WAV and MP3; Gemini: images, PDFs, audio and video", () => {
    const media = ["image/png", "application/pdf", "audio/wav", "audio/ogg", "video/mp4"];
    const table = Object.fromEntries((["mistral", "groq", "cerebras", "google"] as const).map((p) => [p, media.filter((m) => takes(p, m))]));
    expect(table).toEqual({
      mistral: ["image/png", "application/pdf"],
      groq: ["image/png"],
      cerebras: ["image/png", "application/pdf", "audio/wav"],
      google: ["image/png", "application/pdf", "audio/wav", "audio/ogg", "video/mp4"],
    });
    expect(() => userMessageContent({ provider: "groq" }, "hi", [file("application/pdf")])).toThrow(
      "File 'f.pdf' (application/pdf) cannot be sent to this model: the groq model takes images and text files, not application/pdf",
    );
  });
});
