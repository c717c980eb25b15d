import { refuseUnsafeText } from "./errors.ts";
import { HttpError, validationError } from "../errors/http-error.ts";
import { decodeJsonText } from "./input-text.ts";

/** A parsed form: text fields (repeated names become arrays) and uploaded files by field name. */
export interface ParsedForm {
  fields: Record<string, string | string[]>;
  files: Record<string, File[]>;
}

export type BodyKind = "json" | "form";

/** More fields than any client sends; past it the form is refused before any per-field work. */
export const MAX_FORM_FIELDS = 1_000;

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body is larger than the limit of ${limit} bytes`);
}

/**
 * Reads the body, refusing (413) past `limit` bytes: first by Content-Length, then while
 * streaming, so a lying or absent Content-Length cannot make the server buffer more.
 */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
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
  const bytes = await readBodyBytes(request, limit);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type")! } }).formData();
  } catch (error) {
    throw new HttpError(400, `Malformed ${type} body: ${(error as Error).message}`);
  }
  const values = new Map<string, string[]>();
  const files: Record<string, File[]> = {};
  let count = 0;
  for (const [name, value] of form.entries()) {
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
