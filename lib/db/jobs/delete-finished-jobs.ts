import type { Db } from "../open-database.ts";

/**
 * UNSAFE (unscoped): retention is a server-wide housekeeping task that runs with no principal.
 *
 * Deletes completed, failed and cancelled jobs that finished more than `retentionSeconds` ago
 * (QueueConfig.retention_seconds); returns how many went. Their runs stay: the run row is the
 * record, the job only how it was executed.
 */
export async function unsafeDeleteFinishedJobs(db: Db, { now, retentionSeconds }: { now: number; retentionSeconds: number }): Promise<number> {
  return db.sql.exec(
    `DELETE FROM agno_jobs
      WHERE status IN ('completed', 'failed', 'cancelled') AND COALESCE(completed_at, updated_at, created_at) < ?`,
    [now - retentionSeconds],
  );
}
