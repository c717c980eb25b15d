import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";
import type { JobCondition, JobSubject, SubjectChange, SubjectValue } from "../jobs/job-subject.ts";

export interface RunStatusChange {
  runId: string;
  to: "PENDING" | "ERROR" | "CANCELLED";
  /** Only a run in one of these statuses changes (it has not moved on meanwhile). */
  from: readonly string[];
  /** Recorded as run_data.error; null removes it; absent leaves it. */
  error?: { message: string; error_type: string } | null;
  /** Recorded as run_data.content (the message clients show). */
  content?: string;
  /** The job's state that makes the change right, as a condition on `agno_jobs j` (id bound first); absent for a run no job carries, whose own row decides. */
  job?: JobCondition;
  /** More conditions on the run row (e.g. its owner and session). */
  run?: { clause: string; params: readonly unknown[] };
  /** Epoch seconds for updated_at. */
  now: number;
}

/**
 * The UPDATE that moves a run's status — batched with its job's own write when a job carries it,
 * so the two change together — or, with no `job` condition, a run by its own row (a cancel of a
 * run no job carries). The status column and run_data.status change together.
 */
export function runStatusStatement(db: Db, { runId, to, from, error, content, job, run, now }: RunStatusChange): Statement {
  const params: unknown[] = [];
  let data: string;
  if (db.dialect === "postgres") {
    data = error === null ? "(run_data - 'error')" : "run_data";
    data = `jsonb_set(${data}, '{status}', to_jsonb(?::text))`;
    params.push(to);
    if (error) (data = `jsonb_set(${data}, '{error}', ?::jsonb)`), params.push(error);
    if (content !== undefined) (data = `jsonb_set(${data}, '{content}', to_jsonb(?::text))`), params.push(content);
  } else {
    const base = error === null ? "json_remove(run_data, '$.error')" : "run_data";
    const sets = ["'$.status', ?"];
    params.push(to);
    if (error) sets.push("'$.error', json(?)"), params.push(error);
    if (content !== undefined) sets.push("'$.content', ?"), params.push(content);
    data = `json_set(${base}, ${sets.join(", ")})`;
  }
  return {
    text: `UPDATE agno_runs SET status = ?, run_data = ${data}, updated_at = ?
            WHERE run_id = ? AND status IN (${from.map(() => "?").join(", ")})${run ? ` AND ${run.clause}` : ""}${
              job
                ? `
              AND EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND ${job.clause})`
                : ""
            }`,
    params: [to, ...params, now, runId, ...from, ...(run?.params ?? []), ...(job ? [runId, ...job.params] : [])],
  };
}

/** How a run follows its job when the queue moves the job (lib/db/jobs/job-subject.ts). */
function runChange(change: SubjectChange): Omit<RunStatusChange, "runId" | "job" | "now"> {
  switch (change.to) {
    case "waiting":
      // Back to PENDING: from RUNNING after a lost lease or release; from its end after a requeue, its error dropped.
      return change.after === "claim" ? { to: "PENDING", from: ["RUNNING"] } : { to: "PENDING", from: ["ERROR", "CANCELLED"], error: null };
    case "failed":
      return { to: "ERROR", from: ["PENDING", "RUNNING"], error: { message: change.reason, error_type: change.errorType }, content: change.reason };
    case "cancelled":
      // PENDING, PAUSED, or RUNNING when a worker that had claimed it let it go (nobody holds it now).
      return { to: "CANCELLED", from: ["PENDING", "RUNNING", "PAUSED"], error: { message: change.reason, error_type: "run_cancelled" } };
  }
}

/**
 * The subject of run jobs: the run's agno_runs row (run_id = job id). A claim starts the run
 * (PENDING → RUNNING); an attempt's end stores the run's final row with the job's settlement; a
 * job the queue moves moves its run (runChange).
 */
export const RUN_JOB_SUBJECT: JobSubject = {
  name: "run",
  claimedCte: (claimedIds, now) => ({
    text: `UPDATE agno_runs r
          SET status = CASE WHEN r.status = 'PENDING' THEN 'RUNNING' ELSE r.status END,
              run_data = CASE WHEN r.status = 'PENDING' THEN jsonb_set(r.run_data, '{status}', '"RUNNING"') ELSE r.run_data END,
              updated_at = ?
        WHERE r.run_id = ANY (ARRAY(${claimedIds}))`,
    params: [now],
  }),
  claimedStatement: (ids, now) => ({
    text: `UPDATE agno_runs SET status = 'RUNNING', run_data = json_set(run_data, '$.status', 'RUNNING'), updated_at = ?
            WHERE status = 'PENDING' AND run_id IN (${ids.map(() => "?").join(", ")})`,
    params: [now, ...ids],
  }),
  settledCte: (settledIds, now) => ({
    text: `UPDATE agno_runs r SET status = v.subject_status, run_data = v.subject_data, updated_at = ?
       FROM v JOIN settled s ON s.id = v.id
      WHERE r.run_id = ANY (ARRAY(${settledIds})) AND r.run_id = v.id AND r.session_id = s.session_id AND v.subject_status IS NOT NULL`,
    params: [now],
  }),
  settledStatement: (jobId: string, subject: SubjectValue, guard: JobCondition, now: number) => ({
    text: `UPDATE agno_runs SET status = ?, run_data = ?, updated_at = ?
            WHERE run_id = ? AND EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND ${guard.clause})`,
    params: [subject.status, subject.data, now, jobId, jobId, ...guard.params],
  }),
  follow: (db, jobId, change, job, now) => runStatusStatement(db, { runId: jobId, ...runChange(change), job, now }),
};
