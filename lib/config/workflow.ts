import { AgentDefinitionSchema, ConfigError, TeamDefinitionSchema, type AgentDefinition, type TeamDefinition } from "./define.ts";

/**
 * Workflows as `agentry.config.ts` declares them: `defineWorkflow({ name, steps })` (keyword
 * only), steps built with `step`, `steps`, `loop`, `parallel`, `condition` and `router` — or given
 * bare: an agent, a team or a function becomes a step of its own. Human review is one
 * `humanReview: { ... }` object per step (Agno's HumanReview, camel-cased); the flat options it
 * replaced are refused naming it. lib/runtime/workflow/ runs them.
 */

/** A field a person fills in before a step runs (Agno's UserInputField). */
export interface UserInputFieldSpec {
  name: string;
  fieldType?: "str" | "int" | "float" | "bool" | "list" | "dict";
  description?: string;
  required?: boolean;
  allowedValues?: unknown[];
}

/** Agno's StepOutput, as steps pass it along and runs store it. */
export interface StepOutput {
  content: unknown;
  step_name: string;
  step_id: string | null;
  step_type: string;
  executor_type: string | null;
  executor_name: string | null;
  step_run_id: string | null;
  images?: unknown[] | null;
  videos?: unknown[] | null;
  audio?: unknown[] | null;
  files?: unknown[] | null;
  metrics: Record<string, unknown> | null;
  success: boolean;
  error: string | null;
  stop: boolean;
  is_paused: boolean;
  steps?: StepOutput[];
}

/** Agno's StepInput: what a step gets, with its helpers. */
export interface StepInput {
  /** The workflow's input (the run's message). */
  input: unknown;
  /** The last step's (deepest) content, or null for the first step. */
  previous_step_content: unknown;
  /** Every earlier top-level step's output, by step name. */
  previous_step_outputs: Record<string, StepOutput>;
  /** Extra data: a person's `user_input` for this step, a reviewer's feedback on a retry. */
  additional_data: Record<string, unknown>;
  /** The workflow session's state, one object shared by every step of the run (changes are kept). */
  session_state: Record<string, unknown>;
  /** A step's content by name (searched in nested steps too). */
  getStepContent(name: string): unknown;
  /** The last step's content, looked up through containers. */
  getLastStepContent(): unknown;
  /** Every earlier step's content as "=== name ===\ncontent", blank-line separated. */
  getAllPreviousContent(): string;
}

/** What a function step returns: a StepOutput's fields (`content`, `stop`, `success`, ...), or any other value as its content. */
export type StepResult = Partial<StepOutput> | string | number | boolean | Record<string, unknown> | unknown[] | null | undefined;

export interface StepContext {
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  runId: string;
  sessionId: string;
  userId: string | null;
}

export type StepFunction = (input: StepInput, ctx: StepContext) => StepResult | Promise<StepResult>;

/** Agno's HumanReview: how a step waits for a person. Which fields apply depends on the step (see each builder). */
export interface HumanReview {
  requiresConfirmation?: boolean;
  confirmationMessage?: string;
  requiresUserInput?: boolean;
  userInputMessage?: string;
  userInputSchema?: UserInputFieldSpec[];
  /** Router: the person may choose several routes. */
  allowMultipleSelections?: boolean;
  /** After the step ran: a person approves, edits or rejects its output (a function decides per output). */
  requiresOutputReview?: boolean | ((output: StepOutput) => boolean);
  outputReviewMessage?: string;
  /** Loop: a person reviews each iteration's output. */
  requiresIterationReview?: boolean;
  iterationReviewMessage?: string;
  /** What a rejection does: skip the step, cancel the run (the default), take the else branch (Condition), or retry it. */
  onReject?: "skip" | "cancel" | "else" | "retry";
  /** What a failed step does: fail the run, skip it, or pause for a person. */
  onError?: "fail" | "skip" | "pause";
  /** Retries a rejection with `retry` allows. */
  maxRetries?: number;
  /** Seconds a person has; checked when the run is continued. */
  timeout?: number;
  /** What a continue after the timeout does: cancel, skip the step, or approve it. */
  onTimeout?: "cancel" | "skip" | "approve";
}

