import { randomUUID } from "node:crypto";
import type { Settings } from "../config/settings.ts";
import { createEvalRun, createEvalRunWithJob, type NewEvalRun, type StoredEvalRun } from "../db/evals/eval-runs.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { log } from "../log.ts";
import { wakeWorkers } from "../queue/embedded-worker.ts";
import { storedEvalInput } from "./eval-input.ts";
import { EVAL_JOB_KIND } from "./eval-job.ts";
import type { EvalPlan } from "./eval-plan.ts";
import { QueueFullError } from "../errors/domain-errors.ts";
import { isCancelReason, runningEvalCount } from "./eval-registry.ts";
import { resultFileTemplateProblem } from "./result-file.ts";
import { EvalStoppedError, executeEval } from "./run-eval.ts";

/** The row an eval starts as: the request's names, the evaluated agent and model, no result yet. */
function newRow(plan: EvalPlan, { runId, userId, status }: { runId: string; userId: string | null; status: "PENDING" | "RUNNING" }): NewEvalRun & { runId: string } {
  const { input, agent } = plan;
  const model = agent.definition.model!;
  return {
    runId,
    evalType: input.eval_type,
    evalData: {},
    evalInput: storedEvalInput(input),
    name: input.name ?? null,
    ...(agent.team ? { teamId: agent.definition.id } : { agentId: agent.definition.id }),
    modelId: model.id,
    modelProvider: model.provider,
    evaluatedComponentName: agent.definition.name,
    userId,
    status,
    details: { progress: { done: 0, total: null }, agent_runs: [] },
  };
}

/**
 * Runs an eval here and now (Agno's synchronous `POST /eval-runs`): its row is stored RUNNING
 * first, so the dashboard shows it while it runs, and the stored row is returned at the end.
 * EvalFailedError (the row says ERROR) when it produced no result; EvalStoppedError or the cancel
 * reason (lib/evals/eval-registry.ts) when it was cancelled or deleted while it ran.
 */
export async function runEvalNow({
  db,
  plan,
  scope,
  userId,
  storeResultInFile,
}: {
  db: Db;
  plan: EvalPlan;
  scope: DataScope;
  userId: string | null;
  storeResultInFile?: string;
}): Promise<StoredEvalRun> {
  // A template that cannot name this run's file is refused before anything runs ({eval_id} names {run_id}).
  const problem = storeResultInFile === undefined ? null : resultFileTemplateProblem(storeResultInFile);
  if (problem) throw new RangeError(problem);
  const runId = randomUUID();
  await createEvalRun(db, { scope, run: newRow(plan, { runId, userId, status: "RUNNING" }) });
  return executeEval({ db, plan, scope, userId, runId, storeResultInFile });
}

/**
 * Starts an eval in the background and answers at once with its PENDING row. With the durable
 * queue it is a job of the catalog (lib/evals/eval-job.ts), stored with its row in one
 * transaction, which any worker runs (QueueFullError at queue.maxQueueDepth); without, it runs in
 * this process (and is lost with it: its row then reads as interrupted), at most
 * queue.maxConcurrency evals at once (QueueFullError past it, nothing stored). `done` settles when an
 * in-process eval ends (tests wait on it).
 */
export async function startEvalInBackground({
  db,
  settings,
  plan,
  scope,
  userId,
}: {
  db: Db;
  settings: Settings;
  plan: EvalPlan;
  scope: DataScope;
  userId: string | null;
}): Promise<{ run: StoredEvalRun; done?: Promise<void> }> {
  const runId = randomUUID();
  if (settings.queue.durable) {
    const run = await createEvalRunWithJob(db, {
      scope,
      run: newRow(plan, { runId, userId, status: "PENDING" }),
      maxQueueDepth: settings.queue.maxQueueDepth,
      job: {
        jobType: EVAL_JOB_KIND.jobType,
        componentType: EVAL_JOB_KIND.jobType,
        componentId: runId,
        deploymentId: settings.queue.deploymentId ?? null,
        payload: EVAL_JOB_KIND.payload.parse({ input: plan.input, ...(plan.agent.stored ? { component_version: plan.agent.stored.version } : {}) }) as Record<string, unknown>,
        maxAttempts: EVAL_JOB_KIND.maxAttempts?.(settings.queue) ?? settings.queue.maxAttempts,
      },
    });
    wakeWorkers(settings);
    return { run };
  }
  if (runningEvalCount() >= settings.queue.maxConcurrency) throw new QueueFullError(settings.queue.maxConcurrency);
  const run = await createEvalRun(db, { scope, run: newRow(plan, { runId, userId, status: "PENDING" }) });
  const done = executeEval({ db, plan, scope, userId, runId, background: true }).then(
    () => undefined,
    (error) => {
      // Recorded in the eval's row (ERROR or CANCELLED) unless the row went away.
      if (!(error instanceof EvalStoppedError) && !isCancelReason(error)) log.warn(`[evals] background eval ${runId} failed: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  return { run, done };
}
