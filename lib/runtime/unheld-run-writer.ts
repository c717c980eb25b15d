import { NotFoundError } from "../errors/domain-errors.ts";
import type { Db } from "../db/open-database.ts";
import type { RunInput } from "../db/runs/run-insert.ts";
import type { DataScope } from "../db/scope.ts";
import type { SessionUpdate } from "../db/sessions/session-data.ts";
import { settleUnheldRun, writeUnheldRun, type JobSettlement, type UnheldWrite } from "../db/jobs/index.ts";
import { RunCancelledSignal } from "../live-runs/run-registry.ts";
import { LeaseLostError, type RunWriter } from "./run-writer.ts";

type Ending = Exclude<JobSettlement["status"], "queued">;
const SETTLEMENTS: Record<string, Ending> = { COMPLETED: "completed", PAUSED: "paused", CANCELLED: "cancelled" };
const settlementOf = (run: RunInput): Ending => SETTLEMENTS[run.status ?? ""] ?? "failed";

/**
 * The writer of a run no worker holds — an inline run, a paused run continued on this replica —
 * fenced by the cancel recorded for it (lib/db/jobs/unheld-run.ts): a write refused because a
 * cancel was recorded throws RunCancelledSignal, and the run ends CANCELLED (that write always
 * passes). `pausedJob`: the run's durable job waits paused while it runs here; the run's end
 * settles the job too, and a write refused because the job moved on (an admin's requeue) throws
 * LeaseLostError: the run is no longer this replica's to write. Nothing is retried here.
 */
export function unheldRunWriter(db: Db, { runId, pausedJob }: { runId: string; pausedJob: boolean }): RunWriter {
  const outcome = (result: UnheldWrite, run: RunInput) => {
    if (result === "written") return;
    if (result === "cancelled" && run.status !== "CANCELLED") throw new RunCancelledSignal();
    if (pausedJob) throw new LeaseLostError(runId);
    throw new NotFoundError(`Run ${run.runId} was not saved: session ${run.sessionId} does not exist for this user, or the run belongs to another session or user`);
  };
  return {
    retries: () => false,
    async write(scope: DataScope, run: RunInput) {
      outcome(await writeUnheldRun(db, { scope, run, pausedJob }), run);
    },
    async finish(scope: DataScope, run: RunInput, _failure?: { retryable: boolean }, session?: SessionUpdate) {
      const status = settlementOf(run);
      if (!pausedJob) {
        outcome(await writeUnheldRun(db, { scope, run, pausedJob, session }), run);
        return status;
      }
      const error = (run.runData.error as { message?: string } | undefined)?.message ?? null;
      const settlement = status === "failed" ? { status, error: error ?? "Run failed" } : { status, error: status === "cancelled" ? error : null };
      outcome(await settleUnheldRun(db, { scope, runId, settlement, run: { status: run.status ?? "ERROR", runData: run.runData } }), run);
      return status;
    },
  };
}
