import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent, type AgentDefinition } from "@/lib/config/define.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * OpenAI's reasoningEffort, reasoningSummary, serviceTier and verbosity (alias textVerbosity):
 * any string, sent as top-level chat-completions fields as Agno's OpenAIChat sends them. The
 * request body is read at the scripted model server, streamed and not, for the `openai` and the
 * `openai-compatible` providers. A non-string value is a config error naming the option.
 */

type Json = Record<string, unknown>;

const OPTION_FIELDS = ["reasoning_effort", "reasoning_summary", "service_tier", "verbosity"] as const;
const sentFields = (body: Json) => Object.fromEntries(OPTION_FIELDS.filter((f) => f in body).map((f) => [f, body[f]]));

describe("OpenAI's request options reach the chat-completions body as top-level fields", () => {
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startModelServer({ respond: () => ({ text: "ok" }) });
    const openai = (options?: Json) => ({ provider: "openai" as const, id: "gpt-5.4-mini", baseUrl: server.url, apiKey: "test", ...(options ? { options } : {}) });
    const agents: AgentDefinition[] = [
      { id: "documented", name: "Documented", model: openai({ reasoningEffort: "xhigh", reasoningSummary: "detailed", serviceTier: "scale", verbosity: "low" }) },
      { id: "made-up", name: "Made up", model: openai({ reasoningEffort: "ludicrous", reasoningSummary: "haiku", serviceTier: "warp-9", textVerbosity: "chatty" }) },
      { id: "plain", name: "Plain", model: openai() },
      {
        id: "compatible",
        name: "Compatible",
        model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, options: { serviceTier: "scale", reasoningEffort: "max", user: "u-7" } },
      },
    ];
    app = await startTestApp({ dialect: sqliteDialect, agents });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  /** The body of the one chat request a run of `agent` makes, streamed or not. */
  async function bodyOf(agent: string, stream: boolean): Promise<Json> {
    server.reset();
    const response = await app.call("POST", `/agents/${agent}/runs`, { form: { message: "hi", stream: String(stream) } });
    if (stream) expect((await readSse(response)).at(-1)).toMatchObject({ event: "RunCompleted", content: "ok" });
    else expect(await response.json()).toMatchObject({ status: "COMPLETED", content: "ok" });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.stream).toBe(stream);
    return server.requests[0]!.body as Json;
  }

  it.each([true, false])("Agno's documented values, serviceTier 'scale' and reasoningEffort 'xhigh' among them (stream=%s)", async (stream) => {
    const body = await bodyOf("documented", stream);
    expect(sentFields(body)).toEqual({ reasoning_effort: "xhigh", reasoning_summary: "detailed", service_tier: "scale", verbosity: "low" });
    // The AI SDK's own request stays whole around them.
    expect(body).toMatchObject({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "hi" }] });
    if (stream) expect(body).toMatchObject({ stream: true });
  });

  it.each([true, false])("values no list knows, and textVerbosity as verbosity (stream=%s)", async (stream) => {
    expect(sentFields(await bodyOf("made-up", stream))).toEqual({ reasoning_effort: "ludicrous", reasoning_summary: "haiku", service_tier: "warp-9", verbosity: "chatty" });
  });

  it("nothing is added when no option is set", async () => {
    expect(sentFields(await bodyOf("plain", true))).toEqual({});
  });

  it("an OpenAI-compatible server gets them the same way; the AI SDK's other options still pass through it", async () => {
    const body = await bodyOf("compatible", true);
    expect(sentFields(body)).toEqual({ reasoning_effort: "max", service_tier: "scale" });
    expect(body.user).toBe("u-7");
  });
});

describe("OpenAI's options in agentry.config.ts", () => {
  const agent = (options: Json, provider: "openai" | "openai-compatible" = "openai") => ({
    id: "a",
    name: "A",
    model: { provider, id: "gpt-5.4-mini", baseUrl: "http://127.0.0.1:9/v1", options },
  });

  it("refuses a value that is not a string, naming the option", () => {
    expect(() => defineAgent(agent({ serviceTier: 5 }))).toThrow(/model\.options\.serviceTier: serviceTier must be a string, got 5/);
    expect(() => testSettings({ file: { agents: [agent({ reasoningEffort: { level: "high" } }, "openai-compatible")] } })).toThrow(/options\.reasoningEffort.*must be a string/);
  });

  it("refuses verbosity and textVerbosity that disagree, and takes them when they agree", () => {
    expect(() => defineAgent(agent({ verbosity: "low", textVerbosity: "high" }))).toThrow(/textVerbosity is an alias of verbosity/);
    expect(defineAgent(agent({ verbosity: "low", textVerbosity: "low" })).model?.options).toEqual({ verbosity: "low", textVerbosity: "low" });
  });

  it("leaves other providers' options to their AI SDK (a number is not refused here)", () => {
    expect(defineAgent({ id: "m", name: "M", model: { provider: "mistral", id: "mistral-small-latest", options: { reasoningEffort: 3 } } }).model?.options).toEqual({ reasoningEffort: 3 });
  });
});
