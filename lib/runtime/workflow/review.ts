import type { LoopDef, StepDef, StepOutput, WorkflowStep } from "../../config/workflow.ts";
import type { Db } from "../../db/open-database.ts";
import { getRun, transitionRunStatus } from "../../db/runs/runs.ts";
import type { DataScope } from "../../db/scope.ts";
import type { StartedRun } from "../agent-run.ts";
import { componentOf, isRunOf, type RuntimeAgent } from "../agents.ts";
import { continueAgentRun } from "../continue-run.ts";
import { ContinueError } from "../paused-run.ts";
import { clearCancel, finishRun, registerRun } from "../../live-runs/run-registry.ts";
import type { Resolution, RunOutput, RunRequirement } from "../run-output.ts";
import { persist, settleFailure } from "../run-settle.ts";
import type { RunWriter } from "../run-writer.ts";
import { checkpoint, emitFinal, newRunState, type RunState } from "../run-state.ts";
import { continuationTrace, storedTraceContext, traceRun } from "../run-trace.ts";
import { executorOutput, followExecutor, pauseForExecutor, runFrom, type Exec, type StepRequirement } from "./engine.ts";

/**
 * Continuing a paused workflow run with a person's decisions (Agno's continue_run): the
 * `step_requirements` sent replace the run's; the last one is the one waited on. A timeout past
 * is applied first (`on_timeout`); then a confirmation decides whether the step runs, a rejection
 * does what `on_reject` says (skip the step, cancel the run, take a Condition's else branch, retry
 * an output review's step up to `max_retries`), a person's input and route selection reach the
 * step, an approved (or edited) output is kept, and a paused agent's requirements continue its run.
 */

export interface ContinueWorkflowRequest {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  runId: string;
  sessionId: string;
  /** The requirements as the person answered them (Agno's StepRequirement dicts); none: the run's own. */
  stepRequirements: StepRequirement[] | null;
  claim: () => Promise<boolean>;
  stream?: boolean;
  writer?: RunWriter;
  beforeStart?: () => Promise<void>;
  /** Builds the engine's view of the run (lib/runtime/workflow/workflow-runtime.ts). */
  exec: (state: RunState) => Exec;
}

const NOT_PAUSED: Record<string, string> = {
  PENDING: "run is already pending",
  RUNNING: "run is already running",
  COMPLETED: "run is already completed",
  ERROR: "run has errored",
  CANCELLED: "run is already cancelled",
};

const isDict = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Why the waited-on requirement cannot be continued yet (400), or null. */
function unresolved(requirement: StepRequirement): string | null {
  const name = String(requirement.step_name ?? requirement.step_id);
  if ((requirement.requires_confirmation || requirement.requires_output_review) && typeof requirement.confirmed !== "boolean") {
    return `Cannot continue run - step '${name}' needs confirmed: true or false`;
  }
  if (requirement.requires_user_input && requirement.confirmed !== false) {
    const values = isDict(requirement.user_input) ? requirement.user_input : {};
    const schema = Array.isArray(requirement.user_input_schema) ? (requirement.user_input_schema as Record<string, unknown>[]) : [];
    for (const field of schema) {
      const value = values[String(field.name)] ?? field.value;
      if (field.required !== false && (value === undefined || value === null || value === "")) return `Invalid user_input for step '${name}': required field '${field.name}' is missing or empty`;
      const problem = value === undefined || value === null ? null : typeProblem(String(field.field_type ?? "str"), value);
      if (problem) return `Invalid user_input for step '${name}': field '${field.name}' ${problem}`;
      if (Array.isArray(field.allowed_values) && value !== undefined && !field.allowed_values.includes(value)) {
        return `Invalid user_input for step '${name}': field '${field.name}' must be one of ${field.allowed_values.map(String).join(", ")}`;
      }
    }
    if (schema.length === 0 && Object.keys(values).length === 0) return `Cannot continue run - step '${name}' needs user_input`;
  }
  if (requirement.requires_route_selection && requirement.confirmed !== false) {
    const chosen = requirement.selected_choices;
    if (!Array.isArray(chosen) || chosen.length === 0)
      return `Cannot continue run - step '${name}' needs selected_choices (one of ${(requirement.available_choices as string[] | undefined)?.join(", ") ?? "its routes"})`;
    if (!requirement.allow_multiple_selections && chosen.length > 1) return `Cannot continue run - step '${name}' takes one route, got ${chosen.length}`;
  }
  return null;
}

function typeProblem(type: string, value: unknown): string | null {
  switch (type) {
    case "int":
      return typeof value === "number" && Number.isInteger(value) ? null : "must be an integer";
    case "float":
      return typeof value === "number" ? null : "must be a number";
    case "bool":
      return typeof value === "boolean" ? null : "must be true or false";
    case "list":
      return Array.isArray(value) ? null : "must be a list";
    case "dict":
      return isDict(value) ? null : "must be an object";
    default:
      return typeof value === "string" ? null : "must be a string";
  }
}

