import { randomUUID } from "node:crypto";
import type { ConditionDef, HumanReview, LoopDef, RouterDef, StepDef, StepInput, StepOutput, WorkflowDefinition, WorkflowStep } from "../../config/workflow.ts";
import { startChildRun } from "../agent-run.ts";
import type { RuntimeAgent } from "../agents.ts";
import type { RunEvent } from "../../live-runs/events.ts";
import { eventsAfter, finishRun, subscribe } from "../../live-runs/run-registry.ts";
import type { RunOutput } from "../run-output.ts";
import { persist, recordSessionMetrics } from "../run-settle.ts";
import { checkpoint, emit, emitFinal, emitNamed, forward, type RunState } from "../run-state.ts";
import { endStepSpan, failSpan, spanClock, stampTraceContext, startStepSpan, withSpan } from "../run-trace.ts";
import { asText, deepestContent, fromFunctionResult, parallelContent, stepInput, stepOutput } from "./step-io.ts";

/**
 * Runs a workflow's steps for one run: top-level steps in order, each given Agno's StepInput
 * (the run's input, the previous step's content, every earlier output by name, the session state
 * shared by all steps); containers (Steps, Loop, Parallel, Condition, Router) run their children.
 * A step's agent or team runs as its own run in the workflow's session (`parent_run_id` the
 * workflow run), its events forwarded into the workflow's stream; its output is kept in
 * `step_executor_runs`. Human review applies to top-level steps: before one runs (confirmation,
 * user input, route selection) and after (output review, a loop's iteration review) the run
 * pauses with a step requirement (./review.ts continues it).
 */

export interface Exec {
  state: RunState;
  definition: WorkflowDefinition;
  /** The runtime agent (or team) a step's definition runs as. */
  executorFor(step: StepDef): RuntimeAgent;
  input: string;
  /** Top-level outputs so far (the run's step_results). */
  collected: StepOutput[];
}

/** Where a top-level step resumes after a person's decision (./review.ts). */
export interface Resume {
  index: number;
  /** The step runs without asking again. */
  skipReview?: boolean;
  /** A person's input for the step (`additional_data.user_input`). */
  userInput?: Record<string, unknown> | null;
  /** Routes a person selected (Router). */
  selectedChoices?: string[] | null;
  /** A retry after a rejection: the reviewer's feedback and the output it rejected. */
  feedback?: string | null;
  previousOutput?: string | null;
  retryCount?: number;
  /** Condition: run the else branch (a rejection with on_reject "else"). */
  forceElse?: boolean;
  /** Loop: iterations already reviewed and kept, to go on after. */
  loopResults?: StepOutput[][];
}

/** A step requirement: Agno's StepRequirement dict. */
export type StepRequirement = Record<string, unknown>;

const reviewOf = (step: WorkflowStep): HumanReview => ("humanReview" in step ? (step.humanReview ?? {}) : {});

/** The StepInput of the top-level step after `collected`. */
function topInput(exec: Exec, additional: Record<string, unknown> = {}): StepInput {
  const previous = Object.fromEntries(exec.collected.map((o) => [o.step_name, o]));
  return stepInput({
    input: exec.input,
    previous_step_content: exec.collected.length > 0 ? deepestContent(exec.collected[exec.collected.length - 1]) : null,
    previous_step_outputs: previous,
    additional_data: additional,
    session_state: (exec.state.output.session_state ??= {}),
  });
}

/** The same input, after `output` (a container passing one child's output to the next). */
function chained(input: StepInput, output: StepOutput): StepInput {
  return stepInput({
    ...input,
    previous_step_content: deepestContent(output),
    previous_step_outputs: { ...input.previous_step_outputs, [output.step_name]: output },
  });
}

