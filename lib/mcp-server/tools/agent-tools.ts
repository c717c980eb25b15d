import { z } from "zod";
import type { AgentDefinition } from "../../config/define.ts";
import type { Settings } from "../../config/settings.ts";
import { log } from "../../log.ts";
import { runComponent } from "../component-runs.ts";
import { ANNOTATIONS, handled, type ToolRegistry } from "./register.ts";

/** MCP tool names: letters, digits, `_`, `-`, `.`; at most 128 characters. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The name of an agent's own tool. */
export function agentToolName(agentId: string): string {
  return `agent_${agentId}`;
}

/** The agents served as their own tools: all of them (exposeAgents, on by default) whose tool name is a valid MCP name. */
export function exposedAgents(settings: Settings): AgentDefinition[] {
  if (!settings.mcp.exposeAgents) return [];
  return settings.agents.filter((agent) => {
    const valid = TOOL_NAME.test(agentToolName(agent.id));
    if (!valid) log.warn(`[mcp] agent '${agent.id}' is not exposed as a tool: '${agentToolName(agent.id)}' is not a valid MCP tool name (at most 128 characters)`);
    return valid;
  });
}

/**
 * Beyond Agno's built-in tools: every configured agent as its own tool `agent_<id>` taking
 * (message, session_id?), described by the agent's own description, so an MCP client sees one
 * typed tool per agent. It runs through the same REST run route as run_agent; the run belongs
 * to the caller's identity. (No built-in tool's name starts with `agent_`, so names cannot collide.)
 */
export function registerAgentTools({ server, settings, enabled }: ToolRegistry, agents: AgentDefinition[]): void {
  for (const agent of agents) {
    const about = agent.description ?? `Run the agent ${agent.name ?? agent.id}.`;
    server.registerTool(
      agentToolName(agent.id),
      {
        title: agent.name ?? agent.id,
        description: `${about} Pass the returned session_id back to continue the conversation; omit it to start a new one.`,
        inputSchema: { message: z.string().min(1), session_id: z.string().nullish() },
        annotations: ANNOTATIONS.run,
      },
      handled(async (args, context) =>
        runComponent({ settings, context, type: "agent", id: agent.id, message: args.message, sessionId: args.session_id, continueRunServed: enabled.builtin.has("continue_run") }),
      ),
    );
  }
}
