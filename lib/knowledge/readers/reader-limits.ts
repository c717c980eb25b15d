/**
 * What one document may cost to read: each limit is a `knowledge.*` setting (lib/config/settings.ts
 * KnowledgeLimits), and a document past one fails with a ReaderLimitError whose message names the
 * limit, the setting and what to do. Readers check their own limits as early as they can (before
 * parsing, while inflating, page by page) rather than after the work is done.
 */
import { DEFAULT_KNOWLEDGE_LIMITS } from "../../config/settings.ts";
import { jsonNestsDeeperThan } from "../../db/json.ts";
import { formatBytes } from "./format-bytes.ts";
import { ReaderError, type ReaderLimits } from "./reader.ts";

export const DEFAULT_READER_LIMITS: ReaderLimits = DEFAULT_KNOWLEDGE_LIMITS;

/** A document refused for passing a limit: never retried, since it would pass it again. */
export class ReaderLimitError extends ReaderError {
  override readonly name = "ReaderLimitError";
}

const CHARS = new Intl.NumberFormat("en-US");

/** Refuses text past `maxExtractedChars` (counted in UTF-16 code units, as chunk sizes are). */
export function checkExtractedText(length: number, limits: ReaderLimits): void {
  if (length > limits.maxExtractedChars) {
    throw new ReaderLimitError(
      `The document yields more than ${CHARS.format(limits.maxExtractedChars)} characters of text, the most one document may (knowledge.maxExtractedChars); split it into smaller files and upload each.`,
    );
  }
}

/** Refuses HTML past `maxHtmlBytes` before it is parsed and converted to Markdown. */
export function checkHtmlSize(bytes: number, limits: ReaderLimits, what = "The page"): void {
  if (bytes > limits.maxHtmlBytes) {
    throw new ReaderLimitError(
      `${what} has ${formatBytes(bytes)} of HTML, more than the ${formatBytes(limits.maxHtmlBytes)} converted per document (knowledge.maxHtmlBytes); save its text and upload that instead, or split it.`,
    );
  }
}

/** The refusal of a zip entry that inflates past `maxInflatedBytes` (declared or found while inflating). */
export function inflatedTooLarge(entry: string, limits: ReaderLimits): ReaderLimitError {
  return new ReaderLimitError(
    `The archive's entry ${entry} inflates to more than ${formatBytes(limits.maxInflatedBytes)}, the most one entry may (knowledge.maxInflatedBytes); it is refused as a possible zip bomb. Save the document again without embedded media, or split it.`,
  );
}

/** Refuses a PDF with more pages than `maxPdfPages`, before any page is read. */
export function checkPdfPages(pages: number, limits: ReaderLimits): void {
  if (pages > limits.maxPdfPages) {
    throw new ReaderLimitError(
      `The PDF has ${CHARS.format(pages)} pages, more than the ${CHARS.format(limits.maxPdfPages)} read per document (knowledge.maxPdfPages); split it into smaller PDFs and upload each.`,
    );
  }
}

/** The refusal of a CSV with more rows than `maxCsvRows` (its reader stops parsing there). */
export function csvTooLong(limits: ReaderLimits): ReaderLimitError {
  return new ReaderLimitError(`The CSV has more than ${CHARS.format(limits.maxCsvRows)} rows, the most read per table (knowledge.maxCsvRows); split it into smaller files and upload each.`);
}

/**
 * Refuses JSON nested deeper than `maxJsonDepth` (one pass over the text, brackets in strings not
 * counted), before anything recursive sees it. The text need not be valid JSON: a syntax error is
 * for JSON.parse to report.
 */
export function checkJsonDepth(text: string, limits: ReaderLimits): void {
  if (jsonNestsDeeperThan(text, limits.maxJsonDepth)) {
    throw new ReaderLimitError(`The JSON is nested more than ${limits.maxJsonDepth} levels deep (knowledge.maxJsonDepth); flatten it, or upload it as a .txt file to read it as plain text.`);
  }
}