/** Runs the top-level steps from `resume.index` (or the first) to the end or a pause. */
export async function runFrom(exec: Exec, resume: Resume = { index: 0 }): Promise<RunOutput> {
  const { state, definition } = exec;
  for (let i = resume.index; i < definition.steps.length; i++) {
    checkpoint(state);
    const step = definition.steps[i]!;
    const resumed = i === resume.index ? resume : undefined;
    const review = reviewOf(step);
    if (!resumed?.skipReview) {
      const before = beforeRequirement(step, i, review, exec);
      if (before) return pauseAt(exec, i, step, before, "step");
    }
    const additional: Record<string, unknown> = {};
    if (resumed?.userInput) additional.user_input = resumed.userInput;
    if (resumed?.feedback) additional.feedback = resumed.feedback;
    if (resumed?.previousOutput) additional.previous_output = resumed.previousOutput;
    const input = topInput(exec, additional);
    let output: StepOutput;
    try {
      output = await executeStep(exec, step, input, i, null, { resume: resumed, reviewIterations: !!review.requiresIterationReview });
    } catch (error) {
      checkpoint(state);
      const onError = review.onError ?? "fail";
      if (onError !== "skip") throw error;
      output = stepOutput({ step_name: step.name, step_type: step.type, content: `Step skipped due to error: ${(error as Error).message}`, success: false, error: (error as Error).message });
    }
    checkpoint(state);
    // A step that failed without throwing (its agent's run ended in ERROR): the step's onError decides.
    if (!output.success && (review.onError ?? "fail") === "fail" && !(step.type === "Step" && step.skipOnFailure)) throw new Error(output.error ?? `Step ${step.name} reported failure`);
    if (output.is_paused && output.executor_type && (output as StepOutput & { pausedRun?: RunOutput }).pausedRun) {
      return pauseForExecutor(exec, i, step, output as StepOutput & { pausedRun: RunOutput });
    }
    const iteration = (output as StepOutput & { iterationReview?: number }).iterationReview;
    if (iteration !== undefined) {
      exec.collected.push(output);
      return pauseAt(exec, i, step, iterationRequirement(step as LoopDef, i, iteration, output, resumed), "step", "StepOutputReview");
    }
    if (wantsOutputReview(review, output)) {
      exec.collected.push(output);
      return pauseAt(exec, i, step, outputReviewRequirement(step, i, review, output, resumed), "step", "StepOutputReview");
    }
    exec.collected.push(output);
    recordMetrics(exec, output);
    if (output.stop) break;
  }
  return completeWorkflow(exec);
}

function wantsOutputReview(review: HumanReview, output: StepOutput): boolean {
  if (!review.requiresOutputReview) return false;
  if (typeof review.requiresOutputReview !== "function") return true;
  try {
    return review.requiresOutputReview(output) === true;
  } catch {
    return false;
  }
}

/** The requirement a top-level step waits on before it runs, or null. */
function beforeRequirement(step: WorkflowStep, index: number, review: HumanReview, exec: Exec): StepRequirement | null {
  const common = baseRequirement(step, index, review);
  if (review.requiresConfirmation) {
    const message =
      review.confirmationMessage ??
      (step.type === "Loop"
        ? `Execute loop '${step.name}'?`
        : step.type === "Steps"
          ? `Execute steps pipeline '${step.name}'?`
          : step.type === "Condition"
            ? `Execute condition '${step.name}'? (yes=if branch, no=else branch)`
            : step.type === "Router"
              ? `Execute router '${step.name}' with selected steps?`
              : `Execute step '${step.name}'?`);
    return { ...common, requires_confirmation: true, confirmation_message: message };
  }
  if (step.type === "Step" && review.requiresUserInput) {
    return {
      ...common,
      requires_user_input: true,
      user_input_message: review.userInputMessage ?? `Please provide input for step '${step.name}'`,
      user_input_schema: (review.userInputSchema ?? []).map((f) => ({
        name: f.name,
        field_type: f.fieldType ?? "str",
        description: f.description ?? null,
        value: null,
        required: f.required ?? true,
        ...(f.allowedValues ? { allowed_values: f.allowedValues } : {}),
      })),
    };
  }
  if (step.type === "Router" && review.requiresUserInput) {
    const names = step.choices.map((c) => c.name);
    return {
      ...common,
      requires_route_selection: true,
      available_choices: names,
      allow_multiple_selections: !!review.allowMultipleSelections,
      user_input_message: review.userInputMessage ?? `Select a route from: ${names.join(", ")}`,
    };
  }
  void exec;
  return null;
}

