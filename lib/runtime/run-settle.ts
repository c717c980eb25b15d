import { randomUUID } from "node:crypto";
import { addSessionMetrics, sessionUpdate } from "../db/sessions/session-data.ts";
import { log } from "../log.ts";
import { runCost } from "../models/prices.ts";
import { abandonBackgroundWork, awaitBackgroundWork } from "./background-tasks.ts";
import { ModelProviderError } from "../models/model-provider-error.ts";
import { finishRun, RunCancelledSignal, RunTimeoutSignal } from "../live-runs/run-registry.ts";
import { LeaseLostError, type RunWriter } from "./run-writer.ts";
import { unheldRunWriter } from "./unheld-run-writer.ts";
import { recordRequiredApproval, recordRunEndOnApprovals } from "./run-approvals.ts";
import { emptyMetrics, type RunOutput, type RunRequirement, type RunStatus, type ToolExecution } from "./run-output.ts";
import { checkpoint, emit, emitFinal, emitFinalEvents, now, type RunState } from "./run-state.ts";
import { stampTraceContext } from "./run-trace.ts";

/**
 * How the run's rows are written: its own writer (a durable job's fenced writer, a
 * continuation's), else as a run no worker holds — a write refused because a cancel is recorded
 * for the run (through any replica) throws RunCancelledSignal, and the run ends CANCELLED.
 */
function writerOf(state: RunState): RunWriter {
  return state.writer ?? unheldRunWriter(state.db, { runId: state.output.run_id, pausedJob: false });
}

/** Stores the run's cost with its metrics: its tokens at its model's price (none for a model the table has no price for). */
function priceRun(state: RunState): void {
  const { output } = state;
  output.metrics ??= emptyMetrics();
  const cost = runCost(output, state.agent.prices);
  if (cost === undefined) delete output.metrics.cost;
  else output.metrics.cost = cost;
}

/**
 * Records the run's end. `withSession`: the session's metrics and state are updated too — with
 * the end in one transaction when the writer can (and the session is unchanged since the run
 * read it), else right after it. `retryable`: an ERROR that another attempt might not meet (a
 * durable run's writer then queues the run again while attempts remain).
 */
export async function persist(state: RunState, status: RunStatus, { withSession = false, retryable = false }: { withSession?: boolean; retryable?: boolean } = {}): Promise<void> {
  const { output } = state;
  output.status = status;
  // The end is recorded even for an output another writer stored without metrics.
  output.metrics ??= emptyMetrics();
  output.metrics.duration = (performance.now() - state.startedAt) / 1000;
  priceRun(state);
  const session = withSession
    ? sessionUpdate(state.db, { scope: state.scope, sessionId: output.session_id, metrics: sessionMetricsOf(output), sessionState: output.session_state ?? undefined, known: state.sessionVersion })
    : undefined;
  const settled = await writerOf(state).finish(state.scope, rowOf(state), { retryable: status === "ERROR" && retryable }, session);
  // Queued again for another attempt: the run is PENDING, as stored.
  if (settled === "queued") output.status = "PENDING";
  // Tried against the row as read: whether or not it applied, that version is spent (a fallback reads the row again).
  if (session) state.sessionVersion = undefined;
  if (withSession && !session?.applied) await recordSessionMetrics(state);
  if (status !== "PAUSED") await recordRunEndOnApprovals(state);
}

/** What a run adds to its session's metrics. */
function sessionMetricsOf(output: RunOutput) {
  const metrics = output.metrics;
  return {
    input_tokens: metrics.input_tokens,
    output_tokens: metrics.output_tokens,
    total_tokens: metrics.total_tokens,
    cache_read_tokens: metrics.cache_read_tokens,
    cache_write_tokens: metrics.cache_write_tokens,
    reasoning_tokens: metrics.reasoning_tokens,
    cost: metrics.cost,
  };
}

/** Writes the run's current (non-final) state through its writer. */
export async function storeRun(state: RunState): Promise<void> {
  await writerOf(state).write(state.scope, rowOf(state));
}

/**
 * The run's agno_runs row. A team run's member runs are rows of their own; its `member_responses`
 * are stored nested only with `storeMemberResponses` (as in Agno) — a paused member's always, for
 * the team's continue.
 */
