import { z } from "zod";
import {
  parseComponentConfig,
  type AgentComponentConfig,
  type ComponentHumanReview,
  type ComponentStep,
  type ComponentType,
  type TeamComponentConfig,
  type WorkflowComponentConfig,
} from "../config/component-config.ts";
import { AgentDefinitionSchema, ConfigError, TeamDefinitionSchema, type AgentDefinition, type ModelSpec, type TeamDefinition, type TeamMode } from "../config/define.ts";
import { LearningConfigSchema, type LearningConfig, type LearningMachineConfig } from "../config/learning-config.ts";
import type { Settings } from "../config/settings.ts";
import { condition, defineWorkflow, loop, parallel, router, step, steps, type HumanReview, type WorkflowDefinition, type WorkflowStep } from "../config/workflow.ts";
import { ComponentRehydrationError } from "../errors/http-error.ts";
import type { Toolkit, ToolDefinition } from "../runtime/tools/types.ts";
import { codeAgent, codeTeam, describeModel, isLearningReference, isRuntimeToolkit, modelRef, registryKnowledge, registryLearning, registryModel, registrySchema, toolkitOfTool } from "./registry.ts";

/**
 * A stored component's config (lib/config/component-config.ts) built into Agentry's definition,
 * strictly against the registry (lib/components/registry.ts): a tool, model, knowledge base,
 * learning machine, output schema, member or step agent it names that the registry (or the child
 * resolver) cannot supply is a ComponentRehydrationError (422 `component_rehydration_error`)
 * naming it — never a run with less than was saved. Keys Agentry has no use for are ignored.
 */

/** What a stored component's children resolve to (lib/components/source.ts passes one in). */
export type ChildResolver = (ref: { type: "agent" | "team"; id: string; version?: number }) => Promise<AgentDefinition | TeamDefinition | undefined>;

/** A row of agno_component_links as the store gives it. */
export interface ComponentLinkLike {
  link_kind: string;
  link_key: string;
  child_component_id: string;
  child_version: number | null;
  position: number;
  meta: Record<string, unknown> | null;
}

const LABELS: Record<ComponentType, string> = { agent: "Agent", team: "Team", workflow: "Workflow" };

/** An id the definition schemas accept while they check the rest (the component's own id is set after). */
const PLACEHOLDER_ID = "component";

function fail(type: ComponentType, id: string, message: string): never {
  throw new ComponentRehydrationError(`${LABELS[type]} '${id}': ${message}`);
}

function parsed<T>(type: ComponentType, id: string, config: Record<string, unknown>): T {
  const result = parseComponentConfig(type, config);
  if (!result.ok) fail(type, id, `the stored config is invalid: ${result.problems.join("; ")}`);
  return result.config as T;
}

/** The model a config names, from the registry; with none named, the registry's first (the environment's model when there is one). */
function modelOf(settings: Settings, type: ComponentType, id: string, value: unknown, key: string): ModelSpec | null {
  const ref = modelRef(value);
  if (!ref) return settings.registry.models[0] ?? null;
  const model = registryModel(settings, ref);
  if (!model) fail(type, id, `${key} '${describeModel(ref)}' is not in the registry`);
  return model;
}

/** The registry tool a config's tool entry names, with the entry's human-in-the-loop flags. */
function withConfigFlags(tool: ToolDefinition<unknown>, entry: Record<string, unknown>): ToolDefinition<unknown> {
  const overrides: { requiresConfirmation?: boolean; externalExecution?: boolean; approval?: "required" | "audit" } = {};
  if (typeof entry.requires_confirmation === "boolean") overrides.requiresConfirmation = entry.requires_confirmation;
  if (typeof entry.external_execution === "boolean") overrides.externalExecution = entry.external_execution;
  // An approval the registry's tool requires stays; a config may add one to a tool without.
  if (!tool.approval && (entry.approval_type === "required" || entry.approval_type === "audit")) overrides.approval = entry.approval_type;
  if (Object.keys(overrides).length === 0) return tool;
  return { ...tool, ...overrides };
}

