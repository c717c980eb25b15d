import { randomUUID } from "node:crypto";
import type { Settings } from "../config/settings.ts";
import { KNOWLEDGE_JOB_TYPE, storeContent, type StoredContent } from "../db/knowledge/contents.ts";
import type { Db } from "../db/open-database.ts";
import { ownerForWrite, type DataScope } from "../db/scope.ts";
import { wakeWorkers } from "../queue/embedded-worker.ts";
import { contentHash, contentIdOf } from "./content-hash.ts";
import { processContent, type ProcessOptions } from "./ingest.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";
import { KNOWLEDGE_JOB_KIND } from "./ingest-job.ts";

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

export interface SubmittedContent {
  content: StoredContent;
  /** False when the same owner had already inserted the same content (nothing was done). */
  created: boolean;
  /** Settles when in-process processing ends (absent with the durable queue, or for a no-op). */
  done?: Promise<void>;
}

/** The kind of content Agno's `type` column records: the file's media type, "url", or "manual" for pasted text. */
function typeOf(source: ContentSource): string | null {
  if ("url" in source) return "url";
  if ("text" in source) return "manual";
  return source.file.mimeType;
}

/**
 * Stores a content (status processing) and starts its processing: with the durable queue as a job
 * of the catalog (lib/knowledge/ingest-job.ts) stored in the same transaction, which any worker
 * runs; without it in this process, at most queue.maxConcurrency at once (the rest wait their
 * turn). The content id comes from the owner and the content, so the same owner inserting the
 * same content again changes nothing and answers the stored content.
 */
export async function submitContent({
  db,
  settings,
  base,
  scope,
  submission,
}: {
  db: Db;
  settings: Settings;
  base: KnowledgeBase;
  scope: DataScope;
  submission: ContentSubmission;
}): Promise<SubmittedContent> {
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
  if (settings.queue.durable) {
    const payload = KNOWLEDGE_JOB_KIND.payload.parse({ contentId: id, knowledgeId: base.id, options }) as Record<string, unknown>;
    const job = {
      id: randomUUID(),
      jobType: KNOWLEDGE_JOB_TYPE,
      componentType: KNOWLEDGE_JOB_TYPE,
      componentId: id,
      deploymentId: settings.queue.deploymentId ?? null,
      payload,
      maxAttempts: KNOWLEDGE_JOB_KIND.maxAttempts?.(settings.queue) ?? settings.queue.maxAttempts,
    };
    const stored = await storeContent(db, { scope, content, upload, job, maxQueueDepth: settings.queue.maxQueueDepth });
    if (stored.created) wakeWorkers(settings);
    return stored;
  }
  const stored = await storeContent(db, { scope, content, upload });
  if (!stored.created) return stored;
  const done = inProcessSlots(settings.queue.maxConcurrency).run(async () => {
    await processContent(base, { contentId: id, options, allowHosts: settings.knowledge.allowHosts });
  });
  return { ...stored, done };
}

/** In-process processing slots, process-wide (see lib/evals/eval-registry.ts for why on globalThis). */
type Holder = typeof globalThis & { __agentryKnowledgeSlots?: Slots };

interface Slots {
  run(task: () => Promise<void>): Promise<void>;
}

function inProcessSlots(size: number): Slots {
  const holder = globalThis as Holder;
  if (!holder.__agentryKnowledgeSlots) {
    let active = 0;
    const waiting: (() => void)[] = [];
    holder.__agentryKnowledgeSlots = {
      async run(task) {
        if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
        active++;
        try {
          await task();
        } catch {
          // processContent records every failure in the content's row.
        } finally {
          active--;
          waiting.shift()?.();
        }
      },
    };
  }
  return holder.__agentryKnowledgeSlots;
}
