import type { Settings } from "../../config/settings.ts";
import { getJob, runCancelRecorded } from "../../db/jobs/index.ts";
import type { Db } from "../../db/open-database.ts";
import { transitionRunStatus } from "../../db/runs/runs.ts";
import { log } from "../../log.ts";
import type { StartedRun } from "../../runtime/agent-run.ts";
import { continueAgentRun, type ContinueRunRequest } from "../../runtime/continue-run.ts";
import { requestCancel, subscribe, type LiveRun } from "../../live-runs/run-registry.ts";
import { queueCoordination } from "../../queue/embedded-worker.ts";
import { unheldRunWriter } from "../../runtime/unheld-run-writer.ts";

/**
 * Continues a paused run on this replica (the continue route), so that a cancel accepted through
 * any replica while it runs ends it CANCELLED. The continuation is no worker's: its writes are
 * fenced by the recorded cancel instead (unheldRunWriter) — a durable run's job stays paused
 * while it runs and its end settles the job; a run with no job is cancelled by its row. A cancel
 * recorded after the claim stops it before its first tool or model call; one recorded later
 * reaches it within a poll interval (the database) or at once (a Redis cancel signal), and at
 * the latest refuses its end.
 */
export async function continuePausedRun(request: Omit<ContinueRunRequest, "claim" | "writer" | "beforeStart"> & { settings: Settings }): Promise<StartedRun> {
  const { db, settings, scope, runId, sessionId } = request;
  // A durable run waits paused with its job; a paused run of any other kind has none.
  const pausedJob = (await getJob(db, { scope, id: runId }))?.status === "paused";
  const started = await continueAgentRun({
    ...request,
    writer: unheldRunWriter(db, { runId, pausedJob }),
    claim: () => transitionRunStatus(db, { scope, runId, sessionId, from: "PAUSED", to: "RUNNING" }),
    beforeStart: () => applyRecordedCancel(db, runId),
  });
  watchForCancel({ db, settings, runId, live: started.live });
  return started;
}

/** Aborts the run if a cancel is recorded for it; a failed read only leaves it to the watch. */
async function applyRecordedCancel(db: Db, runId: string): Promise<void> {
  try {
    if (await runCancelRecorded(db, runId)) requestCancel(runId);
  } catch (error) {
    log.warn(`[run ${runId}] could not read its cancel intent: ${(error as Error).message}`);
  }
}

/**
 * Until the continuation ends: a Redis cancel signal for the run aborts it at once, and the
 * database is asked every poll interval (a replica that is not a worker hears no other way).
 */
function watchForCancel({ db, settings, runId, live }: { db: Db; settings: Settings; runId: string; live: LiveRun }): void {
  if (live.done) return;
  const unsubscribeSignal = queueCoordination(settings)?.onCancel((id) => {
    if (id === runId) requestCancel(runId);
  });
  const poll = setInterval(() => void applyRecordedCancel(db, runId), Math.max(200, settings.queue.pollIntervalMs));
  poll.unref?.();
  const unsubscribe = subscribe(live, {
    onEvent: () => undefined,
    onEnd: () => {
      clearInterval(poll);
      unsubscribeSignal?.();
      unsubscribe();
    },
  });
}
