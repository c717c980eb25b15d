import { unsafeUpdateApprovalRunStatus } from "../db/approvals/approvals.ts";
import type { Principal } from "../auth/principal.ts";
import { dataScopeFor } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { cancelUnheldRun, requestJobCancel } from "../db/jobs/index.ts";
import type { JobStatus } from "../db/jobs/job-row.ts";
import type { Db } from "../db/open-database.ts";
import { getRun, transitionRunStatus } from "../db/runs/runs.ts";
import type { DataScope } from "../db/scope.ts";
import { getLiveRun, requestCancel, subscribe, type LiveRun } from "../live-runs/run-registry.ts";
import { isWaitingBackgroundRun } from "./background.ts";
import { queueCoordination } from "../queue/embedded-worker.ts";
import { jobCatalog } from "../queue/catalog.ts";
import { isRunOf, mayReachLiveRun, type RunComponent } from "./live-run-access.ts";

/**
 * What a cancel came to. "accepted": the run ends CANCELLED (or already has). "finished": it had
 * ended before the cancel could take effect, with `status`; nothing was cancelled. "not_found":
 * the principal may not see the run.
 */
export type CancelOutcome = { outcome: "accepted" } | { outcome: "finished"; status: "COMPLETED" | "ERROR" } | { outcome: "not_found" };

const ACCEPTED: CancelOutcome = { outcome: "accepted" };
/** A finished job's run status: the job and its run settle together. */
const FINISHED_JOBS: Partial<Record<JobStatus, "COMPLETED" | "ERROR">> = { completed: "COMPLETED", failed: "ERROR" };
/**
 * How long a cancel of a run executing in this process waits for the run to end, so the answer
 * can say whether the cancel took (the run was writing its end when the cancel came) — a run
 * stops within moments of its abort. One that takes longer is aborted and stops at its next step.
 */
const LIVE_END_WAIT_MS = 5_000;

/**
 * Cancels one of an agent's or a team's runs as `principal` sees it (a team's member runs are
 * aborted with it, as its children), wherever the run is: a durable job (the
 * intent recorded in the database, signalled over Redis; the database decides whether it came
 * before the run's end), a live run in this process (aborted; the answer waits for its end), a
 * paused run (made CANCELLED where it is stored, so a later continue gets 409), a run with no job
 * executing elsewhere (its row made CANCELLED, which refuses its next write, and signalled over
 * Redis), or — for admins
 * only, and unless `recordUnseen` is false — a run this server has not seen yet (the intent is
 * kept). "not_found" when the principal may not see the run; the API answers 404 for it, the
 * dashboard says so.
 */
export async function cancelComponentRun(
  { db, settings, principal }: { db: Db; settings: Settings; principal: Principal },
  { component, runId, sessionId, recordUnseen = true }: { component: RunComponent; runId: string; sessionId?: string; recordUnseen?: boolean },
): Promise<CancelOutcome> {
  const scope = dataScopeFor(principal);
  if (settings.queue.durable) {
    const stored = await getRun(db, { scope, runId, sessionId });
    const job = stored && isRunOf(stored, component) ? await requestJobCancel(db, { scope, id: runId, subjects: jobCatalog().subjects }) : null;
    if (job !== null) {
      const finished = FINISHED_JOBS[job];
      if (finished) return { outcome: "finished", status: finished };
      // A paused job was cancelled with its run at once: a pending approval of the run has nothing left to decide.
      if (job === "cancelled" && stored?.status === "PAUSED") await unsafeUpdateApprovalRunStatus(db, { runId, runStatus: "CANCELLED", now: Math.floor(Date.now() / 1000) });
      requestCancel(runId);
      queueCoordination(settings)?.publishCancel(runId);
      return ACCEPTED;
    }
  }
  const live = getLiveRun(runId);
  if (live && !live.done) {
    if (!mayReachLiveRun(principal, live, { component, sessionId })) return { outcome: "not_found" };
    requestCancel(runId);
    // A background run still waiting for a slot starts aborted: it ends CANCELLED.
    if (isWaitingBackgroundRun(runId)) return ACCEPTED;
    const ended = await endOf(live, LIVE_END_WAIT_MS);
    if (ended === "COMPLETED" || ended === "ERROR") return { outcome: "finished", status: ended };
    // It paused as the cancel came: the stored pause is cancelled below, once it is written.
    if (ended !== "PAUSED") return ACCEPTED;
  }
  return cancelStored({ db, settings, scope, principal, recordUnseen }, { component, runId, sessionId });
}

/** A run not executing here, as stored. */
async function cancelStored(
  { db, settings, scope, principal, recordUnseen }: { db: Db; settings: Settings; scope: DataScope; principal: Principal; recordUnseen: boolean },
  { component, runId, sessionId }: { component: RunComponent; runId: string; sessionId?: string },
): Promise<CancelOutcome> {
  const stored = await getRun(db, { scope, runId, sessionId });
  if (!stored) {
    // The API lets an admin cancel a run before it exists; the dashboard only cancels runs it shows.
    if (!principal.isAdmin || !recordUnseen) return { outcome: "not_found" };
    requestCancel(runId);
    return ACCEPTED;
  }
  if (!isRunOf(stored, component)) return { outcome: "not_found" };
  // The stored status moves on only to an end or a pause, so this settles within three reads.
  for (let status = stored.status, tries = 0; tries < 3; tries++) {
    if (status === "COMPLETED" || status === "ERROR") return { outcome: "finished", status };
    if (status === "CANCELLED") break;
    if (status === "PAUSED" || status === "RUNNING") {
      // A run that paused here a moment ago may still be writing its pause.
      const paused = status === "PAUSED" || (getLiveRun(runId)?.status === "PAUSED" && (await storedPause(db, { scope, runId, sessionId })));
      if (paused && (await transitionRunStatus(db, { scope, runId, sessionId, from: "PAUSED", to: "CANCELLED" }))) {
        // A pending approval of the run has nothing left to decide.
        await unsafeUpdateApprovalRunStatus(db, { runId, runStatus: "CANCELLED", now: Math.floor(Date.now() / 1000) });
        return ACCEPTED;
      }
    }
    // Executing somewhere no process here can reach (another replica, or nowhere any more): its
    // row is cancelled, so its next write — at the latest its end — is refused and it ends
    // CANCELLED; a Redis signal stops it sooner. A row that moved on meanwhile is read again.
    if (await cancelUnheldRun(db, { scope, runId, sessionId })) {
      requestCancel(runId);
      queueCoordination(settings)?.publishCancel(runId);
      return ACCEPTED;
    }
    status = (await getRun(db, { scope, runId, sessionId }))?.status ?? null;
  }
  requestCancel(runId);
  return ACCEPTED;
}

/** Waits (bounded) for a run that finished here as PAUSED to be stored PAUSED. */
async function storedPause(db: Db, { scope, runId, sessionId }: { scope: DataScope; runId: string; sessionId?: string }): Promise<boolean> {
  const deadline = Date.now() + LIVE_END_WAIT_MS;
  while (Date.now() < deadline) {
    const status = (await getRun(db, { scope, runId, sessionId }))?.status;
    if (status !== "RUNNING") return status === "PAUSED";
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** The status a live run ends with, or null if it is still going after `ms`. */
function endOf(live: LiveRun, ms: number): Promise<string | null> {
  if (live.done) return Promise.resolve(live.status);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(null);
    }, ms);
    const unsubscribe = subscribe(live, {
      onEvent: () => undefined,
      onEnd: () => {
        clearTimeout(timer);
        unsubscribe();
        resolve(live.status);
      },
    });
  });
}
