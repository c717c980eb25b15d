import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";
import { followStatements, type SubjectBinding } from "./job-subject.ts";

/** The error a run cancelled by request records. */
export const CANCEL_REASON = "Run cancelled by request";

/**
 * A job the queue takes from its worker (a lost lease, a release, an attempt given up) while a
 * cancel is recorded for it ends CANCELLED with its run, never queued again nor failed: the
 * cancel was accepted. The job UPDATE applies where `where` holds and an intent is recorded (the
 * caller's own UPDATE adds `cancel_requested_at IS NULL`, so exactly one of the two applies, in one
 * transaction); its subject (a run job's run) follows only if this UPDATE did — the job is then
 * cancelled at `now` under `attempt` — and only if the subject had not ended. The job's UPDATE is
 * the first statement.
 */
export function cancelRecordedStatements(
  db: Db,
  {
    id,
    jobType,
    subjects,
    where,
    params,
    now,
    attempt,
    leaseLost,
  }: { id: string; jobType: string; subjects: readonly SubjectBinding[]; where: string; params: readonly unknown[]; now: number; attempt: number; leaseLost: boolean },
): Statement[] {
  return [
    {
      text: `UPDATE agno_jobs SET status = 'cancelled', error = ?, locked_by = NULL, locked_at = NULL, completed_at = ?, updated_at = ?${leaseLost ? ", lease_losses = lease_losses + 1" : ""}
              WHERE ${where} AND cancel_requested_at IS NOT NULL`,
      params: [CANCEL_REASON, now, now, ...params],
    },
    ...followStatements(
      db,
      subjects,
      jobType,
      id,
      { to: "cancelled", reason: CANCEL_REASON },
      { clause: "j.status = 'cancelled' AND j.attempt = ? AND j.completed_at = ?", params: [attempt, now] },
      now,
    ),
  ];
}
