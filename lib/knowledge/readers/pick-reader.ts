/**
 * Which file reader reads some bytes: the declared media type, then the file name's extension,
 * then the bytes themselves, then plain text. The URL reader is never picked here: it fetches, and
 * is chosen by its id only.
 */
import { csvReader } from "./csv.ts";
import { extensionOf, headAscii, mimeEssence } from "./decode.ts";
import { docxReader } from "./docx.ts";
import { htmlReader } from "./html.ts";
import { jsonReader } from "./json.ts";
import { markdownReader } from "./markdown.ts";
import { pdfReader } from "./pdf.ts";
import type { Reader } from "./reader.ts";
import { textReader } from "./text.ts";

/** The readers of file contents, in the order `readersForType` lists them. */
export const FILE_READERS: readonly Reader[] = [pdfReader, docxReader, csvReader, jsonReader, htmlReader, markdownReader, textReader];

/**
 * Media types that say nothing about the format: a browser's or server's guess for anything it
 * does not know, or "text/plain" for any text (a .csv or .md is often sent as text/plain).
 * With one of these, the extension and the bytes decide.
 */
const UNINFORMATIVE = new Set(["application/octet-stream", "binary/octet-stream", "application/unknown", "application/x-unknown", "text/plain"]);

function byMimeType(essence: string | undefined): Reader | undefined {
  return essence ? FILE_READERS.find((r) => r.mimeTypes.includes(essence)) : undefined;
}

function byExtension(extension: string | undefined): Reader | undefined {
  return extension ? FILE_READERS.find((r) => r.extensions.includes(extension)) : undefined;
}

/**
 * The reader the bytes themselves point to: the PDF magic number (which readers accept anywhere in
 * the first KiB), a zip archive holding word/document.xml (a zip's file names are stored as plain
 * bytes), an HTML document's opening, or text that parses as a JSON object or array.
 */
export function sniffReader(bytes: Uint8Array): Reader | undefined {
  const head = headAscii(bytes);
  if (head.includes("%PDF-")) return pdfReader;
  if (head.startsWith("PK\x03\x04")) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes("word/document.xml") ? docxReader : undefined;
  const start = head
    .replace(/^\xEF\xBB\xBF/, "")
    .trimStart()
    .toLowerCase();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype html|<html)/.test(start)) return htmlReader;
  if (start.startsWith("{") || start.startsWith("[")) {
    try {
      JSON.parse(new TextDecoder().decode(bytes));
      return jsonReader;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The reader for a file: by declared media type, extension, content, and plain text when none says. */
export function pickReader({ name, mimeType, bytes }: { name?: string; mimeType?: string; bytes?: Uint8Array }): Reader {
  const essence = mimeEssence(mimeType);
  const declared = essence && !UNINFORMATIVE.has(essence) ? byMimeType(essence) : undefined;
  return declared ?? byExtension(extensionOf(name)) ?? (bytes ? sniffReader(bytes) : undefined) ?? byMimeType(essence) ?? textReader;
}
