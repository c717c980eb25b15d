import type { Db } from "../open-database.ts";
import { epochSeconds, spentAttempts, toStoredJob, JOB_COLUMNS } from "./job-row.ts";
import { FENCE_SQL, fenceParams, fencedUpdate, type JobFence } from "./job-fence.ts";

/** Retry delays grow as base·2^(n−1) for the n-th spent attempt, up to this many times the base. */
export const RETRY_DELAY_CAP_FACTOR = 10;
/** Jitter adds up to this fraction of the delay, so jobs that failed together retry apart. */
export const RETRY_JITTER = 0.2;

/**
 * Seconds before the retry of a job that has spent `spentAttempts` attempts: base·2^(spent−1),
 * plus up to 20% jitter, never below the base nor above 10× the base. `random` in [0, 1).
 */
export function retryDelaySeconds({ baseSeconds, spentAttempts, random = Math.random() }: { baseSeconds: number; spentAttempts: number; random?: number }): number {
  if (baseSeconds <= 0) return 0;
  const cap = baseSeconds * RETRY_DELAY_CAP_FACTOR;
  const exponential = Math.min(cap, baseSeconds * 2 ** Math.max(0, spentAttempts - 1));
  return Math.min(cap, Math.round(exponential * (1 + RETRY_JITTER * random)));
}

export interface FailJobOptions extends JobFence {
  error: string;
  /** False for failures a retry cannot fix (bad input): the job fails at once. */
  retryable: boolean;
  /** The base delay (QueueConfig.retry_delay_seconds). */
  retryDelaySeconds: number;
  now?: number;
  /** For tests: the jitter draw in [0, 1). */
  random?: number;
}

export type FailJobResult = { applied: false } | { applied: true; status: "queued"; availableAt: number } | { applied: true; status: "failed" };

/**
 * The attempt failed. While attempts remain (attempt − lease_losses < max_attempts) and the error
 * is retryable the job goes back to queued, available after the backoff, lock cleared (the next
 * claim bumps the attempt, so this fence dies); otherwise it is failed with the error. Reads the
 * row under the fence, then writes under the same fence: a lost race reports `applied: false`.
 * While a cancel is recorded nothing is written (`applied: false`): a job whose cancel was
 * accepted is neither queued for a retry nor failed; its end is "cancelled".
 * The run row is the runtime's to write.
 */
export async function failJob(db: Db, options: FailJobOptions): Promise<FailJobResult> {
  const { error, retryable, now = epochSeconds() } = options;
  const [row] = await db.sql.query(`SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE ${FENCE_SQL}`, fenceParams(options));
  if (!row) return { applied: false };
  const job = toStoredJob(row);
  if (job.cancel_requested_at !== null) return { applied: false };
  const spent = spentAttempts(job);
  if (retryable && spent < job.max_attempts) {
    const availableAt = now + retryDelaySeconds({ baseSeconds: options.retryDelaySeconds, spentAttempts: spent, random: options.random });
    const applied = await fencedUpdate(db, options, "status = 'queued', available_at = ?, error = ?, locked_by = NULL, locked_at = NULL, updated_at = ?", [availableAt, error, now], {
      uncancelled: true,
    });
    return applied ? { applied, status: "queued", availableAt } : { applied: false };
  }
  const applied = await fencedUpdate(db, options, "status = 'failed', error = ?, completed_at = ?, updated_at = ?", [error, now, now], { uncancelled: true });
  return applied ? { applied, status: "failed" } : { applied: false };
}