/** Every StepRequirement field, Agno's defaults, for a step at `index`. */
export function baseRequirement(step: WorkflowStep, index: number, review: HumanReview): StepRequirement {
  return {
    step_id: randomUUID(),
    step_name: step.name,
    step_index: index,
    step_type: step.type,
    requires_confirmation: false,
    confirmation_message: null,
    confirmed: null,
    on_reject: review.onReject ?? (step.type === "Condition" ? "else" : "cancel"),
    requires_user_input: false,
    user_input_message: null,
    user_input: null,
    requires_route_selection: false,
    available_choices: null,
    allow_multiple_selections: false,
    selected_choices: null,
    requires_output_review: false,
    output_review_message: null,
    is_post_execution: false,
    rejection_feedback: null,
    retry_count: 0,
    max_retries: review.maxRetries ?? 3,
    timeout_at: review.timeout ? new Date(Date.now() + review.timeout * 1000).toISOString() : null,
    on_timeout: review.onTimeout ?? "cancel",
  };
}

function outputReviewRequirement(step: WorkflowStep, index: number, review: HumanReview, output: StepOutput, resumed?: Resume): StepRequirement {
  const message = review.outputReviewMessage ?? `Review output of step '${step.name}'?`;
  return {
    ...baseRequirement(step, index, review),
    requires_confirmation: true,
    confirmation_message: message,
    requires_output_review: true,
    output_review_message: message,
    is_post_execution: true,
    retry_count: resumed?.retryCount ?? 0,
    ...(step.type === "Router" ? { available_choices: step.choices.map((c) => c.name) } : {}),
    step_output: output,
  };
}

function iterationRequirement(step: LoopDef, index: number, iteration: number, output: StepOutput, resumed?: Resume): StepRequirement {
  const review = step.humanReview ?? {};
  const message = review.iterationReviewMessage ?? `Review iteration ${iteration} of loop '${step.name}'?`;
  return {
    ...baseRequirement(step, index, review),
    requires_confirmation: true,
    confirmation_message: message,
    requires_output_review: true,
    output_review_message: message,
    is_post_execution: true,
    retry_count: resumed?.retryCount ?? 0,
    step_output: output,
  };
}

/** Pauses the run at top-level step `index` with `requirement` (appended to the run's requirements; the last one is the one waited on). */
async function pauseAt(exec: Exec, index: number, step: WorkflowStep, requirement: StepRequirement, kind: "step" | "executor", event?: "StepOutputReview" | "StepExecutorPaused"): Promise<RunOutput> {
  const { state } = exec;
  const { output } = state;
  output.step_requirements = [...(output.step_requirements ?? []), requirement];
  output.paused_step_index = index;
  output.paused_step_name = step.name;
  output.pause_kind = kind;
  output.step_results = exec.collected as unknown as Record<string, unknown>[];
  const base = { step_name: step.name, step_index: index, step_id: requirement.step_id };
  if (event === "StepOutputReview") {
    emitNamed(state, "StepOutputReview", { ...base, output_review_message: requirement.output_review_message, requires_output_review: true });
  } else if (requirement.requires_route_selection) {
    emitNamed(state, "RouterPaused", {
      ...base,
      available_choices: requirement.available_choices,
      user_input_message: requirement.user_input_message,
      allow_multiple_selections: requirement.allow_multiple_selections,
    });
  } else if (kind === "step") {
    emitNamed(state, "StepPaused", {
      ...base,
      requires_confirmation: requirement.requires_confirmation,
      confirmation_message: requirement.confirmation_message,
      requires_user_input: requirement.requires_user_input,
      user_input_message: requirement.user_input_message,
      user_input_schema: requirement.user_input_schema ?? [],
    });
  }
  output.content = output.content ?? null;
  emit(state, "RunPaused", {
    status: "PAUSED",
    paused_step_index: index,
    paused_step_name: step.name,
    pause_kind: kind,
    step_requirements: output.step_requirements,
    step_results: output.step_results,
    step_executor_runs: output.step_executor_runs ?? [],
    content: output.content,
    metadata: output.metadata,
  });
  finishRun(state.live, "PAUSED");
  stampTraceContext(state.trace, output);
  await persist(state, "PAUSED");
  await recordSessionMetrics(state);
  return output;
}