/** A run-time-listed toolkit (an MCP server's) offering only the named functions, each with its config flags. */
function selectedRuntimeToolkit(toolkit: Toolkit, entries: Map<string, Record<string, unknown>>): Toolkit {
  const pick = (tools: readonly ToolDefinition<unknown>[]) => tools.filter((t) => entries.has(t.name)).map((t) => withConfigFlags(t, entries.get(t.name)!));
  const loadTools = toolkit.loadTools!;
  return {
    ...toolkit,
    id: toolkit.id,
    name: toolkit.name,
    get tools() {
      return pick(toolkit.tools as ToolDefinition<unknown>[]);
    },
    loadTools: async (context) => pick((await loadTools(context)) as ToolDefinition<unknown>[]),
  };
}

/** A config's `tools` as Agentry tools: registry toolkit functions by toolkit and name, in order. */
function toolsOf(settings: Settings, type: ComponentType, id: string, tools: AgentComponentConfig["tools"]): unknown[] {
  const result: unknown[] = [];
  const runtime = new Map<Toolkit, Map<string, Record<string, unknown>>>();
  const names = new Set<string>();
  for (const entry of tools ?? []) {
    const found = toolkitOfTool(settings, { name: entry.name, toolkit: entry.toolkit });
    if (!found) {
      fail(type, id, entry.toolkit ? `tool '${entry.name}': toolkit '${entry.toolkit}' is not in the registry` : `tool '${entry.name}' is not a function of any toolkit in the registry`);
    }
    if ("ambiguous" in found) fail(type, id, `tool '${entry.name}' is a function of several registry toolkits (${found.ambiguous.join(", ")}); the config must name its toolkit`);
    if (names.has(entry.name)) fail(type, id, `two tools are named '${entry.name}'`);
    names.add(entry.name);
    if (isRuntimeToolkit(found.toolkit)) {
      let selected = runtime.get(found.toolkit);
      if (!selected) {
        runtime.set(found.toolkit, (selected = new Map()));
        result.push(found.toolkit);
      }
      selected.set(entry.name, entry);
      continue;
    }
    const tool = (found.toolkit.tools as ToolDefinition<unknown>[]).find((t) => t.name === entry.name);
    if (!tool) fail(type, id, `toolkit '${found.toolkit.name}' has no function '${entry.name}'`);
    result.push(withConfigFlags(tool, entry));
  }
  return result.map((t) => {
    const selected = runtime.get(t as Toolkit);
    return selected ? selectedRuntimeToolkit(t as Toolkit, selected) : t;
  });
}

const STORE_KEYS = {
  user_profile: "userProfile",
  user_memory: "userMemory",
  session_context: "sessionContext",
  entity_memory: "entityMemory",
  decision_log: "decisionLog",
  learned_knowledge: "learnedKnowledge",
} as const;

/** snake_case keys of a store's config Agentry has (others, such as prompts, are not used). */
const STORE_FIELDS: Record<string, string> = {
  mode: "mode",
  enable_agent_tools: "enableAgentTools",
  additional_instructions: "additionalInstructions",
  max_memories_in_context: "maxMemoriesInContext",
  enable_planning: "enablePlanning",
  namespace: "namespace",
  max_entities_in_context: "maxEntitiesInContext",
  max_facts_per_entity: "maxFactsPerEntity",
  max_events_per_entity: "maxEventsPerEntity",
  max_decisions_in_context: "maxDecisionsInContext",
};

