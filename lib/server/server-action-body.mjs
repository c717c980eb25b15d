// The checks `agentry start` (serve.mjs) makes of a server action request before Next.js reads it,
// so that a body Next would fail with a 500 is a 413 or a 400 with a `detail` instead. Next.js (16)
// handles a POST as a server action by its `Next-Action` header and its content type, compared as
// sent: a type starting `multipart/form-data` is read as a form whose field `0` holds the
// arguments (a form posted before hydration carries no header: its fields name the action);
// exactly `application/x-www-form-urlencoded` is no action (Next answers 404); any other body is
// decoded as the arguments' JSON array. A body past its limit, a multipart body that does not
// parse with its boundary, and arguments that are not a JSON array all make Next answer 500
// (decodeReply, busboy and the size check throw inside its action handler, which answers every
// error of a `Next-Action` request with a 500). A screened body is read whole here (at most the
// limit is kept) and handed to Next unchanged. Plain JavaScript, as serve.mjs; types in
// server-action-body.d.mts.
import { IncomingMessage } from "node:http";

/**
 * The largest server action request body, in bytes: Next.js's `serverActions.bodySizeLimit`, which
 * next.config.ts leaves at its default, "1 MB" (Next counts it as 1024 × 1024 bytes).
 */
export const SERVER_ACTION_BODY_LIMIT_BYTES = 1024 * 1024;

/** Next.js refuses a server action called with more arguments than this. */
const SERVER_ACTION_MAX_ARGUMENTS = 1000;

/** The `detail` of the 413 answered to a server action body over the limit. */
export const BODY_TOO_LARGE_DETAIL = `Server action request body too large: the limit is ${SERVER_ACTION_BODY_LIMIT_BYTES} bytes (1 MiB)`;

/** @param {string} problem */
const malformed = (problem) => `Malformed server action request: ${problem}`;

/**
 * Whether Next.js may handle a request as a server action: a POST naming one in `Next-Action` (a
 * call from a hydrated page), or a multipart POST to a dashboard page (a form posted before
 * hydration). Multipart POSTs elsewhere are the API's uploads, with their own limits.
 * @param {{ method: string | undefined; path: string; contentType: string; hasActionHeader: boolean }} request
 */
export function mayBeServerAction({ method, path, contentType, hasActionHeader }) {
  if (method !== "POST") return false;
  return hasActionHeader || (contentType.startsWith("multipart/form-data") && (path === "/dashboard" || path.startsWith("/dashboard/")));
}

/**
 * Whether a `content-length` announces a body over the limit (refused unread).
 * @param {string | null | undefined} contentLength
 */
export function announcedTooLarge(contentLength) {
  return contentLength !== null && contentLength !== undefined && Number(contentLength) > SERVER_ACTION_BODY_LIMIT_BYTES;
}

/**
 * What is wrong with a server action's encoded arguments (a JSON array), or null.
 * @param {string} text
 */
function argumentsProblem(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return malformed("its arguments are not JSON");
  }
  if (!Array.isArray(parsed)) return malformed("its arguments are not a JSON array");
  if (parsed.length > SERVER_ACTION_MAX_ARGUMENTS) return malformed(`more than ${SERVER_ACTION_MAX_ARGUMENTS} arguments`);
  return null;
}

/**
 * Why Next.js could not decode a server action body (the `detail` of a 400), or null. What a
 * browser's dashboard sends passes: `text/plain;charset=UTF-8` with the arguments' JSON array, or
 * multipart form data whose field `0` is that array.
 * @param {{ contentType: string; hasActionHeader: boolean; body: Uint8Array }} request
 * @returns {Promise<string | null>}
 */
