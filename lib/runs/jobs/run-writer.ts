import type { Db } from "../../db/open-database.ts";
import { log } from "../../log.ts";
import { RunCancelledSignal } from "../../live-runs/run-registry.ts";
import { LeaseLostError, type RunWriter } from "../../runtime/run-writer.ts";
import { isRunIndexRace, runInsertStatement, type RunInput } from "../../db/runs/run-insert.ts";
import type { DataScope } from "../../db/scope.ts";
import { epochSeconds } from "../../db/jobs/job-row.ts";
import type { SubjectValue } from "../../db/jobs/job-subject.ts";
import { heldJobCancelRequested, retryDelaySeconds, runFenceGuard, spentAttempts, type JobFence, type JobSettlement } from "../../db/jobs/index.ts";

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
    settle,
  }: {
    fence: JobFence;
    leaseLosses: number;
    maxAttempts: number;
    retryDelaySeconds: number;
    /** Writes the attempt's end with the run's final row (the job context's settle); true when the fence held. */
    settle: (settlement: JobSettlement, run: SubjectValue) => Promise<boolean>;
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

  async function finish(_scope: DataScope, run: RunInput, failure?: { retryable: boolean }): Promise<JobSettlement["status"]> {
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
    if (!(await settle(settlement, { status: stored.status ?? "ERROR", data: stored.runData }))) {
      // Refused while the job is still ours: a cancel was recorded (and not yet delivered, or
      // delivered too late for the run to stop before this write).
      if (settlement.status !== "cancelled" && (await heldJobCancelRequested(db, fence)) === true) throw new RunCancelledSignal();
      throw fencedOut(`the final write (${run.status})`);
    }
    return settlement.status;
  }
}
