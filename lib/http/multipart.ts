/**
 * multipart/form-data through busboy, fed chunk by chunk as the body arrives, so a large upload is
 * parsed a slice at a time between reads instead of in one pass that holds the event loop (the
 * platform's FormData parser takes the whole body at once: ~140 ms for 20 MiB). Parts are what the
 * platform's parser gives: a part with a file name is a File, any other part a text field. busboy
 * refuses a part header holding a NUL as malformed (400), where the platform's parser reads it and
 * the form checks then name the field (422); body.ts keeps forms of up to 1 MiB on the platform's
 * parser.
 */
import busboy from "busboy";
import { HttpError } from "../errors/http-error.ts";

/** A form's entries in the order they came: text fields as strings, file parts as Files. */
export type FormEntries = [string, string | File][];

/** Caps that busboy applies while parsing (the body's own cap is the caller's). */
export interface MultipartLimits {
  maxFields: number;
  maxFieldBytes: number;
}

/**
 * Parses a multipart body from its chunks. A malformed body is a 400; more parts than `maxFields`
 * or a text field past `maxFieldBytes` a 413 naming it.
 */
export async function parseMultipart(contentType: string, chunks: AsyncIterable<Uint8Array>, { maxFields, maxFieldBytes }: MultipartLimits): Promise<FormEntries> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      // One past each cap, so passing it is seen (busboy truncates or stops silently at a cap).
      limits: { fieldNameSize: maxFieldBytes + 1, fieldSize: maxFieldBytes + 1, fields: maxFields + 1, files: maxFields + 1, parts: maxFields + 1 },
    });
  } catch (error) {
    throw new HttpError(400, `Malformed multipart/form-data body: ${(error as Error).message}`);
  }
  const slots: Promise<[string, string | File]>[] = [];
  let refusal: HttpError | null = null;
  const tooMany = () => (refusal ??= new HttpError(413, `The form has more than ${maxFields} fields`));
  parser.on("field", (name, value, info) => {
    if (info.nameTruncated || info.valueTruncated) refusal ??= new HttpError(413, `Form field '${name.slice(0, 100)}' is larger than the limit of ${maxFieldBytes} bytes`);
    slots.push(Promise.resolve([name, value]));
  });
  parser.on("file", (name, stream, info) => {
    const slot = new Promise<[string, string | File]>((resolve, reject) => {
      const parts: Uint8Array<ArrayBuffer>[] = [];
      stream.on("data", (part: Uint8Array<ArrayBuffer>) => parts.push(part));
      stream.on("error", reject);
      stream.on("end", () => {
        // Without a file name a part is a text field, whatever its type says.
        if (info.filename === undefined) resolve([name, Buffer.concat(parts).toString("utf8")]);
        // One part, so reading the File back is one copy rather than one read per chunk.
        else resolve([name, new File([Buffer.concat(parts)], info.filename, { type: info.mimeType })]);
      });
    });
    // A part cut short fails the whole parse (below); its own rejection is not a second error.
    slot.catch(() => undefined);
    slots.push(slot);
  });
  parser.on("fieldsLimit", tooMany).on("filesLimit", tooMany).on("partsLimit", tooMany);
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", (error: Error) => reject(new HttpError(400, `Malformed multipart/form-data body: ${error.message}`)));
  });
  finished.catch(() => undefined);
  for await (const chunk of chunks) {
    if (refusal) break;
    parser.write(chunk);
  }
  parser.end();
  try {
    await finished;
  } catch (error) {
    throw refusal ?? error;
  }
  if (refusal) throw refusal;
  return Promise.all(slots);
}
