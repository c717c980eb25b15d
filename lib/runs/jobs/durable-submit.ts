import type { Settings } from "../../config/settings.ts";
import { ConflictError } from "../../errors/domain-errors.ts";
import type { Db } from "../../db/open-database.ts";
import { getRun } from "../../db/runs/runs.ts";
import { unsafeSystemScope } from "../../db/scope.ts";
import { duplicateMismatch, enqueueRunJob, jobByKey, type StoredJob } from "../../db/jobs/index.ts";
import { newRunOutput, type StartRunRequest } from "../../runtime/agent-run.ts";
import { runRow } from "../../runtime/run-settle.ts";
import { componentOf } from "../../runtime/agents.ts";
import { agentJobPayload } from "./agent-job.ts";
import { wakeWorkers } from "../../queue/embedded-worker.ts";

export const MAX_IDEMPOTENCY_KEY_LENGTH = 512;

export interface DurableSubmit extends Omit<StartRunRequest, "defer" | "retry" | "inputMedia"> {
  settings: Settings;
  stream: boolean;
  inputMedia?: StartRunRequest["inputMedia"];
  idempotencyKey?: string | null;
}

export interface Submitted {
  runId: string;
  sessionId: string;
  status: string;
  /** An earlier submit with the same Idempotency-Key made this job; nothing new was queued. */
  duplicate: boolean;
}

/**
 * Queues a durable background run: the session (if new), then the PENDING run and its job in one
 * transaction, then the local worker is woken (and other replicas over Redis). A repeated
 * Idempotency-Key answers with the earlier submit's run (ConflictError when it was for another
 * component or stream mode); a full queue is a QueueFullError.
 */
export async function submitDurableRun(db: Db, request: DurableSubmit): Promise<Submitted> {
  const { settings, agent } = request;
  const component = componentOf(agent);
  const submit = { componentType: component.type, componentId: component.id, stream: request.stream };
  const key = request.idempotencyKey ?? null;
  if (key !== null) {
    // Checked before the session is created, so a retried submit creates nothing.
    const earlier = await jobByKey(db, request.userId, key);
    if (earlier) return duplicateOf(db, earlier, submit);
  }
  const output = await newRunOutput(request, "PENDING");
  const result = await enqueueRunJob(db, {
    scope: request.scope,
    run: runRow(output),
    job: {
      componentType: component.type,
      componentId: component.id,
      jobType: "run",
      deploymentId: settings.queue.deploymentId ?? null,
      payload: agentJobPayload(request) as unknown as Record<string, unknown>,
      stream: request.stream,
      maxAttempts: settings.queue.maxAttempts,
      idempotencyKey: key,
    },
    maxQueueDepth: settings.queue.maxQueueDepth,
  });
  if (result.duplicate) return duplicateOf(db, result.job, submit);
  wakeWorkers(settings);
  return { runId: output.run_id, sessionId: output.session_id, status: "PENDING", duplicate: false };
}

async function duplicateOf(db: Db, job: StoredJob, submit: { componentType: string; componentId: string; stream: boolean }): Promise<Submitted> {
  const mismatch = duplicateMismatch(job, submit);
  if (mismatch) throw new ConflictError(mismatch);
  const run = await getRun(db, { scope: unsafeSystemScope("the run of a job this submit duplicates; the caller already owns the job"), runId: job.id });
  return { runId: job.id, sessionId: job.session_id ?? run?.session_id ?? "", status: run?.status ?? "PENDING", duplicate: true };
}