/** A top-level step whose agent or team paused for a person: the run pauses with an executor requirement. */
export async function pauseForExecutor(exec: Exec, index: number, step: WorkflowStep, output: StepOutput & { pausedRun: RunOutput }): Promise<RunOutput> {
  const run = output.pausedRun;
  const requirement: StepRequirement = {
    ...baseRequirement(step, index, reviewOf(step)),
    step_id: output.step_id,
    requires_executor_input: true,
    executor_requirements: run.requirements ?? [],
    executor_id: run.agent_id ?? run.team_id ?? null,
    executor_name: run.agent_name ?? run.team_name ?? null,
    executor_run_id: run.run_id,
    executor_type: output.executor_type,
    executor_session_id: run.session_id,
  };
  emitNamed(exec.state, "StepExecutorPaused", {
    step_name: step.name,
    step_index: index,
    step_id: output.step_id,
    executor_id: requirement.executor_id,
    executor_name: requirement.executor_name,
    executor_run_id: run.run_id,
    executor_type: output.executor_type,
    executor_requirements: requirement.executor_requirements,
  });
  return pauseAt(exec, index, step, requirement, "executor");
}

/** Workflow metrics: each agent or team step's run metrics, by step name (Agno's WorkflowMetrics.steps). */
function recordMetrics(exec: Exec, output: StepOutput): void {
  const metrics = exec.state.output.metrics as unknown as { steps?: Record<string, unknown> };
  const visit = (o: StepOutput) => {
    if ((o.executor_type === "agent" || o.executor_type === "team") && o.metrics) {
      (metrics.steps ??= {})[o.step_name] = { step_name: o.step_name, executor_type: o.executor_type, executor_name: o.executor_name, metrics: o.metrics };
    }
    for (const child of o.steps ?? []) visit(child);
  };
  visit(output);
}

/** Ends the run COMPLETED: its content is the last step's (deepest) content. */
export async function completeWorkflow(exec: Exec): Promise<RunOutput> {
  const { state } = exec;
  const { output } = state;
  const last = exec.collected[exec.collected.length - 1];
  output.content = last ? deepestContent(last) : "No steps executed";
  output.content_type = typeof output.content === "string" ? "str" : "dict";
  output.step_results = exec.collected as unknown as Record<string, unknown>[];
  output.paused_step_index = null;
  output.paused_step_name = null;
  output.pause_kind = null;
  output.metrics.duration = (performance.now() - state.startedAt) / 1000;
  await emitFinal(
    state,
    "RunCompleted",
    {
      content: output.content,
      content_type: output.content_type,
      step_results: output.step_results,
      step_executor_runs: output.step_executor_runs ?? [],
      metadata: output.metadata,
      metrics: output.metrics,
    },
    () => persist(state, "COMPLETED", { withSession: true }),
  );
  finishRun(state.live, "COMPLETED");
  return output;
}

interface StepOptions {
  resume?: Resume;
  /** A top-level Loop with iteration review: stop after each iteration for a person. */
  reviewIterations?: boolean;
}

type Index = number | number[];

