import type { Db } from "../db/open-database.ts";
import { log } from "../log.ts";
import { crossBundleError, RunCancelledSignal } from "../runtime/run-registry.ts";
import { isRunIndexRace, runInsertStatement, type RunInput } from "../db/runs/run-insert.ts";
import type { DataScope } from "../db/scope.ts";
import { epochSeconds } from "../db/jobs/job-row.ts";
import {
  heldJobCancelRequested,
  retryDelaySeconds,
  runFenceGuard,
  settleJobs,
  spentAttempts,
  type JobFence,
  type JobSettlement,
  type JobSettlementItem,
} from "../db/jobs/index.ts";

/** This worker no longer holds the job: another claim owns it now, so nothing of ours may be written. */
export class LeaseLostError extends crossBundleError("LeaseLostError") {
  constructor(readonly jobId: string) {
    super(`Lease on job ${jobId} was lost; this worker stops without writing`);
  }
}

/**
 * How a run's rows are written. The default writes them directly; a durable run's writer fences
 * every write on the job's claim and records the run's end together with the job's.
 */
export interface RunWriter {
  /** A non-final state (RUNNING, events so far). Throws LeaseLostError when fenced out. */
  write(scope: DataScope, run: RunInput): Promise<void>;
  /**
   * The final state (COMPLETED, PAUSED, CANCELLED, ERROR) and the job's settlement in one
   * transaction. An ERROR with attempts left stores the run PENDING and queues the job again.
   * Returns what the job became. Throws RunCancelledSignal, writing nothing, when a cancel was
   * recorded for the job and this end is not CANCELLED: the run is to end CANCELLED instead.
   */
  finish(scope: DataScope, run: RunInput, failure?: { retryable: boolean }): Promise<JobSettlement["status"]>;
  /** Whether finishing with an ERROR of this kind now would queue the job for another attempt. */
  retries(failure: { retryable: boolean }): boolean;
}

const RACE_RETRIES = 8;

/**
 * The writer for the run of a claimed job: fence = (id, attempt, locked_by); lease_losses as
 * claimed. `settling` turns true when the final write starts: the job is leaving the worker.
 */
export function fencedRunWriter(
  db: Db,
  {
    fence,
    leaseLosses,
    maxAttempts,
    retryDelaySeconds: baseDelay,
    settle = async (item) => (await settleJobs(db, { workerId: fence.workerId, items: [item] })).has(fence.id),
    onSettling,
  }: {
    fence: JobFence;
    leaseLosses: number;
    maxAttempts: number;
    retryDelaySeconds: number;
    /** Writes the attempt's end (the worker's SettleBatcher); true when the fence held. Default: alone. */
    settle?: (item: JobSettlementItem) => Promise<boolean>;
    /** Called when the final write starts: the run has ended, its slot may go to the next job. */
    onSettling?: () => void;
  },
): RunWriter & { readonly settling: boolean } {
  const guard = runFenceGuard(db, fence);
  async function statement(scope: DataScope, run: RunInput) {
    return runInsertStatement(db, { scope, run, now: epochSeconds(), extraGuard: guard });
  }
  // Writes of one run go one at a time, in order: a snapshot written concurrently with the final
  // write could otherwise land after it (PostgreSQL re-checks only the conflicting row).
  const fencedOut = (what: string) => {
    log.warn(`[worker ${fence.workerId}] job ${fence.id}: ${what} was fenced out (attempt ${fence.attempt} no longer holds the job)`);
    return new LeaseLostError(fence.id);
  };
  let queue: Promise<unknown> = Promise.resolve();
  let finished = false;
  let settling = false;
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(() => {
      if (finished) throw new LeaseLostError(fence.id);
      return work();
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const spent = spentAttempts({ attempt: fence.attempt, lease_losses: leaseLosses });
  const retries = (failure?: { retryable: boolean }) => !!failure?.retryable && spent < maxAttempts;
  return {
    retries,
    write: (scope, run) => serial(() => write(scope, run)),
    get settling() {
      return settling;
    },
    finish: (scope, run, failure) =>
      serial(async () => {
        settling = true;
        onSettling?.();
        const status = await finish(scope, run, failure);
        finished = true;
        log.debug(`[worker ${fence.workerId}] job ${fence.id} ${status} (attempt ${fence.attempt})`);
        return status;
      }),
  };

  async function write(scope: DataScope, run: RunInput): Promise<void> {
      const s = await statement(scope, run);
      for (let attempt = 0; ; attempt++) {
        try {
          const rows = await db.sql.query(s.text, s.params);
          if (rows.length === 0) throw fencedOut("a write");
          return;
        } catch (error) {
          if (!isRunIndexRace(error) || attempt >= RACE_RETRIES) throw error;
        }
      }
  }

  async function finish(scope: DataScope, run: RunInput, failure?: { retryable: boolean }): Promise<JobSettlement["status"]> {
      let settlement: JobSettlement;
      let stored = run;
      const error = (run.runData.error as { message?: string } | undefined)?.message ?? null;
      switch (run.status) {
        case "COMPLETED":
          settlement = { status: "completed" };
          break;
        case "PAUSED":
          settlement = { status: "paused" };
          break;
        case "CANCELLED":
          settlement = { status: "cancelled", error };
          break;
        default: {
          const message = error ?? "Run failed";
          if (retries(failure)) {
            const availableAt = epochSeconds() + retryDelaySeconds({ baseSeconds: baseDelay, spentAttempts: spent });
            settlement = { status: "queued", error: message, availableAt };
            stored = { ...run, status: "PENDING", runData: { ...run.runData, status: "PENDING" } };
          } else {
            settlement = { status: "failed", error: message };
          }
        }
      }
      if (!(await settle({ fence, settlement, run: { status: stored.status ?? "ERROR", runData: stored.runData } }))) {
        // Refused while the job is still ours: a cancel was recorded (and not yet delivered, or
        // delivered too late for the run to stop before this write).
        if (settlement.status !== "cancelled" && (await heldJobCancelRequested(db, fence)) === true) throw new RunCancelledSignal();
        throw fencedOut(`the final write (${run.status})`);
      }
      return settlement.status;
  }
}
