import { randomUUID } from "node:crypto";
import { ZodError } from "zod";
import { ConfigError } from "../config/define.ts";
import { schemaErrorFrom } from "../db/schema-error.ts";
import { LegacyCleanupRefusedError } from "../db/sessions/legacy-runs.ts";
import { ConflictError, MigrationRequiredError, NotFoundError, PaginationError, PermissionError, QueueFullError } from "../errors/domain-errors.ts";
import { HttpError, validationError } from "../errors/http-error.ts";
import { log } from "../log.ts";
import { unsafeTextIn } from "./input-text.ts";

/** Where a validation error was found, as FastAPI names it in `loc`. */
export type InputSource = "path" | "query" | "body" | "header";

/** A zod failure on request input as FastAPI's 422, each issue's `loc` starting at `source`. */
export function zodToValidation(error: ZodError, source: InputSource, input: unknown): HttpError {
  return validationError(
    error.issues.map((issue) => {
      let value: unknown = input;
      for (const key of issue.path) value = value && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined;
      const field = issue.path.map(String).join(".") || source;
      return {
        type: issue.code,
        loc: [source, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))],
        msg: `${field}: ${issue.message}`,
        ...(value !== undefined ? { input: value } : {}),
      };
    }),
  );
}

/**
 * Refuses (422) a value holding text storage cannot keep alike on both dialects (NUL, a lone
 * surrogate) anywhere inside it, object keys included; `loc` is where the value came from
 * (`["query"]`, `["body", "metadata"]`), each item's `loc` continues it down to the string.
 */
export function refuseUnsafeText(value: unknown, loc: (string | number)[]): void {
  const found = unsafeTextIn(value);
  if (found.length === 0) return;
  throw validationError(
    found.map(({ path, message }) => {
      const full = [...loc, ...path];
      return { type: "string_unsafe_character", loc: full, msg: `${full.slice(1).join(".") || String(loc[0])}: ${message}` };
    }),
  );
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/**
 * Maps any error to the response Agno clients expect: `{"detail": …}` with the right status.
 * Unexpected errors become 500 with an `error_id` that is logged with the stack; the stack never
 * reaches the client. `opaque`: such a 500 says only "Internal server error" (Agno's routes that
 * echo nothing of an unexpected failure, not even its type).
 */
export function errorResponse(caught: unknown, logError: (message: string) => void = (m) => void log.error(m), { opaque = false }: { opaque?: boolean } = {}): Response {
  const error = schemaErrorFrom(caught);
  if (error instanceof HttpError) return json(error.status, { detail: error.detail, ...error.extra }, error.headers);
  if (error instanceof PaginationError) {
    return json(422, { detail: [{ type: "value_error", loc: ["query", error.field], msg: `${error.field}: ${error.message}` }] });
  }
  if (error instanceof NotFoundError) return json(404, { detail: error.message });
  if (error instanceof PermissionError) return json(403, { detail: error.message });
  if (error instanceof ConflictError || error instanceof LegacyCleanupRefusedError) return json(409, { detail: error.message });
  if (error instanceof QueueFullError) return json(429, { detail: error.message }, { "retry-after": "5" });
  const errorId = randomUUID();
  if (error instanceof MigrationRequiredError) {
    return json(503, { detail: error.message, error_type: error.errorType, error_id: errorId });
  }
  if (error instanceof ZodError) {
    // A schema failure on our own output is a server bug, not bad input.
    logError(`[error ${errorId}] response failed its schema: ${error.message}`);
    return json(500, { detail: "Internal server error (ResponseValidationError)", error_id: errorId });
  }
  const type = error instanceof Error ? error.name : typeof error;
  logError(`[error ${errorId}] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  if (opaque) return json(500, { detail: "Internal server error", error_id: errorId });
  if (error instanceof ConfigError) return json(500, { detail: `Configuration error: ${error.message}`, error_id: errorId });
  return json(500, { detail: `Internal server error (${type})`, error_id: errorId });
}
