import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";

export interface RunStatusChange {
  runId: string;
  to: "PENDING" | "ERROR" | "CANCELLED";
  /** Only a run in one of these statuses changes (it has not moved on meanwhile). */
  from: readonly string[];
  /** Recorded as run_data.error; null removes it; absent leaves it. */
  error?: { message: string; error_type: string } | null;
  /** Recorded as run_data.content (the message clients show). */
  content?: string;
  /**
   * The job's state that makes the change right, as a condition on `agno_jobs j` (id bound
   * first); absent for a run no job carries, whose own row decides.
   */
  job?: { clause: string; params: readonly unknown[] };
  /** More conditions on the run row (e.g. its owner and session). */
  run?: { clause: string; params: readonly unknown[] };
  /** Epoch seconds for updated_at. */
  now: number;
}

/**
 * The UPDATE that moves a job's run along with the job — batched with the job's own write, so
 * the two change together: a run back to PENDING when its job is queued again, ERROR or
 * CANCELLED when its job ends without a worker to end the run — or, with no `job` condition, a
 * run by its own row (a cancel of a run no job carries). The status column and run_data.status
 * change together.
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
            WHERE run_id = ? AND status IN (${from.map(() => "?").join(", ")})${run ? ` AND ${run.clause}` : ""}${job ? `
              AND EXISTS (SELECT 1 FROM agno_jobs j WHERE j.id = ? AND ${job.clause})` : ""}`,
    params: [to, ...params, now, runId, ...from, ...(run?.params ?? []), ...(job ? [runId, ...job.params] : [])],
  };
}