export interface StepDef {
  type: "Step";
  name: string;
  description?: string;
  agent?: AgentDefinition;
  team?: TeamDefinition;
  executor?: StepFunction;
  /** Retries of a step that throws (default 3). */
  maxRetries?: number;
  skipOnFailure?: boolean;
  humanReview?: HumanReview;
}
export interface StepsDef {
  type: "Steps";
  name: string;
  description?: string;
  steps: WorkflowStep[];
  humanReview?: HumanReview;
}
export interface LoopDef {
  type: "Loop";
  name: string;
  description?: string;
  steps: WorkflowStep[];
  /** Iterations at most (default 3). */
  maxIterations?: number;
  /** Ends the loop after an iteration when it returns true (given the iteration's outputs). */
  endCondition?: (outputs: StepOutput[]) => boolean | Promise<boolean>;
  /** The next iteration gets the last output as its input. */
  forwardIterationOutput?: boolean;
  humanReview?: HumanReview;
}
export interface ParallelDef {
  type: "Parallel";
  name: string;
  description?: string;
  steps: WorkflowStep[];
}
export interface ConditionDef {
  type: "Condition";
  name: string;
  description?: string;
  evaluator: boolean | ((input: StepInput) => boolean | Promise<boolean>);
  steps: WorkflowStep[];
  elseSteps?: WorkflowStep[];
  humanReview?: HumanReview;
}
export interface RouterDef {
  type: "Router";
  name: string;
  description?: string;
  choices: WorkflowStep[];
  /** Picks the route(s) by name (or returns the steps); without one, a person selects (`humanReview.requiresUserInput`). */
  selector?: (input: StepInput) => string | string[] | WorkflowStep | WorkflowStep[] | Promise<string | string[] | WorkflowStep | WorkflowStep[]>;
  humanReview?: HumanReview;
}
export type WorkflowStep = StepDef | StepsDef | LoopDef | ParallelDef | ConditionDef | RouterDef;

export interface WorkflowDefinition {
  id: string;
  name: string;
  description?: string;
  steps: WorkflowStep[];
  /** A JSON schema the run's message (JSON) must satisfy; reported by GET /workflows/{id}. */
  inputSchema?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Keep the run's events with it (default false, as Agno's store_events; durable runs keep them anyway). */
  storeEvents?: boolean;
  /** Forward the step agents' and teams' events in the workflow's stream (default true). */
  streamExecutorEvents?: boolean;
}

/** What a step may be given as: a built step, or an agent, a team or a function of its own. */
export type StepLike = WorkflowStep | AgentDefinition | TeamDefinition | StepFunction;

const REMOVED_FLAT_OPTIONS: Record<string, string> = {
  requiresConfirmation: "humanReview: { requiresConfirmation }",
  confirmationMessage: "humanReview: { confirmationMessage }",
  onReject: "humanReview: { onReject }",
  requiresUserInput: "humanReview: { requiresUserInput }",
  userInputMessage: "humanReview: { userInputMessage }",
  userInputSchema: "humanReview: { userInputSchema }",
  requiresOutputReview: "humanReview: { requiresOutputReview }",
  outputReviewMessage: "humanReview: { outputReviewMessage }",
  requiresIterationReview: "humanReview: { requiresIterationReview }",
  iterationReviewMessage: "humanReview: { iterationReviewMessage }",
  onError: "humanReview: { onError }",
  hitlMaxRetries: "humanReview: { maxRetries }",
  hitlTimeout: "humanReview: { timeout }",
  onTimeout: "humanReview: { onTimeout }",
};
const RENAMED_REVIEW_FIELDS: Record<string, string> = { hitlMaxRetries: "maxRetries", hitlTimeout: "timeout" };
const REVIEW_FIELDS = new Set([
  "requiresConfirmation",
  "confirmationMessage",
  "requiresUserInput",
  "userInputMessage",
  "userInputSchema",
  "allowMultipleSelections",
  "requiresOutputReview",
  "outputReviewMessage",
  "requiresIterationReview",
  "iterationReviewMessage",
  "onReject",
  "onError",
  "maxRetries",
  "timeout",
  "onTimeout",
]);
/** The review flags each kind of step supports (as Agno's validators). */
const SUPPORTED: Record<WorkflowStep["type"], string[]> = {
  Step: ["requiresConfirmation", "requiresUserInput", "requiresOutputReview"],
  Steps: ["requiresConfirmation"],
  Loop: ["requiresConfirmation", "requiresIterationReview"],
  Parallel: [],
  Condition: ["requiresConfirmation"],
  Router: ["requiresConfirmation", "requiresUserInput", "requiresOutputReview"],
};
const FLAGS = ["requiresConfirmation", "requiresUserInput", "requiresOutputReview", "requiresIterationReview"] as const;

