import type { Db } from "../db/open-database.ts";
import { getRun } from "../db/runs/runs.ts";
import type { DataScope } from "../db/scope.ts";
import { prepare, type StartedRun } from "./agent-run.ts";
import { componentOf, isRunOf, type RuntimeAgent } from "./agents.ts";
import type { RetryPolicy } from "./model-step.ts";
import { clearCancel, registerRun } from "../live-runs/run-registry.ts";
import type { Resolution, RunRequirement, ToolExecution } from "./run-output.ts";
import { loop, runTools } from "./run-loop.ts";
import { complete, pause, settleFailure } from "./run-settle.ts";
import { checkpoint, emit, newRunState, now } from "./run-state.ts";
import { ContinueError, pausedRunOutput } from "./paused-run.ts";
import { applyApprovals, recordAuditApprovals, refuseWhilePendingInWorkflow, resolveByContinue, type Approver } from "./run-approvals.ts";
import type { RunWriter } from "./run-writer.ts";
import { continuationTrace, storedTraceContext, traceRun } from "./run-trace.ts";

export type { Resolution } from "./run-output.ts";

/** What continuing a paused run takes. */
export interface ContinueRunRequest {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  runId: string;
  sessionId: string;
  resolutions: Resolution[];
  /** Moves the run PAUSED → RUNNING; false when it was not paused (or another continue won). */
  claim: () => Promise<boolean>;
  retry?: RetryPolicy;
  stream?: boolean;
  /** How the continuation's rows are written; default: as a run no worker holds. */
  writer?: RunWriter;
  /** Runs once the continuation is registered, before it starts (e.g. reads a recorded cancel). */
  beforeStart?: () => Promise<void>;
  /** Aborting it aborts the continuation with its reason (a team member's run, when its team run ends). */
  signal?: AbortSignal;
  /** A workflow run: the step requirements as the person answered them (null: as stored). */
  stepRequirements?: Record<string, unknown>[] | null;
  /** The caller, for the run's required approvals (lib/runtime/run-approvals.ts); none: an internal continue (a team's member). */
  approver?: Approver;
}

/**
 * Continues a PAUSED run with the human decisions for its requirements, as the same run id:
 * confirmed tools run, rejected ones tell the model so, user input is merged into the arguments,
 * external results are used as given. The PAUSED → RUNNING move is a compare-and-set, so a second
 * continue of the same run gets 409. The continuation is registered (from then on a cancel here
 * aborts it) before `beforeStart` runs, and starts only after it: a cancel it finds recorded
 * stops the continuation before its first tool or model call.
 */