/** Runs one step (of any kind) in its span (`<step>.run`, CHAIN) and returns its output. */
export async function executeStep(exec: Exec, step: WorkflowStep, input: StepInput, index: Index, parentStepId: string | null, options: StepOptions = {}): Promise<StepOutput> {
  checkpoint(exec.state);
  const span = startStepSpan(step.name, step.type, input.input);
  try {
    const output = await withSpan(span, () => dispatchStep(exec, step, input, index, parentStepId, options));
    endStepSpan(span, output);
    return output;
  } catch (error) {
    failSpan(span, error);
    span.end(spanClock());
    throw error;
  }
}

function dispatchStep(exec: Exec, step: WorkflowStep, input: StepInput, index: Index, parentStepId: string | null, options: StepOptions): Promise<StepOutput> {
  switch (step.type) {
    case "Step":
      return runStep(exec, step, input, index, parentStepId, options.resume);
    case "Steps":
      return runSequence(exec, step.name, "Steps", step.steps, input, index, parentStepId, "StepsExecutionStarted", "StepsExecutionCompleted");
    case "Loop":
      return runLoop(exec, step, input, index, parentStepId, options);
    case "Parallel":
      return runParallel(exec, step.name, step.steps, input, index, parentStepId);
    case "Condition":
      return runCondition(exec, step, input, index, parentStepId, options.resume?.forceElse ?? false);
    case "Router":
      return runRouter(exec, step, input, index, parentStepId, options.resume?.selectedChoices ?? null);
  }
}

const childIndex = (index: Index, i: number): Index => [...(Array.isArray(index) ? index : [index]), i];

/** The fields every event of a step carries. */
const eventBase = (name: string, index: Index, stepId: string, parentStepId: string | null) => ({
  step_name: name,
  step_index: index,
  step_id: stepId,
  ...(parentStepId ? { parent_step_id: parentStepId } : {}),
});

/** A container's output: its children's results, succeeding when all do, stopping or paused when one does. */
function containerOutput(fields: Partial<StepOutput> & { step_name: string; step_id: string; step_type: string; content: unknown }, results: StepOutput[]): StepOutput {
  return stepOutput({
    ...fields,
    success: results.every((r) => r.success),
    stop: results.some((r) => r.stop),
    is_paused: results.some((r) => r.is_paused),
    // Sequences, loops and parallels always list their results; a condition or router that ran nothing lists none.
    steps: results.length > 0 || fields.step_type === "Steps" || fields.step_type === "Loop" || fields.step_type === "Parallel" ? results : undefined,
  });
}

/** Children one after another, each given the previous one's output; stops at a child that asks to stop or pauses. */
async function runChildren(exec: Exec, children: WorkflowStep[], input: StepInput, index: Index, parentStepId: string): Promise<StepOutput[]> {
  const results: StepOutput[] = [];
  let current = input;
  for (const [i, child] of children.entries()) {
    const output = await executeStep(exec, child, current, childIndex(index, i), parentStepId);
    results.push(output);
    if (output.stop || output.is_paused) break;
    current = chained(current, output);
  }
  return results;
}

async function runSequence(
  exec: Exec,
  name: string,
  type: "Steps",
  children: WorkflowStep[],
  input: StepInput,
  index: Index,
  parentStepId: string | null,
  started: "StepsExecutionStarted",
  completed: "StepsExecutionCompleted",
): Promise<StepOutput> {
  const stepId = randomUUID();
  const base = eventBase(name, index, stepId, parentStepId);
  emitNamed(exec.state, started, { ...base, steps_count: children.length });
  const results = await runChildren(exec, children, input, index, stepId);
  emitNamed(exec.state, completed, { ...base, steps_count: children.length, executed_steps: results.length, step_results: results });
  return containerOutput(
    {
      step_name: name,
      step_id: stepId,
      step_type: type,
      content: children.length === 0 ? "No steps to execute" : `Steps ${name} completed with ${results.length} results`,
    },
    results,
  );
}