function refuseFlatOptions(kind: string, name: string, options: Record<string, unknown>): void {
  for (const [old, replacement] of Object.entries(REMOVED_FLAT_OPTIONS)) {
    if (old in options) throw new ConfigError(`${kind} '${name}': option '${old}' was removed in v3; use ${replacement}`);
  }
}

function checkReview(kind: WorkflowStep["type"], name: string, review: HumanReview | undefined): HumanReview | undefined {
  if (review === undefined) return undefined;
  if (!review || typeof review !== "object") throw new ConfigError(`${kind} '${name}': humanReview must be an object`);
  for (const key of Object.keys(review)) {
    if (RENAMED_REVIEW_FIELDS[key]) throw new ConfigError(`${kind} '${name}': humanReview.${key} was renamed in v3; use humanReview.${RENAMED_REVIEW_FIELDS[key]}`);
    if (!REVIEW_FIELDS.has(key)) throw new ConfigError(`${kind} '${name}': humanReview has no option '${key}'`);
  }
  for (const flag of FLAGS) {
    if (review[flag] && !SUPPORTED[kind].includes(flag)) {
      throw new ConfigError(
        `${kind} '${name}': humanReview.${flag} is not supported on ${kind}.${SUPPORTED[kind].length ? ` Supported: ${SUPPORTED[kind].join(", ")}.` : " It takes no human review."}`,
      );
    }
  }
  if (review.requiresOutputReview && review.requiresIterationReview) throw new ConfigError(`${kind} '${name}': humanReview cannot ask for both an output review and an iteration review`);
  if (review.onReject === "else" && kind !== "Condition") throw new ConfigError(`${kind} '${name}': humanReview.onReject "else" applies to a Condition only`);
  if (review.onReject !== undefined && !["skip", "cancel", "else", "retry"].includes(review.onReject))
    throw new ConfigError(`${kind} '${name}': humanReview.onReject must be skip, cancel, else or retry`);
  if (review.onError !== undefined && !["fail", "skip", "pause"].includes(review.onError)) throw new ConfigError(`${kind} '${name}': humanReview.onError must be fail, skip or pause`);
  if (review.onTimeout !== undefined && !["cancel", "skip", "approve"].includes(review.onTimeout)) throw new ConfigError(`${kind} '${name}': humanReview.onTimeout must be cancel, skip or approve`);
  if (review.maxRetries !== undefined && (!Number.isInteger(review.maxRetries) || review.maxRetries < 0)) throw new ConfigError(`${kind} '${name}': humanReview.maxRetries must be a whole number ≥ 0`);
  if (review.timeout !== undefined && !(typeof review.timeout === "number" && review.timeout > 0)) throw new ConfigError(`${kind} '${name}': humanReview.timeout must be a number of seconds > 0`);
  for (const field of review.userInputSchema ?? []) {
    if (!field || typeof field.name !== "string" || !field.name) throw new ConfigError(`${kind} '${name}': every humanReview.userInputSchema field needs a name`);
    if (field.fieldType && !["str", "int", "float", "bool", "list", "dict"].includes(field.fieldType)) {
      throw new ConfigError(`${kind} '${name}': userInputSchema field '${field.name}' has fieldType '${field.fieldType}'; use str, int, float, bool, list or dict`);
    }
  }
  return review;
}

const isTeam = (value: object): value is TeamDefinition => "members" in value;
const isAgent = (value: object): value is AgentDefinition => "model" in value && "id" in value && !("members" in value) && !("type" in value);
const isStep = (value: object): value is WorkflowStep => "type" in value && typeof (value as { type: unknown }).type === "string" && (value as { type: string }).type in SUPPORTED;

