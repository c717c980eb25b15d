/**
 * Turning bytes into text for the text-based readers: the media type's parts, a file name's
 * extension, and the character encoding (a byte order mark, then a declared charset, then UTF-8,
 * then Windows-1252, the encoding browsers assume for text that is not UTF-8).
 */
import { ReaderError } from "./reader.ts";

/** The media type without parameters, lower case: "Text/HTML; charset=utf-8" → "text/html". */
export function mimeEssence(mimeType?: string): string | undefined {
  const essence = mimeType?.split(";", 1)[0]?.trim().toLowerCase();
  return essence || undefined;
}

/** The charset parameter of a media type, lower case, or undefined. */
export function charsetOf(mimeType?: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(mimeType ?? "");
  return match?.[1]?.toLowerCase();
}

/** A file name's extension, lower case and without the dot ("Report.PDF" → "pdf"), or undefined. */
export function extensionOf(name?: string): string | undefined {
  const base = name?.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1).toLowerCase() : undefined;
}

/** The encoding a byte order mark announces, with the mark's length. */
function byteOrderMark(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return undefined;
}

/** A decoder for a charset label, or undefined when the label names no encoding TextDecoder knows. */
function decoderFor(label: string, fatal = false): TextDecoder | undefined {
  try {
    return new TextDecoder(label, { fatal });
  } catch {
    return undefined;
  }
}

/**
 * The bytes as text, line endings made "\n". `charset` is a declared encoding (from the media type
 * or an HTML meta tag); a byte order mark outranks it. Refuses bytes with NUL characters outside
 * UTF-16: text files have none, binary files (images, archives, executables) nearly always do.
 */
export function decodeText(bytes: Uint8Array, charset?: string): { text: string; encoding: string } {
  const bom = byteOrderMark(bytes);
  const declared = bom || !charset ? undefined : decoderFor(charset);
  const encoding = bom?.encoding ?? declared?.encoding ?? "utf-8";
  if (!encoding.startsWith("utf-16") && bytes.includes(0)) {
    throw new ReaderError("The file looks binary (it contains NUL bytes), not text; upload it as PDF, DOCX, HTML, Markdown, CSV, JSON or plain text.");
  }
  const body = bom ? bytes.subarray(bom.length) : bytes;
  let text: string;
  if (bom || declared) {
    text = new TextDecoder(encoding).decode(body);
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch {
      return { text: normalizeNewlines(new TextDecoder("windows-1252").decode(body)), encoding: "windows-1252" };
    }
  }
  return { text: normalizeNewlines(text), encoding };
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** The first `length` bytes as Latin-1 text, for looking at magic numbers and markup without decoding. */
export function headAscii(bytes: Uint8Array, length = 1024): string {
  return String.fromCharCode(...bytes.subarray(0, length));
}
