import type { Settings } from "../config/settings.ts";
import { getEvalRun, writeEvalRunState, type StoredEvalRun } from "../db/evals/eval-runs.ts";
import { requestJobCancel } from "../db/jobs/index.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { queueCoordination } from "../queue/embedded-worker.ts";
import { abortEvalRun, EVAL_CANCEL_REASON, EvalCancelledError } from "./eval-registry.ts";

/**
 * Cancels an eval run that has not ended, within the scope, wherever it runs: its row becomes
 * CANCELLED at once (a runner anywhere stops at its next write, which an ended row refuses), an
 * eval this process runs is aborted (its agent run in flight with it), and an eval job has its
 * cancel recorded (a queued one ends cancelled at once; a running one's worker aborts it, told
 * over Redis or at its next poll). Returns the run as it stands, or null when the scope has no
 * such run. An eval that had already ended is returned unchanged.
 */
export async function cancelEvalRun(db: Db, settings: Settings, { scope, id }: { scope: DataScope; id: string }): Promise<StoredEvalRun | null> {
  const run = await getEvalRun(db, { scope, id });
  if (!run) return null;
  if (run.run_status !== "PENDING" && run.run_status !== "RUNNING") return run;
  const details = { ...(run.run_details ?? {}), error: EVAL_CANCEL_REASON, finished_at: Math.floor(Date.now() / 1000) };
  await writeEvalRunState(db, { scope, id, state: { status: "CANCELLED", details } });
  // The job's intent first: a job whose executor ends now settles cancelled, never failed.
  if (settings.queue.durable) {
    const job = await requestJobCancel(db, { scope, id, subjects: [], reason: EVAL_CANCEL_REASON });
    if (job === "running") queueCoordination(settings)?.publishCancel(id);
  }
  abortEvalRun(id, new EvalCancelledError());
  return getEvalRun(db, { scope, id });
}