/** A step from what the user gave: a built step as it is; an agent, a team or a function wrapped in a Step. */
export function toStep(value: StepLike, where: string): WorkflowStep {
  if (typeof value === "function") {
    if (!value.name) throw new ConfigError(`${where}: a function step needs a name (use step({ name, executor }))`);
    return { type: "Step", name: value.name, description: "User-defined callable step", executor: value };
  }
  if (!value || typeof value !== "object") throw new ConfigError(`${where}: a step must be a step, an agent, a team or a function`);
  if (isStep(value)) return value;
  if (isTeam(value)) return { type: "Step", name: value.name, description: value.description, team: TeamDefinitionSchema.parse(value) };
  if (isAgent(value)) return { type: "Step", name: value.name, description: value.description, agent: AgentDefinitionSchema.parse(value) };
  throw new ConfigError(`${where}: a step must be a step, an agent, a team or a function`);
}

const stepList = (values: StepLike[] | undefined, where: string): WorkflowStep[] => {
  if (!Array.isArray(values)) throw new ConfigError(`${where}: steps must be a list`);
  return values.map((v, i) => toStep(v, `${where}, step ${i + 1}`));
};

type Options<T extends WorkflowStep> = Omit<T, "type" | "steps" | "choices" | "elseSteps"> & Record<string, unknown>;

/** A step running an agent, a team or a function. Human review: confirmation, user input, output review. */
export function step(options: Options<StepDef> & { agent?: AgentDefinition; team?: TeamDefinition; executor?: StepFunction }): StepDef {
  const name = options.name ?? options.agent?.name ?? options.team?.name ?? options.executor?.name;
  if (!name) throw new ConfigError("A step needs a name");
  refuseFlatOptions("Step", name, options);
  const executors = [options.agent, options.team, options.executor].filter((e) => e !== undefined);
  if (executors.length !== 1) throw new ConfigError(`Step '${name}' must have one executor: agent, team or executor`);
  if (options.maxRetries !== undefined && (!Number.isInteger(options.maxRetries) || options.maxRetries < 0)) throw new ConfigError(`Step '${name}': maxRetries must be a whole number ≥ 0`);
  return {
    type: "Step",
    name,
    description: options.description,
    ...(options.agent ? { agent: AgentDefinitionSchema.parse(options.agent) } : {}),
    ...(options.team ? { team: TeamDefinitionSchema.parse(options.team) } : {}),
    ...(options.executor ? { executor: options.executor } : {}),
    maxRetries: options.maxRetries,
    skipOnFailure: options.skipOnFailure,
    humanReview: checkReview("Step", name, options.humanReview),
  };
}

/** Steps run one after another. Human review: confirmation. */
export function steps(options: Options<StepsDef> & { steps: StepLike[] }): StepsDef {
  refuseFlatOptions("Steps", options.name, options);
  return {
    type: "Steps",
    name: options.name,
    description: options.description,
    steps: stepList(options.steps, `Steps '${options.name}'`),
    humanReview: checkReview("Steps", options.name, options.humanReview),
  };
}

/** Steps run again until `endCondition` says so or `maxIterations` (default 3). Human review: confirmation, iteration review. */
export function loop(options: Options<LoopDef> & { steps: StepLike[] }): LoopDef {
  refuseFlatOptions("Loop", options.name, options);
  if (options.maxIterations !== undefined && (!Number.isInteger(options.maxIterations) || options.maxIterations < 1))
    throw new ConfigError(`Loop '${options.name}': maxIterations must be a whole number ≥ 1`);
  return {
    type: "Loop",
    name: options.name,
    description: options.description,
    steps: stepList(options.steps, `Loop '${options.name}'`),
    maxIterations: options.maxIterations,
    endCondition: options.endCondition,
    forwardIterationOutput: options.forwardIterationOutput,
    humanReview: checkReview("Loop", options.name, options.humanReview),
  };
}

