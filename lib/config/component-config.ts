import { z } from "zod";

/**
 * The config blob of a stored component (Studio's agents, teams and workflows): the shape Agno's
 * `Agent.to_dict()`, `Team.to_dict()` and `Workflow.to_dict()` write, snake_case, only non-default
 * flags. One schema per type, shared by the /components API (lib/components/store.ts), the
 * rehydration into Agentry definitions (lib/components/rehydrate.ts) and the dashboard's Studio
 * forms. Keys Agentry does not use pass through untouched, so a config written by Agno survives a
 * round trip; the keys it does use are checked here. References (a model, a tool, a knowledge base,
 * a learning machine, an output schema by name, members and step agents) are resolved against the
 * registry (lib/components/registry.ts) when the component is built, not here.
 */

export const COMPONENT_TYPES = ["agent", "team", "workflow"] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** A model as Agno's `Model.to_dict()` writes it (`provider` "OpenAI"/"openai", `id` the provider's model id). */
export const ComponentModelSchema = z.union([
  z
    .object({
      provider: z.string().min(1).optional(),
      id: z.string().min(1),
      name: z.string().optional(),
    })
    .loose(),
  /** `"<provider>:<id>"`, as Agno writes a model given as a string. */
  z.string().regex(/^[^:\s]+:\S+$/, 'a model string is "<provider>:<model id>"'),
]);
export type ComponentModel = z.infer<typeof ComponentModelSchema>;

/** A tool as Agno's `Function.to_dict()` writes it, with the `toolkit` it was flattened from. */
export const ComponentToolSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().nullable().optional(),
    parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    /** The registry toolkit (its name, or its id) the function belongs to. */
    toolkit: z.string().min(1).optional(),
    requires_confirmation: z.boolean().nullable().optional(),
    external_execution: z.boolean().nullable().optional(),
    approval_type: z.enum(["required", "audit"]).nullable().optional(),
    strict: z.boolean().nullable().optional(),
  })
  .loose();
export type ComponentTool = z.infer<typeof ComponentToolSchema>;

/** A knowledge base by its registry name. */
export const ComponentKnowledgeRefSchema = z.object({ name: z.string().min(1) }).loose();

/**
 * `learning`: `true` (a user profile and user memory), `false`, `{"name": …}` (a named machine of
 * the registry: exactly that key) or an inline machine (Agno's LearningMachine.to_dict(): store
 * keys `user_profile`, `user_memory`, `session_context`, `entity_memory`, `decision_log`,
 * `learned_knowledge`, each `true` or its config; `namespace`, `max_updates_per_run`).
 */
export const ComponentLearningSchema = z.union([z.boolean(), z.record(z.string(), z.unknown())]);

/** `output_schema`: a JSON schema object, or the name of a registry schema. */
export const ComponentOutputSchemaSchema = z.union([z.string().min(1), z.record(z.string(), z.unknown())]);

/** A `db` block (Agno's `BaseDb.to_dict()`: `id`, `type`, the `*_table` names, connection settings). */
export const ComponentDbSchema = z.record(z.string(), z.unknown());

const instructions = z.union([z.string(), z.array(z.string())]);
const count = z.number().int().min(0);

/** Keys agents and teams share. */
const sharedKeys = {
  id: z.string().optional(),
  name: z.string().max(255, "at most 255 characters").optional(),
  description: z.string().nullable().optional(),
  role: z.string().nullable().optional(),
  model: ComponentModelSchema.optional(),
  reasoning_model: ComponentModelSchema.optional(),
  instructions: instructions.nullable().optional(),
  expected_output: z.string().nullable().optional(),
  additional_context: z.string().nullable().optional(),
  markdown: z.boolean().optional(),
  tools: z.array(ComponentToolSchema).optional(),
  knowledge: ComponentKnowledgeRefSchema.nullable().optional(),
  search_knowledge: z.boolean().optional(),
  add_knowledge_to_context: z.boolean().optional(),
  learning: ComponentLearningSchema.nullable().optional(),
  add_learnings_to_context: z.boolean().optional(),
  add_history_to_context: z.boolean().optional(),
  num_history_runs: count.nullable().optional(),
  num_history_messages: count.nullable().optional(),
  search_past_sessions: z.boolean().optional(),
  num_past_sessions_to_search: count.nullable().optional(),
  num_past_session_runs_in_search: count.nullable().optional(),
  update_memory_on_run: z.boolean().optional(),
  enable_agentic_memory: z.boolean().optional(),
  add_memories_to_context: z.boolean().nullable().optional(),
  memory_manager: z
    .object({ registry_id: z.string().min(1) })
    .loose()
    .nullable()
    .optional(),
  db: ComponentDbSchema.nullable().optional(),
  output_schema: ComponentOutputSchemaSchema.nullable().optional(),
  input_schema: ComponentOutputSchemaSchema.nullable().optional(),
  store_events: z.boolean().optional(),
  tool_call_limit: z.number().int().min(1).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
};

