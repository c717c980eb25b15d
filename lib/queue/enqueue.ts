import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { enqueueJob, type EnqueueResult } from "../db/jobs/index.ts";
import type { JobKind } from "./catalog.ts";
import { wakeWorkers } from "./embedded-worker.ts";

/**
 * Enqueues a job of a catalog kind that is not a run (runs are submitted by lib/runs/jobs/durable-submit.ts,
 * with their run row): its payload is checked by the kind's schema first (a ZodError, nothing
 * written), component_type is the kind (unless given) and component_id the subject's id, with no
 * session; max_attempts is the kind's. The local worker is woken, other replicas over Redis.
 */
export async function enqueueKind<P>(
  db: Db,
  settings: Settings,
  kind: JobKind<P>,
  job: { payload: P; componentId: string; componentType?: string; owner: string | null; id?: string; idempotencyKey?: string | null; availableAt?: number },
): Promise<EnqueueResult> {
  const payload = kind.payload.parse(job.payload) as Record<string, unknown>;
  const result = await enqueueJob(db, {
    owner: job.owner,
    maxQueueDepth: settings.queue.maxQueueDepth,
    job: {
      id: job.id,
      jobType: kind.jobType,
      componentType: job.componentType ?? kind.jobType,
      componentId: job.componentId,
      deploymentId: settings.queue.deploymentId ?? null,
      payload,
      maxAttempts: kind.maxAttempts?.(settings.queue) ?? settings.queue.maxAttempts,
      idempotencyKey: job.idempotencyKey,
      availableAt: job.availableAt,
    },
  });
  if (!result.duplicate) wakeWorkers(settings);
  return result;
}
