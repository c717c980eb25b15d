import type { StoredContent } from "../db/knowledge/contents.ts";
import { ownerForWrite, type DataScope } from "../db/scope.ts";
import { contentHash, contentIdOf } from "./content-hash.ts";
import type { ProcessOptions } from "./ingest.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";

/** What is inserted: a file's bytes, text, or a URL to fetch. */
export type ContentSource = { file: { bytes: Uint8Array; filename: string | null; mimeType: string | null } } | { text: string } | { url: string };

export interface ContentSubmission {
  source: ContentSource;
  name?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  /** Admins only: the owner (null = shared with every user); a member's content is its own. */
  userId?: string | null;
  options?: Omit<ProcessOptions, "url" | "contentHash">;
}

/** The kind of content Agno's `type` column records: the file's media type, "url", or "manual" for pasted text. */
function typeOf(source: ContentSource): string | null {
  if ("url" in source) return "url";
  if ("text" in source) return "manual";
  return source.file.mimeType;
}

/**
 * What storing a submission writes: its id (from the owner-first hash of the content), its
 * `agno_knowledge` row, its upload and how it is processed. The same owner sending the same
 * content gets the same id.
 */
export function prepareContent({ base, scope, submission }: { base: KnowledgeBase; scope: DataScope; submission: ContentSubmission }) {
  const { source } = submission;
  const owner = ownerForWrite(scope, submission.userId);
  const bytes = "file" in source ? source.file.bytes : "text" in source ? new TextEncoder().encode(source.text) : new Uint8Array();
  const hash = contentHash({
    userId: owner,
    name: submission.name,
    description: submission.description,
    metadata: submission.metadata,
    source: "url" in source ? { url: source.url } : { bytes },
  });
  const id = contentIdOf(hash);
  const name = submission.name || ("file" in source ? source.file.filename : null) || ("url" in source ? source.url : null) || "Text";
  const options: ProcessOptions = { ...submission.options, contentHash: hash, ...("url" in source ? { url: source.url } : {}) };
  const content = {
    id,
    name,
    description: submission.description ?? "",
    metadata: submission.metadata ?? null,
    type: typeOf(source),
    size: "url" in source ? null : bytes.byteLength,
    linkedTo: base.name,
    userId: owner,
  };
  const upload = { data: bytes, filename: "file" in source ? source.file.filename : null, mimeType: "file" in source ? source.file.mimeType : "text" in source ? "text/plain" : null };
  return { id, content, upload, options };
}

/** A stored content (re-exported for callers of prepareContent). */
export type { StoredContent };