export const AgentComponentConfigSchema = z.object({ ...sharedKeys }).loose();
export type AgentComponentConfig = z.infer<typeof AgentComponentConfigSchema>;

/** Agno's TeamMode values. */
export const COMPONENT_TEAM_MODES = ["coordinate", "route", "broadcast", "tasks"] as const;

/** A team member as Agno's Team.to_dict() writes it. */
export const ComponentMemberSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("agent"), agent_id: z.string().min(1) }).loose(),
  z.object({ type: z.literal("team"), team_id: z.string().min(1) }).loose(),
]);
export type ComponentMember = z.infer<typeof ComponentMemberSchema>;

export const TeamComponentConfigSchema = z
  .object({
    ...sharedKeys,
    members: z.array(ComponentMemberSchema).optional(),
    mode: z.enum(COMPONENT_TEAM_MODES).nullable().optional(),
    max_iterations: z.number().int().min(1).max(100).optional(),
    respond_directly: z.boolean().optional(),
    delegate_to_all_members: z.boolean().optional(),
    determine_input_for_members: z.boolean().optional(),
    store_member_responses: z.boolean().optional(),
    stream_member_events: z.boolean().optional(),
  })
  .loose();
export type TeamComponentConfig = z.infer<typeof TeamComponentConfigSchema>;

const userInputField = z
  .object({
    name: z.string().min(1),
    field_type: z.enum(["str", "int", "float", "bool", "list", "dict"]).optional(),
    description: z.string().nullable().optional(),
    required: z.boolean().optional(),
    allowed_values: z.array(z.unknown()).nullable().optional(),
  })
  .loose();

/** Agno's HumanReview.to_dict(): every field written, unset ones as null. */
export const ComponentHumanReviewSchema = z
  .object({
    requires_confirmation: z.boolean().nullable().optional(),
    confirmation_message: z.string().nullable().optional(),
    requires_user_input: z.boolean().nullable().optional(),
    user_input_message: z.string().nullable().optional(),
    user_input_schema: z.array(userInputField).nullable().optional(),
    allow_multiple_selections: z.boolean().nullable().optional(),
    requires_output_review: z.boolean().nullable().optional(),
    output_review_message: z.string().nullable().optional(),
    requires_iteration_review: z.boolean().nullable().optional(),
    iteration_review_message: z.string().nullable().optional(),
    on_reject: z.enum(["skip", "cancel", "else", "retry"]).nullable().optional(),
    on_error: z.enum(["fail", "skip", "pause"]).nullable().optional(),
    max_retries: z.number().int().min(0).nullable().optional(),
    timeout: z.number().int().min(1).nullable().optional(),
    on_timeout: z.enum(["cancel", "skip", "approve"]).nullable().optional(),
  })
  .loose();
export type ComponentHumanReview = z.infer<typeof ComponentHumanReviewSchema>;

/** A workflow step as Agno's step classes' to_dict() write them. */
export interface ComponentStep {
  type: "Step" | "Steps" | "Loop" | "Parallel" | "Condition" | "Router";
  name?: string | null;
  step_id?: string | null;
  description?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  workflow_id?: string | null;
  executor_ref?: string | null;
  max_retries?: number | null;
  skip_on_failure?: boolean | null;
  human_review?: ComponentHumanReview | null;
  steps?: ComponentStep[] | null;
  else_steps?: ComponentStep[] | null;
  choices?: ComponentStep[] | null;
  max_iterations?: number | null;
  evaluator?: unknown;
  [key: string]: unknown;
}