/** An inline machine (Agno's LearningMachine.to_dict(), snake_case) as Agentry's LearningMachineConfig. */
function inlineMachine(type: ComponentType, id: string, value: Record<string, unknown>): LearningMachineConfig {
  if (value.custom_stores) fail(type, id, "learning: custom learning stores cannot be built from a stored config");
  const machine: Record<string, unknown> = {};
  if (typeof value.name === "string" && value.name) machine.name = value.name;
  if (value.namespace !== undefined && value.namespace !== null) machine.namespace = value.namespace;
  if (value.max_updates_per_run !== undefined && value.max_updates_per_run !== null) machine.maxUpdatesPerRun = value.max_updates_per_run;
  for (const [key, store] of Object.entries(STORE_KEYS)) {
    const given = value[key] ?? value[store];
    if (given === undefined || given === null || given === false) continue;
    if (given === true) {
      machine[store] = true;
      continue;
    }
    if (typeof given !== "object" || Array.isArray(given)) fail(type, id, `learning.${key}: true, false or the store's settings`);
    const config: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(given as Record<string, unknown>)) {
      const field = STORE_FIELDS[k] ?? (Object.values(STORE_FIELDS).includes(k) ? k : undefined);
      if (field && v !== null && v !== undefined) config[field] = typeof v === "object" && v && "value" in v ? (v as { value: unknown }).value : v;
    }
    machine[store] = config;
  }
  return machine as LearningMachineConfig;
}

/** `learning` as Agentry's LearningConfig: true, false, a named registry machine, or an inline machine. */
function learningOf(settings: Settings, type: ComponentType, id: string, config: AgentComponentConfig): LearningConfig | undefined {
  const value = config.learning;
  if (value === undefined || value === null || value === false) return undefined;
  let learning: LearningConfig;
  if (value === true) learning = true;
  else if (isLearningReference(value)) {
    const machine = registryLearning(settings, value.name);
    if (!machine) fail(type, id, `learning machine '${value.name}' is not in the registry`);
    learning = machine;
  } else learning = inlineMachine(type, id, value as Record<string, unknown>);
  if (config.add_learnings_to_context === false) learning = { ...(learning === true ? { userProfile: true, userMemory: true } : learning), addLearningsToContext: false };
  const checked = LearningConfigSchema.safeParse(learning);
  if (!checked.success) fail(type, id, `learning: ${checked.error.issues.map((i) => `${i.path.join(".") || "learning"}: ${i.message}`).join("; ")}`);
  return checked.data;
}

/** `output_schema`: a JSON schema object as it is, or a registry schema by name. */
function outputSchemaOf(settings: Settings, type: ComponentType, id: string, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return value;
  const schema = registrySchema(settings, value);
  if (schema === undefined) fail(type, id, `output schema '${value}' is not in the registry`);
  return schema;
}

/** The instructions, with Agno's prompt options Agentry has no field for (markdown, expected output, additional context) as lines of their own. */
function instructionsOf(config: AgentComponentConfig): string | string[] | undefined {
  const given = config.instructions ?? undefined;
  const extra: string[] = [];
  if (config.markdown) extra.push("Use markdown to format your answers.");
  if (config.expected_output) extra.push(`The expected output: ${config.expected_output}`);
  if (config.additional_context) extra.push(config.additional_context);
  if (extra.length === 0) return given;
  return [...(given === undefined ? [] : Array.isArray(given) ? given : [given]), ...extra];
}

/** Settings agents and teams share; undefined values are left out. */
function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

function refuseMemoryManager(type: ComponentType, id: string, config: { memory_manager?: { registry_id: string } | null }): void {
  if (config.memory_manager) fail(type, id, `memory manager '${config.memory_manager.registry_id}' is not in the registry`);
}

function checkDb(settings: Settings, type: ComponentType, id: string, db: Record<string, unknown> | null | undefined): void {
  const dbId = db?.id;
  if (typeof dbId === "string" && dbId !== settings.database.id) fail(type, id, `database '${dbId}' is not this OS's database ('${settings.database.id}')`);
}

