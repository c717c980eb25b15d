import { APICallError, InvalidDataContentError, InvalidMessageRoleError, InvalidPromptError, UnsupportedFunctionalityError } from "ai";

export type ModelErrorKind =
  | "auth"
  | "rate_limit"
  | "context_length"
  | "server"
  | "network"
  | "invalid_request"
  /** The AI SDK refused an input part before any request (a media type the model does not take). */
  | "unsupported_input"
  /** The AI SDK refused the prompt itself before any request. */
  | "invalid_prompt"
  | "not_configured"
  | "unknown";

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(["rate_limit", "server", "network"]);

/** Whether a run that failed with this `error_type` might succeed if run again. */
export function isRetryableErrorType(errorType: string | undefined): boolean {
  const model = /^model_(.+)_error$/.exec(errorType ?? "");
  if (model) return RETRYABLE.has(model[1] as ModelErrorKind);
  // An internal error may pass on another attempt. A cancellation is final, and so is a timeout:
  // a run that used all of timeoutSeconds would most likely use it all again.
  return errorType !== "run_cancelled" && errorType !== "run_timeout_error";
}

/**
 * A model provider failure, classified so the run loop knows whether to retry and clients see
 * what went wrong (`error_type` on RunError). `ModelProviderError.classify(error)` is the one
 * place that reads provider-specific error shapes.
 */
export class ModelProviderError extends Error {
  override readonly name = "ModelProviderError";
  readonly retryable: boolean;

  constructor(
    message: string,
    readonly kind: ModelErrorKind,
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
    return `model_${this.kind}_error`;
  }

  static classify(error: unknown): ModelProviderError {
    if (error instanceof ModelProviderError) return error;
    const lastError = (error as { lastError?: unknown } | null)?.lastError;
    if (lastError && lastError !== error) return ModelProviderError.classify(lastError);
    if (APICallError.isInstance(error)) {
      const status = error.statusCode;
      const body = `${error.responseBody ?? ""} ${error.message}`.toLowerCase();
      const retryAfter = Number(error.responseHeaders?.["retry-after"]);
      const message = providerMessage(error);
      let kind: ModelErrorKind;
      if (status === 401 || status === 403) kind = "auth";
      else if (status === 429) kind = "rate_limit";
      else if (/context.{0,20}length|maximum context|too many tokens|context_length_exceeded|prompt is too long/.test(body)) kind = "context_length";
      else if (status !== undefined && status >= 500) kind = "server";
      else if (status !== undefined && status >= 400) kind = "invalid_request";
      else kind = "network";
      return new ModelProviderError(message, kind, status, Number.isFinite(retryAfter) ? retryAfter : undefined, { cause: error });
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

function providerMessage(error: APICallError): string {
  const data = error.data as { error?: { message?: string } } | undefined;
  const detail = data?.error?.message ?? error.message;
  return error.statusCode ? `Model provider returned ${error.statusCode}: ${detail}` : detail;
}

/** No provider configured for an agent: says plainly which variables to set. */
export class ModelNotConfiguredError extends ModelProviderError {
  constructor(agentId: string, hint: string) {
    super(`Agent '${agentId}' has no model provider configured: ${hint}.`, "not_configured");
  }
}
