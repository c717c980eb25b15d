import { randomUUID } from "node:crypto";
import type { Settings } from "../../config/settings.ts";
import { KNOWLEDGE_JOB_TYPE, storeContent, type StoredContent } from "../../db/knowledge/contents.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { wakeWorkers } from "../../queue/embedded-worker.ts";
import { processContent } from "../ingest.ts";
import type { KnowledgeBase } from "../knowledge-base.ts";
import { KNOWLEDGE_JOB_KIND } from "./ingest-job.ts";
import { prepareContent, type ContentSubmission } from "../prepare-content.ts";

export type { ContentSource, ContentSubmission } from "../prepare-content.ts";

export interface SubmittedContent {
  content: StoredContent;
  /** False when the same owner had already inserted the same content (nothing was done). */
  created: boolean;
  /** Settles when in-process processing ends (absent with the durable queue, or for a no-op). */
  done?: Promise<void>;
}

/**
 * Stores a content (status processing) and starts its processing: with the durable queue as a job
 * of the catalog (lib/knowledge/ingestion/ingest-job.ts) stored in the same transaction, which any worker
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
  const { id, content, upload, options } = prepareContent({ base, scope, submission });
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
    await processContent(base, { contentId: id, options, allowHosts: settings.knowledge.allowHosts, limits: settings.knowledge.limits });
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