function issuesText(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join(".") || "config"}: ${i.message}`).join("; ");
}

/** Builds an Agentry agent from a stored config, strictly: anything the registry lacks → ComponentRehydrationError naming it. */
export async function rehydrateAgent(settings: Settings, input: { id: string; config: Record<string, unknown>; ownerId: string | null }): Promise<AgentDefinition> {
  const { id } = input;
  const config = parsed<AgentComponentConfig>("agent", id, input.config);
  refuseMemoryManager("agent", id, config);
  checkDb(settings, "agent", id, config.db);
  const learning = learningOf(settings, "agent", id, config);
  const knowledgeName = config.knowledge?.name;
  const knowledge = knowledgeName === undefined ? undefined : registryKnowledge(settings, knowledgeName);
  if (knowledgeName !== undefined && !knowledge) fail("agent", id, `knowledge base '${knowledgeName}' is not in the registry`);
  const reasoningModel = config.reasoning_model === undefined ? undefined : modelOf(settings, "agent", id, config.reasoning_model, "reasoning model");
  const definition = {
    id: PLACEHOLDER_ID,
    name: config.name || id,
    model: modelOf(settings, "agent", id, config.model, "model"),
    tools: toolsOf(settings, "agent", id, config.tools),
    ...definedOnly({
      description: config.description,
      instructions: instructionsOf(config),
      reasoningModel: reasoningModel ?? undefined,
      knowledge,
      searchKnowledge: config.search_knowledge,
      addKnowledgeToContext: config.add_knowledge_to_context,
      learning,
      // A learning machine owns the user's memory: Agno turns agentic memory off with learning on.
      enableAgenticMemory: learning ? undefined : config.enable_agentic_memory,
      updateMemoryOnRun: config.update_memory_on_run,
      addHistoryToContext: config.add_history_to_context,
      numHistoryRuns: config.num_history_runs,
      searchPastSessions: config.search_past_sessions,
      numPastSessionsToSearch: config.num_past_sessions_to_search,
      numPastSessionRunsInSearch: config.num_past_session_runs_in_search,
      outputSchema: outputSchemaOf(settings, "agent", id, config.output_schema),
      storeEvents: config.store_events,
      metadata: config.metadata ?? undefined,
    }),
  };
  const checked = AgentDefinitionSchema.safeParse(definition);
  if (!checked.success) fail("agent", id, issuesText(checked.error.issues));
  return { ...checked.data, id };
}

/** The version a link pins for a child (null or absent: its current published version). */
function pinnedVersion(links: ComponentLinkLike[], kind: string, childId: string, key?: string): number | undefined {
  const own = links.filter((l) => l.link_kind === kind && l.child_component_id === childId);
  const exact = key === undefined ? undefined : own.find((l) => l.link_key === key);
  const version = (exact ?? own[0])?.child_version;
  return version === null || version === undefined ? undefined : version;
}

/** A child (member or step component): the resolver's, else a code-defined one; undefined when neither has it. */
async function childOf(settings: Settings, child: ChildResolver, ref: { type: "agent" | "team"; id: string; version?: number }): Promise<AgentDefinition | TeamDefinition | undefined> {
  const found = await child(ref);
  if (found) return found;
  if (ref.version !== undefined) return undefined;
  return ref.type === "agent" ? codeAgent(settings, ref.id) : codeTeam(settings, ref.id);
}

function describeChild(type: "agent" | "team", id: string, version: number | undefined): string {
  return `${type} '${id}'${version === undefined ? "" : ` (version ${version})`}`;
}

/** Agno's team options as Agentry's mode: `mode`, else `respond_directly` (route) or `delegate_to_all_members` (broadcast). */
function modeOf(config: TeamComponentConfig): TeamMode | undefined {
  if (config.mode) return config.mode;
  if (config.respond_directly) return "route";
  if (config.delegate_to_all_members) return "broadcast";
  return undefined;
}

/** Builds an Agentry team from a stored config: its members through `child` (links give the pinned version). */
export async function rehydrateTeam(
  settings: Settings,
  input: { id: string; config: Record<string, unknown>; links: ComponentLinkLike[]; ownerId: string | null; child: ChildResolver },
): Promise<TeamDefinition> {
  const { id, links } = input;
  const config = parsed<TeamComponentConfig>("team", id, input.config);
  refuseMemoryManager("team", id, config);
  checkDb(settings, "team", id, config.db);
  if (config.knowledge) fail("team", id, `knowledge base '${config.knowledge.name}': a team's leader cannot search knowledge in Agentry (give it to a member agent)`);
  if (config.output_schema !== undefined && config.output_schema !== null) fail("team", id, "output_schema: a team's output schema is not supported in Agentry (give it to a member agent)");
  const members: (AgentDefinition | TeamDefinition)[] = [];
  for (const [i, member] of (config.members ?? []).entries()) {
    const childId = member.type === "agent" ? member.agent_id : member.team_id;
    const version = pinnedVersion(links, "member", childId, `member_${i}`);
    const found = await childOf(settings, input.child, { type: member.type, id: childId, version });
    if (!found) fail("team", id, `member ${describeChild(member.type, childId, version)} was not found`);
    if (member.type === "team" && !("members" in found)) fail("team", id, `member team '${childId}' is not a team`);
    if (member.type === "agent" && "members" in found) fail("team", id, `member agent '${childId}' is a team`);
    members.push(found);
  }
  if (members.length === 0) fail("team", id, "a team needs at least one member");
  const model = config.model === undefined ? (settings.registry.models[0] ?? members.find((m) => m.model)?.model ?? null) : modelOf(settings, "team", id, config.model, "model");
  const definition = {
    id: PLACEHOLDER_ID,
    name: config.name || id,
    members,
    model,
    tools: toolsOf(settings, "team", id, config.tools),
    ...definedOnly({
      description: config.description,
      role: config.role,
      mode: modeOf(config),
      instructions: instructionsOf(config),
      determineInputForMembers: config.determine_input_for_members,
      maxIterations: config.max_iterations,
      storeMemberResponses: config.store_member_responses,
      streamMemberEvents: config.stream_member_events,
      addHistoryToContext: config.add_history_to_context,
      numHistoryRuns: config.num_history_runs,
      storeEvents: config.store_events,
      metadata: config.metadata ?? undefined,
      learning: learningOf(settings, "team", id, config),
    }),
  };
  const checked = TeamDefinitionSchema.safeParse(definition);
  if (!checked.success) fail("team", id, issuesText(checked.error.issues));
  return { ...checked.data, id };
}

