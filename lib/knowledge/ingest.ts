import { DEFAULT_KNOWLEDGE_LIMITS, type KnowledgeLimits } from "../config/settings.ts";
import { unsafeGetContent, unsafeGetUpload, unsafeSetContentStatus } from "../db/knowledge/contents.ts";
import { chunkStepProblem } from "./chunking/chunk.ts";
import { CHUNKERS, chunkerFor } from "./chunking/registry.ts";
import { chunkRecordId } from "./content-hash.ts";
import { documentPool } from "./document-pool.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";
import { type DocumentRequest, ProcessingError } from "./read-document.ts";
import { decodeText } from "./readers/decode.ts";
import { ReaderError } from "./readers/reader.ts";
import { fetchForReading, urlFromText } from "./readers/url.ts";
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

/**
 * Reads, chunks, embeds and stores one content, then marks it completed (or failed with a message
 * a person can act on): the upload's bytes (or the URL, fetched with the address checks of
 * readers/safe-fetch.ts) read and cut on a worker thread (document-pool.ts) by the named reader or
 * the one its type picks and the named chunker or the reader's default, within `limits`; each
 * chunk stamped with the content id, its position, the reader's metadata, the content's metadata
 * and `linked_to`. Its chunks replace any earlier ones of the content, owned like the content. An
 * abort (a cancel, a lost lease) is thrown, not stored.
 */
export async function processContent(
  base: KnowledgeBase,
  {
    contentId,
    options,
    allowHosts,
    limits = DEFAULT_KNOWLEDGE_LIMITS,
    signal,
  }: { contentId: string; options: ProcessOptions; allowHosts: readonly string[]; limits?: KnowledgeLimits; signal?: AbortSignal },
): Promise<ProcessOutcome> {
  const content = await unsafeGetContent(base.db, contentId);
  if (!content) return { status: "failed", message: "The content was deleted before it was processed", chunks: 0 };
  const fail = async (message: string): Promise<ProcessOutcome> => {
    await unsafeSetContentStatus(base.db, { id: contentId, status: "failed", message });
    return { status: "failed", message, chunks: 0 };
  };
  try {
    const chunker = options.chunker ? chunkerFor(options.chunker) : undefined;
    const step =
      (options.chunkSize ?? options.chunkOverlap) === undefined
        ? null
        : chunkStepProblem({ chunkSize: options.chunkSize, overlap: options.chunkOverlap }, chunker ?? CHUNKERS.FixedSizeChunker, limits.minChunkSize);
    if (step) return await fail(`${step.message}; upload it again with a larger chunk_size.`);
    const source = await documentSource(base, contentId, options, allowHosts, signal);
    const metadata = { ...(content.metadata ?? {}), linked_to: base.name };
    const request: DocumentRequest = { ...source.document, chunker: options.chunker, chunkSize: options.chunkSize, chunkOverlap: options.chunkOverlap, metadata, limits };
    const read = await documentPool(limits).read(request, signal);
    if (!read.ok) return await fail(read.message);
    const chunks = read.chunks;
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
    await unsafeSetContentStatus(base.db, { id: contentId, status: "completed", message: "", size: source.size, type: source.type });
    return { status: "completed", message: "", chunks: records.length };
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = error instanceof ReaderError || error instanceof ProcessingError ? error.message : `Processing failed: ${error instanceof Error ? error.message : String(error)}`;
    return await fail(message);
  }
}

/** What the worker thread reads: the upload's bytes, or what the URL served (fetched here: I/O, not CPU). */
async function documentSource(
  base: KnowledgeBase,
  contentId: string,
  options: ProcessOptions,
  allowHosts: readonly string[],
  signal?: AbortSignal,
): Promise<{ document: Pick<DocumentRequest, "bytes" | "name" | "mimeType" | "readerId" | "sourceMetadata">; size: number | null; type: string | null }> {
  if (options.url) return { document: await fetchForReading(options.url, { allowHosts: [...allowHosts], signal }), size: null, type: "url" };
  const upload = await unsafeGetUpload(base.db, contentId);
  if (!upload) throw new ProcessingError("The upload is no longer stored (it was processed or removed); upload the content again.");
  // The URL reader on an upload: the file holds one address, fetched like a submitted URL.
  if (options.readerId?.trim().toLowerCase() === "url") {
    const url = urlFromText(decodeText(upload.data).text);
    return { document: await fetchForReading(url, { allowHosts: [...allowHosts], signal }), size: upload.data.byteLength, type: null };
  }
  const document = { bytes: upload.data, name: upload.filename ?? undefined, mimeType: upload.mimeType ?? undefined, readerId: options.readerId };
  return { document, size: upload.data.byteLength, type: null };
}
