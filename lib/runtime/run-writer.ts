import type { RunInput } from "../db/runs/run-insert.ts";
import type { DataScope } from "../db/scope.ts";
import type { SessionUpdate } from "../db/sessions/session-data.ts";
import { crossBundleError } from "../live-runs/run-registry.ts";

/** How a run's end is recorded by the one holding it: the job's settlement status for a durable run. */
export type RunSettlement = "completed" | "paused" | "cancelled" | "failed" | "queued";

/**
 * How a run's rows are written: what the runtime needs from whoever holds the run. An inline run
 * and a continuation use `unheldRunWriter` (./unheld-run-writer.ts); a durable run's writer
 * (lib/runs/jobs/run-writer.ts) fences every write on its job's claim and records the run's end
 * together with the job's.
 */
export interface RunWriter {
  /** A non-final state (RUNNING, events so far). Throws LeaseLostError when fenced out. */
  write(scope: DataScope, run: RunInput): Promise<void>;
  /**
   * The final state (COMPLETED, PAUSED, CANCELLED, ERROR), with the job's settlement when a job
   * carries the run. An ERROR with attempts left stores the run PENDING and queues the job again.
   * Returns what the job became. Throws RunCancelledSignal, writing nothing, when a cancel was
   * recorded and this end is not CANCELLED: the run is to end CANCELLED instead. `session`: the
   * run's session update, which a writer that can applies with the run's end (setting its
   * `applied`); one that cannot leaves it, and the caller applies it after.
   */
  finish(scope: DataScope, run: RunInput, failure?: { retryable: boolean }, session?: SessionUpdate): Promise<RunSettlement>;
  /** Whether finishing with an ERROR of this kind now would queue the job for another attempt. */
  retries(failure: { retryable: boolean }): boolean;
}

/** The writer no longer holds the run (another claim of its job owns it now): nothing more may be written. */
export class LeaseLostError extends crossBundleError("LeaseLostError") {
  constructor(readonly jobId: string) {
    super(`Lease on job ${jobId} was lost; this worker stops without writing`);
  }
}