export function runRow(output: RunOutput, { storeMemberResponses = false }: { storeMemberResponses?: boolean } = {}) {
  const members = output.member_responses;
  const kept = !members || storeMemberResponses ? members : members.filter((m) => m.status === "PAUSED");
  return {
    runId: output.run_id,
    sessionId: output.session_id,
    ...(output.workflow_id
      ? { runType: "workflow" as const, workflowId: output.workflow_id }
      : output.team_id
        ? { runType: "team" as const, teamId: output.team_id }
        : { runType: "agent" as const, agentId: output.agent_id }),
    parentRunId: output.parent_run_id ?? null,
    status: output.status,
    runData: (output.workflow_id ? workflowRunData(output) : kept === members ? output : { ...output, member_responses: kept }) as unknown as Record<string, unknown>,
    createdAt: output.created_at,
  };
}

/** A workflow run as Agno's WorkflowRunOutput stores it: no messages, tools or model of its own. */
function workflowRunData(output: RunOutput) {
  const { messages: _m, tools: _t, model: _model, model_provider: _p, ...rest } = output;
  return rest;
}

/** The row of the run a state holds, with its team's storage settings. */
function rowOf(state: RunState) {
  return runRow(state.output, { storeMemberResponses: state.agent.team?.definition.storeMemberResponses });
}

export async function pause(state: RunState, pending: ToolExecution[]): Promise<RunOutput> {
  const { output } = state;
  // As Agno does, a pause waits for the run's memory and learning extraction first.
  await awaitBackgroundWork(state);
  checkpoint(state);
  const members = state.memberRequirements ?? [];
  state.memberRequirements = [];
  output.requirements = [
    ...members,
    ...pending.map(
      (execution): RunRequirement => ({
        id: execution.tool_call_id,
        tool_execution: execution,
        created_at: now(),
        ...(execution.requires_confirmation ? { confirmation: null, confirmation_note: null } : {}),
        ...(execution.requires_user_input ? { user_input_schema: execution.user_input_schema ?? [] } : {}),
        ...(execution.external_execution_required ? { external_execution_result: null } : {}),
      }),
    ),
  ];
  if (members.length > 0 && (output.content === null || output.content === "")) {
    output.content = `Team run paused. The following require input:\n${members.map((r) => `- ${r.member_agent_name}: ${r.tool_execution.tool_name} ${r.tool_execution.requires_confirmation ? "requires confirmation" : r.tool_execution.requires_user_input ? "requires user input" : "requires external execution"}`).join("\n")}`;
  }
  output.tools.push(...pending.filter((p) => !output.tools.some((t) => t.tool_call_id === p.tool_call_id)));
  // Before RunPaused and the stored run: both carry the approval's id.
  await recordRequiredApproval(state, pending);
  await recordSessionMetrics(state);
  emit(state, "RunPaused", { tools: pending.length > 0 ? pending : output.tools, requirements: output.requirements, content: output.content });
  finishRun(state.live, "PAUSED");
  stampTraceContext(state.trace, output);
  // PAUSED is stored last: it is what lets a continue claim the run, and by then this run's
  // events and streams are finished, so a continuation can never interleave with them.
  await persist(state, "PAUSED");
  return output;
}

export async function complete(state: RunState): Promise<RunOutput> {
  const { output } = state;
  output.requirements = null;
  emit(state, "RunContentCompleted");
  // Memory and learning extraction ran beside the model; the run ends once they have.
  await awaitBackgroundWork(state);
  checkpoint(state);
  output.metrics.duration = (performance.now() - state.startedAt) / 1000;
  priceRun(state);
  await emitFinal(state, "RunCompleted", completedEventFields(output), () => persist(state, "COMPLETED", { withSession: true }));
  finishRun(state.live, "COMPLETED");
  return output;
}

/** An agent's or team's RunCompleted: the run's answer, metrics, state (a team's, its members' runs). */
function completedEventFields(output: RunOutput): Record<string, unknown> {
  return {
    content: output.content,
    content_type: output.content_type,
    metrics: output.metrics,
    session_state: output.session_state,
    metadata: output.metadata,
    tools: output.tools.length > 0 ? output.tools : null,
    ...(output.team_id ? { member_responses: output.member_responses ?? [] } : {}),
  };
}

/**
 * A cancelled run's last two events, as Agno sends them for a cancel: RunCancelled (the reason,
 * and the run's content), then RunCompleted with what the run has (its answer so far, else the
 * reason) — the one end sentinel every stream has. The run itself is stored CANCELLED.
 */
