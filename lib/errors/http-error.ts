/** An error that is the response: status, a `detail` for the client, optional extra body fields. */
export class HttpError extends Error {
  override readonly name: string = "HttpError";
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
}

/** One FastAPI/pydantic-style validation error item, which Agno's clients already display. */
export interface ValidationItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

/** A 422 listing every item (FastAPI's shape: `{"detail": [{type, loc, msg, input?}, …]}`). */
export function validationError(items: ValidationItem[]): HttpError {
  return new HttpError(422, items);
}

/**
 * A stored component (an agent, team or workflow made in Studio) that cannot be built as saved:
 * a tool, model, knowledge base, learning machine or member it names is not in the registry (or
 * not the caller's to use). A 422 `{detail, error_type: "component_rehydration_error"}` naming what
 * is missing, never a run with less than was saved.
 */
export class ComponentRehydrationError extends HttpError {
  override readonly name: string = "ComponentRehydrationError";
  constructor(message: string) {
    super(422, message, { error_type: "component_rehydration_error" });
  }
}
