import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, InvalidPromptError, LoadAPIKeyError, UnsupportedFunctionalityError } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTEXT_WINDOW_PHRASES, ModelProviderError } from "@/lib/models/model-provider-error.ts";
import { resolveModel } from "@/lib/models/resolve-model.ts";
import { callModelStep } from "@/lib/runtime/model-step.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";

/**
 * ModelProviderError.classify, classifying as Agno does: 429 and 529 are rate limits, the 13
 * phrases Agno matches mark a context-window failure, every other provider failure is
 * `model_provider_error`, a missing key `model_authentication_error`; Agentry's own types for a
 * missing model and input the AI SDK refuses. Retry semantics are kept although several kinds
 * share `model_provider_error`: the model step retries a rate limit, a 5xx and a network failure,
 * never a refusal — checked against the scripted model server.
 */

const apiError = (statusCode: number | undefined, body = "", headers: Record<string, string> = {}, message = `HTTP ${statusCode}`) =>
  new APICallError({ message, url: "http://model/v1/chat/completions", requestBodyValues: {}, statusCode, responseBody: body, responseHeaders: headers });

describe("ModelProviderError.classify", () => {
  it("names each failure with Agno's error_type and marks the retryable ones", () => {
    const cases: [unknown, string, string, boolean][] = [
      [apiError(429, "", { "retry-after": "7" }), "rate_limit", "model_rate_limit_error", true],
      [apiError(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), "rate_limit", "model_rate_limit_error", true],
      [apiError(400, '{"error":{"code":"context_length_exceeded","message":"too long"}}'), "context_window", "context_window_exceeded_error", false],
      [apiError(401), "auth", "model_provider_error", false],
      [apiError(403), "auth", "model_provider_error", false],
      [apiError(503), "server", "model_provider_error", true],
      [apiError(500), "server", "model_provider_error", true],
      [apiError(404), "invalid_request", "model_provider_error", false],
      [apiError(422), "invalid_request", "model_provider_error", false],
      [Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }), "network", "model_provider_error", true],
      [
        new LoadAPIKeyError({ message: "Mistral API key is missing. Pass it using the 'apiKey' parameter or the MISTRAL_API_KEY environment variable." }),
        "missing_api_key",
        "model_authentication_error",
        false,
      ],
      [new UnsupportedFunctionalityError({ functionality: "file part media type text/x-odd" }), "unsupported_input", "model_unsupported_input_error", false],
      [new InvalidPromptError({ prompt: [], message: "no messages" }), "invalid_prompt", "model_invalid_prompt_error", false],
      [new Error("something odd"), "unknown", "model_provider_error", false],
    ];
    for (const [error, kind, errorType, retryable] of cases) {
      const classified = ModelProviderError.classify(error);
      expect([classified.kind, classified.errorType, classified.retryable], String((error as Error).message)).toEqual([kind, errorType, retryable]);
    }
    expect(ModelProviderError.classify(apiError(429, "", { "retry-after": "7" })).retryAfterSeconds).toBe(7);
    expect(ModelProviderError.classify(apiError(529)).statusCode).toBe(529);
  });

  it("reads each of Agno's 13 context-window phrases, in any case, in the message or the body, at any status but 429/529", () => {
    expect(CONTEXT_WINDOW_PHRASES).toHaveLength(13);
    for (const phrase of CONTEXT_WINDOW_PHRASES) {
      const inMessage = ModelProviderError.classify(apiError(400, "", {}, `Request refused: ${phrase.toUpperCase()} (see docs)`));
      expect(inMessage.errorType, phrase).toBe("context_window_exceeded_error");
      expect(inMessage.retryable, phrase).toBe(false);
      expect(ModelProviderError.classify(apiError(413, JSON.stringify({ error: { message: `x ${phrase} y` } }))).errorType, phrase).toBe("context_window_exceeded_error");
      // A 5xx naming the phrase is not retried either: the same input would fail again.
      expect(ModelProviderError.classify(apiError(500, phrase)).kind, phrase).toBe("context_window");
    }
    // Rate limits are read first, as Agno does.
    expect(ModelProviderError.classify(apiError(429, "too many tokens per minute")).errorType).toBe("model_rate_limit_error");
    // A near miss is not a context-window failure.
    expect(ModelProviderError.classify(apiError(400, "", {}, "the context is fine, the window is open")).errorType).toBe("model_provider_error");
  });

  it("keeps the provider's own message, whichever shape its body has", () => {
    expect(ModelProviderError.classify(apiError(400, '{"object":"error","message":"Mistral says no","type":"invalid_request_error"}')).message).toBe("Model provider returned 400: Mistral says no");
    expect(ModelProviderError.classify(apiError(400, '{"error":{"code":400,"message":"Gemini says no","status":"INVALID_ARGUMENT"}}')).message).toBe("Model provider returned 400: Gemini says no");
    expect(ModelProviderError.classify(apiError(502, "<html>bad gateway</html>", {}, "Bad Gateway")).message).toBe("Model provider returned 502: Bad Gateway");
  });

  it("looks through a retry wrapper at the last error, and leaves a classified error as it is", () => {
    const wrapped = Object.assign(new Error("Failed after 3 attempts"), { lastError: apiError(529) });
    expect(ModelProviderError.classify(wrapped).errorType).toBe("model_rate_limit_error");
    const classified = ModelProviderError.classify(apiError(500));
    expect(ModelProviderError.classify(classified)).toBe(classified);
  });
});