async function endCancelled(state: RunState, reason: string): Promise<void> {
  const { output } = state;
  output.error = { message: reason, error_type: "run_cancelled" };
  // A workflow's content is the reason; an agent's or team's, its answer so far if it has one.
  if (output.workflow_id) output.content = reason;
  else if (output.content === null || output.content === undefined || output.content === "") output.content = state.streamedContent || reason;
  output.metrics.duration = (performance.now() - state.startedAt) / 1000;
  priceRun(state);
  const completed = output.workflow_id
    ? { content: output.content, content_type: output.content_type, step_results: output.step_results, metadata: output.metadata, metrics: output.metrics }
    : completedEventFields(output);
  await emitFinalEvents(
    state,
    [
      ["RunCancelled", { reason, content: output.content }],
      ["RunCompleted", completed],
    ],
    () => persist(state, "CANCELLED"),
  );
}

export async function recordSessionMetrics(state: RunState): Promise<void> {
  priceRun(state);
  const recorded = await addSessionMetrics(state.db, {
    scope: state.scope,
    sessionId: state.output.session_id,
    metrics: sessionMetricsOf(state.output),
    sessionState: state.output.session_state ?? undefined,
    known: state.sessionVersion,
  });
  // Whatever happened, the row has moved on (or is not what was read): a later update reads it again.
  state.sessionVersion = undefined;
  // False: the session is gone, or its session_data is not an object (written by something else),
  // which is left as it is rather than overwritten; the run itself is stored either way.
  if (!recorded) {
    log.warn(`[run ${state.output.run_id}] session ${state.output.session_id}: token counts and session_state not added to the session (it is gone, or its session_data is not a JSON object)`);
  }
}

/** CANCELLED for a cancel request, ERROR (with a classified provider error) for anything else. */
export async function settleFailure(state: RunState, error: unknown): Promise<RunOutput> {
  const { output } = state;
  // Nothing will await its memory or learning extraction now: stop it.
  abandonBackgroundWork(state);
  const reason: unknown = state.live.controller.signal.aborted ? state.live.controller.signal.reason : error;
  const cancelled = error instanceof RunCancelledSignal || reason instanceof RunCancelledSignal;
  // A worker that lost its lease has nothing left to write: another claim owns the run now.
  if (error instanceof LeaseLostError || reason instanceof LeaseLostError) {
    finishRun(state.live, "RUNNING");
    return output;
  }
  try {
    if (cancelled) {
      await endCancelled(state, error instanceof Error ? error.message : "Run cancelled");
      finishRun(state.live, "CANCELLED");
      return output;
    }
    if (reason instanceof RunTimeoutSignal) error = reason;
    const classified = ModelProviderError.classify(error);
    const providerFailure = error instanceof ModelProviderError || classified.kind !== "unknown";
    const errorId = randomUUID();
    // Provider failures are the user's to see; anything else is ours: a generic message and an id to find it in the log.
    const timedOut = error instanceof RunTimeoutSignal;
    const message = timedOut ? (error as RunTimeoutSignal).message : providerFailure ? classified.message : `Internal error while running the agent (error_id ${errorId})`;
    const errorType = timedOut ? "run_timeout_error" : providerFailure ? classified.errorType : "run_error";
    // Whether another attempt might pass: a provider failure says (rate limits, 5xx, the network);
    // an internal error may; a timeout would most likely use all of timeoutSeconds again.
    const retryable = timedOut ? false : providerFailure ? classified.retryable : true;
    if (!providerFailure && !timedOut) log.error(`[run ${output.run_id}] [error ${errorId}] ${(error as Error)?.stack ?? String(error)}`);
    output.error = { message, error_type: errorType };
    output.content = message;
    if (state.writer?.retries({ retryable })) {
      // A durable run queued again for another attempt is not over: no final event; followers
      // keep waiting and see the next attempt's events.
      await persist(state, "ERROR", { retryable });
      finishRun(state.live, "PENDING");
      return output;
    }
    await emitFinal(state, "RunError", { content: message, error_type: errorType, ...(output.workflow_id ? { error: message } : {}) }, () => persist(state, "ERROR", { retryable }));
    finishRun(state.live, "ERROR");
    return output;
  } catch (persistError) {
    // A durable run's end is refused when a cancel was recorded meanwhile: it ends CANCELLED.
    if (persistError instanceof RunCancelledSignal && !cancelled) return settleFailure(state, persistError);
    if (persistError instanceof LeaseLostError) {
      // Another claim owns the run now: it is theirs to end.
      finishRun(state.live, "RUNNING");
      return output;
    }
    log.error(`[run ${output.run_id}] could not record the run's end: ${(persistError as Error).message}`);
    output.status = cancelled ? "CANCELLED" : "ERROR";
    finishRun(state.live, output.status);
    return output;
  }
}
