/**
 * Fixed-size chunking: windows of `chunkSize` characters, each next window starting `overlap`
 * characters before the previous one ended. A window that would end inside a word ends instead at
 * the last whitespace of its final tenth, when there is one; otherwise the word is cut.
 */
import { type Chunk, type ChunkOptions, type Chunker, resolveChunkOptions, toChunks } from "./chunk.ts";
import { type Span, isWhitespaceAt, keepSurrogatePair, skipWhitespace, splitsSurrogatePair, trimSpan } from "./text-spans.ts";

/** How far back from a window's end (as a share of the chunk size) a cut may move to land on whitespace. */
const WORD_SLACK = 0.1;

/**
 * Where a window [start, end) should end: `end` itself unless it falls inside a word, else just
 * before the last whitespace in the window's final tenth, never at or before `min`.
 */
function wordBoundary(text: string, end: number, min: number, chunkSize: number): number {
  if (isWhitespaceAt(text, end) || isWhitespaceAt(text, end - 1)) return end;
  const lowest = Math.max(min, end - Math.ceil(chunkSize * WORD_SLACK));
  for (let cut = end - 1; cut >= lowest; cut--) {
    if (isWhitespaceAt(text, cut)) return cut;
  }
  return end;
}

/**
 * The spans of the fixed-size chunks of `text`. Each window holds at least one character the
 * previous windows did not (`fresh`), so a long run of whitespace never yields a chunk that only
 * repeats its overlap, and the loop always advances.
 */
export function fixedSizeSpans(text: string, chunkSize: number, overlap: number): Span[] {
  const spans: Span[] = [];
  let covered = 0;
  let start = 0;
  for (;;) {
    const fresh = skipWhitespace(text, covered);
    if (fresh >= text.length) break;
    start = fresh - start >= chunkSize ? fresh : skipWhitespace(text, start, fresh);
    let end = Math.min(start + chunkSize, text.length);
    if (end < text.length) end = keepSurrogatePair(text, wordBoundary(text, end, fresh + 1, chunkSize), fresh);
    // `start` is not whitespace and `fresh` lies inside the window, so the trimmed span is never empty.
    spans.push(trimSpan(text, start, end)!);
    covered = end;
    start = Math.max(0, end - overlap);
    // Starting inside a surrogate pair would orphan its second half: repeat one character less
    // (unless the pair was itself cut because the window had no room for it).
    if (start < end && splitsSurrogatePair(text, start)) start++;
  }
  return spans;
}

const DEFAULTS = { chunkSize: 5000, overlap: 0 };

/** Agno's FixedSizeChunking (defaults: chunk_size 5000, overlap 0). */
export const fixedSizeChunker: Chunker = {
  key: "FixedSizeChunker",
  name: "FixedSizeChunker",
  description: "Chunking strategy that splits text into fixed-size chunks with optional overlap",
  defaults: DEFAULTS,
  /**
   * Splits `text` into windows of at most `chunkSize` characters; [] for empty or blank text.
   * @throws ChunkOptionsError for a chunk size below 1 or an overlap outside [0, chunkSize).
   */
  chunk(text: string, options?: ChunkOptions): Chunk[] {
    const { chunkSize, overlap, metadata } = resolveChunkOptions(options, DEFAULTS);
    return toChunks(text, fixedSizeSpans(text, chunkSize, overlap), metadata);
  },
};
