import { unsafeGetContent, unsafeGetUpload, unsafeSetContentStatus } from "../db/knowledge/contents.ts";
import { ChunkOptionsError } from "./chunking/chunk.ts";
import { chunkerFor, defaultChunkerFor } from "./chunking/registry.ts";
import { chunkRecordId } from "./content-hash.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";
import type { ReadOutput } from "./readers/reader.ts";
import { ReaderError } from "./readers/reader.ts";
import { pickReader, readerForId } from "./readers/registry.ts";
import { readUrl } from "./readers/url.ts";
import type { ChunkRecord } from "./stores/vector-store.ts";

/** How a content is read and cut (the upload form's reader_id, chunker, chunk_size, chunk_overlap), and its URL. */
export interface ProcessOptions {
  /** The content hash its id was made from (stored with each chunk, as Agno's content_hash). */
  contentHash?: string;
  url?: string;
  readerId?: string;
  chunker?: string;
  chunkSize?: number;
  chunkOverlap?: number;
}

export interface ProcessOutcome {
  status: "completed" | "failed";
  message: string;
  chunks: number;
}

/** Content that cannot be processed as asked; the message is stored for the person who uploaded it. */
class ProcessingError extends Error {}

/**
 * Reads, chunks, embeds and stores one content, then marks it completed (or failed with a message
 * a person can act on): the upload's bytes (or the URL, fetched with the address checks of
 * readers/safe-fetch.ts) through the named reader or the one its type picks, cut by the named
 * chunker or the reader's default, each chunk stamped with the content id, its position, the
 * reader's metadata, the content's metadata and `linked_to`. Its chunks replace any earlier ones
 * of the content, owned like the content. An abort (a cancel, a lost lease) is thrown, not stored.
 */
export async function processContent(
  base: KnowledgeBase,
  { contentId, options, allowHosts, signal }: { contentId: string; options: ProcessOptions; allowHosts: readonly string[]; signal?: AbortSignal },
): Promise<ProcessOutcome> {
  const content = await unsafeGetContent(base.db, contentId);
  if (!content) return { status: "failed", message: "The content was deleted before it was processed", chunks: 0 };
  try {
    const read = await readContent(base, contentId, options, allowHosts, signal);
    if (read.output.text.trim() === "") throw new ProcessingError("The content has no text to index: check that the file is not empty or made only of images.");
    const chunker = options.chunker ? chunkerFor(options.chunker) : defaultChunkerFor(read.output.format);
    if (!chunker) throw new ProcessingError(`Unknown chunker '${options.chunker}'`);
    const metadata = { ...read.output.metadata, ...(content.metadata ?? {}), linked_to: base.name };
    const chunks = chunker.chunk(read.output.text, { chunkSize: options.chunkSize, overlap: options.chunkOverlap, metadata });
    await base.ready(signal);
    let embeddings: (number[] | null)[] = chunks.map(() => null);
    let usage: Record<string, unknown> | null = null;
    if (base.embedder) {
      try {
        const embedded = await base.embedder.embed(
          chunks.map((c) => c.content),
          signal,
        );
        embeddings = embedded.embeddings;
        usage = { total_tokens: embedded.tokens };
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new ProcessingError(`The embedder could not embed the content (${error instanceof Error ? error.message : String(error)}); upload it again once the embedder is reachable.`);
      }
    }
    const hash = options.contentHash ?? contentId;
    const records: ChunkRecord[] = chunks.map((chunk, i) => ({
      id: chunkRecordId({ documentId: `${contentId}_${chunk.index}`, hash, userId: content.user_id }),
      name: content.name,
      content: chunk.content,
      metadata: chunk.metadata,
      filters: content.metadata,
      contentId,
      contentHash: hash,
      userId: content.user_id,
      embedding: embeddings[i] ?? null,
      usage,
    }));
    await base.store.replaceContent(contentId, records);
    // Deleted while it was being read: its chunks must not outlive it.
    if (!(await unsafeGetContent(base.db, contentId))) {
      await base.store.deleteContents([contentId]);
      return { status: "failed", message: "The content was deleted while it was processed", chunks: 0 };
    }
    await unsafeSetContentStatus(base.db, { id: contentId, status: "completed", message: "", size: read.size, type: read.type });
    return { status: "completed", message: "", chunks: records.length };
  } catch (error) {
    if (signal?.aborted) throw error;
    const message =
      error instanceof ReaderError || error instanceof ProcessingError || error instanceof ChunkOptionsError
        ? error.message
        : `Processing failed: ${error instanceof Error ? error.message : String(error)}`;
    await unsafeSetContentStatus(base.db, { id: contentId, status: "failed", message });
    return { status: "failed", message, chunks: 0 };
  }
}

async function readContent(
  base: KnowledgeBase,
  contentId: string,
  options: ProcessOptions,
  allowHosts: readonly string[],
  signal?: AbortSignal,
): Promise<{ output: ReadOutput; size: number | null; type: string | null }> {
  if (options.url) {
    const output = await readUrl(options.url, { allowHosts: [...allowHosts], signal });
    return { output, size: null, type: "url" };
  }
  const upload = await unsafeGetUpload(base.db, contentId);
  if (!upload) throw new ProcessingError("The upload is no longer stored (it was processed or removed); upload the content again.");
  const explicit = options.readerId ? readerForId(options.readerId) : undefined;
  if (options.readerId && !explicit) throw new ProcessingError(`Unknown reader '${options.readerId}'`);
  const reader = explicit ?? pickReader({ name: upload.filename ?? undefined, mimeType: upload.mimeType ?? undefined, bytes: upload.data });
  const output = await reader.read({ bytes: upload.data, name: upload.filename ?? undefined, mimeType: upload.mimeType ?? undefined }, { signal });
  return { output, size: upload.data.byteLength, type: null };
}