async function runLoop(exec: Exec, step: LoopDef, input: StepInput, index: Index, parentStepId: string | null, options: StepOptions): Promise<StepOutput> {
  const stepId = randomUUID();
  const max = step.maxIterations ?? 3;
  const base = eventBase(step.name, index, stepId, parentStepId);
  const all: StepOutput[][] = [...(options.resume?.loopResults ?? [])];
  emitNamed(exec.state, "LoopExecutionStarted", { ...base, max_iterations: max });
  let current = input;
  const lastOf = all[all.length - 1];
  if (lastOf && step.forwardIterationOutput) current = chained(current, lastOf[lastOf.length - 1]!);
  let reviewAt: number | undefined;
  while (all.length < max) {
    checkpoint(exec.state);
    const iteration = all.length + 1;
    emitNamed(exec.state, "LoopIterationStarted", { ...base, iteration, max_iterations: max });
    const results = await runChildren(exec, step.steps, current, index, stepId);
    all.push(results);
    let shouldContinue = all.length < max && !results.some((r) => r.stop || r.is_paused);
    if (shouldContinue && step.endCondition && (await step.endCondition(results))) shouldContinue = false;
    emitNamed(exec.state, "LoopIterationCompleted", { ...base, iteration, max_iterations: max, iteration_results: results, should_continue: shouldContinue });
    if (options.reviewIterations) {
      reviewAt = iteration;
      break;
    }
    if (!shouldContinue) break;
    if (step.forwardIterationOutput && results.length > 0) current = chained(current, results[results.length - 1]!);
  }
  emitNamed(exec.state, "LoopExecutionCompleted", { ...base, total_iterations: all.length, max_iterations: max, all_results: all });
  const flat = all.flat();
  const output = containerOutput(
    {
      step_name: step.name,
      step_id: stepId,
      step_type: "Loop",
      content: `Loop ${step.name} completed ${all.length} iterations with ${flat.length} total steps`,
    },
    flat,
  );
  // Transient (never stored): the iteration a person reviews, and the iterations so far.
  if (reviewAt !== undefined) Object.defineProperties(output, { iterationReview: { value: reviewAt }, iterations: { value: all } });
  return output;
}

async function runParallel(exec: Exec, name: string, children: WorkflowStep[], input: StepInput, index: Index, parentStepId: string | null): Promise<StepOutput> {
  const stepId = randomUUID();
  const base = eventBase(name, index, stepId, parentStepId);
  emitNamed(exec.state, "ParallelExecutionStarted", { ...base, parallel_step_count: children.length });
  const results = await Promise.all(
    children.map(async (child, i) => {
      try {
        return await executeStep(exec, child, input, childIndex(index, i), stepId);
      } catch (error) {
        checkpoint(exec.state);
        return stepOutput({ step_name: child.name, step_type: child.type, content: `Step ${child.name} failed: ${(error as Error).message}`, success: false, error: (error as Error).message });
      }
    }),
  );
  emitNamed(exec.state, "ParallelExecutionCompleted", { ...base, parallel_step_count: children.length, step_results: results });
  return containerOutput(
    {
      step_name: name,
      step_id: stepId,
      step_type: "Parallel",
      executor_type: "parallel",
      executor_name: name,
      content: parallelContent(results),
    },
    results,
  );
}