export async function serverActionBodyProblem({ contentType, hasActionHeader, body }) {
  if (contentType.startsWith("multipart/form-data")) {
    if (!/;\s*boundary=("[^"]+"|[^;\s]+)/i.test(contentType)) return malformed("its multipart content type has no boundary");
    let form;
    try {
      form = await new Response(body, { headers: { "content-type": contentType } }).formData();
    } catch {
      return malformed("its multipart body does not parse with the boundary its content type names");
    }
    // A form posted before hydration: its fields are Next's to judge.
    if (!hasActionHeader) return null;
    const root = form.get("0");
    return typeof root === "string" ? argumentsProblem(root) : malformed("its multipart body has no field 0 with the action's arguments");
  }
  if (!hasActionHeader || contentType === "application/x-www-form-urlencoded") return null;
  if (contentType.split(";")[0].trim().toLowerCase() !== "text/plain") {
    return malformed(`unsupported content type ${JSON.stringify(contentType.slice(0, 100))}; a server action's arguments are sent as text/plain (a JSON array) or multipart/form-data with a boundary`);
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return malformed("its body is not UTF-8 text");
  }
  return argumentsProblem(text);
}

/**
 * The request's body; "too large" once it passes `limit` bytes, when the rest is left to flow and
 * be discarded (destroying the request would reset the connection before the answer is read); or
 * "closed" when the client went away first. A body sent in chunks without `content-length` is
 * counted as it comes.
 * @param {IncomingMessage} request
 * @param {number} limit
 * @returns {Promise<Buffer | "too large" | "closed">}
 */
function readBody(request, limit) {
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    const stop = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("close", onError);
    };
    /** @param {Buffer} chunk */
    const onData = (chunk) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      request.resume();
      resolve("too large");
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => {
      stop();
      resolve("closed");
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("close", onError);
  });
}

/**
 * A request like `original` (its method, URL, headers and socket) whose body is `body`, for Next.js
 * to read once `original`'s own body has been read here.
 * @param {IncomingMessage} original
 * @param {Buffer} body
 */
function replayRequest(original, body) {
  const replay = new IncomingMessage(/** @type {import("node:net").Socket} */ (original.socket));
  replay.method = original.method;
  replay.url = original.url;
  replay.httpVersion = original.httpVersion;
  replay.httpVersionMajor = original.httpVersionMajor;
  replay.httpVersionMinor = original.httpVersionMinor;
  replay.headers = original.headers;
  replay.rawHeaders = original.rawHeaders;
  replay.trailers = original.trailers;
  replay.rawTrailers = original.rawTrailers;
  replay.complete = true;
  replay.push(body);
  replay.push(null);
  return replay;
}

/** @param {IncomingMessage} request */
const actionShape = (request) => ({
  method: request.method,
  path: (request.url ?? "/").split("?")[0],
  contentType: request.headers["content-type"] ?? "",
  hasActionHeader: request.headers["next-action"] !== undefined,
});

/**
 * Whether Next.js may handle this request as a server action ({@link mayBeServerAction}).
 * @param {IncomingMessage} request
 */
export function isServerActionRequest(request) {
  return mayBeServerAction(actionShape(request));
}

/**
 * Screens a request Next.js may handle as a server action ({@link isServerActionRequest}): a
 * refusal (413 past the body limit, announced or counted; 400 for a body Next could not decode),
 * `closed` when the client went away before sending its body, or the request to hand to Next: one
 * like it carrying the body read here.
 * @param {IncomingMessage} request
 * @returns {Promise<{ refusal: { status: 400 | 413; detail: string } } | { closed: true } | { request: IncomingMessage }>}
 */
export async function screenServerAction(request) {
  const { contentType, hasActionHeader } = actionShape(request);
  const tooLarge = { refusal: { status: /** @type {const} */ (413), detail: BODY_TOO_LARGE_DETAIL } };
  if (announcedTooLarge(request.headers["content-length"])) return tooLarge;
  const body = await readBody(request, SERVER_ACTION_BODY_LIMIT_BYTES);
  if (body === "too large") return tooLarge;
  if (body === "closed") return { closed: true };
  const problem = await serverActionBodyProblem({ contentType, hasActionHeader, body });
  if (problem) return { refusal: { status: 400, detail: problem } };
  return { request: replayRequest(request, body) };
}