export async function continueAgentRun(request: ContinueRunRequest): Promise<StartedRun> {
  const { db, agent, scope, runId, sessionId, claim, retry, stream, writer, beforeStart, signal, approver } = request;
  // A workflow run continues through its step engine (lib/runtime/workflow/review.ts); a step
  // agent's required approval blocks it as it blocks the agent's own continue.
  if (agent.workflow) {
    if (approver && !approver.mayApprove) await refuseWhilePendingInWorkflow(db, { scope, runId, sessionId });
    return agent.workflow.continue({ db, agent, scope, runId, sessionId, stepRequirements: request.stepRequirements ?? null, claim, stream, writer, beforeStart });
  }
  const stored = await getRun(db, { scope, runId, sessionId });
  if (!stored || !isRunOf(stored, componentOf(agent))) throw new ContinueError("Run not found", 404);
  if (stored.status !== "PAUSED") throw new ContinueError(`Run ${runId} is ${stored.status}, not PAUSED: only a paused run can be continued`, 409);
  // Checked and completed before the claim: a run that cannot be continued stays PAUSED.
  const output = pausedRunOutput(stored, agent);
  const pending = output.requirements ?? [];
  // A required approval decides its calls (or blocks the continue) before anything is claimed.
  const approvals = await applyApprovals({ db, runId }, pending, request.resolutions, approver);
  const resolutions = approvals.resolutions;
  // A team run's requirements of its paused members are continued in the members' own runs.
  const forMembers = pending.filter((r) => r.member_run_id);
  const resolved = resolveRequirements(pending, resolutions).filter((_, i) => !pending[i]!.member_run_id);
  if (forMembers.length > 0 && !agent.team) throw new ContinueError(`Run ${runId} has requirements of team members, but ${agent.definition.id} is not a team`, 409);
  if (!(await claim())) throw new ContinueError(`Run ${runId} is no longer PAUSED (already continued?)`, 409);
  // A cancel recorded while the run sat paused does not carry over into the continuation.
  clearCancel(runId);
  output.status = "RUNNING";
  const live = registerRun({ runId, sessionId, componentType: componentOf(agent).type, componentId: agent.definition.id, userId: output.user_id });
  const firstEventIndex = live.nextIndex;
  if (signal) {
    const abort = () => live.controller.abort(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  }
  const state = newRunState({ db, agent, scope, live, output, retry, stream, writer, startedAt: performance.now() - (output.metrics.duration ?? 0) * 1000 });
  // From the claim on, whatever fails ends the run (ERROR, with the error recorded): it is never left RUNNING.
  // A person's continue: a second root span of the paused run's trace; a team's member: under the team's continuation.
  const done = traceRun(state, { continued: resolved.map((r) => r.tool_call_id) }, continuationTrace(storedTraceContext(output)), async () => {
    try {
      output.requirements = null;
      output.tools = output.tools.filter((t) => !resolved.some((r) => r.tool_call_id === t.tool_call_id));
      await beforeStart?.();
      await resolveByContinue(db, approvals, resolved, approver);
      await recordAuditApprovals(state, resolved, approver?.userId ?? output.user_id ?? null);
      checkpoint(state);
      await prepare(state);
      emit(state, "RunContinued", { tools: resolved });
      if (forMembers.length > 0) {
        const members = await agent.team!.continueMembers(state, forMembers, resolutions);
        // A member still waiting keeps the team paused (with the member's new requirements).
        if (state.memberRequirements?.length) return await pause(state, []);
        output.messages.push({
          role: "user",
          content: `Previously delegated tasks have been completed.${members.map((m) => `\nResults from '${m.name}':\n${m.answer}`).join("\n")}`,
          created_at: now(),
        });
      }
      const toolsByName = new Map(state.tools.map((t) => [t.name, t]));
      const stop = await runTools(state, resolved, toolsByName);
      if (stop === "stop") {
        output.content = output.tools[output.tools.length - 1]?.result ?? null;
        return await complete(state);
      }
      return await loop(state);
    } catch (error) {
      return await settleFailure(state, error);
    }
  });
  return { runId, sessionId, live, firstEventIndex, done };
}

/**
 * Each requirement's tool call with the person's decision applied, in order; a requirement
 * without the decision it needs is a ContinueError (400) naming it, before anything is claimed.
 */
export function resolveRequirements(pending: readonly RunRequirement[], resolutions: readonly Resolution[]): ToolExecution[] {
  const byId = new Map(resolutions.map((r) => [r.tool_call_id, r]));
  const resolved: ToolExecution[] = [];
  for (const requirement of pending) {
    const execution = requirement.tool_execution;
    const decision = byId.get(execution.tool_call_id);
    const next = { ...execution };
    if (execution.requires_confirmation) {
      if (typeof decision?.confirmed !== "boolean") throw new ContinueError(`Requirement ${requirement.id} (${execution.tool_name}) needs confirmed: true or false`, 400);
      next.confirmed = decision.confirmed;
      next.confirmation_note = decision.confirmation_note ?? null;
    }
    if (execution.requires_user_input) {
      const values = decision?.user_input ?? {};
      const missing = (execution.user_input_schema ?? []).filter((f) => values[f.name] === undefined || values[f.name] === null).map((f) => f.name);
      if (missing.length > 0) throw new ContinueError(`Requirement ${requirement.id} (${execution.tool_name}) needs user input for: ${missing.join(", ")}`, 400);
      next.user_input_schema = (execution.user_input_schema ?? []).map((f) => ({ ...f, value: values[f.name] }));
      next.answered = true;
    }
    if (execution.external_execution_required) {
      if (decision?.external_result === undefined) throw new ContinueError(`Requirement ${requirement.id} (${execution.tool_name}) needs the external execution's result`, 400);
      next.result = decision.external_result;
    }
    resolved.push(next);
  }
  return resolved;
}