describe("the model step retries by kind, not by error_type, at the scripted model server", () => {
  let server: ModelServer;
  const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 };
  const step = () =>
    callModelStep({
      model: createOpenAI({ baseURL: server.url, apiKey: "test" }).chat("scripted"),
      messages: [{ role: "user", content: "hi" }],
      tools: {},
      signal: new AbortController().signal,
      onDelta: () => undefined,
      retry,
    });
  const failure = async () => {
    try {
      await step();
    } catch (error) {
      return error as ModelProviderError;
    }
    throw new Error("the step did not fail");
  };

  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("retries a 529 and a 5xx (both then answered)", async () => {
    for (const status of [529, 503]) {
      server.reset();
      server.script([{ error: { status, message: "busy" } }, { text: "fine now" }]);
      expect((await step()).text, String(status)).toBe("fine now");
      expect(server.requests, String(status)).toHaveLength(2);
    }
  });

  it("does not retry a context-window failure, a 401 or a 400, though two of them share model_provider_error with the 5xx", async () => {
    const cases: [number, string, string][] = [
      [400, "This model's maximum context length is 8192 tokens", "context_window_exceeded_error"],
      [401, "Incorrect API key provided", "model_provider_error"],
      [400, "Unknown parameter: 'foo'", "model_provider_error"],
    ];
    for (const [status, message, errorType] of cases) {
      server.reset();
      server.script([{ error: { status, message } }, { text: "never sent" }]);
      const error = await failure();
      expect([error.errorType, error.retryable, error.statusCode], message).toEqual([errorType, false, status]);
      expect(error.message).toBe(`Model provider returned ${status}: ${message}`);
      expect(server.requests, message).toHaveLength(1);
    }
  });

  it("gives up on a rate limit after its attempts, as model_rate_limit_error", async () => {
    server.reset();
    server.script([429, 429, 429].map((status) => ({ error: { status, message: "Rate limit reached" } })));
    const error = await failure();
    expect([error.errorType, error.retryable]).toEqual(["model_rate_limit_error", true]);
    expect(server.requests).toHaveLength(3);
  });

  it("a provider with no key anywhere is model_authentication_error, before any request", async () => {
    const spec = { provider: "groq" as const, id: "openai/gpt-oss-120b", baseUrl: server.url };
    const saved = process.env.GROQ_API_KEY;
    delete process.env.GROQ_API_KEY;
    try {
      server.reset();
      const error = await callModelStep({
        model: resolveModel("a", spec),
        messages: [{ role: "user", content: "hi" }],
        tools: {},
        signal: new AbortController().signal,
        onDelta: () => undefined,
        retry,
      }).catch((e: ModelProviderError) => e);
      expect(error).toMatchObject({ errorType: "model_authentication_error", retryable: false });
      expect((error as Error).message).toMatch(/GROQ_API_KEY/);
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.GROQ_API_KEY = saved;
    }
  });
});
