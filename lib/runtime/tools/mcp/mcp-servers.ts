import type { AgentDefinition, TeamDefinition } from "../../../config/define.ts";
import type { Settings } from "../../../config/settings.ts";
import type { WorkflowStep } from "../../../config/workflow.ts";
import type { RuntimeAgent } from "../../agents.ts";
import { isMcpToolkit, type McpToolkit } from "./mcp-tools.ts";
import type { McpConnectionState, McpServerStatus } from "./mcp-server-pool.ts";

/** What anyone who may see an agent sees of its MCP toolkits: no users, no errors, no endpoints. */
export interface McpToolkitSummary {
  readonly id: string;
  readonly name: string;
  readonly transport: "stdio" | "streamable-http";
  readonly state: McpConnectionState;
  /** The tools last listed (null: not listed yet, the first run lists them). */
  readonly tools: readonly { name: string; description: string | null }[] | null;
}

/** An agent's (or a team leader's) MCP toolkits, for the agents page. */
export function mcpToolkitSummaries(agent: RuntimeAgent): McpToolkitSummary[] {
  return (agent.runtimeToolkits ?? []).filter(isMcpToolkit).map((toolkit) => {
    const status = toolkit.mcp.status();
    const prefix = toolkit.mcp.spec.toolNamePrefix;
    return {
      id: status.id,
      name: status.name,
      transport: status.transport,
      state: status.state,
      tools: status.tools?.map((t) => ({ ...t, name: prefix ? `${prefix}_${t.name}` : t.name })) ?? null,
    };
  });
}

/** A configured MCP server with its state, and who uses it (admins only: it names users and errors). */
export interface ConfiguredMcpServer extends McpServerStatus {
  /** The agents and teams whose tools include it, as "agent:<id>" / "team:<id>". */
  readonly usedBy: readonly string[];
}

function* stepAgents(steps: readonly WorkflowStep[]): Generator<AgentDefinition | TeamDefinition> {
  for (const step of steps) {
    if (step.type === "Step") {
      if (step.agent) yield step.agent;
      if (step.team) yield step.team;
    } else if (step.type === "Router") yield* stepAgents(step.choices);
    else {
      yield* stepAgents(step.steps);
      if (step.type === "Condition") yield* stepAgents(step.elseSteps ?? []);
    }
  }
}

/**
 * Every MCP toolkit the configuration holds (agents, teams and their members, workflow steps),
 * once per id, with its server's state in this process.
 */
export function configuredMcpServers(settings: Settings): ConfiguredMcpServer[] {
  const found = new Map<string, { toolkit: McpToolkit; usedBy: Set<string> }>();
  const seen = new Set<object>();
  const visit = (component: AgentDefinition | TeamDefinition) => {
    if (seen.has(component)) return;
    seen.add(component);
    const kind = "members" in component ? "team" : "agent";
    for (const entry of component.tools ?? []) {
      if (!isMcpToolkit(entry)) continue;
      const known = found.get(entry.id) ?? { toolkit: entry, usedBy: new Set<string>() };
      known.usedBy.add(`${kind}:${component.id}`);
      found.set(entry.id, known);
    }
    if ("members" in component) for (const member of component.members) visit(member);
  };
  for (const agent of settings.agents) visit(agent);
  for (const team of settings.teams) visit(team);
  for (const workflow of settings.workflows) for (const component of stepAgents(workflow.steps)) visit(component);
  return [...found.values()].map(({ toolkit, usedBy }) => ({ ...toolkit.mcp.status(), usedBy: [...usedBy].sort() }));
}
