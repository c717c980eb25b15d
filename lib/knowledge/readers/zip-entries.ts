/**
 * The inflation check for zip-based documents (DOCX), done with JSZip, the zip reader mammoth
 * itself opens the document with, so both see the same entries (two zip parsers can disagree about
 * a crafted archive's directory). Every entry is inflated once, its bytes counted and none kept,
 * before mammoth opens the archive: an entry whose declared size passes the limit is refused
 * unread, and one that inflates past the limit, whatever it declares, is stopped there (within one
 * 16 KiB compressed block's output).
 */
import type { Readable } from "node:stream";
import JSZip from "jszip";
import { inflatedTooLarge, ReaderLimitError } from "./reader-limits.ts";
import type { ReaderLimits } from "./reader.ts";

/** The size an entry's directory record declares (JSZip keeps it on the entry's compressed data). */
function declaredSize(file: JSZip.JSZipObject): number | undefined {
  const size = (file as unknown as { _data?: { uncompressedSize?: unknown } })._data?.uncompressedSize;
  return typeof size === "number" ? size : undefined;
}

const lying = (name: string, declared: number) =>
  new ReaderLimitError(
    `The archive's entry ${JSON.stringify(name)} inflates to more than the ${declared} bytes it declares; it is refused as a possible zip bomb. Save the document again and upload the new file.`,
  );

/** Inflates one entry into nothing, counting its bytes; rejects once they pass `max`. */
function drainEntry(file: JSZip.JSZipObject, max: number, tooLarge: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    let total = 0;
    const stream = file.nodeStream("nodebuffer") as Readable;
    stream
      .on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > max) {
          stream.destroy();
          reject(tooLarge());
        }
      })
      .on("error", reject)
      .on("end", () => resolve());
  });
}

/**
 * Checks that no entry of the archive inflates past `limits.maxInflatedBytes`, declared or actual.
 * @throws ReaderLimitError naming the entry; JSZip's error when the bytes are no readable zip archive.
 */
export async function checkZipInflation(bytes: Uint8Array, limits: ReaderLimits): Promise<void> {
  const zip = await JSZip.loadAsync(bytes);
  for (const file of Object.values(zip.files)) {
    if (file.dir) continue;
    const name = JSON.stringify(file.name);
    const tooLarge = () => inflatedTooLarge(name, limits);
    const declared = declaredSize(file);
    if (declared !== undefined && declared > limits.maxInflatedBytes) throw tooLarge();
    // An entry is stopped at the size it declares (when that is below the limit): past it, it lies.
    const cap = Math.min(declared ?? limits.maxInflatedBytes, limits.maxInflatedBytes);
    await drainEntry(file, cap, () => (cap < limits.maxInflatedBytes ? lying(file.name, cap) : tooLarge()));
  }
}
