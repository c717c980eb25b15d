import { randomBytes } from "node:crypto";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import { getRun } from "../../db/runs/runs.ts";
import { unsafeSystemScope, type DataScope } from "../../db/scope.ts";
import { heldJobCancelRequested, settleJobStatement, type JobSettlement } from "../../db/jobs/index.ts";
import { log } from "../../log.ts";
import { runAgent, type StartRunRequest } from "../../runtime/agent-run.ts";
import { resolveComponent, type ComponentRef } from "../../runtime/component-source.ts";
import { ComponentRehydrationError } from "../../errors/http-error.ts";
import type { RunEvent } from "../../live-runs/events.ts";
import { clearCancel, eventsAfter, requestCancel, RunCancelledSignal, subscribe } from "../../live-runs/run-registry.ts";
import { emptyMetrics, type RunOutput } from "../../runtime/run-output.ts";
import { runRow } from "../../runtime/run-settle.ts";
import { LeaseLostError } from "../../runtime/run-writer.ts";
import type { ExecutorDeps } from "../../queue/catalog.ts";
import { runJobKind, type RunJobContext, type RunJobExecutor, type RunJobPayload } from "./run-job.ts";

/** A durable agent run's job payload, from the submit (uploads as base64). */
export function agentJobPayload(request: Pick<StartRunRequest, "message" | "dependencies" | "outputSchema" | "attachments" | "agent"> & { stream: boolean }): RunJobPayload {
  return {
    ...(request.agent.stored ? { component_version: request.agent.stored.version } : {}),
    message: request.message,
    stream: request.stream,
    dependencies: request.dependencies ?? null,
    output_schema: request.outputSchema ?? null,
    enqueued_at_ms: Date.now(),
    trace_id: randomBytes(16).toString("hex"),
    ...(request.attachments?.length
      ? { attachments: request.attachments.map((a) => ({ kind: a.kind, data: Buffer.from(a.data).toString("base64"), mediaType: a.mediaType, filename: a.filename })) }
      : {}),
  };
}

const FINISHED_RUN_STATUSES: Record<string, "completed" | "failed" | "cancelled" | "paused"> = { COMPLETED: "completed", ERROR: "failed", CANCELLED: "cancelled", PAUSED: "paused" };

/**
 * Executes durable agent runs. The run row is read as stored: one that already ended (a worker
 * died between the run's final write and the job's — they are one transaction, so only an older
 * build could leave that) just settles its job; otherwise it runs from the start, its event
 * numbering continuing after what earlier attempts published. Every event goes to Redis when
 * configured; while there is no healthy Redis the run's events are flushed to the database every
 * poll interval so another replica can tail them.
 */
