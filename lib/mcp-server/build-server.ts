import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Settings } from "../config/settings.ts";
import { AGNO_VERSION } from "../http/routes/core.ts";
import { enabledTools } from "./tool-tags.ts";
import { exposedAgents, registerAgentTools } from "./tools/agent-tools.ts";
import { registerCoreTools } from "./tools/core-tools.ts";
import { registerLifecycleTools } from "./tools/lifecycle-tools.ts";
import { registerSessionTools } from "./tools/session-tools.ts";

/**
 * One MCP server (one per MCP session): Agno's built-in tools of the enabled tag groups, the
 * session tools, and one tool per agent. Named after the OS (Agno: `FastMCP(os.name)`).
 */
export function buildMcpServer(settings: Settings): McpServer {
  const { mcp } = settings;
  const server = new McpServer(
    { name: mcp.name ?? settings.name ?? "AgentOS", version: mcp.version ?? "1.0.0", title: `${settings.name} (AgentOS ${AGNO_VERSION})` },
    { capabilities: { tools: {} }, ...(mcp.instructions ? { instructions: mcp.instructions } : {}) },
  );
  const agents = exposedAgents(settings);
  const enabled = enabledTools(mcp, agents.length > 0);
  const registry = { server, settings, enabled };
  registerCoreTools(registry);
  registerLifecycleTools(registry, new Set(agents.map((a) => a.id)));
  registerSessionTools(registry);
  registerAgentTools(registry, agents);
  return server;
}
