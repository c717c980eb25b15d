import type { AgentDefinition, EmbedderSpec, TeamDefinition, TeamMode } from "../config/define.ts";
import type { WorkflowDefinition } from "../config/workflow.ts";
import type { ExternalAgentDefinition } from "../config/external-agent.ts";
import type { ModelPrice, Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import type { LiveRun } from "../live-runs/run-registry.ts";
import type { AgnoMessage, Resolution, RunOutput, RunRequirement } from "./run-output.ts";
import type { RunWriter } from "./run-writer.ts";
import { log } from "../log.ts";
import type { Toolkit, ToolDefinition, ToolkitLoadContext } from "./tools/types.ts";

/** An agent as the runtime uses it: its definition and its tools, flattened from toolkits. */
export interface RuntimeAgent {
  readonly definition: AgentDefinition;
  readonly tools: readonly ToolDefinition<unknown>[];
  /** Toolkit ids and loose tool names, as /agents reports them. */
  readonly toolkits: readonly { id: string; name: string; tools: string[] }[];
  /** Toolkits whose tools are known only at run time (MCP servers): each run adds what they list for its user. */
  readonly runtimeToolkits?: readonly Toolkit[];
  /** The configured model prices (`metrics.prices`, over lib/models/prices.ts's built-in table) its runs are priced at. */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** The configured embedder its knowledge base searches with (null: keyword search only). */
  readonly embedder?: EmbedderSpec | null;
  /** `scheduler.maxSchedulesPerUser`: the schedules its schedules toolkit may leave one user with. */
  readonly maxSchedulesPerUser?: number;
  /**
   * Set when this is a team's leader: `definition` is the leader's (the team's id, name, model,
   * instructions and tools), and its runs are team runs (lib/runtime/team/).
   */
  readonly team?: TeamLeader;
  /** Set when this stands for a workflow: its runs are workflow runs, executed by `run` (lib/runtime/workflow/). */
  readonly workflow?: WorkflowRunner;
  /** Set when this was built from a stored component (Studio) rather than code: the version its runs use. */
  readonly stored?: StoredComponentVersion;
  /** Set when another framework runs this agent (defineExternalAgent): its runs are the adapter's (lib/runtime/external/). */
  readonly external?: ExternalAgentDefinition;
}

/** The stored component version a runtime agent was built from (lib/runtime/component-source.ts). */
export interface StoredComponentVersion {
  readonly version: number;
  readonly stage: "draft" | "published";
  /** The component's owner (null: shared, made by an admin). */
  readonly ownerId: string | null;
}

/** What makes a runtime agent a workflow (built in lib/runtime/workflow/workflow-runtime.ts). */
export interface WorkflowRunner {
  readonly definition: WorkflowDefinition;
  /** Runs the steps of the run the state holds (its RunState, see TeamLeader.tools), to its end: completed, paused or failed. */
  run(state: RunStateRef, message: string): Promise<RunOutput>;
  /** Continues a paused run with a person's step requirements (lib/runtime/workflow/review.ts). */
  continue(
    request: WorkflowContinueRequest,
  ): Promise<{ readonly runId: string; readonly sessionId: string; readonly live: LiveRun; readonly firstEventIndex: number; readonly done: Promise<RunOutput> }>;
}

/** What continuing a paused workflow run takes (continueAgentRun's request, with the step requirements). */
export interface WorkflowContinueRequest {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  runId: string;
  sessionId: string;
  stepRequirements: Record<string, unknown>[] | null;
  claim: () => Promise<boolean>;
  stream?: boolean;
  writer?: RunWriter;
  beforeStart?: () => Promise<void>;
}

/** What makes a runtime agent a team's leader (built in lib/runtime/team/team-runtime.ts). */
export interface TeamLeader {
  readonly definition: TeamDefinition;
  readonly mode: TeamMode;
  readonly members: readonly RuntimeAgent[];
  /** The team part of the leader's system prompt: its members and how to work with them. */
  readonly context: string;
  /**
   * The leader's delegation (or task) tools for one run: they run members as the run's children.
   * Called with the run's RunState (lib/runtime/run-state.ts, which imports this file: hence the
   * structural type here).
   */
  tools(state: RunStateRef): ToolDefinition<unknown>[];
  /**
   * Continues the paused member runs a team run's requirements name (grouped by member run), with
   * the person's decisions; members that pause again leave their requirements on the state.
   */
  /** After the leader answers without a tool call: a message sending it back to work (tasks mode), or null when the run is done. */
  afterAnswer(state: RunStateRef): AgnoMessage | null;
  continueMembers(state: RunStateRef, requirements: readonly RunRequirement[], resolutions: readonly Resolution[]): Promise<{ name: string; answer: string }[]>;
}

/** What of a run's state this file names: the run (its RunState in full, see TeamLeader.tools). */
export interface RunStateRef {
  readonly output: { readonly run_id: string };
}

/** The component an agent's runs belong to: the agent, or the team it leads. */
export function componentOf(agent: RuntimeAgent): { type: "agent" | "team" | "workflow"; id: string } {
  return { type: agent.workflow ? "workflow" : agent.team ? "team" : "agent", id: agent.definition.id };
}

/** Whether a stored run is one of this agent's or team's own (a team member's run is not the team's). */
export function isRunOf(stored: { agent_id: string | null; team_id: string | null; workflow_id?: string | null; run_type?: string }, component: { type: string; id: string }): boolean {
  if (component.type === "workflow") return stored.workflow_id === component.id && stored.run_type === "workflow";
  return component.type === "team" ? stored.team_id === component.id && stored.run_type === "team" : stored.agent_id === component.id && stored.run_type !== "team";
}

function isToolkit(value: unknown): value is Toolkit {
  return !!value && typeof value === "object" && Array.isArray((value as Toolkit).tools) && typeof (value as Toolkit).id === "string";
}

function isTool(value: unknown): value is ToolDefinition<unknown> {
  return !!value && typeof value === "object" && typeof (value as ToolDefinition).name === "string" && "parameters" in (value as object);
}

export function toRuntimeAgent(definition: AgentDefinition): RuntimeAgent {
  const tools: ToolDefinition<unknown>[] = [];
  const toolkits: { id: string; name: string; tools: string[] }[] = [];
  const runtimeToolkits: Toolkit[] = [];
  for (const entry of definition.tools ?? []) {
    if (isToolkit(entry) && entry.loadTools) {
      runtimeToolkits.push(entry);
    } else if (isToolkit(entry)) {
      tools.push(...(entry.tools as ToolDefinition<unknown>[]));
      toolkits.push({ id: entry.id, name: entry.name, tools: entry.tools.map((t) => t.name) });
    } else if (isTool(entry)) {
      tools.push(entry);
    } else {
      throw new Error(`Agent '${definition.id}': tools must be toolkits or tool definitions`);
    }
  }
  const names = tools.map((t) => t.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new Error(`Agent '${definition.id}' has two tools named '${duplicate}'`);
  return { definition, tools, toolkits, ...(runtimeToolkits.length > 0 ? { runtimeToolkits } : {}) };
}

/**
 * The tools of an agent's run-time toolkits for one run's user, after its own tools: a name it
 * already has is left out (logged; a `toolNamePrefix` keeps an MCP server's names apart).
 */
export async function loadRuntimeTools(agent: RuntimeAgent, taken: readonly ToolDefinition<unknown>[], context: ToolkitLoadContext): Promise<ToolDefinition<unknown>[]> {
  const names = new Set(taken.map((t) => t.name));
  const loaded: ToolDefinition<unknown>[] = [];
  for (const toolkit of agent.runtimeToolkits ?? []) {
    for (const tool of (await toolkit.loadTools!(context)) as ToolDefinition<unknown>[]) {
      if (names.has(tool.name)) {
        log.warn(`Agent '${agent.definition.id}': toolkit '${toolkit.id}' offers '${tool.name}', a name the agent already has; it is left out (set a toolNamePrefix)`);
        continue;
      }
      names.add(tool.name);
      loaded.push(tool);
    }
  }
  return loaded;
}

const cache = new WeakMap<AgentDefinition, RuntimeAgent>();

/** The configured agent with this id, or undefined. */
export function findAgent(settings: Settings, agentId: string): RuntimeAgent | undefined {
  const definition = settings.agents.find((a) => a.id === agentId);
  if (!definition) return undefined;
  let agent = cache.get(definition);
  if (!agent || agent.prices !== settings.metrics.prices || agent.embedder !== settings.knowledge.embedder) {
    cache.set(
      definition,
      (agent = { ...toRuntimeAgent(definition), prices: settings.metrics.prices, embedder: settings.knowledge.embedder, maxSchedulesPerUser: settings.scheduler.maxSchedulesPerUser }),
    );
  }
  return agent;
}