export function agentJobExecutor({ db, settings }: { db: Db; settings: Settings }): RunJobExecutor {
  return async (ctx: RunJobContext) => {
    const { job, writer, coordination, payload } = ctx;
    const claimedAt = Date.now();
    const stored = await getRun(db, { scope: unsafeSystemScope("the worker reads the run of the job it holds"), runId: job.id });
    /** Ends the job alone; a cancel recorded meanwhile makes any end a cancelled one. */
    const settleOnly = async (settlement: JobSettlement, runEnded = false) => {
      const statement = settleJobStatement(ctx.fence, settlement, { runEnded });
      if ((await db.sql.exec(statement.text, statement.params)) > 0 || settlement.status === "cancelled" || runEnded) return;
      const cancelled = settleJobStatement(ctx.fence, { status: "cancelled", error: "Cancelled before the run could start" });
      await db.sql.exec(cancelled.text, cancelled.params);
    };
    if (!stored) return settleOnly({ status: "failed", error: "The job's run no longer exists (its session was deleted)" });
    const ended = stored.status ? FINISHED_RUN_STATUSES[stored.status] : undefined;
    if (ended) return settleOnly(ended === "failed" ? { status: "failed", error: "The run had already failed" } : { status: ended }, true);
    // The run's rows are written in its owner's scope, as the submit wrote them.
    const scope: DataScope = unsafeSystemScope("the worker runs the job for the run's owner", { actingAs: stored.user_id ?? null });
    const output = resetForAttempt(stored.run_data as unknown as RunOutput);
    // A stored component at the version its submit resolved (the submit checked the caller may use it).
    const agent = await resolveComponent(
      settings,
      db,
      { type: (job.component_type ?? "agent") as ComponentRef["type"], id: job.component_id, version: payload.component_version },
      { userId: stored.user_id ?? null, isAdmin: true },
    )
      .then((r) => r?.agent)
      .catch((error: unknown) => {
        if (error instanceof ComponentRehydrationError) return error;
        throw error;
      });
    if (!agent || agent instanceof ComponentRehydrationError) {
      output.status = "ERROR";
      const noun = job.component_type === "team" ? "Team" : job.component_type === "workflow" ? "Workflow" : "Agent";
      output.error = agent
        ? { message: agent.message, error_type: "component_rehydration_error" }
        : { message: `${noun} ${job.component_id} is not configured on this worker`, error_type: `${noun.toLowerCase()}_not_found` };
      output.content = output.error.message;
      try {
        await writer.finish(scope, runRow(output), { retryable: false });
      } catch (error) {
        if (!(error instanceof RunCancelledSignal)) throw error;
        // Cancelled meanwhile: it ends CANCELLED, as any run with a recorded cancel does.
        output.status = "CANCELLED";
        output.error = { message: error.message, error_type: "run_cancelled" };
        await writer.finish(scope, runRow(output));
      }
      return;
    }
    const storedEvents = output.events ?? [];
    const lastStored = storedEvents.length ? (storedEvents[storedEvents.length - 1].event_index as number) : -1;
    const lastPublished = (await coordination?.lastEventIndex(job.id)) ?? -1;
    // The database holds the cancel intent. This process's own intent for the run is dropped: one
    // remembered from before a requeue that cleared it (clear_cancellation, possibly through
    // another replica) no longer counts, and any recorded since the claim is in the database too.
    // The run is registered (from then on a cancel aborts it, wherever it comes from) before the
    // intent is read, and starts only after: a cancel recorded at any moment before — at the
    // claim, while this executor loaded the run, even one delivered to this process before the
    // run existed — stops it before its first model call. Nothing is awaited between dropping
    // the intent and registering the run.
    clearCancel(job.id);
    const started = runAgent({
      db,
      agent,
      scope,
      output,
      message: String(payload.message ?? output.input?.input_content ?? ""),
      dependencies: payload.dependencies ?? null,
      outputSchema: payload.output_schema ?? undefined,
      attachments: payload.attachments?.map((a) => ({ kind: a.kind, data: Buffer.from(a.data, "base64"), mediaType: a.mediaType, filename: a.filename })),
      stream: true,
      writer,
      keepEvents: true,
      signal: ctx.signal,
      firstEventIndex: Math.max(lastStored, lastPublished) + 1,
      // The run's trace starts at the submit; its first child is the wait for this claim.
      trace: traceOfJob(job, payload, claimedAt),
      defer: (execute) => void applyRecordedCancel(db, ctx).finally(execute),
    });
    // Not fenced by the database, so checked here: an attempt that may have lost its lease publishes nothing.
    const fenced = () => (ctx.signal.aborted && ctx.signal.reason instanceof LeaseLostError) || !ctx.holdsLease();
    const publish = (event: RunEvent) => {
      if (!fenced()) coordination!.publishEvent(job.id, event);
    };
    // Publish what is buffered (nothing yet: the run starts after the intent is read), then
    // subscribe, in one synchronous step, so Redis gets every event, in order, with no gap for
    // followers to fall back on.
    if (coordination) for (const event of eventsAfter(started.live, started.firstEventIndex - 1)) publish(event);
    const unsubscribe = coordination ? subscribe(started.live, { onEvent: publish, onEnd: () => undefined }) : undefined;
    // Other replicas tail the run through Redis; whenever Redis is absent or failing, through the
    // events stored with the run, kept current every poll interval.
    // With a healthy Redis the database copy still catches up every 10 intervals: a follower
    // that found a gap in the Redis stream reads the events from there.
    const interval = Math.max(200, settings.queue.pollIntervalMs);
    let flushed = started.live.nextIndex;
    let flushedAt = Date.now();
    const flush = setInterval(() => {
      if (started.live.done || started.live.nextIndex === flushed || fenced()) return;
      if (coordination?.healthy && Date.now() - flushedAt < 10 * interval) return;
      flushed = started.live.nextIndex;
      flushedAt = Date.now();
      writer.write(scope, runRow(output)).catch(() => undefined);
    }, interval);
    try {
      await started.done;
    } finally {
      unsubscribe?.();
      clearInterval(flush);
      coordination?.forget(job.id);
    }
  };
}