async function runCondition(exec: Exec, step: ConditionDef, input: StepInput, index: Index, parentStepId: string | null, forceElse: boolean): Promise<StepOutput> {
  const stepId = randomUUID();
  const base = eventBase(step.name, index, stepId, parentStepId);
  let result = false;
  if (!forceElse) {
    const evaluated = typeof step.evaluator === "function" ? await step.evaluator(input) : step.evaluator;
    result = evaluated === true;
  }
  emitNamed(exec.state, "ConditionExecutionStarted", { ...base, condition_result: result });
  const branch = result ? "if" : step.elseSteps && step.elseSteps.length > 0 ? "else" : null;
  const children = branch === "if" ? step.steps : branch === "else" ? step.elseSteps! : [];
  const results = branch ? await runChildren(exec, children, input, index, stepId) : [];
  emitNamed(exec.state, "ConditionExecutionCompleted", { ...base, condition_result: result, executed_steps: results.length, branch, step_results: results });
  const content = branch
    ? `Condition ${step.name} completed with ${results.length} results (${branch} branch)`
    : forceElse
      ? `Condition ${step.name} rejected - skipped (no else branch)`
      : `Condition ${step.name} not met - skipped ${step.steps.length} steps`;
  return containerOutput(
    {
      step_name: step.name,
      step_id: stepId,
      step_type: "Condition",
      content,
    },
    results,
  );
}

async function runRouter(exec: Exec, step: RouterDef, input: StepInput, index: Index, parentStepId: string | null, selected: string[] | null): Promise<StepOutput> {
  const stepId = randomUUID();
  const base = eventBase(step.name, index, stepId, parentStepId);
  let chosen: WorkflowStep[];
  if (selected) {
    chosen = selected.flatMap((name) => step.choices.filter((c) => c.name === name));
  } else if (step.selector) {
    const picked = await step.selector(input);
    const list = Array.isArray(picked) ? picked : [picked];
    chosen = list.flatMap((p) => (typeof p === "string" ? step.choices.filter((c) => c.name === p) : p ? [p] : []));
  } else {
    chosen = [];
  }
  const names = chosen.map((c) => c.name);
  emitNamed(exec.state, "RouterExecutionStarted", { ...base, selected_steps: names });
  const results = await runChildren(exec, chosen, input, index, stepId);
  emitNamed(exec.state, "RouterExecutionCompleted", { ...base, selected_steps: names, executed_steps: results.length, step_results: results });
  return containerOutput(
    {
      step_name: step.name,
      step_id: stepId,
      step_type: "Router",
      content:
        chosen.length === 0
          ? selected
            ? `Router ${step.name} completed with 0 results (no valid steps selected)`
            : `Router ${step.name} completed with 0 results (no steps selected)`
          : `Router ${step.name} completed with ${results.length} results`,
    },
    results,
  );
}

/** The message a step's agent or team gets: the last step's content (else the run's input), plus a person's input and feedback. */
function executorMessage(input: StepInput): string {
  const previous = Object.values(input.previous_step_outputs);
  const last = previous[previous.length - 1];
  let message =
    last && last.step_type === "Parallel" ? (last.steps ?? []).map((s) => `=== ${s.step_name} ===\n${asText(s.content)}`).join("\n\n") : last ? asText(deepestContent(last)) : asText(input.input);
  const userInput = input.additional_data.user_input as Record<string, unknown> | undefined;
  if (userInput && Object.keys(userInput).length > 0)
    message += `\n\nUser preferences:\n${Object.entries(userInput)
      .map(([k, v]) => `- ${k}: ${asText(v)}`)
      .join("\n")}`;
  if (typeof input.additional_data.previous_output === "string") message += `\n\nYour previous output:\n${input.additional_data.previous_output}`;
  if (typeof input.additional_data.feedback === "string") message += `\n\nFeedback from reviewer:\n${input.additional_data.feedback}`;
  return message;
}

/** A Step: its agent, team or function, with retries when it throws. */
async function runStep(exec: Exec, step: StepDef, input: StepInput, index: Index, parentStepId: string | null, resume?: Resume): Promise<StepOutput> {
  const { state } = exec;
  const stepId = randomUUID();
  const base = eventBase(step.name, index, stepId, parentStepId);
  if (resume?.skipReview) emitNamed(state, "StepContinued", base);
  emitNamed(state, "StepStarted", base);
  const attempts = (step.maxRetries ?? 3) + 1;
  for (let attempt = 1; ; attempt++) {
    checkpoint(state);
    try {
      const output = step.executor ? await runFunction(exec, step, input, stepId) : await runExecutor(exec, step, input, stepId, index);
      emitNamed(state, "StepCompleted", { ...base, content: output.content, content_type: typeof output.content === "string" ? "str" : "dict", step_response: output });
      return output;
    } catch (error) {
      checkpoint(state);
      if (attempt < attempts) continue;
      const message = (error as Error).message ?? String(error);
      emitNamed(state, "StepError", { ...base, error: message });
      if (step.skipOnFailure) return stepOutput({ step_name: step.name, step_id: stepId, content: `Step ${step.name} failed but skipped`, success: false, error: message });
      throw error;
    }
  }
}

