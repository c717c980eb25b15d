// Pure (no server imports): the editors' state and the component config it reads from and writes to.
// A config's keys an editor does not manage are kept as they were saved (a config written through
// the API or by Agno survives an edit in the dashboard).

type Config = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const obj = (value: unknown): Config | null => (value && typeof value === "object" && !Array.isArray(value) ? (value as Config) : null);

/** A model as a select's value: `<provider>:<id>` ("" for none). */
export function modelKey(value: unknown): string {
  if (typeof value === "string") return value;
  const model = obj(value);
  if (!model || typeof model.id !== "string") return "";
  return typeof model.provider === "string" && model.provider ? `${model.provider}:${model.id}` : model.id;
}

/** A select's model value back as the config's model dict (the saved value when unchanged, so its other keys stay). */
function modelValue(key: string, saved: unknown): unknown {
  if (!key) return undefined;
  if (modelKey(saved) === key) return saved;
  const at = key.indexOf(":");
  return at > 0 ? { provider: key.slice(0, at), id: key.slice(at + 1) } : { id: key };
}

/** Instructions as one text: a list's entries one per line. */
function instructionsText(value: unknown): string {
  if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join("\n");
  return str(value);
}

/** The text back as the config's instructions: the saved list when the text is unchanged, else the text (none when empty). */
function instructionsValue(text: string, saved: unknown): unknown {
  if (instructionsText(saved) === text) return saved ?? undefined;
  return text.trim() ? text : undefined;
}

/** A config with `key` set to `value`, or without it when `value` is undefined. */
function withKey(config: Config, key: string, value: unknown): Config {
  const next = { ...config };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next;
}

/** One tool the agent is given: a function of a toolkit, and whether each call waits for the user's confirmation. */
export interface ToolPick {
  toolkit: string | null;
  name: string;
  confirm: boolean;
  /** The saved entry (its other keys are kept). */
  raw?: Config;
}

export type LearningChoice = "off" | "on" | "custom" | `name:${string}`;

export interface AgentFormState {
  name: string;
  description: string;
  model: string;
  instructions: string;
  tools: ToolPick[];
  knowledge: string;
  learning: LearningChoice;
  addHistory: boolean;
  numHistoryRuns: string;
  outputMode: "none" | "schema" | "json";
  outputSchemaName: string;
  outputSchemaJson: string;
}

function learningChoice(value: unknown): LearningChoice {
  if (value === true) return "on";
  if (value === false || value === null || value === undefined) return "off";
  const o = obj(value);
  if (o && Object.keys(o).length === 1 && typeof o.name === "string" && o.name) return `name:${o.name}`;
  return "custom";
}

function learningValue(choice: LearningChoice, saved: unknown): unknown {
  if (choice === "off") return undefined;
  if (choice === "on") return true;
  if (choice === "custom") return saved;
  return { name: choice.slice("name:".length) };
}

export function agentFormState(config: Config): AgentFormState {
  const schema = config.output_schema;
  const tools = Array.isArray(config.tools) ? (config.tools as unknown[]).map(obj).filter((t): t is Config => t !== null && typeof t.name === "string") : [];
  return {
    name: str(config.name),
    description: str(config.description),
    model: modelKey(config.model),
    instructions: instructionsText(config.instructions),
    tools: tools.map((t) => ({ toolkit: typeof t.toolkit === "string" ? t.toolkit : null, name: t.name as string, confirm: t.requires_confirmation === true, raw: t })),
    knowledge: str(obj(config.knowledge)?.name),
    learning: learningChoice(config.learning),
    addHistory: config.add_history_to_context === true,
    numHistoryRuns: typeof config.num_history_runs === "number" ? String(config.num_history_runs) : "",
    outputMode: typeof schema === "string" && schema ? "schema" : obj(schema) ? "json" : "none",
    outputSchemaName: typeof schema === "string" ? schema : "",
    outputSchemaJson: obj(schema) ? JSON.stringify(schema, null, 2) : "",
  };
}

/** The output schema the form gives: a registry name, the JSON object, or a problem with the JSON. */
export function outputSchemaValue(state: Pick<AgentFormState, "outputMode" | "outputSchemaName" | "outputSchemaJson">): { value: unknown } | { problem: string } {
  if (state.outputMode === "none") return { value: undefined };
  if (state.outputMode === "schema") return state.outputSchemaName ? { value: state.outputSchemaName } : { problem: "output schema: choose one of the registry's schemas" };
  return jsonSchemaProblem(state.outputSchemaJson);
}

/**
 * The browser's check of an inline JSON schema as it is typed: JSON, an object, describing an
 * object (a run answers with one). The server checks it against the JSON Schema meta-schema.
 */
