/**
 * Recursive chunking: the text is cut at the coarsest natural break that makes its pieces fit
 * (paragraphs, then lines, then sentences, then words, then single characters), and consecutive
 * pieces are packed greedily into chunks of at most `chunkSize` characters. With an overlap, each
 * chunk after the first starts with the previous chunk's last words, at most `overlap` characters.
 */
import { type Chunk, type ChunkOptions, type Chunker, resolveChunkOptions, toChunks } from "./chunk.ts";
import { type Span, isWhitespaceAt, keepSurrogatePair, trimSpan } from "./text-spans.ts";

/** The breaks, coarsest first; a separator stays with the piece before it. Past the last level, characters. */
const SEPARATORS: readonly (readonly string[])[] = [["\n\n"], ["\n"], [". ", "? ", "! "], [" "]];

/** The positions just after each separator of `separators` inside [start, end), in order. */
function cutsAfter(text: string, start: number, end: number, separators: readonly string[]): number[] {
  const cuts: number[] = [];
  let i = start;
  while (i < end) {
    const separator = separators.find((s) => text.startsWith(s, i) && i + s.length <= end);
    if (separator === undefined) {
      i++;
      continue;
    }
    i += separator.length;
    if (i < end) cuts.push(i);
  }
  return cuts;
}

/** Appends to `out` contiguous pieces covering [start, end), none longer than `size`. */
function splitPieces(text: string, start: number, end: number, size: number, level: number, out: Span[]): void {
  if (end - start <= size) {
    out.push({ start, end });
    return;
  }
  if (level >= SEPARATORS.length) {
    for (let from = start; from < end; ) {
      const to = from + size >= end ? end : keepSurrogatePair(text, from + size, from);
      out.push({ start: from, end: to });
      from = to;
    }
    return;
  }
  let from = start;
  for (const cut of cutsAfter(text, start, end, SEPARATORS[level])) {
    splitPieces(text, from, cut, size, level + 1, out);
    from = cut;
  }
  splitPieces(text, from, end, size, level + 1, out);
}

/**
 * Where a chunk following `previous` starts when it repeats the previous chunk's tail: the
 * earliest word start inside that chunk (its very first word excluded) that is at most `overlap`
 * characters from its end and at or after `lowest`; undefined when no word qualifies.
 */
function overlapStart(text: string, previous: Span, overlap: number, lowest: number): number | undefined {
  for (let p = Math.max(previous.start + 1, previous.end - overlap, lowest); p < previous.end; p++) {
    if (isWhitespaceAt(text, p - 1) && !isWhitespaceAt(text, p)) return p;
  }
  return undefined;
}

/**
 * The spans of the recursive chunks of text[from, to). Exported for the Markdown chunker, which
 * chunks each section that is too long this way.
 */
export function recursiveSpans(text: string, from: number, to: number, chunkSize: number, overlap: number): Span[] {
  const pieces: Span[] = [];
  splitPieces(text, from, to, chunkSize, 0, pieces);
  const spans: Span[] = [];
  let i = 0;
  while (i < pieces.length) {
    const first = trimSpan(text, pieces[i].start, pieces[i].end);
    i++;
    if (first === null) continue;
    const previous = spans.at(-1);
    // The first piece always fits on its own; the overlap shrinks (or goes) to make room for it.
    const start = (previous && overlapStart(text, previous, overlap, first.end - chunkSize)) ?? first.start;
    let end = first.end;
    while (i < pieces.length) {
      const next = trimSpan(text, pieces[i].start, pieces[i].end);
      if (next !== null && next.end - start > chunkSize) break;
      if (next !== null) end = next.end;
      i++;
    }
    spans.push({ start, end });
  }
  return spans;
}

const DEFAULTS = { chunkSize: 5000, overlap: 0 };

/** Agno's RecursiveChunking (defaults: chunk_size 5000, overlap 0). */
export const recursiveChunker: Chunker = {
  key: "RecursiveChunker",
  name: "RecursiveChunker",
  description: "Chunking strategy that recursively splits text into chunks by finding natural break points",
  defaults: DEFAULTS,
  /**
   * Splits `text` at natural breaks into chunks of at most `chunkSize` characters; [] for empty
   * or blank text.
   * @throws ChunkOptionsError for a chunk size below 1 or an overlap outside [0, chunkSize).
   */
  chunk(text: string, options?: ChunkOptions): Chunk[] {
    const { chunkSize, overlap, metadata } = resolveChunkOptions(options, DEFAULTS);
    return toChunks(text, recursiveSpans(text, 0, text.length, chunkSize, overlap), metadata);
  },
};
