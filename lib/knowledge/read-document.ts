/**
 * Bytes to chunks: picks the reader, reads within the limits, cuts the text with the chunker and
 * checks the chunk count. It is CPU work with no I/O, run by document-worker.ts on a worker thread
 * (document-pool.ts), so no document can hold the server's event loop. Its answer is plain data,
 * since it crosses the thread boundary: a refusal is a message, never a thrown error.
 */
import type { KnowledgeLimits } from "../config/settings.ts";
import { type Chunk, ChunkOptionsError } from "./chunking/chunk.ts";
import { chunkerFor, defaultChunkerFor } from "./chunking/registry.ts";
import { pickReader } from "./readers/pick-reader.ts";
import { checkExtractedText, ReaderLimitError } from "./readers/reader-limits.ts";
import { ReaderError } from "./readers/reader.ts";
import { readerForId } from "./readers/registry.ts";

/** One document to read and cut, and everything that decides how. */
export interface DocumentRequest {
  bytes: Uint8Array;
  /** The file's name and media type, which pick the reader when none is named. */
  name?: string;
  mimeType?: string;
  readerId?: string;
  chunker?: string;
  chunkSize?: number;
  chunkOverlap?: number;
  /** What the fetch of a URL learnt (url, source_url, content_type); the reader's id is added to it. */
  sourceMetadata?: Record<string, unknown>;
  /** Copied into every chunk after the reader's metadata (the content's metadata, `linked_to`). */
  metadata: Record<string, unknown>;
  limits: KnowledgeLimits;
}

export type DocumentResult =
  | { ok: true; chunks: Chunk[]; readerId: string }
  /** `limit`: the document passed a limit (it would pass it again: never retried). */
  | { ok: false; message: string; limit: boolean };

/** Content that cannot be processed as asked; the message is stored for the person who uploaded it. */
export class ProcessingError extends Error {}

const tooManyChunks = (count: number, limits: KnowledgeLimits, atLeast = "") =>
  new ReaderLimitError(
    `The content makes ${atLeast}${count.toLocaleString("en-US")} chunks, more than the ${limits.maxChunksPerContent.toLocaleString("en-US")} one content may have (knowledge.maxChunksPerContent); use a larger chunk_size, or split it into smaller files.`,
  );

/** Reads and chunks one document; every refusal comes back as a message a person can act on. */
export async function readDocument(request: DocumentRequest): Promise<DocumentResult> {
  try {
    return { ok: true, ...(await readAndChunk(request)) };
  } catch (error) {
    if (error instanceof ReaderError || error instanceof ProcessingError || error instanceof ChunkOptionsError) {
      return { ok: false, message: error.message, limit: error instanceof ReaderLimitError };
    }
    return { ok: false, message: `Processing failed: ${error instanceof Error ? error.message : String(error)}`, limit: false };
  }
}

async function readAndChunk({ bytes, name, mimeType, readerId, chunker: chunkerName, chunkSize, chunkOverlap, sourceMetadata, metadata, limits }: DocumentRequest) {
  const explicit = readerId ? readerForId(readerId) : undefined;
  if (readerId && !explicit) throw new ProcessingError(`Unknown reader '${readerId}'`);
  const reader = explicit ?? pickReader({ name, mimeType, bytes });
  const output = await reader.read({ bytes, name, mimeType }, { limits });
  checkExtractedText(output.text.length, limits);
  if (output.text.trim() === "") throw new ProcessingError("The content has no text to index: check that the file is not empty or made only of images.");
  const chunker = chunkerName ? chunkerFor(chunkerName) : defaultChunkerFor(output.format);
  if (!chunker) throw new ProcessingError(`Unknown chunker '${chunkerName}'`);
  const readerMetadata = sourceMetadata ? { ...output.metadata, ...sourceMetadata, reader: reader.id } : output.metadata;
  // Every chunk holds at most chunkSize characters and moves at most chunkSize - overlap past the
  // one before, so this many chunks at least: past the cap, the text is not cut at all.
  const size = chunkSize ?? chunker.defaults.chunkSize;
  const overlap = chunkOverlap ?? chunker.defaults.overlap;
  const fewest = size > overlap ? Math.ceil(Math.max(0, output.text.length - overlap) / (size - overlap)) : 0;
  if (fewest > limits.maxChunksPerContent) throw tooManyChunks(fewest, limits, "at least ");
  const chunks = chunker.chunk(output.text, { chunkSize, overlap: chunkOverlap, metadata: { ...readerMetadata, ...metadata } });
  if (chunks.length > limits.maxChunksPerContent) throw tooManyChunks(chunks.length, limits);
  return { chunks, readerId: reader.id };
}