export function jsonSchemaProblem(text: string): { value: Config } | { problem: string } {
  if (!text.trim()) return { problem: "output schema: write a JSON schema (or choose “None”)" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `output schema: invalid JSON (${(error as Error).message})` };
  }
  const schema = obj(value);
  if (!schema) return { problem: "output schema: must be a JSON object ({ … })" };
  if (schema.type !== "object") return { problem: 'output schema: must describe a JSON object (type "object" at the root)' };
  if (schema.properties !== undefined && !obj(schema.properties)) return { problem: "output schema: properties must be an object" };
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string")))
    return { problem: "output schema: required must be a list of property names" };
  return { value: schema };
}

/** The fields agents and teams share, written over the saved config: name, description, model and instructions. */
function withSharedFields(saved: Config, state: { name: string; description: string; model: string; instructions: string }): Config {
  let config: Config = { ...saved };
  config = withKey(config, "name", state.name.trim() || undefined);
  config = withKey(config, "description", state.description.trim() || undefined);
  config = withKey(config, "model", modelValue(state.model, saved.model));
  return withKey(config, "instructions", instructionsValue(state.instructions, saved.instructions));
}

/** The agent's config: the saved one with the form's fields written over it. Problems (an unusable output schema) stop a save. */
export function agentConfig(saved: Config, state: AgentFormState): { config: Config; problems: string[] } {
  const problems: string[] = [];
  let config = withSharedFields(saved, state);
  config = withKey(
    config,
    "tools",
    state.tools.length === 0
      ? undefined
      : state.tools.map((t) => {
          const { requires_confirmation: _saved, ...rest } = t.raw ?? {};
          return { ...rest, name: t.name, ...(t.toolkit ? { toolkit: t.toolkit } : {}), ...(t.confirm ? { requires_confirmation: true } : {}) };
        }),
  );
  config = withKey(config, "knowledge", state.knowledge ? (str(obj(saved.knowledge)?.name) === state.knowledge ? saved.knowledge : { name: state.knowledge }) : undefined);
  config = withKey(config, "learning", learningValue(state.learning, saved.learning));
  config = withKey(config, "add_history_to_context", state.addHistory ? true : undefined);
  const runs = state.numHistoryRuns.trim();
  if (runs && !/^\d{1,4}$/.test(runs)) problems.push("history: the number of earlier runs is a whole number (0 to 9999)");
  config = withKey(config, "num_history_runs", state.addHistory && runs && /^\d{1,4}$/.test(runs) ? Number(runs) : undefined);
  const schema = outputSchemaValue(state);
  if ("problem" in schema) problems.push(schema.problem);
  else config = withKey(config, "output_schema", schema.value);
  return { config, problems };
}

/** A team member or a workflow step's agent or team: `agent:<id>` / `team:<id>`. */
export type MemberKey = `${"agent" | "team"}:${string}`;

export interface MemberPick {
  key: MemberKey;
  raw?: Config;
}

export interface TeamFormState {
  name: string;
  description: string;
  model: string;
  instructions: string;
  mode: string;
  members: MemberPick[];
}

export function memberKeyOf(entry: Config): MemberKey | null {
  if (entry.type === "agent" && typeof entry.agent_id === "string") return `agent:${entry.agent_id}`;
  if (entry.type === "team" && typeof entry.team_id === "string") return `team:${entry.team_id}`;
  return null;
}

export function splitMemberKey(key: string): { type: "agent" | "team"; id: string } | null {
  const at = key.indexOf(":");
  const type = key.slice(0, at);
  return at > 0 && (type === "agent" || type === "team") ? { type, id: key.slice(at + 1) } : null;
}

export function teamFormState(config: Config): TeamFormState {
  const members = Array.isArray(config.members) ? (config.members as unknown[]).map(obj).filter((m): m is Config => m !== null) : [];
  return {
    name: str(config.name),
    description: str(config.description),
    model: modelKey(config.model),
    instructions: instructionsText(config.instructions),
    mode: str(config.mode) || "coordinate",
    members: members.flatMap((m) => {
      const key = memberKeyOf(m);
      return key ? [{ key, raw: m }] : [];
    }),
  };
}

