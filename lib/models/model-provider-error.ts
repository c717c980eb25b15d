import { APICallError, InvalidArgumentError, InvalidDataContentError, InvalidMessageRoleError, InvalidPromptError, LoadAPIKeyError, UnsupportedFunctionalityError } from "ai";

/**
 * Why a model call failed. Finer than the `error_type` clients see: the run loop retries by it
 * (rate limits, server errors and network failures may pass on another attempt; refusals of the
 * request do not), while the wire names only what Agno names (`errorType`).
 */
export type ModelErrorKind =
  /** HTTP 429, or 529 (Anthropic's "overloaded"). */
  | "rate_limit"
  /** The input is over the model's context window (Agno's phrases, CONTEXT_WINDOW_PHRASES). */
  | "context_window"
  /** The provider refused the key (401, 403). */
  | "auth"
  /** The provider failed (5xx). */
  | "server"
  /** The provider could not be reached. */
  | "network"
  /** Any other 4xx: the request is refused as it is. */
  | "invalid_request"
  /** No API key to send: neither the spec nor the provider's variable gives one. */
  | "missing_api_key"
  /** The AI SDK refused an input part before any request (a media type the model does not take). */
  | "unsupported_input"
  /** The AI SDK refused the prompt itself before any request. */
  | "invalid_prompt"
  /** The agent has no model. */
  | "not_configured"
  /** Not a provider failure that could be recognised. */
  | "unknown";

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(["rate_limit", "server", "network"]);

/**
 * The `error_type` of each kind, named as Agno names its model errors: `model_rate_limit_error`,
 * `context_window_exceeded_error`, `model_authentication_error` (no key), and
 * `model_provider_error` for every other provider failure; Agentry's own for a missing model and
 * for input the AI SDK refuses before any request.
 */
const ERROR_TYPES: Record<ModelErrorKind, string> = {
  rate_limit: "model_rate_limit_error",
  context_window: "context_window_exceeded_error",
  missing_api_key: "model_authentication_error",
  auth: "model_provider_error",
  server: "model_provider_error",
  network: "model_provider_error",
  invalid_request: "model_provider_error",
  unknown: "model_provider_error",
  not_configured: "model_not_configured_error",
  unsupported_input: "model_unsupported_input_error",
  invalid_prompt: "model_invalid_prompt_error",
};

/** A provider's message (or body) containing any of these, lowercased, is a context-window failure, as Agno's classify reads it. */
export const CONTEXT_WINDOW_PHRASES: readonly string[] = [
  "context_length_exceeded",
  "context window",
  "maximum context length",
  "token limit",
  "max_tokens",
  "too many tokens",
  "payload too large",
  "content_too_large",
  "request too large",
  "input too long",
  "prompt is too long",
  "prompt too long",
  "exceeds the model",
];

/**
 * A model provider failure, classified so the run loop knows whether to retry (`retryable`) and
 * clients see what went wrong (`errorType`, the `error_type` on RunError and on the run).
 * `ModelProviderError.classify(error)` is the one place that reads provider-specific error shapes.
 */
export class ModelProviderError extends Error {
  override readonly name = "ModelProviderError";
  /** Whether the same call might succeed if made again. */
  readonly retryable: boolean;

  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    /** The provider's HTTP status, when it answered. */
    readonly statusCode?: number,
    /** Seconds the provider asked us to wait (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retryable = RETRYABLE.has(kind);
  }

  /** The `error_type` clients see. */
  get errorType(): string {
    return ERROR_TYPES[this.kind];
  }