/** Agno's HumanReview dict as Agentry's HumanReview (nulls and defaults left out). */
function humanReviewOf(review: ComponentHumanReview | null | undefined): HumanReview | undefined {
  if (!review) return undefined;
  const out = definedOnly({
    requiresConfirmation: review.requires_confirmation || undefined,
    confirmationMessage: review.confirmation_message,
    requiresUserInput: review.requires_user_input || undefined,
    userInputMessage: review.user_input_message,
    userInputSchema: review.user_input_schema?.map((f) =>
      definedOnly({ name: f.name, fieldType: f.field_type, description: f.description ?? undefined, required: f.required, allowedValues: f.allowed_values ?? undefined }),
    ) as HumanReview["userInputSchema"],
    allowMultipleSelections: review.allow_multiple_selections || undefined,
    requiresOutputReview: review.requires_output_review || undefined,
    outputReviewMessage: review.output_review_message,
    requiresIterationReview: review.requires_iteration_review || undefined,
    iterationReviewMessage: review.iteration_review_message,
    onReject: review.on_reject,
    onError: review.on_error,
    maxRetries: review.max_retries,
    timeout: review.timeout,
    onTimeout: review.on_timeout,
  }) as HumanReview;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Builds an Agentry workflow from a stored config: step agents and teams through `child` (links give the pinned version). */
export async function rehydrateWorkflow(
  settings: Settings,
  input: { id: string; config: Record<string, unknown>; links: ComponentLinkLike[]; ownerId: string | null; child: ChildResolver },
): Promise<WorkflowDefinition> {
  const { id, links } = input;
  const config = parsed<WorkflowComponentConfig>("workflow", id, input.config);
  checkDb(settings, "workflow", id, config.db);

  const build = async (list: ComponentStep[], suffix: string, where: string): Promise<WorkflowStep[]> => {
    const built: WorkflowStep[] = [];
    for (const [i, s] of list.entries()) built.push(await buildStep(s, suffix, `${where}${where ? " → " : ""}${s.name || `step ${i + 1}`}`));
    return built;
  };

  const buildStep = async (s: ComponentStep, suffix: string, where: string): Promise<WorkflowStep> => {
    const name = s.name || undefined;
    const humanReview = humanReviewOf(s.human_review);
    const common = { description: s.description ?? undefined, ...(humanReview ? { humanReview } : {}) };
    switch (s.type) {
      case "Step": {
        if (s.workflow_id) fail("workflow", id, `step '${where}': workflow '${s.workflow_id}' as a step is not supported in Agentry`);
        if (s.executor_ref) fail("workflow", id, `step '${where}': function '${s.executor_ref}' is not in the registry`);
        const type = s.agent_id ? "agent" : "team";
        const childId = (s.agent_id ?? s.team_id) as string;
        const key = `${s.step_id || s.name || ""}${suffix}`;
        const version = pinnedVersion(links, type === "agent" ? "step_agent" : "step_team", childId, key);
        const found = await childOf(settings, input.child, { type, id: childId, version });
        if (!found) fail("workflow", id, `step '${where}': ${describeChild(type, childId, version)} was not found`);
        if (type === "team" && !("members" in found)) fail("workflow", id, `step '${where}': team '${childId}' is not a team`);
        if (type === "agent" && "members" in found) fail("workflow", id, `step '${where}': agent '${childId}' is a team`);
        return step({
          ...common,
          name: name ?? found.name,
          ...(type === "agent" ? { agent: found as AgentDefinition } : { team: found as TeamDefinition }),
          ...(s.max_retries !== null && s.max_retries !== undefined ? { maxRetries: s.max_retries } : {}),
          ...(s.skip_on_failure !== null && s.skip_on_failure !== undefined ? { skipOnFailure: s.skip_on_failure } : {}),
        });
      }
      case "Steps":
        return steps({ ...common, name: name ?? "steps", steps: await build(s.steps ?? [], suffix, where) });
      case "Parallel":
        return parallel({ ...common, name: name ?? "parallel", steps: await build(s.steps ?? [], suffix, where) });
      case "Loop": {
        if (s.end_condition !== undefined && s.end_condition !== null) fail("workflow", id, `step '${where}': end condition function '${String(s.end_condition)}' is not in the registry`);
        return loop({ ...common, name: name ?? "loop", steps: await build(s.steps ?? [], suffix, where), ...(s.max_iterations ? { maxIterations: s.max_iterations } : {}) });
      }
      case "Condition": {
        if (typeof s.evaluator !== "boolean") fail("workflow", id, `step '${where}': condition evaluator '${String(s.evaluator ?? "")}' is not in the registry (only true or false can be stored)`);
        return condition({
          ...common,
          name: name ?? "condition",
          evaluator: s.evaluator,
          steps: await build(s.steps ?? [], suffix, where),
          ...(s.else_steps ? { elseSteps: await build(s.else_steps, `${suffix}#else`, where) } : {}),
        });
      }
      case "Router": {
        if (s.selector !== undefined && s.selector !== null) fail("workflow", id, `step '${where}': selector function '${String(s.selector)}' is not in the registry`);
        return router({ ...common, name: name ?? "router", choices: await build(s.choices ?? [], suffix, where) });
      }
    }
  };

  try {
    const built = await build(config.steps ?? [], "", "");
    const definition = defineWorkflow({
      id: PLACEHOLDER_ID,
      name: config.name || id,
      steps: built,
      ...definedOnly({
        description: config.description ?? undefined,
        inputSchema: typeof config.input_schema === "string" ? (registrySchemaOrFail(settings, id, config.input_schema) as Record<string, unknown>) : (config.input_schema ?? undefined),
        metadata: config.metadata ?? undefined,
        storeEvents: config.store_events,
        streamExecutorEvents: config.stream_executor_events,
      }),
    });
    return { ...definition, id };
  } catch (error) {
    if (error instanceof ConfigError) fail("workflow", id, error.message.replace(`Workflow '${PLACEHOLDER_ID}'`, "the workflow"));
    if (error instanceof z.ZodError) fail("workflow", id, issuesText(error.issues));
    throw error;
  }
}

function registrySchemaOrFail(settings: Settings, id: string, name: string): unknown {
  const schema = registrySchema(settings, name);
  if (schema === undefined) fail("workflow", id, `input schema '${name}' is not in the registry`);
  return schema;
}
