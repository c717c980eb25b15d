import { refuseUnsafeText } from "./errors.ts";
import { HttpError, validationError } from "../errors/http-error.ts";
import { decodeJsonText } from "./input-text.ts";
import { parseMultipart } from "./multipart.ts";

/** A parsed form: text fields (repeated names become arrays) and uploaded files by field name. */
export interface ParsedForm {
  fields: Record<string, string | string[]>;
  files: Record<string, File[]>;
}

export type BodyKind = "json" | "form";

/** Multipart bodies past this size (or of unknown size) are parsed as they arrive (multipart.ts). */
export const STREAMED_MULTIPART_BYTES = 1024 * 1024;

/** More fields than any client sends; past it the form is refused before any per-field work. */
export const MAX_FORM_FIELDS = 1_000;

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body is larger than the limit of ${limit} bytes`);
}

/**
 * The body's chunks as they arrive, refusing (413) past `limit` bytes: first by Content-Length,
 * then while streaming, so a lying or absent Content-Length cannot make the server buffer more.
 */
async function* bodyChunks(request: Request, limit: number): AsyncGenerator<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return;
  const reader = request.body.getReader();
  let total = 0;
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return void (ended = true);
      total += value.byteLength;
      if (total > limit) throw tooLarge(limit);
      yield value;
    }
  } finally {
    // Stopped early (too large, or the consumer gave up): nothing more is read.
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

/** Reads the whole body, refusing (413) past `limit` bytes (bodyChunks). */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bodyChunks(request, limit)) chunks.push(chunk);
  return concat(chunks);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) bytes.set(chunk, offset), (offset += chunk.byteLength);
  return bytes;
}

export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

export async function parseJsonBody(request: Request, limit: number): Promise<unknown> {
  const type = mediaType(request);
  if (type && type !== "application/json" && !type.endsWith("+json")) {
    throw new HttpError(415, `Expected a JSON body (Content-Type: application/json), got '${type}'`);
  }
  const bytes = await readBodyBytes(request, limit);
  if (bytes.byteLength === 0) return undefined;
  const decoded = decodeJsonText(new TextDecoder().decode(bytes));
  if (!decoded.ok) throw validationError([{ type: `json_${decoded.reason}`, loc: ["body"], msg: `body: ${decoded.message}` }]);
  refuseUnsafeText(decoded.value, ["body"]);
  return decoded.value;
}

/** A form body through the platform's FormData parser (the whole body at once). */
async function platformEntries(bytes: Uint8Array<ArrayBuffer>, contentType: string, type: string): Promise<Iterable<[string, string | File]>> {
  try {
    return (await new Response(bytes, { headers: { "content-type": contentType } }).formData()).entries();
  } catch (error) {
    throw new HttpError(400, `Malformed ${type} body: ${(error as Error).message}`);
  }
}

/**
 * A multipart body: one of at most STREAMED_MULTIPART_BYTES goes to the platform's parser, whose
 * refusals of bad part headers name the field; past that (an upload) the chunks read so far and
 * the rest go through busboy as they arrive (multipart.ts), so the parse never holds the event loop.
 */
async function multipartEntries(request: Request, contentType: string, limit: number, maxFieldBytes: number): Promise<Iterable<[string, string | File]>> {
  const chunks = bodyChunks(request, limit);
  const head: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await chunks.next();
    if (next.done) return platformEntries(concat(head), contentType, "multipart/form-data");
    head.push(next.value);
    size += next.value.byteLength;
    if (size > STREAMED_MULTIPART_BYTES) break;
  }
  async function* replayed() {
    yield* head;
    for await (const chunk of { [Symbol.asyncIterator]: () => chunks }) yield chunk;
  }
  return parseMultipart(contentType, replayed(), { maxFields: MAX_FORM_FIELDS, maxFieldBytes });
}

/** The caps of a form body: the whole body (uploads included) and each text field. */
export interface FormLimits {
  maxBodyBytes: number;
  maxFieldBytes: number;
}

/**
 * Parses urlencoded and multipart forms the way Agno's clients send them (the Python client
 * sends urlencoded, agent-ui sends multipart without setting a boundary itself). A text field
 * past `maxFieldBytes` is a 413 naming it; text holding NUL or a lone surrogate (field names and
 * file names included) a 422. File contents are bytes and are not inspected.
 */
export async function parseFormBody(request: Request, { maxBodyBytes: limit, maxFieldBytes }: FormLimits): Promise<ParsedForm> {
  const type = mediaType(request);
  if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") {
    throw new HttpError(415, `Expected form data (application/x-www-form-urlencoded or multipart/form-data), got '${type || "no Content-Type"}'`);
  }
  const contentType = request.headers.get("content-type")!;
  const entries = type === "multipart/form-data" ? await multipartEntries(request, contentType, limit, maxFieldBytes) : await platformEntries(await readBodyBytes(request, limit), contentType, type);
  const values = new Map<string, string[]>();
  const files: Record<string, File[]> = {};
  let count = 0;
  for (const [name, value] of entries) {
    if (++count > MAX_FORM_FIELDS) throw new HttpError(413, `The form has more than ${MAX_FORM_FIELDS} fields`);
    if (typeof value === "string") {
      if (Buffer.byteLength(value, "utf8") > maxFieldBytes) {
        throw new HttpError(413, `Form field '${name.slice(0, 100)}' is larger than the limit of ${maxFieldBytes} bytes`);
      }
      const list = values.get(name);
      if (list) list.push(value);
      else values.set(name, [value]);
    } else {
      (files[name] ??= []).push(value);
    }
  }
  // Repeated names become arrays, single ones stay strings (as Agno's form parsing gives them).
  const fields: Record<string, string | string[]> = {};
  for (const [name, list] of values) fields[name] = list.length === 1 ? list[0] : list;
  refuseUnsafeText(fields, ["body"]);
  // File parts: their field names and file names are text too (their contents are not checked).
  refuseUnsafeText(Object.fromEntries(Object.keys(files).map((name) => [name, null])), ["body"]);
  for (const [name, list] of Object.entries(files)) {
    refuseUnsafeText(
      list.map((file) => ({ filename: file.name, content_type: file.type })),
      ["body", name],
    );
  }
  return { fields, files };
}