  /**
   * The classified form of a model call's failure: already classified stays as it is; an HTTP
   * answer of 429 or 529 is a rate limit; a message naming a context-window phrase is a
   * context-window failure; then auth (401, 403), server (5xx), other 4xx; no answer at all is a
   * network failure. The AI SDK's refusals before any request are the input's (or the key's).
   */
  static classify(error: unknown): ModelProviderError {
    if (error instanceof ModelProviderError) return error;
    const lastError = (error as { lastError?: unknown } | null)?.lastError;
    if (lastError && lastError !== error) return ModelProviderError.classify(lastError);
    if (APICallError.isInstance(error)) {
      const status = error.statusCode;
      const text = `${error.responseBody ?? ""} ${error.message}`.toLowerCase();
      const retryAfter = Number(error.responseHeaders?.["retry-after"]);
      let kind: ModelErrorKind;
      if (status === 429 || status === 529) kind = "rate_limit";
      else if (CONTEXT_WINDOW_PHRASES.some((phrase) => text.includes(phrase))) kind = "context_window";
      else if (status === 401 || status === 403) kind = "auth";
      else if (status !== undefined && status >= 500) kind = "server";
      else if (status !== undefined && status >= 400) kind = "invalid_request";
      else kind = "network";
      return new ModelProviderError(providerMessage(error), kind, status, Number.isFinite(retryAfter) ? retryAfter : undefined, { cause: error });
    }
    if (LoadAPIKeyError.isInstance(error)) return new ModelProviderError(error.message, "missing_api_key", undefined, undefined, { cause: error });
    // The provider's AI SDK refused the spec's `options` before any request (a value outside its list).
    if (InvalidArgumentError.isInstance(error) && (error as { argument?: unknown }).argument === "providerOptions") {
      const cause = (error as { cause?: unknown }).cause;
      const detail = cause instanceof Error ? `: ${cause.message}` : "";
      return new ModelProviderError(`The model's options are refused by its provider's AI SDK (${error.message})${detail}`, "invalid_request", undefined, undefined, { cause: error });
    }
    // Refusals the AI SDK makes on this side, before anything is sent: the input's fault, not the provider's.
    if (UnsupportedFunctionalityError.isInstance(error) || InvalidDataContentError.isInstance(error)) {
      return new ModelProviderError(`The model cannot take this input: ${error.message}`, "unsupported_input", undefined, undefined, { cause: error });
    }
    if (InvalidPromptError.isInstance(error) || InvalidMessageRoleError.isInstance(error)) {
      return new ModelProviderError(`The model cannot be sent this conversation: ${error.message}`, "invalid_prompt", undefined, undefined, { cause: error });
    }
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } } | null;
    const code = e?.code ?? e?.cause?.code;
    if (
      code === "ECONNREFUSED" ||
      code === "ECONNRESET" ||
      code === "ETIMEDOUT" ||
      code === "ENOTFOUND" ||
      code === "EAI_AGAIN" ||
      (e?.name === "TypeError" && /fetch failed/i.test(e?.message ?? ""))
    ) {
      return new ModelProviderError(`Could not reach the model provider (${code ?? e?.message})`, "network", undefined, undefined, { cause: error });
    }
    return new ModelProviderError(e?.message ?? String(error), "unknown", undefined, undefined, { cause: error });
  }
}

/**
 * The provider's own message: `error.message` (OpenAI, Groq, Cerebras, Anthropic, Google) or
 * `message` (Mistral) of the body the SDK parsed, else of the raw body (a body in another
 * provider's shape), else the SDK's.
 */
function providerMessage(error: APICallError): string {
  let detail = messageOf(error.data);
  if (detail === undefined && error.responseBody) {
    try {
      detail = messageOf(JSON.parse(error.responseBody));
    } catch {
      // Not JSON: the SDK's message says what there is.
    }
  }
  detail ??= error.message;
  return error.statusCode ? `Model provider returned ${error.statusCode}: ${detail}` : detail;
}

function messageOf(body: unknown): string | undefined {
  const b = body as { error?: { message?: unknown }; message?: unknown } | null | undefined;
  if (typeof b?.error?.message === "string") return b.error.message;
  if (typeof b?.message === "string") return b.message;
  return undefined;
}

/** No provider configured for an agent: says plainly which variables to set. */
export class ModelNotConfiguredError extends ModelProviderError {
  constructor(agentId: string, hint: string) {
    super(`Agent '${agentId}' has no model provider configured: ${hint}.`, "not_configured");
  }
}
