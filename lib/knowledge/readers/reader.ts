/**
 * The contract every knowledge reader keeps: bytes in (a file's, or a fetched page's), searchable
 * text out. A reader refuses what it cannot read with a ReaderError whose message is shown to a
 * person as it is, so it says what is wrong and what to do about it.
 */

import type { KnowledgeLimits } from "../../config/settings.ts";

/** The limits a reader applies (reader-limits.ts; the rest of KnowledgeLimits is the pool's and the chunker's). */
export type ReaderLimits = Pick<KnowledgeLimits, "maxInflatedBytes" | "maxExtractedChars" | "maxPdfPages" | "maxHtmlBytes" | "maxCsvRows" | "maxJsonDepth">;

/** What a reader reads: the bytes, and what is known of them (a file name, a media type). */
export interface ReadInput {
  bytes: Uint8Array;
  /** The file's name (its extension picks the reader when the media type does not). */
  name?: string;
  /** The media type, possibly with parameters ("text/html; charset=iso-8859-1"). */
  mimeType?: string;
}

/** The text a reader found, ready to be chunked and embedded. */
export interface ReadOutput {
  text: string;
  /** What the reader learnt besides the text (a title, a page or row count, the URL read). */
  metadata: Record<string, unknown>;
  /** "markdown" when the reader converted the source to Markdown (HTML, DOCX) or read Markdown. */
  format: "text" | "markdown";
}

export interface Reader {
  /** The id clients name a reader by ("pdf", "csv"). */
  id: string;
  name: string;
  description: string;
  /** Media types (without parameters) this reader reads. */
  mimeTypes: string[];
  /** File extensions, lower case and without the dot. */
  extensions: string[];
  read(input: ReadInput, options?: ReadOptions): Promise<ReadOutput>;
}

/** How a read may be stopped, and what it may cost (reader-limits.ts; the defaults when absent). */
export interface ReadOptions {
  signal?: AbortSignal;
  limits?: ReaderLimits;
}

/** Content a reader cannot read; the message says why and what to do, in words for a person. */
export class ReaderError extends Error {
  override readonly name: string = "ReaderError";
}