/** The decisions for a paused agent's requirements, as its continue takes them. */
function executorResolutions(requirement: StepRequirement): Resolution[] {
  const list = Array.isArray(requirement.executor_requirements) ? (requirement.executor_requirements as RunRequirement[]) : [];
  return list.map((r) => {
    const execution = r.tool_execution ?? ({} as RunRequirement["tool_execution"]);
    const confirmed = typeof r.confirmation === "boolean" ? r.confirmation : execution.confirmed;
    const values = Object.fromEntries((r.user_input_schema ?? execution.user_input_schema ?? []).map((f) => [f.name, f.value]));
    return {
      tool_call_id: execution.tool_call_id,
      confirmed: typeof confirmed === "boolean" ? confirmed : null,
      confirmation_note: r.confirmation_note ?? execution.confirmation_note ?? null,
      user_input: values,
      external_result: r.external_execution_result ?? execution.result,
    };
  });
}

/**
 * Continues a PAUSED workflow run as the same run id. Everything that can refuse it does before
 * the PAUSED → RUNNING claim (a 400 for an unanswered requirement, 404, 409), so a refused
 * continue leaves the run paused.
 */
export async function continueWorkflowRun(request: ContinueWorkflowRequest): Promise<StartedRun> {
  const { db, agent, scope, runId, sessionId } = request;
  const stored = await getRun(db, { scope, runId, sessionId });
  if (!stored || !isRunOf(stored, componentOf(agent))) throw new ContinueError("Run not found", 404);
  if (stored.status !== "PAUSED") throw new ContinueError(NOT_PAUSED[stored.status ?? ""] ?? `run is not paused (status=${stored.status})`, 409);
  const output = { ...(stored.run_data as unknown as RunOutput) };
  const requirements = request.stepRequirements ?? (output.step_requirements as StepRequirement[] | null) ?? [];
  const active = requirements[requirements.length - 1];
  const index = output.paused_step_index;
  const step = typeof index === "number" ? agent.workflow!.definition.steps[index] : undefined;
  if (!active || !isDict(active) || typeof active.step_id !== "string") throw new ContinueError("Invalid structure or content for step_requirements: each needs its step_id", 400);
  if (!step) throw new ContinueError(`Run ${runId} cannot be continued: it records no paused step this workflow has`, 409);
  // A decision after the deadline is the timeout's (checked only now, as in Agno).
  if (typeof active.timeout_at === "string" && Date.now() >= Date.parse(active.timeout_at.replace(/Z?$/, "Z"))) {
    const onTimeout = active.on_timeout ?? "cancel";
    if (onTimeout === "approve") active.confirmed = true;
    else {
      active.confirmed = false;
      active.on_reject = onTimeout === "skip" ? "skip" : "cancel";
    }
  }
  const executorPause = active.requires_executor_input === true;
  const problem = executorPause ? null : unresolved(active);
  if (problem) throw new ContinueError(problem, 400);
  const executorRun = executorPause ? (output.step_executor_runs ?? []).find((r) => r.run_id === active.executor_run_id) : undefined;
  if (executorPause && !executorRun) throw new ContinueError(`Run ${runId} cannot be continued: its paused step's agent run ${String(active.executor_run_id)} is not recorded`, 409);
  if (!(await request.claim())) throw new ContinueError(`Run ${runId} is no longer PAUSED (already continued?)`, 409);
  clearCancel(runId);
  output.status = "RUNNING";
  output.step_requirements = requirements;
  const live = registerRun({ runId, sessionId, componentType: "workflow", componentId: agent.definition.id, userId: output.user_id });
  const firstEventIndex = live.nextIndex;
  const state = newRunState({ db, agent, scope, live, output, stream: request.stream, writer: request.writer, startedAt: performance.now() - (output.metrics?.duration ?? 0) * 1000 });
  const exec = request.exec(state);
  exec.collected = [...((output.step_results ?? []) as unknown as StepOutput[])];
  // The continuation is a second root span of the paused run's trace.
  const done = traceRun(state, { step_requirements: requirements }, continuationTrace(storedTraceContext(output)), async () => {
    try {
      await request.beforeStart?.();
      checkpoint(state);
      return await decide(exec, step, index!, active, executorRun, executorPause);
    } catch (error) {
      return await settleFailure(state, error);
    }
  });
  return { runId, sessionId, live, firstEventIndex, done };
}

