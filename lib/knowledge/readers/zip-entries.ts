/**
 * The inflation check for zip-based documents (DOCX): every entry is inflated once, counting bytes
 * and keeping none, before the document's own parser opens the archive. An entry whose declared
 * size passes the limit is refused unread; yauzl checks each entry's actual size against its
 * declared size while inflating, so one that lies about it stops at the declared size, which is
 * within the limit. What passes here cannot make the parser inflate more than the limit per entry.
 */
import yauzl from "yauzl";
import { inflatedTooLarge, type ReaderLimits, ReaderLimitError } from "./reader-limits.ts";

type ZipFile = yauzl.ZipFile;
type Entry = yauzl.Entry;

function openZip(buffer: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: false }, (error, zip) => (error ? reject(error) : resolve(zip)));
  });
}

const lying = (entry: Entry) =>
  new ReaderLimitError(
    `The archive's entry ${JSON.stringify(entry.fileName)} inflates to more than the ${entry.uncompressedSize} bytes it declares; it is refused as a possible zip bomb. Save the document again and upload the new file.`,
  );

/** Inflates one entry into nothing, counting its bytes; rejects once it passes `max`. */
function drainEntry(zip: ZipFile, entry: Entry, max: number, tooLarge: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      let total = 0;
      stream.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > max) stream.destroy(tooLarge());
      });
      // yauzl's size validation: the entry inflates past the size it declares.
      stream.on("error", (cause: Error) => reject(/too many bytes/i.test(cause.message) ? lying(entry) : cause));
      stream.on("end", () => resolve());
    });
  });
}

/**
 * Checks that no entry of the archive inflates past `limits.maxInflatedBytes`, declared or actual.
 * @throws ReaderLimitError naming the entry; yauzl's error when the bytes are no readable zip archive.
 */
export async function checkZipInflation(bytes: Uint8Array, limits: ReaderLimits): Promise<void> {
  const zip = await openZip(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", () => resolve());
      zip.on("entry", (entry: Entry) => {
        const name = JSON.stringify(entry.fileName);
        const tooLarge = () => inflatedTooLarge(name, limits);
        if (entry.uncompressedSize > limits.maxInflatedBytes) return reject(tooLarge());
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        drainEntry(zip, entry, limits.maxInflatedBytes, tooLarge).then(() => zip.readEntry(), reject);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}
