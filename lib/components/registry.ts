import { providerOf } from "../models/provider-names.ts";
import { z } from "zod";
import type { ComponentType } from "../config/component-config.ts";
import type { AgentDefinition, KnowledgeDefinition, ModelSpec, TeamDefinition } from "../config/define.ts";
import { LEARNING_STORES, resolveLearning, type LearningConfig, type LearningStoreName } from "../config/learning-config.ts";
import { memberAgentsOf, type Settings } from "../config/settings.ts";
import type { WorkflowDefinition, WorkflowStep } from "../config/workflow.ts";
import type { Toolkit, ToolDefinition } from "../runtime/tools/types.ts";

/**
 * The registry: what Studio's components may use. `registry` in agentry.config.ts (resolved into
 * `settings.registry`: models, toolkits, knowledge bases, output schemas, named learning machines)
 * plus the code-defined agents, teams and workflows. A member (a non-admin) sees and may use only
 * what is offered to members; GET /registry lists it (lib/http/routes/registry.ts), the store
 * checks a config against it before saving (`configUseProblems`) and lib/components/rehydrate.ts
 * builds a stored config from it.
 */

export const REGISTRY_RESOURCE_TYPES = [
  "tool",
  "model",
  "db",
  "vector_db",
  "schema",
  "function",
  "agent",
  "team",
  "workflow",
  "knowledge",
  "memory_manager",
  "session_summary_manager",
  "learning",
] as const;
export type RegistryResourceType = (typeof REGISTRY_RESOURCE_TYPES)[number];

export interface RegistryEntry {
  name: string;
  type: RegistryResourceType;
  id?: string;
  description?: string;
  metadata: Record<string, unknown>;
}

/** Who asks: admins see and may use everything; members what is offered to members. */
export interface RegistryCaller {
  isAdmin: boolean;
}

/** The toolkits offered to Studio, with whether members may attach each. */
export function registryToolkits(settings: Settings): { toolkit: Toolkit; membersMayAttach: boolean }[] {
  return settings.registry.toolkits as { toolkit: Toolkit; membersMayAttach: boolean }[];
}

/** A toolkit offered to Studio by its name (or its id), and whether members may attach it. */
export function registryToolkit(settings: Settings, name: string): { toolkit: Toolkit; membersMayAttach: boolean } | undefined {
  const toolkits = registryToolkits(settings);
  return toolkits.find((t) => t.toolkit.name === name) ?? toolkits.find((t) => t.toolkit.id === name);
}

/** Whether a toolkit's tools are known only at run time (an MCP server's). */
export function isRuntimeToolkit(toolkit: Toolkit): boolean {
  return typeof toolkit.loadTools === "function";
}

/**
 * A registry model from a config's model reference: the same model id and, when the reference
 * names a provider, the same provider (Agno's names count: "OpenAI" is `openai`).
 */
export function registryModel(settings: Settings, ref: { provider?: string; id?: string; name?: string }): ModelSpec | undefined {
  if (!ref.id) return undefined;
  const provider = ref.provider ? providerOf(ref.provider) : undefined;
  if (ref.provider && !provider) return undefined;
  return settings.registry.models.find((m) => m.id === ref.id && (!provider || m.provider === provider));
}

/** A knowledge base by its name (else its id), with whether members may attach it. */
export function registryKnowledgeEntry(settings: Settings, name: string): { knowledge: KnowledgeDefinition; membersMayAttach: boolean } | undefined {
  const all = settings.registry.knowledge;
  return all.find((k) => k.knowledge.name === name) ?? all.find((k) => k.knowledge.id === name);
}

export function registryKnowledge(settings: Settings, name: string): KnowledgeDefinition | undefined {
  return registryKnowledgeEntry(settings, name)?.knowledge;
}

/** A named output schema's JSON schema. */
export function registrySchema(settings: Settings, name: string): unknown | undefined {
  return settings.registry.schemas.find((s) => s.name === name)?.schema;
}

/** A named learning machine. */
export function registryLearning(settings: Settings, name: string): LearningConfig | undefined {
  return settings.registry.learning.find((m) => m.name === name);
}

/** Every code-defined agent: top-level ones, team members and workflow step agents (each id once, the top-level one first). */
export function codeAgents(settings: Settings): AgentDefinition[] {
  const byId = new Map<string, AgentDefinition>();
  const add = (a: AgentDefinition) => {
    if (!byId.has(a.id)) byId.set(a.id, a);
  };
  settings.agents.forEach(add);
  for (const team of codeTeams(settings)) memberAgentsOf(team).forEach(add);
  for (const workflow of settings.workflows) for (const s of stepsOf(workflow.steps)) if (s.agent) add(s.agent);
  return [...byId.values()];
}

