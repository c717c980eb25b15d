import { z } from "zod";
import { EVAL_JOB_TYPE, writeEvalRunState } from "../db/evals/eval-runs.ts";
import { unsafeSystemScope } from "../db/scope.ts";
import { defineJobKind, PermanentJobError } from "../queue/catalog.ts";
import { EvalRunInputSchema } from "./eval-input.ts";
import { planEval } from "./eval-plan.ts";
import { EvalFailedError, EvalStoppedError, executeEval } from "./run-eval.ts";

/** What an eval job carries: the request as `POST /eval-runs` took it (checked again by the same schema). */
export const EvalJobPayload = z.object({
  input: EvalRunInputSchema,
  /** A stored (Studio) agent's or team's version, resolved at the submit: the job evaluates that one. */
  component_version: z.number().int().optional(),
});
export type EvalJobPayload = z.infer<typeof EvalJobPayload>;

/**
 * An eval started in the background with the durable queue, as a job of the catalog
 * (registered by lib/server/features.ts): its id is the eval run's, its owner the eval's. Any worker runs it
 * for the owner; every write to the eval's row holds only while this claim does (the fence), so
 * a worker that lost its lease changes nothing. One attempt: an eval that failed says why in its
 * row (a retry would spend the model calls again); a lost lease runs it again from the start. A
 * cancel (the queue's) aborts the runs in flight and ends the eval CANCELLED. A job that fails
 * before its executor runs (a payload its schema refuses) leaves its row PENDING: reads take the
 * failed job's error, and once retention has removed the job, the stale rule (lib/db/evals).
 */
export const EVAL_JOB_KIND = defineJobKind<EvalJobPayload>({
  jobType: EVAL_JOB_TYPE,
  payload: EvalJobPayload,
  maxAttempts: () => 1,
  executor:
    ({ db, settings }) =>
    async ({ job, payload, fence, signal }) => {
      const scope = unsafeSystemScope("an eval job runs for the eval's owner", { actingAs: job.user_id });
      const fenceCondition = { clause: "j.attempt = ? AND j.locked_by = ? AND j.status = 'running'", params: [fence.attempt, fence.workerId] };
      let plan: Awaited<ReturnType<typeof planEval>>;
      try {
        if (!settings) throw new Error("This worker has no OS settings, so it cannot find the eval's agent");
        // Checked as the caller when it was submitted (an admin's request may name any model).
        // The submit resolved the version (a stored component's): the version is the caller's to use.
        plan = await planEval(settings, payload.input, { anyModel: true, db, caller: { userId: job.user_id, isAdmin: payload.component_version !== undefined }, version: payload.component_version });
      } catch (error) {
        // The agent or a model went away since the submit: the eval says why, and the job fails.
        const message = error instanceof Error ? error.message : String(error);
        await writeEvalRunState(db, { scope, id: job.id, fence: fenceCondition, state: { status: "ERROR", details: { error: message } } });
        throw new PermanentJobError(message);
      }
      try {
        await executeEval({ db, plan, scope, userId: job.user_id, runId: job.id, signal, fence: fenceCondition, background: true });
      } catch (error) {
        if (error instanceof EvalStoppedError) return;
        if (error instanceof EvalFailedError) throw new PermanentJobError(error.message);
        throw error;
      }
    },
});