async function runFunction(exec: Exec, step: StepDef, input: StepInput, stepId: string): Promise<StepOutput> {
  const { state } = exec;
  const result = await step.executor!(input, { signal: state.live.controller.signal, runId: state.output.run_id, sessionId: state.output.session_id, userId: state.output.user_id });
  const output = fromFunctionResult(result, { step_name: step.name, step_id: stepId, step_type: "Step", executor_type: "function", executor_name: step.executor!.name || step.name });
  emitNamed(state, "StepOutput", { step_name: step.name, step_id: stepId, step_output: output });
  return output;
}

/** A step's agent or team: its own run in the workflow's session, its events forwarded with the step's context. */
async function runExecutor(exec: Exec, step: StepDef, input: StepInput, stepId: string, index: Index): Promise<StepOutput> {
  const { state } = exec;
  const executor = exec.executorFor(step);
  const started = await startChildRun(state, executor, executorMessage(input));
  const run = await followExecutor(exec, started, { step_id: stepId, step_name: step.name, step_index: index });
  return executorOutput(exec, step, run, stepId);
}

/** Forwards an executor run's events (unless `streamExecutorEvents` is false) and waits for its end. */
export async function followExecutor(
  exec: Exec,
  started: { live: Parameters<typeof eventsAfter>[0]; firstEventIndex: number; done: Promise<RunOutput> },
  context: Record<string, unknown>,
): Promise<RunOutput> {
  const { state } = exec;
  const enrich = (event: RunEvent) =>
    forward(state, { ...event, workflow_id: exec.definition.id, workflow_name: exec.definition.name, workflow_run_id: state.output.run_id, ...context, step_id: event.step_id ?? context.step_id });
  let unsubscribe = () => {};
  if (exec.definition.streamExecutorEvents !== false) {
    for (const event of eventsAfter(started.live, started.firstEventIndex - 1)) enrich(event);
    unsubscribe = subscribe(started.live, { onEvent: enrich, onEnd: () => undefined });
  }
  try {
    return await started.done;
  } finally {
    unsubscribe();
  }
}

/** The StepOutput of an executor run, which is kept in the workflow run's `step_executor_runs`. */
export function executorOutput(exec: Exec, step: StepDef, run: RunOutput, stepId: string): StepOutput {
  run.workflow_step_id = stepId;
  const runs = (exec.state.output.step_executor_runs ??= []);
  const earlier = runs.findIndex((r) => r.run_id === run.run_id);
  if (earlier >= 0) runs[earlier] = run;
  else runs.push(run);
  const failed = run.status === "ERROR" || run.status === "CANCELLED";
  const output = stepOutput({
    step_name: step.name,
    step_id: stepId,
    step_type: "Step",
    executor_type: step.team ? "team" : "agent",
    executor_name: run.agent_name ?? run.team_name ?? null,
    content: run.content ?? null,
    step_run_id: run.run_id,
    metrics: run.metrics as unknown as Record<string, unknown>,
    success: !failed,
    error: failed ? (run.error?.message ?? String(run.content ?? "failed")) : null,
    is_paused: run.status === "PAUSED",
  });
  // Transient (never stored): the paused executor run a person's decision continues.
  if (run.status === "PAUSED") Object.defineProperty(output, "pausedRun", { value: run });
  return output;
}