/** Every code-defined team: top-level ones, nested teams and workflow step teams (each id once). */
export function codeTeams(settings: Settings): TeamDefinition[] {
  const byId = new Map<string, TeamDefinition>();
  const add = (t: TeamDefinition) => {
    if (byId.has(t.id)) return;
    byId.set(t.id, t);
    for (const m of t.members) if ("members" in m) add(m);
  };
  settings.teams.forEach(add);
  for (const workflow of settings.workflows) for (const s of stepsOf(workflow.steps)) if (s.team) add(s.team);
  return [...byId.values()];
}

export function codeAgent(settings: Settings, id: string): AgentDefinition | undefined {
  return codeAgents(settings).find((a) => a.id === id);
}

export function codeTeam(settings: Settings, id: string): TeamDefinition | undefined {
  return codeTeams(settings).find((t) => t.id === id);
}

export function codeWorkflow(settings: Settings, id: string): WorkflowDefinition | undefined {
  return settings.workflows.find((w) => w.id === id);
}

/** Every Step of a workflow's step tree. */
function stepsOf(steps: WorkflowStep[]): Extract<WorkflowStep, { type: "Step" }>[] {
  return steps.flatMap((s) => (s.type === "Step" ? [s] : stepsOf(s.type === "Router" ? s.choices : s.type === "Condition" ? [...s.steps, ...(s.elseSteps ?? [])] : s.steps)));
}

const EMPTY_PARAMETERS = { type: "object", properties: {}, required: [] };
const parameterCache = new WeakMap<object, Record<string, unknown>>();

/** A tool's parameters as a JSON schema (an MCP tool's own; a zod schema converted). */
export function toolParameters(tool: ToolDefinition<unknown>): Record<string, unknown> {
  if (tool.inputSchema) return { ...tool.inputSchema };
  const cached = parameterCache.get(tool);
  if (cached) return cached;
  let schema: Record<string, unknown>;
  try {
    const { $schema: _, ...json } = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    schema = json;
  } catch {
    schema = EMPTY_PARAMETERS;
  }
  parameterCache.set(tool, schema);
  return schema;
}

/** `(name: type, optional?: type)` from a JSON schema's properties. */
function signatureOf(parameters: Record<string, unknown>): string {
  const properties = (parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(Array.isArray(parameters.required) ? (parameters.required as string[]) : []);
  const args = Object.entries(properties).map(([name, p]) => {
    const type = Array.isArray(p?.type) ? (p.type as string[]).join(" | ") : typeof p?.type === "string" ? p.type : "unknown";
    return `${name}${required.has(name) ? "" : "?"}: ${type}`;
  });
  return `(${args.join(", ")})`;
}

/** A function of a toolkit as GET /registry describes it. */
export function functionMetadata(tool: ToolDefinition<unknown>): Record<string, unknown> {
  const parameters = toolParameters(tool);
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    class_path: "agentry.tools.Function",
    has_entrypoint: typeof tool.execute === "function",
    parameters,
    requires_confirmation: tool.requiresConfirmation === true,
    external_execution: tool.externalExecution === true,
    signature: signatureOf(parameters),
  };
}

function toolkitEntry(toolkit: Toolkit, membersMayAttach: boolean): RegistryEntry {
  return {
    name: toolkit.name,
    type: "tool",
    id: toolkit.id,
    metadata: {
      class_path: isRuntimeToolkit(toolkit) ? "agentry.tools.mcp.MCPTools" : "agentry.tools.Toolkit",
      is_toolkit: true,
      functions: (toolkit.tools as ToolDefinition<unknown>[]).map(functionMetadata),
      members_may_attach: membersMayAttach,
    },
  };
}

function modelEntry(model: ModelSpec): RegistryEntry {
  return { name: model.id, type: "model", metadata: { class_path: `agentry.models.${model.provider}`, provider: model.provider, model_id: model.id } };
}

function knowledgeEntry(base: KnowledgeDefinition): RegistryEntry {
  return {
    name: base.name,
    type: "knowledge",
    id: base.id,
    ...(base.description ? { description: base.description } : {}),
    metadata: { class_path: "agentry.knowledge.Knowledge", ...(base.maxResults !== undefined ? { max_results: base.maxResults } : {}) },
  };
}

