/**
 * What every chunker shares: the chunk shape, the options and their checks, and how spans of the
 * source text become chunks with Agno's per-chunk metadata (`chunk`, `chunk_size`).
 */
import type { Span } from "./text-spans.ts";

/** One piece of a document, ready to embed. */
export interface Chunk {
  content: string;
  /** 1-based position, as Agno numbers chunks */
  index: number;
  metadata: Record<string, unknown>;
}

/** Per-call settings; anything left out takes the chunker's defaults. */
export interface ChunkOptions {
  /** Most characters (UTF-16 code units) a chunk may hold, overlap included. */
  chunkSize?: number;
  /** Most characters a chunk may repeat from the end of the one before it. */
  overlap?: number;
  /** Copied into every chunk's metadata, under the chunker's own keys. */
  metadata?: Record<string, unknown>;
}

/** A chunking strategy, described as Agno's knowledge config lists it. */
export interface Chunker {
  /** The strategy's name in Agno's config (`ChunkingStrategyType` values), e.g. "FixedSizeChunker". */
  key: string;
  name: string;
  description: string;
  defaults: { chunkSize: number; overlap: number };
  chunk(text: string, options?: ChunkOptions): Chunk[];
}

/** Options no chunker can honour; `field` names the offending option and the message the rule. */
export class ChunkOptionsError extends Error {
  override readonly name = "ChunkOptionsError";
  constructor(
    message: string,
    readonly field: "chunkSize" | "overlap",
  ) {
    super(message);
  }
}

/** Options with the defaults filled in and checked. */
export interface ResolvedChunkOptions {
  chunkSize: number;
  overlap: number;
  metadata: Record<string, unknown>;
}

/**
 * Fills in the defaults and checks the rules Agno's chunkers enforce (chunk size above 0, overlap
 * not negative and below the chunk size), plus whole numbers, since sizes count characters.
 * @throws ChunkOptionsError naming the field and the rule it breaks.
 */
export function resolveChunkOptions(options: ChunkOptions | undefined, defaults: Chunker["defaults"]): ResolvedChunkOptions {
  const chunkSize = options?.chunkSize ?? defaults.chunkSize;
  const overlap = options?.overlap ?? defaults.overlap;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new ChunkOptionsError(`chunkSize must be a whole number of at least 1 (got ${chunkSize})`, "chunkSize");
  }
  if (!Number.isInteger(overlap) || overlap < 0) {
    throw new ChunkOptionsError(`overlap must be a whole number of at least 0 (got ${overlap})`, "overlap");
  }
  if (overlap >= chunkSize) {
    throw new ChunkOptionsError(`overlap must be less than chunkSize (got overlap ${overlap}, chunkSize ${chunkSize})`, "overlap");
  }
  return { chunkSize, overlap, metadata: options?.metadata ?? {} };
}

/**
 * Why these options would cut text into too many chunks, or null: a chunk size below `minChunkSize`
 * (knowledge.minChunkSize), or an overlap leaving each chunk less than that much new text.
 */
export function chunkStepProblem(options: ChunkOptions, chunker: Pick<Chunker, "defaults">, minChunkSize: number): { field: "chunkSize" | "overlap"; message: string } | null {
  const chunkSize = options.chunkSize ?? chunker.defaults.chunkSize;
  const overlap = options.overlap ?? chunker.defaults.overlap;
  if (chunkSize < minChunkSize) return { field: "chunkSize", message: `chunk_size must be at least ${minChunkSize} characters (knowledge.minChunkSize); got ${chunkSize}` };
  if (chunkSize - overlap < minChunkSize) {
    return {
      field: "overlap",
      message: `chunk_size minus chunk_overlap must be at least ${minChunkSize} characters (knowledge.minChunkSize), so each chunk moves that far through the text; got ${chunkSize} - ${overlap}`,
    };
  }
  return null;
}

/** A span of the source and the metadata only its chunk gets (the Markdown heading path). */
export interface PlacedSpan extends Span {
  extra?: Record<string, unknown>;
}

/**
 * Turns spans of `text` into numbered chunks. Each chunk's metadata is a fresh copy of the
 * caller's, then `chunk` (the 1-based index) and `chunk_size` (the content's length) as Agno sets
 * them, then the span's own keys.
 */
export function toChunks(text: string, spans: readonly PlacedSpan[], metadata: Record<string, unknown>): Chunk[] {
  return spans.map((span, i) => {
    const content = text.slice(span.start, span.end);
    return { content, index: i + 1, metadata: { ...metadata, chunk: i + 1, chunk_size: content.length, ...span.extra } };
  });
}
