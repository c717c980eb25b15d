import type { AgentDefinition } from "../../config/define.ts";
import type { ExternalAgentDefinition } from "../../config/external-agent.ts";
import type { Settings } from "../../config/settings.ts";
import type { RuntimeAgent } from "../agents.ts";

const cache = new WeakMap<ExternalAgentDefinition, RuntimeAgent>();

/**
 * An external agent as the runtime and the agents' routes use it: a runtime agent with no model,
 * tools or instructions of its own (its framework has them), `metadata.framework` naming the
 * framework, and `external` holding its adapter.
 */
export function externalRuntimeAgent(external: ExternalAgentDefinition): RuntimeAgent {
  let agent = cache.get(external);
  if (!agent) {
    const definition: AgentDefinition = {
      id: external.id,
      name: external.name,
      ...(external.description ? { description: external.description } : {}),
      model: null,
      metadata: { framework: external.framework },
    };
    agent = { definition, tools: [], toolkits: [], external };
    cache.set(external, agent);
  }
  return agent;
}

/** The configured external agent with this id, or undefined. */
export function findExternalAgent(settings: Settings, agentId: string): RuntimeAgent | undefined {
  const external = settings.externalAgents.find((a) => a.id === agentId);
  return external ? externalRuntimeAgent(external) : undefined;
}
