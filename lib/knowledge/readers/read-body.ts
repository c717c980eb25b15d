/**
 * Reading a fetched body within a size cap (safe-fetch.ts).
 */
import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { formatBytes } from "./format-bytes.ts";
import { ReaderError } from "./reader.ts";

const DECODERS = new Map<string, () => Transform>([
  ["gzip", zlib.createGunzip],
  ["x-gzip", zlib.createGunzip],
  ["deflate", zlib.createInflate],
  ["br", zlib.createBrotliDecompress],
]);

/**
 * The body of a response, decompressed (gzip, deflate, br), refused with a ReaderError naming the
 * cap once it passes maxBytes; the cap counts decompressed bytes, so a small compressed body cannot
 * unpack into a large one. A Content-Length above the cap is refused before any of it is read.
 */
export async function readBody(response: IncomingMessage, url: URL, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new ReaderError(`${url.href} is larger than the ${formatBytes(maxBytes)} cap; download it and upload a smaller part, or ask an admin to raise the limit.`);
  const encoding = (response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding === "identity" && Number(response.headers["content-length"]) > maxBytes) throw tooLarge();
  const decoder = DECODERS.get(encoding);
  if (encoding !== "identity" && !decoder) throw new ReaderError(`${url.href} was sent with an unsupported compression (${encoding}); download it and upload the file.`);
  const chunks: Buffer[] = [];
  let total = 0;
  const sink = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  };
  try {
    await (decoder ? pipeline(response, decoder(), sink) : pipeline(response, sink));
  } catch (error) {
    // With a decompressor in the pipeline, the sink's error can surface as the AbortError that tore it down.
    throw total > maxBytes ? tooLarge() : error;
  }
  const body = Buffer.concat(chunks, total);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}
