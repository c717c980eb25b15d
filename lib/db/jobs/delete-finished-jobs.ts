import type { Db } from "../open-database.ts";

const FINISHED = "status IN ('completed', 'failed', 'cancelled') AND COALESCE(completed_at, updated_at, created_at) < ?";

export interface DeleteFinishedJobsOptions {
  /** Epoch seconds. */
  now: number;
  /** QueueConfig.retention_seconds: jobs that finished longer ago than this go. */
  retentionSeconds: number;
  /** Rows per statement (default 500): each batch is its own short transaction. */
  batchSize?: number;
  /** Stops after this many batches (default: until none is left). */
  maxBatches?: number;
  /** Asked between batches; true stops (a worker that is shutting down). */
  shouldStop?: () => boolean;
}

/**
 * UNSAFE (unscoped): retention is a server-wide housekeeping task that runs with no principal.
 *
 * Deletes completed, failed and cancelled jobs that finished more than `retentionSeconds` ago;
 * returns how many went. Their runs stay: the run row is the record, the job only how it was
 * executed. The rows go in batches of `batchSize`, each its own statement, yielding to the event
 * loop between them, so a day's worth of finished jobs never becomes one long transaction next to
 * the claims and settlements. On PostgreSQL a batch skips rows another deleter holds (two workers'
 * retention passes share the work instead of waiting on each other).
 */
export async function unsafeDeleteFinishedJobs(db: Db, { now, retentionSeconds, batchSize = 500, maxBatches = Number.POSITIVE_INFINITY, shouldStop }: DeleteFinishedJobsOptions): Promise<number> {
  const size = Math.max(1, Math.floor(batchSize));
  const text =
    db.dialect === "postgres"
      ? `DELETE FROM agno_jobs WHERE id = ANY (ARRAY(SELECT id FROM agno_jobs WHERE ${FINISHED} LIMIT ${size} FOR UPDATE SKIP LOCKED))`
      : `DELETE FROM agno_jobs WHERE id IN (SELECT id FROM agno_jobs WHERE ${FINISHED} LIMIT ${size})`;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    if (batch > 0 && shouldStop?.()) break;
    const n = await db.sql.exec(text, [now - retentionSeconds]);
    deleted += n;
    if (n < size) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return deleted;
}