const STORE_KEYS: Record<LearningStoreName, string> = {
  userProfile: "user_profile",
  userMemory: "user_memory",
  sessionContext: "session_context",
  entityMemory: "entity_memory",
  decisionLog: "decision_log",
  learnedKnowledge: "learned_knowledge",
};

function learningEntry(machine: Settings["registry"]["learning"][number]): RegistryEntry {
  const resolved = resolveLearning(machine);
  const stores: Record<string, Record<string, unknown>> = {};
  for (const store of LEARNING_STORES) {
    const value = resolved?.[store];
    if (!value) continue;
    const row: Record<string, unknown> = { mode: value.mode };
    if (store === "entityMemory" || store === "learnedKnowledge") row.namespace = (value.config as { namespace?: string }).namespace ?? resolved?.namespace ?? "global";
    stores[STORE_KEYS[store]] = row;
  }
  return {
    name: machine.name,
    type: "learning",
    metadata: { class_path: "agentry.learn.LearningMachine", namespace: resolved?.namespace ?? "global", stores, db: true, knowledge: false },
  };
}

function componentEntry(type: "agent" | "team" | "workflow", c: { id: string; name: string; description?: string }): RegistryEntry {
  const classPath = type === "agent" ? "agentry.Agent" : type === "team" ? "agentry.Team" : "agentry.Workflow";
  return { name: c.name || c.id, type, id: c.id, ...(c.description ? { description: c.description } : {}), metadata: { id: c.id, class_path: classPath } };
}

/** Everything in the registry the caller may use (members: no admin-only toolkits or knowledge bases), sorted by (type, name). */
export function registryEntries(settings: Settings, caller: RegistryCaller): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (const { toolkit, membersMayAttach } of registryToolkits(settings)) if (caller.isAdmin || membersMayAttach) entries.push(toolkitEntry(toolkit, membersMayAttach));
  for (const model of settings.registry.models) entries.push(modelEntry(model));
  for (const schema of settings.registry.schemas) {
    entries.push({
      name: schema.name,
      type: "schema",
      ...(schema.description ? { description: schema.description } : {}),
      metadata: { class_path: "agentry.schemas.JsonSchema", schema: schema.schema },
    });
  }
  for (const agent of codeAgents(settings)) entries.push(componentEntry("agent", agent));
  for (const team of codeTeams(settings)) entries.push(componentEntry("team", team));
  for (const workflow of settings.workflows) entries.push(componentEntry("workflow", workflow));
  for (const { knowledge, membersMayAttach } of settings.registry.knowledge) if (caller.isAdmin || membersMayAttach) entries.push(knowledgeEntry(knowledge));
  for (const machine of settings.registry.learning) entries.push(learningEntry(machine));
  return entries.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A problem with a config for a caller: `forbidden` (a member using what is admin-only) or `unknown` (not in the registry). */
export interface ConfigUseIssue {
  kind: "forbidden" | "unknown";
  message: string;
}

/** The key names Agno lets a component's `db` block carry: the database's id and type, and table names. */
function isAllowedDbKey(key: string): boolean {
  return key === "id" || key === "type" || key.endsWith("_table");
}

/** The tool entries of a config: an agent's or team's `tools`. */
function toolEntries(config: Record<string, unknown>): { name?: unknown; toolkit?: unknown }[] {
  return Array.isArray(config.tools) ? (config.tools as { name?: unknown; toolkit?: unknown }[]) : [];
}

/**
 * The toolkit a config's tool entry resolves to: the one its `toolkit` names, else the only
 * registry toolkit with a function of that name. `ambiguous` lists the toolkits sharing the name.
 */
export function toolkitOfTool(settings: Settings, tool: { name: string; toolkit?: string }): { toolkit: Toolkit; membersMayAttach: boolean } | { ambiguous: string[] } | undefined {
  if (tool.toolkit) return registryToolkit(settings, tool.toolkit);
  const holders = registryToolkits(settings).filter((t) => t.toolkit.tools.some((f) => f.name === tool.name));
  if (holders.length > 1) return { ambiguous: holders.map((t) => t.toolkit.name) };
  return holders[0];
}

