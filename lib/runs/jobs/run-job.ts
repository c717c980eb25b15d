import { z } from "zod";
import { RUN_JOB_SUBJECT } from "../../db/runs/run-job-subject.ts";
import { requestCancel } from "../../live-runs/run-registry.ts";
import type { RunWriter } from "../../runtime/run-writer.ts";
import { defineJobKind, type ExecutorDeps, type JobContext, type JobKind } from "../../queue/catalog.ts";
import { fencedRunWriter } from "./run-writer.ts";

/**
 * The catalog entry of run jobs: a durable background run of an agent (team and workflow runs
 * are run jobs too, told apart by component_type). Its subject is the run's agno_runs row
 * (lib/db/runs/run-job-subject.ts): the claim makes the run RUNNING in the claim's statement, the
 * run's final row is written in the settlement's statement, and a job the queue moves (lease
 * lost, given up, cancelled, requeued) moves its run. This is the only place in lib/queue that
 * knows what a run job is; its executor is ./agent-job.ts.
 */

export const RUN_JOB_TYPE = "run";

/** The components whose runs are run jobs (agno_jobs.component_type). */
export const RUN_COMPONENT_TYPES = ["agent", "team", "workflow"] as const;

/** What a durable run's job carries: everything a worker on any replica needs to run it. */
export const runJobPayloadSchema = z.looseObject({
  /** The input; absent, the run's stored input is used. */
  message: z.string().optional(),
  /** Whether the submit streams (a duplicate submit in the other mode is a 409). */
  stream: z.boolean().optional(),
  dependencies: z.record(z.string(), z.unknown()).nullish(),
  output_schema: z.record(z.string(), z.unknown()).nullish(),
  /** Uploaded files, stored with the job before the 202 (base64). */
  attachments: z.array(z.object({ kind: z.enum(["image", "file"]), data: z.string(), mediaType: z.string(), filename: z.string() })).optional(),
  /** Epoch milliseconds of the submit: the run's trace starts there (its `queue.wait` span runs to the claim). */
  enqueued_at_ms: z.number().optional(),
  /** The run's trace id, chosen at the submit: every attempt's span joins that one trace. */
  trace_id: z.string().optional(),
  /** A stored (Studio) component's version, resolved at the submit: every attempt runs that one. */
  component_version: z.number().int().optional(),
});
export type RunJobPayload = z.infer<typeof runJobPayloadSchema>;

/** A run job's context: the generic one, plus the fenced writer its run is written through. */
export interface RunJobContext extends JobContext<RunJobPayload> {
  /** Writes the job's run under the claim's fence, and its end together with the job's. */
  readonly writer: RunWriter;
}

export type RunJobExecutor = (ctx: RunJobContext) => Promise<void>;

/** The run-job kind with the given executor (the product's is ./agent-job.ts; tests and benchmarks bring their own). */
export function runJobKind(executor: (deps: ExecutorDeps) => RunJobExecutor): JobKind<RunJobPayload> {
  return defineJobKind({
    jobType: RUN_JOB_TYPE,
    payload: runJobPayloadSchema,
    subject: RUN_JOB_SUBJECT,
    // A cancel reaches the run through the run registry (the run ends CANCELLED, written as such).
    onCancel: (runId) => requestCancel(runId),
    executor(deps) {
      const execute = executor(deps);
      return (ctx) =>
        execute({
          ...ctx,
          get cancelRequested() {
            return ctx.cancelRequested;
          },
          writer: fencedRunWriter(deps.db, {
            fence: ctx.fence,
            leaseLosses: ctx.job.lease_losses,
            maxAttempts: ctx.job.max_attempts,
            retryDelaySeconds: ctx.retry.baseDelaySeconds,
            settle: (settlement, run) => ctx.settle(settlement, run),
          }),
        });
    },
  });
}