export function teamConfig(saved: Config, state: TeamFormState): { config: Config; problems: string[] } {
  const problems: string[] = [];
  let config = withSharedFields(saved, state);
  config = withKey(config, "mode", state.mode || undefined);
  if (state.members.length === 0) problems.push("members: a team needs at least one member");
  const twice = state.members.find((m, i) => state.members.findIndex((o) => o.key === m.key) !== i);
  if (twice) problems.push(`members: ${twice.key.replace(":", " ")} is a member twice`);
  config = withKey(
    config,
    "members",
    state.members.map((m) => {
      const ref = splitMemberKey(m.key)!;
      if (m.raw && memberKeyOf(m.raw) === m.key) return m.raw;
      return ref.type === "agent" ? { type: "agent", agent_id: ref.id } : { type: "team", team_id: ref.id };
    }),
  );
  return { config, problems };
}

/** A workflow step's human review as the form edits it. */
export interface ReviewState {
  confirm: boolean;
  confirmMessage: string;
  outputReview: boolean;
  outputMessage: string;
  onReject: "skip" | "cancel" | "retry";
}

export type StepState =
  | { kind: "step"; name: string; executor: MemberKey | ""; review: ReviewState; raw?: Config }
  /** A step the form does not edit (a Loop, a Parallel, a Condition, a Router, a function step): kept as saved. */
  | { kind: "other"; label: string; raw: Config };

export interface WorkflowFormState {
  name: string;
  description: string;
  steps: StepState[];
}

export const NO_REVIEW: ReviewState = { confirm: false, confirmMessage: "", outputReview: false, outputMessage: "", onReject: "cancel" };

function reviewState(value: unknown): ReviewState {
  const review = obj(value);
  if (!review) return NO_REVIEW;
  const onReject = review.on_reject;
  return {
    confirm: review.requires_confirmation === true,
    confirmMessage: str(review.confirmation_message),
    outputReview: review.requires_output_review === true,
    outputMessage: str(review.output_review_message),
    // What a rejection does when the review says nothing (or something the form does not offer): cancel the run, Agentry's default.
    onReject: onReject === "skip" || onReject === "retry" ? onReject : "cancel",
  };
}

function reviewValue(state: ReviewState, saved: unknown): Config | undefined {
  if (!state.confirm && !state.outputReview) return undefined;
  const base = obj(saved) ?? {};
  return {
    ...base,
    requires_confirmation: state.confirm,
    confirmation_message: state.confirm && state.confirmMessage.trim() ? state.confirmMessage.trim() : null,
    requires_output_review: state.outputReview,
    output_review_message: state.outputReview && state.outputMessage.trim() ? state.outputMessage.trim() : null,
    on_reject: state.onReject,
  };
}

export function stepLabel(step: Config): string {
  const name = str(step.name);
  const type = str(step.type) || "step";
  return name ? `${name} (${type})` : type;
}

export function workflowFormState(config: Config): WorkflowFormState {
  const steps = Array.isArray(config.steps) ? (config.steps as unknown[]).map(obj).filter((s): s is Config => s !== null) : [];
  return {
    name: str(config.name),
    description: str(config.description),
    steps: steps.map((s): StepState => {
      const executor: MemberKey | null = typeof s.agent_id === "string" && s.agent_id ? `agent:${s.agent_id}` : typeof s.team_id === "string" && s.team_id ? `team:${s.team_id}` : null;
      if (s.type !== "Step" || !executor) return { kind: "other", label: stepLabel(s), raw: s };
      return { kind: "step", name: str(s.name), executor, review: reviewState(s.human_review), raw: s };
    }),
  };
}

export function workflowConfig(saved: Config, state: WorkflowFormState): { config: Config; problems: string[] } {
  const problems: string[] = [];
  let config: Config = { ...saved };
  config = withKey(config, "name", state.name.trim() || undefined);
  config = withKey(config, "description", state.description.trim() || undefined);
  if (state.steps.length === 0) problems.push("steps: a workflow needs at least one step");
  const names = new Set<string>();
  const steps = state.steps.map((step, i) => {
    if (step.kind === "other") return step.raw;
    const name = step.name.trim();
    if (!name) problems.push(`steps.${i + 1}: give the step a name`);
    else if (names.has(name)) problems.push(`steps.${i + 1}: two steps are named “${name}”`);
    names.add(name);
    const ref = step.executor ? splitMemberKey(step.executor) : null;
    if (!ref) problems.push(`steps.${i + 1}: choose the agent or team it runs`);
    const { agent_id: _a, team_id: _t, human_review: savedReview, ...rest } = step.raw ?? {};
    const review = reviewValue(step.review, savedReview);
    return {
      ...rest,
      type: "Step",
      name,
      ...(ref ? (ref.type === "agent" ? { agent_id: ref.id } : { team_id: ref.id }) : {}),
      ...(review ? { human_review: review } : {}),
    };
  });
  config = withKey(config, "steps", steps);
  return { config, problems };
}