/** Steps run at once; their outputs are combined. No human review. */
export function parallel(options: Options<ParallelDef> & { steps: StepLike[] }): ParallelDef {
  refuseFlatOptions("Parallel", options.name, options);
  if ("humanReview" in options) checkReview("Parallel", options.name, options.humanReview as HumanReview);
  return { type: "Parallel", name: options.name, description: options.description, steps: stepList(options.steps, `Parallel '${options.name}'`) };
}

/** `steps` when `evaluator` holds, else `elseSteps` (if any). Human review: confirmation (a rejection takes the else branch by default). */
export function condition(options: Options<ConditionDef> & { steps: StepLike[]; elseSteps?: StepLike[] }): ConditionDef {
  refuseFlatOptions("Condition", options.name, options);
  if (typeof options.evaluator !== "boolean" && typeof options.evaluator !== "function") throw new ConfigError(`Condition '${options.name}': evaluator must be a boolean or a function`);
  return {
    type: "Condition",
    name: options.name,
    description: options.description,
    evaluator: options.evaluator,
    steps: stepList(options.steps, `Condition '${options.name}'`),
    ...(options.elseSteps ? { elseSteps: stepList(options.elseSteps, `Condition '${options.name}' (else)`) } : {}),
    humanReview: checkReview("Condition", options.name, options.humanReview),
  };
}

/** One of `choices`, picked by `selector` or by a person. Human review: confirmation, user input (the route), output review. */
export function router(options: Options<RouterDef> & { choices: StepLike[] }): RouterDef {
  refuseFlatOptions("Router", options.name, options);
  const review = checkReview("Router", options.name, options.humanReview);
  if (!options.selector && !review?.requiresUserInput) throw new ConfigError(`Router '${options.name}' needs a selector, or humanReview.requiresUserInput so a person selects the route`);
  return { type: "Router", name: options.name, description: options.description, choices: stepList(options.choices, `Router '${options.name}'`), selector: options.selector, humanReview: review };
}

/** Agno's id from a name: lower-cased, spaces and underscores as dashes. */
const slugOf = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-")
    .replace(/[^a-z0-9.-]/g, "") || "workflow";

/**
 * Declares a workflow: `defineWorkflow({ name, steps, id?, description?, inputSchema? })`. Keyword
 * only (Agno v3): any other call is a ConfigError naming the fix. Step names are unique at each level.
 */
export function defineWorkflow(definition: Omit<WorkflowDefinition, "id" | "steps"> & { id?: string; steps: StepLike[] }, ...positional: unknown[]): WorkflowDefinition {
  if (!definition || typeof definition !== "object" || Array.isArray(definition) || positional.length > 0) {
    throw new ConfigError("defineWorkflow takes one object: defineWorkflow({ name, steps: [...] }) (positional arguments were removed in v3)");
  }
  const { name } = definition;
  if (typeof name !== "string" || !name) throw new ConfigError("defineWorkflow needs a name: defineWorkflow({ name, steps: [...] })");
  const id = definition.id ?? slugOf(name);
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(id)) throw new ConfigError(`Workflow '${name}': id '${id}' must be letters, digits, '.', '_' or '-'`);
  const known = new Set(["id", "name", "description", "steps", "inputSchema", "metadata", "storeEvents", "streamExecutorEvents"]);
  for (const key of Object.keys(definition)) if (!known.has(key)) throw new ConfigError(`Workflow '${id}': unknown option '${key}'`);
  const built = stepList(definition.steps, `Workflow '${id}'`);
  if (built.length === 0) throw new ConfigError(`Workflow '${id}' needs at least one step`);
  checkNames(built, `Workflow '${id}'`);
  return { ...definition, id, steps: built } as WorkflowDefinition;
}

function checkNames(list: WorkflowStep[], where: string): void {
  const names = list.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new ConfigError(`${where}: two steps are named '${twice}' (step names must be unique: outputs are passed on by name)`);
  for (const s of list) {
    if (s.type === "Step") continue;
    const children = s.type === "Router" ? s.choices : s.type === "Condition" ? [...s.steps, ...(s.elseSteps ?? [])] : s.steps;
    checkNames(s.type === "Condition" ? s.steps : children, `${s.type} '${s.name}'`);
    if (s.type === "Condition" && s.elseSteps) checkNames(s.elseSteps, `${s.type} '${s.name}' (else)`);
  }
}