/** Problems with a config for a caller, each with its kind. Empty: allowed. */
export function configUseIssues(settings: Settings, type: ComponentType, config: Record<string, unknown>, caller: RegistryCaller): ConfigUseIssue[] {
  const issues: ConfigUseIssue[] = [];
  const unknown = (message: string) => issues.push({ kind: "unknown", message });
  const forbidden = (message: string) => issues.push({ kind: "forbidden", message });

  // Workflows carry no tools, models, knowledge or learning of their own (their steps' components do).
  const entries = type === "workflow" ? [] : toolEntries(config);
  for (const [i, tool] of entries.entries()) {
    if (!tool || typeof tool.name !== "string") continue;
    const toolkitName = typeof tool.toolkit === "string" ? tool.toolkit : undefined;
    const found = toolkitOfTool(settings, { name: tool.name, toolkit: toolkitName });
    if (!found) {
      unknown(toolkitName ? `tools.${i}: toolkit '${toolkitName}' is not in the registry` : `tools.${i}: tool '${tool.name}' is not a function of any toolkit in the registry`);
      continue;
    }
    if ("ambiguous" in found) {
      unknown(`tools.${i}: tool '${tool.name}' is a function of several toolkits (${found.ambiguous.join(", ")}): name its toolkit`);
      continue;
    }
    if (!caller.isAdmin && !found.membersMayAttach) {
      forbidden(`tools.${i}: toolkit '${found.toolkit.name}' is offered to admins only`);
      continue;
    }
    if (!isRuntimeToolkit(found.toolkit) && !found.toolkit.tools.some((f) => f.name === tool.name)) {
      unknown(`tools.${i}: toolkit '${found.toolkit.name}' has no function '${tool.name}'`);
    }
  }

  for (const key of ["model", "reasoning_model"] as const) {
    const ref = modelRef(config[key]);
    if (ref && !registryModel(settings, ref)) unknown(`${key}: model '${describeModel(ref)}' is not in the registry`);
  }

  const knowledge = config.knowledge as { name?: unknown } | null | undefined;
  if (knowledge && typeof knowledge === "object" && typeof knowledge.name === "string") {
    const entry = registryKnowledgeEntry(settings, knowledge.name);
    if (!entry) unknown(`knowledge: knowledge base '${knowledge.name}' is not in the registry`);
    else if (!caller.isAdmin && !entry.membersMayAttach) forbidden(`knowledge: knowledge base '${knowledge.name}' is offered to admins only`);
  }

  const learning = config.learning;
  if (isLearningReference(learning) && !registryLearning(settings, learning.name)) unknown(`learning: learning machine '${learning.name}' is not in the registry`);

  for (const key of ["output_schema", "input_schema"] as const) {
    const value = config[key];
    if (typeof value === "string" && registrySchema(settings, value) === undefined) unknown(`${key}: schema '${value}' is not in the registry`);
  }

  const db = config.db;
  if (db && typeof db === "object" && !Array.isArray(db)) {
    const extra = Object.keys(db).filter((k) => !isAllowedDbKey(k));
    if (!caller.isAdmin && extra.length > 0) {
      forbidden(`db: a component may set only the database's table names (*_table), not ${extra.map((k) => `'${k}'`).join(", ")}`);
    }
    const id = (db as Record<string, unknown>).id;
    if (typeof id === "string" && id !== settings.database.id) unknown(`db: database '${id}' is not this OS's database ('${settings.database.id}')`);
  }

  return issues;
}

/** Problems that stop `caller` from saving this config (admin-only toolkit for a member, an unknown tool/model/knowledge, a `db` block with more than table names). Empty: allowed. */
export function configUseProblems(settings: Settings, type: ComponentType, config: Record<string, unknown>, caller: RegistryCaller): string[] {
  return configUseIssues(settings, type, config, caller).map((i) => i.message);
}

/** A config's model value as a reference: a dict, or `"<provider>:<id>"`. */
export function modelRef(value: unknown): { provider?: string; id?: string; name?: string } | undefined {
  if (typeof value === "string") {
    const at = value.indexOf(":");
    return at > 0 ? { provider: value.slice(0, at), id: value.slice(at + 1) } : { id: value };
  }
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    return {
      ...(typeof v.provider === "string" ? { provider: v.provider } : {}),
      ...(typeof v.id === "string" ? { id: v.id } : {}),
      ...(typeof v.name === "string" ? { name: v.name } : {}),
    };
  }
  return undefined;
}

export function describeModel(ref: { provider?: string; id?: string; name?: string }): string {
  return ref.provider ? `${ref.provider}:${ref.id ?? ref.name ?? "?"}` : (ref.id ?? ref.name ?? "?");
}

/** `{"name": …}` and nothing else: a reference to a named learning machine (any other dict is an inline machine). */
export function isLearningReference(value: unknown): value is { name: string } {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "name" && typeof (value as { name: unknown }).name === "string" && (value as { name: string }).name.length > 0;
}
