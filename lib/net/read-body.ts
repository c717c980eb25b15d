/**
 * Reading a response's whole body within a size cap, decompressed as its Content-Encoding says
 * (gzip, deflate, br). Used by guardedRequest (guarded-request.ts) and the knowledge URL reader.
 */
import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";

const DECODERS = new Map<string, () => Transform>([
  ["gzip", zlib.createGunzip],
  ["x-gzip", zlib.createGunzip],
  ["deflate", zlib.createInflate],
  ["br", zlib.createBrotliDecompress],
]);

/** A body past the cap: declared, sent, or once decompressed. */
export class ResponseTooLargeError extends Error {
  override readonly name = "ResponseTooLargeError";
  constructor(
    message: string,
    readonly maxBytes: number,
  ) {
    super(message);
  }
}

/** A body sent with a Content-Encoding that is not one of gzip, deflate, br or identity (stacked ones included: "gzip, br"). */
export class UnsupportedEncodingError extends Error {
  override readonly name = "UnsupportedEncodingError";
  constructor(
    message: string,
    readonly encoding: string,
  ) {
    super(message);
  }
}

/**
 * The whole body of `response`, decompressed, or a ResponseTooLargeError once it passes `maxBytes`:
 * a Content-Length above the cap is refused before anything is read, and both the bytes received
 * and the bytes they decompress to count against the cap, so a small compressed body cannot unpack
 * into a large one. An encoding it cannot decode is an UnsupportedEncodingError, never raw bytes
 * passed off as the body.
 */
export async function readBody(response: IncomingMessage, url: URL, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new ResponseTooLargeError(`${url.host} sent more than ${maxBytes} bytes`, maxBytes);
  const encoding = (response.headers["content-encoding"] ?? "").trim().toLowerCase() || "identity";
  const decoder = DECODERS.get(encoding);
  if (encoding !== "identity" && !decoder) {
    response.destroy();
    throw new UnsupportedEncodingError(`${url.host} sent its answer with a compression that cannot be read (Content-Encoding: ${encoding})`, encoding);
  }
  if (Number(response.headers["content-length"]) > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  let exceeded = false;
  /** Counts `bytes` against the cap, which is then `exceeded`. */
  const check = (bytes: number) => {
    if (bytes <= maxBytes) return;
    exceeded = true;
    throw tooLarge();
  };
  let received = 0;
  async function* countReceived(source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      check((received += chunk.length));
      yield chunk;
    }
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const sink = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      check((total += chunk.length));
      chunks.push(chunk);
    }
  };
  try {
    await (decoder ? pipeline(response, countReceived, decoder(), sink) : pipeline(response, sink));
  } catch (error) {
    // With a decompressor in the pipeline, the cap's error can surface as the AbortError that tore it down.
    throw exceeded ? tooLarge() : error;
  }
  return Buffer.concat(chunks, total);
}