/**
 * A durable run's trace, whose id the submit chose: the first attempt's span starts at the enqueue
 * (the submit's time, else the job row's) with a `queue.wait` child up to the claim; a later
 * attempt (a retry, a lost lease, a requeue) is another root of the same trace, from its claim.
 */
function traceOfJob(job: RunJobContext["job"], payload: RunJobPayload, claimedAt: number): StartRunRequest["trace"] {
  if (job.attempt > 1) return { traceId: payload.trace_id, attributes: { "agentry.job.attempt": job.attempt } };
  const enqueuedAt = Math.min(claimedAt, payload.enqueued_at_ms ?? job.created_at * 1000);
  return { traceId: payload.trace_id, startTime: enqueuedAt, queueWait: { enqueuedAt, claimedAt, jobId: job.id, attempt: job.attempt } };
}

/** Aborts the job's registered run if a cancel is recorded for the job (the database's word; the worker's flag if it cannot be read). */
async function applyRecordedCancel(db: Db, ctx: RunJobContext): Promise<void> {
  let requested = ctx.cancelRequested;
  try {
    requested = (await heldJobCancelRequested(db, ctx.fence)) === true || ctx.cancelRequested;
  } catch (error) {
    // The worker's poll and heartbeat deliver it later (its own flag is current).
    log.warn(`[worker ${ctx.fence.workerId}] job ${ctx.job.id}: could not read its cancel intent: ${(error as Error).message}`);
  }
  if (requested) requestCancel(ctx.job.id);
}

/**
 * A run starting (again) from its stored row: what an earlier attempt produced is dropped, its
 * events kept. The claim stored it RUNNING; one it did not (SQLite, a crash between the claim's
 * two statements) is still PENDING, and runAgent writes it RUNNING.
 */
function resetForAttempt(run: RunOutput): RunOutput {
  return {
    ...run,
    status: run.status === "PENDING" ? "PENDING" : "RUNNING",
    content: null,
    messages: [],
    tools: [],
    metrics: emptyMetrics(),
    requirements: null,
    error: undefined,
    // A team's member runs of an earlier attempt are rows of their own; this attempt delegates afresh.
    ...(run.team_id ? { member_responses: [] } : {}),
    // A workflow's steps run again from the first.
    ...(run.workflow_id ? { step_results: [], step_executor_runs: [], step_requirements: null, paused_step_index: null, paused_step_name: null, pause_kind: null } : {}),
  };
}

/** The run-job kind with the agent executor: the product's catalog entry for durable runs. */
export const AGENT_RUN_JOB_KIND = runJobKind((deps: ExecutorDeps) => {
  if (!deps.settings) throw new Error("The run-job executor needs the OS settings (its agents)");
  return agentJobExecutor({ db: deps.db, settings: deps.settings });
});
