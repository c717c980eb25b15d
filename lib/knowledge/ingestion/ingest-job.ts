import { z } from "zod";
import { KNOWLEDGE_JOB_TYPE } from "../../db/knowledge/contents.ts";
import { defineJobKind, PermanentJobError } from "../../queue/catalog.ts";
import { processContent } from "../ingest.ts";
import { knowledgeBasesOf } from "../knowledge-bases.ts";

/** What a content's processing job carries: the content, its knowledge base, and how to read and cut it. */
export const KnowledgeJobPayload = z.object({
  contentId: z.string().min(1),
  knowledgeId: z.string().min(1),
  options: z
    .object({
      contentHash: z.string().optional(),
      url: z.string().optional(),
      readerId: z.string().optional(),
      chunker: z.string().optional(),
      chunkSize: z.number().int().positive().optional(),
      chunkOverlap: z.number().int().min(0).optional(),
    })
    .default({}),
});
export type KnowledgeJobPayload = z.infer<typeof KnowledgeJobPayload>;

/**
 * A content's processing as a job of the catalog (registered by lib/server/features.ts): any worker reads,
 * chunks, embeds and stores it for the content's owner, and the content's row says how it ended
 * (a reader's refusal is a completed job whose content failed, with the reader's message). One
 * attempt: a lost lease processes it again from the start (its chunks are replaced, never doubled);
 * documents are read on worker threads (document-pool.ts), so a hostile one cannot stall the
 * heartbeats that keep leases, and one that passes a limit fails its content and is not retried.
 */
export const KNOWLEDGE_JOB_KIND = defineJobKind<KnowledgeJobPayload>({
  jobType: KNOWLEDGE_JOB_TYPE,
  payload: KnowledgeJobPayload,
  maxAttempts: () => 1,
  executor:
    ({ db, settings }) =>
    async ({ payload, signal }) => {
      if (!settings) throw new PermanentJobError("This worker has no OS settings, so it cannot find the knowledge base");
      const base = knowledgeBasesOf(db, settings).get(payload.knowledgeId);
      if (!base) throw new PermanentJobError(`Knowledge base '${payload.knowledgeId}' is not configured on this worker`);
      await processContent(base, { contentId: payload.contentId, options: payload.options, allowHosts: settings.knowledge.allowHosts, limits: settings.knowledge.limits, signal });
    },
});
