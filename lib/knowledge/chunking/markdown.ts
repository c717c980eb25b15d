/**
 * Markdown chunking: the document is split at its headings; a section that fits is merged with
 * the sections after it while they stay under the same parent heading and the whole still fits,
 * and a section longer than `chunkSize` is chunked recursively on its own. Every chunk carries
 * `headings`, the heading path all of its text sits under (for merged siblings, their parent's).
 * Overlap applies inside a split section only: a chunk never repeats text from another heading.
 */
import { type Chunk, type ChunkOptions, type Chunker, type PlacedSpan, resolveChunkOptions, toChunks } from "./chunk.ts";
import { markdownSections } from "./markdown-sections.ts";
import { recursiveSpans } from "./recursive.ts";
import { trimSpan } from "./text-spans.ts";

/** Chunks being merged: from `start` to `end`, under `parent`, with `headings` the paths' common part. */
interface Group {
  start: number;
  end: number;
  parent: string[];
  headings: string[];
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((heading, i) => path[i] === heading);
}

function commonPrefix(a: readonly string[], b: readonly string[]): string[] {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/** The spans of the Markdown chunks of `text`, each with its `headings` path. */
export function markdownSpans(text: string, chunkSize: number, overlap: number): PlacedSpan[] {
  const spans: PlacedSpan[] = [];
  let group: Group | undefined;
  const flush = () => {
    if (group) spans.push({ start: group.start, end: group.end, extra: { headings: group.headings } });
    group = undefined;
  };
  for (const section of markdownSections(text)) {
    const trimmed = trimSpan(text, section.start, section.end);
    if (trimmed === null) continue;
    if (group && startsWith(section.path, group.parent) && trimmed.end - group.start <= chunkSize) {
      group.end = trimmed.end;
      group.headings = commonPrefix(group.headings, section.path);
      continue;
    }
    flush();
    if (trimmed.end - trimmed.start > chunkSize) {
      for (const span of recursiveSpans(text, trimmed.start, trimmed.end, chunkSize, overlap)) {
        spans.push({ ...span, extra: { headings: section.path } });
      }
      continue;
    }
    // Text before the first heading has no parent but the document: anything may join it.
    group = { start: trimmed.start, end: trimmed.end, parent: section.path.slice(0, -1), headings: section.path };
  }
  flush();
  return spans;
}

const DEFAULTS = { chunkSize: 5000, overlap: 0 };

/** Agno's MarkdownChunking (defaults: chunk_size 5000, overlap 0). */
export const markdownChunker: Chunker = {
  key: "MarkdownChunker",
  name: "MarkdownChunker",
  description: "A chunking strategy that splits markdown based on structure like headers, paragraphs and sections",
  defaults: DEFAULTS,
  /**
   * Splits Markdown `text` by headings into chunks of at most `chunkSize` characters, each with
   * its heading path in `metadata.headings`; [] for empty or blank text.
   * @throws ChunkOptionsError for a chunk size below 1 or an overlap outside [0, chunkSize).
   */
  chunk(text: string, options?: ChunkOptions): Chunk[] {
    const { chunkSize, overlap, metadata } = resolveChunkOptions(options, DEFAULTS);
    return toChunks(text, markdownSpans(text, chunkSize, overlap), metadata);
  },
};
