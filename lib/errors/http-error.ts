/** An error that is the response: status, a `detail` for the client, optional extra body fields. */
export class HttpError extends Error {
  override readonly name = "HttpError";
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