/** Ends the run CANCELLED because a person rejected a step (Agno's cancellation_stage "paused"). */
async function cancelByReview(exec: Exec, content: string): Promise<RunOutput> {
  const { state } = exec;
  const { output } = state;
  output.content = content;
  output.cancellation_stage = "paused";
  output.error = { message: content, error_type: "run_cancelled" };
  await emitFinal(state, "RunCancelled", { reason: content, content }, () => persist(state, "CANCELLED", { withSession: true }));
  finishRun(state.live, "CANCELLED");
  return output;
}

async function decide(exec: Exec, step: WorkflowStep, index: number, active: StepRequirement, executorRun: RunOutput | undefined, executorPause: boolean): Promise<RunOutput> {
  const name = step.name;
  if (executorPause) {
    // The step's agent (or team) continues its own run with the person's decisions; its answer is the step's output.
    const started = await continueAgentRun({
      db: exec.state.db,
      agent: exec.executorFor(step as StepDef),
      scope: exec.state.scope,
      runId: executorRun!.run_id,
      sessionId: exec.state.output.session_id,
      resolutions: executorResolutions(active),
      claim: () => transitionRunStatus(exec.state.db, { scope: exec.state.scope, runId: executorRun!.run_id, sessionId: exec.state.output.session_id, from: "PAUSED", to: "RUNNING" }),
      stream: exec.state.stream,
      signal: exec.state.live.controller.signal,
    });
    const run = await followExecutor(exec, started, { step_id: active.step_id, step_name: name, step_index: index });
    const output = executorOutput(exec, step as StepDef, run, String(active.step_id));
    if (output.is_paused) return pauseForExecutor(exec, index, step, output as StepOutput & { pausedRun: RunOutput });
    exec.collected.push(output);
    return runFrom(exec, { index: index + 1 });
  }
  const retryCount = Number(active.retry_count ?? 0);
  const maxRetries = Number(active.max_retries ?? 3);
  if (active.is_post_execution) {
    const reviewed = exec.collected[exec.collected.length - 1];
    if (active.confirmed === true) {
      // Approved (or edited): the output stands; an edit replaces its content.
      if (reviewed && active.edited_output !== undefined && active.edited_output !== null) reviewed.content = active.edited_output;
      return runFrom(exec, { index: index + 1 });
    }
    const onReject = String(active.on_reject ?? "cancel");
    if (onReject === "retry") {
      if (retryCount >= maxRetries) return cancelByReview(exec, `Max retries (${maxRetries}) reached for step '${name}'`);
      exec.collected.pop();
      const feedback = typeof active.rejection_feedback === "string" ? active.rejection_feedback : null;
      if (step.type === "Loop") {
        const iterations = ((reviewed as unknown as { steps?: StepOutput[] })?.steps ?? []) as StepOutput[];
        return runFrom(exec, { index, skipReview: true, feedback, retryCount: retryCount + 1, loopResults: loopIterations(step, iterations) });
      }
      return runFrom(exec, {
        index,
        skipReview: true,
        feedback,
        previousOutput: reviewed ? String(typeof reviewed.content === "string" ? reviewed.content : JSON.stringify(reviewed.content)) : null,
        retryCount: retryCount + 1,
      });
    }
    if (onReject === "skip") {
      exec.collected.pop();
      return runFrom(exec, { index: index + 1 });
    }
    return cancelByReview(exec, `Workflow cancelled: Step '${name}' was rejected`);
  }
  if (active.confirmed === false) {
    const onReject = String(active.on_reject ?? "cancel");
    if (onReject === "skip") return runFrom(exec, { index: index + 1 });
    if (onReject === "else") {
      if (step.type === "Condition") return runFrom(exec, { index, skipReview: true, forceElse: true });
      return runFrom(exec, { index: index + 1 });
    }
    if (onReject === "retry") {
      if (retryCount >= maxRetries) return cancelByReview(exec, `Max retries (${maxRetries}) reached for step '${name}'`);
      // Asked again: the step pauses anew.
      return runFrom(exec, { index });
    }
    return cancelByReview(exec, `Workflow cancelled: Step '${name}' was rejected`);
  }
  const userInput = isDict(active.user_input) ? active.user_input : null;
  const selected = Array.isArray(active.selected_choices) ? (active.selected_choices as string[]) : null;
  return runFrom(exec, { index, skipReview: true, userInput, selectedChoices: selected });
}

/** A loop's output's flattened steps back in iterations (each iteration has as many outputs as the loop has steps, or fewer when one stopped it). */
function loopIterations(step: LoopDef, flat: StepOutput[]): StepOutput[][] {
  const size = Math.max(1, step.steps.length);
  const out: StepOutput[][] = [];
  for (let i = 0; i < flat.length; i += size) out.push(flat.slice(i, i + size));
  return out;
}
