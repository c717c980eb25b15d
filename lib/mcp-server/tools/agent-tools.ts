import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Settings } from "../../config/settings.ts";
import { log } from "../../log.ts";
import { runComponent } from "../component-runs.ts";
import { ANNOTATIONS, handled, type ToolRegistry } from "./register.ts";

/** MCP tool names: letters, digits, `_`, `-`, `.`; at most 128 characters. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What an agent's own tool is made from: a code-defined agent, or a stored one as GET /agents lists it. */
export interface ExposedAgent {
  id: string;
  name?: string | null;
  description?: string | null;
}

/** The name of an agent's own tool. */
export function agentToolName(agentId: string): string {
  return `agent_${agentId}`;
}

/** Whether an agent can be served as its own tool: its tool name is a valid MCP name (logged when not). */
export function exposable(agent: ExposedAgent): boolean {
  const valid = TOOL_NAME.test(agentToolName(agent.id));
  if (!valid) log.warn(`[mcp] agent '${agent.id}' is not exposed as a tool: '${agentToolName(agent.id)}' is not a valid MCP tool name (at most 128 characters)`);
  return valid;
}

/** The code-defined agents served as their own tools: all of them (exposeAgents, on by default) whose tool name is a valid MCP name. */
export function exposedAgents(settings: Settings): ExposedAgent[] {
  if (!settings.mcp.exposeAgents) return [];
  return settings.agents.filter(exposable);
}

/** An agent tool's title and description (what a stored agent's update rewrites). */
export function agentToolText(agent: ExposedAgent): { title: string; description: string } {
  const about = agent.description ?? `Run the agent ${agent.name ?? agent.id}.`;
  return { title: agent.name ?? agent.id, description: `${about} Pass the returned session_id back to continue the conversation; omit it to start a new one.` };
}

/**
 * Beyond Agno's built-in tools: an agent as its own tool `agent_<id>` taking (message,
 * session_id?), described by the agent's own description, so an MCP client sees one typed tool
 * per agent — every code-defined one, and the stored (Studio) ones the session's caller may run.
 * It runs through the same REST run route as run_agent; the run belongs to the caller's
 * identity. (No built-in tool's name starts with `agent_`, so names cannot collide.)
 */
export function registerAgentTool({ server, settings, enabled }: ToolRegistry, agent: ExposedAgent): RegisteredTool {
  return server.registerTool(
    agentToolName(agent.id),
    { ...agentToolText(agent), inputSchema: { message: z.string().min(1), session_id: z.string().nullish() }, annotations: ANNOTATIONS.run },
    handled(async (args, context) =>
      runComponent({ settings, context, type: "agent", id: agent.id, message: args.message, sessionId: args.session_id, continueRunServed: enabled.builtin.has("continue_run") }),
    ),
  );
}
