/** Why a paused run cannot be continued, with the HTTP status the API answers. */
export class ContinueError extends Error {
  override readonly name = "ContinueError";
  constructor(
    message: string,
    readonly status: 400 | 403 | 404 | 409,
  ) {
    super(message);
  }
}
