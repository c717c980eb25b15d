import { z } from "zod";
import { hasScope } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import { findAgent, type RuntimeAgent } from "../../runtime/agents.ts";
import { DEFAULT_VECTOR_TABLE } from "../../config/settings.ts";
import { defineRoute } from "../route.ts";
import { AgentParams, AgentResponseSchema, AgentRunParams, ExternalAgentResponseSchema } from "../schemas/agents.ts";
import { externalRuntimeAgent, findExternalAgent } from "../../runtime/external/external-agents.ts";
import { componentRunRoutes, readsComponent, type ComponentSpec } from "./component-runs.ts";
import { componentFields, listedStoredComponents } from "./stored-components.ts";

/** The agents as components with run routes: `/agents/{agent_id}`, 404 "Agent not found" for an unknown one. */
const AGENT_COMPONENT: ComponentSpec = {
  type: "agent",
  base: "/agents/{agent_id}",
  params: AgentParams,
  runParams: AgentRunParams,
  tag: "Agents",
  a: "an agent",
  output: "RunOutput",
  // An external agent (defineExternalAgent) is served on the same routes (lib/http/routes/external-agent-runs.ts).
  find: (settings, id) => findAgent(settings, id) ?? findExternalAgent(settings, id),
  notFound: "Agent not found",
};

/**
 * An external agent as Agno lists it: id, name, description, its framework in `metadata`, and in
 * the list (`listed`) the database its sessions are stored in.
 */
function externalAgentResponse(agent: RuntimeAgent, settings: Settings, { listed }: { listed: boolean }): z.infer<typeof ExternalAgentResponseSchema> {
  const d = agent.definition;
  return {
    id: d.id,
    name: d.name,
    description: d.description ?? null,
    ...(listed ? { db_id: settings.database.id, sessions: { session_table: "agno_sessions" } } : {}),
    metadata: { framework: agent.external!.framework },
  };
}

export function agentResponse(agent: RuntimeAgent, settings: Settings): z.infer<typeof AgentResponseSchema> {
  const d = agent.definition;
  const toolkitOf = new Map(agent.toolkits.flatMap((k) => k.tools.map((t) => [t, k.id] as const)));
  // Run-time toolkits (MCP servers): the tools their last listing offered, none before one.
  const runtimeTools = (agent.runtimeToolkits ?? []).flatMap((k) => k.tools);
  for (const k of agent.runtimeToolkits ?? []) for (const t of k.tools) toolkitOf.set(t.name, k.id);
  return {
    id: d.id,
    name: d.name,
    db_id: settings.database.id,
    description: d.description ?? null,
    role: null,
    is_factory: false,
    // No model configured: null, so GET /agents leaves it out, as Agno does for a model with no fields.
    model: d.model ? { name: d.model.id, model: d.model.id, provider: d.model.provider } : null,
    tools: {
      tools: [...agent.tools, ...runtimeTools].map((t) => ({
        name: t.name,
        description: t.description,
        toolkit_id: toolkitOf.get(t.name) ?? null,
        requires_confirmation: !!t.requiresConfirmation,
        requires_user_input: (t.userInputFields?.length ?? 0) > 0,
        external_execution: !!t.externalExecution,
        approval_type: t.approval ?? null,
      })),
    },
    sessions: { session_table: "agno_sessions", add_history_to_context: !!d.addHistoryToContext, num_history_runs: d.numHistoryRuns ?? null },
    knowledge: d.knowledge
      ? {
          knowledge_table: "agno_knowledge",
          knowledge_id: d.knowledge.id,
          name: d.knowledge.name,
          vector_table: d.knowledge.vectorTable ?? DEFAULT_VECTOR_TABLE,
          search_knowledge: d.searchKnowledge !== false,
          add_knowledge_to_context: !!d.addKnowledgeToContext,
        }
      : null,
    memory: { update_memory_on_run: !!d.updateMemoryOnRun, search_past_sessions: !!d.searchPastSessions },
    reasoning: d.reasoningModel ? { reasoning_model: { id: d.reasoningModel.id, provider: d.reasoningModel.provider } } : null,
    default_tools: null,
    system_message: { instructions: d.instructions ?? null, description: d.description ?? null },
    extra_messages: null,
    response_settings: { output_schema_name: d.outputSchema ? "dict" : null },
    introduction: null,
    streaming: { stream: true, stream_events: true },
    metadata: d.metadata ?? null,
    input_schema: null,
    factory_input_schema: null,
    ...componentFields(agent),
    model_configured: d.model !== null,
  };
}

export const listAgents = defineRoute({
  method: "GET",
  path: "/agents",
  summary: "List the agents: those defined in code (external ones with their framework), then the stored (Studio) ones the caller may run",
  tags: ["Agents"],
  access: { permission: "agents:read", listFilter: true },
  response: z.array(z.union([AgentResponseSchema, ExternalAgentResponseSchema])),
  excludeNone: true,
  handler: async ({ settings, principal }) => [
    ...settings.agents.filter((a) => hasScope(principal, `agents:${a.id}:read`)).map((a) => agentResponse(findAgent(settings, a.id)!, settings)),
    ...settings.externalAgents.filter((a) => hasScope(principal, `agents:${a.id}:read`)).map((a) => externalAgentResponse(externalRuntimeAgent(a), settings, { listed: true })),
    ...(await listedStoredComponents(settings, principal, "agent")).map((a) => agentResponse(a, settings)),
  ],
});

export const getAgent = defineRoute({
  method: "GET",
  path: "/agents/{agent_id}",
  summary: "One agent",
  ...readsComponent(AGENT_COMPONENT),
  params: AgentParams,
  response: z.union([AgentResponseSchema, ExternalAgentResponseSchema]),
  excludeNone: true,
  handler: ({ resource: agent, settings }) => (agent.external ? externalAgentResponse(agent, settings, { listed: false }) : agentResponse(agent, settings)),
});

/** The agents' run routes (lib/http/routes/component-runs.ts, shared with teams). */
export const AGENT_RUN_ROUTES = componentRunRoutes(AGENT_COMPONENT);

export const AGENT_ROUTES = [listAgents, getAgent, ...AGENT_RUN_ROUTES];