const stepKeys = {
  name: z.string().max(255, "at most 255 characters").nullable().optional(),
  step_id: z.string().max(255, "at most 255 characters").nullable().optional(),
  description: z.string().nullable().optional(),
  human_review: ComponentHumanReviewSchema.nullable().optional(),
};

export const ComponentStepSchema: z.ZodType<ComponentStep> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z
      .object({
        type: z.literal("Step"),
        ...stepKeys,
        agent_id: z.string().min(1).nullable().optional(),
        team_id: z.string().min(1).nullable().optional(),
        workflow_id: z.string().min(1).nullable().optional(),
        executor_ref: z.string().min(1).nullable().optional(),
        max_retries: z.number().int().min(0).nullable().optional(),
        skip_on_failure: z.boolean().nullable().optional(),
      })
      .loose()
      .superRefine((step, ctx) => {
        const executors = (["agent_id", "team_id", "workflow_id", "executor_ref"] as const).filter((k) => step[k]);
        if (executors.length === 0) ctx.addIssue({ code: "custom", message: "a Step needs agent_id, team_id, workflow_id or executor_ref" });
        if (executors.length > 1) ctx.addIssue({ code: "custom", message: `a Step runs one thing: it has ${executors.join(" and ")}` });
      }),
    z.object({ type: z.literal("Steps"), ...stepKeys, steps: z.array(ComponentStepSchema) }).loose(),
    z.object({ type: z.literal("Loop"), ...stepKeys, steps: z.array(ComponentStepSchema), max_iterations: z.number().int().min(1).nullable().optional() }).loose(),
    z.object({ type: z.literal("Parallel"), ...stepKeys, steps: z.array(ComponentStepSchema) }).loose(),
    z.object({ type: z.literal("Condition"), ...stepKeys, steps: z.array(ComponentStepSchema), else_steps: z.array(ComponentStepSchema).nullable().optional() }).loose(),
    z.object({ type: z.literal("Router"), ...stepKeys, choices: z.array(ComponentStepSchema) }).loose(),
  ]),
) as z.ZodType<ComponentStep>;

export const WorkflowComponentConfigSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().max(255, "at most 255 characters").optional(),
    description: z.string().nullable().optional(),
    steps: z.array(ComponentStepSchema).optional(),
    db: ComponentDbSchema.nullable().optional(),
    input_schema: ComponentOutputSchemaSchema.nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
    store_events: z.boolean().optional(),
    stream_executor_events: z.boolean().optional(),
    num_history_runs: count.nullable().optional(),
    add_workflow_history_to_steps: z.boolean().optional(),
  })
  .loose();
export type WorkflowComponentConfig = z.infer<typeof WorkflowComponentConfigSchema>;

/** The config schema of a component type. */
export function componentConfigSchema(type: "agent"): typeof AgentComponentConfigSchema;
export function componentConfigSchema(type: "team"): typeof TeamComponentConfigSchema;
export function componentConfigSchema(type: "workflow"): typeof WorkflowComponentConfigSchema;
export function componentConfigSchema(type: ComponentType): z.ZodType<Record<string, unknown>>;
export function componentConfigSchema(type: ComponentType): z.ZodType<Record<string, unknown>> {
  return type === "agent" ? AgentComponentConfigSchema : type === "team" ? TeamComponentConfigSchema : WorkflowComponentConfigSchema;
}

/** Validates a config of a type: the parsed config, or a list of "path: message" problems. */
export function parseComponentConfig(type: ComponentType, config: unknown): { ok: true; config: Record<string, unknown> } | { ok: false; problems: string[] } {
  if (!config || typeof config !== "object" || Array.isArray(config)) return { ok: false, problems: ["config: an object is required"] };
  const parsed = componentConfigSchema(type).safeParse(config);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, problems: parsed.error.issues.map((i) => `${["config", ...i.path.map(String)].join(".")}: ${i.message}`) };
}

/** The instructions of a config as one text (for the size limit): a list's entries joined by newlines. */
export function instructionsText(config: Record<string, unknown>): string {
  const value = config.instructions;
  return typeof value === "string" ? value : Array.isArray(value) ? value.filter((v) => typeof v === "string").join("\n") : "";
}
