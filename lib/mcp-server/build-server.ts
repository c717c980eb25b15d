import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { AGNO_VERSION } from "../http/routes/core.ts";
import { log } from "../log.ts";
import { storedComponentsOf } from "./stored-components.ts";
import { enabledTools } from "./tool-tags.ts";
import { agentToolText, exposable, exposedAgents, registerAgentTool, type ExposedAgent } from "./tools/agent-tools.ts";
import { registerCoreTools } from "./tools/core-tools.ts";
import { registerLifecycleTools } from "./tools/lifecycle-tools.ts";
import type { ToolRegistry } from "./tools/register.ts";
import { registerSessionTools } from "./tools/session-tools.ts";

/** One session's MCP server and the way to bring its stored agents' tools up to date. */
export interface SessionServer {
  server: McpServer;
  /**
   * Re-reads the stored agents the session's caller may run (GET /agents as that caller) and
   * adds, updates or removes their `agent_<id>` tools; then, when connected, sends one
   * `notifications/tools/list_changed`. Calls while one runs are folded into one more after it.
   */
  sync(): Promise<void>;
}

/** At most this many sessions of the process re-read their stored agents at once (a publish reaches every open session). */
const MAX_CONCURRENT_SYNCS = 4;
let syncing = 0;
const waiting: (() => void)[] = [];

async function withSyncSlot<T>(work: () => Promise<T>): Promise<T> {
  if (syncing >= MAX_CONCURRENT_SYNCS) await new Promise<void>((resolve) => waiting.push(resolve));
  else syncing++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else syncing--;
  }
}

/** A stored agent as GET /agents lists it, as the fields its tool is made from. */
function storedAgent(listed: Record<string, unknown>): ExposedAgent & { version: unknown } {
  return {
    id: String(listed.id),
    name: typeof listed.name === "string" ? listed.name : null,
    description: typeof listed.description === "string" ? listed.description : null,
    version: listed.current_version ?? null,
  };
}

/**
 * One MCP server (one per MCP session, for the caller that opened it): Agno's built-in tools of
 * the enabled tag groups, the session tools, and one tool per agent — the code-defined ones at
 * once, the stored (Studio) ones the caller may run once `sync()` has read them (the handler calls
 * it before the session connects, and again whenever a component is published, rolled back,
 * archived or restored). Named after the OS (Agno: `FastMCP(os.name)`).
 */
export function buildMcpServer(settings: Settings, principal: Principal): SessionServer {
  const { mcp } = settings;
  const server = new McpServer(
    { name: mcp.name ?? settings.name ?? "AgentOS", version: mcp.version ?? "1.0.0", title: `${settings.name} (AgentOS ${AGNO_VERSION})` },
    {
      capabilities: { tools: { listChanged: true } },
      // A sync's adds, updates and removals go out as one notification.
      debouncedNotificationMethods: ["notifications/tools/list_changed"],
      ...(mcp.instructions ? { instructions: mcp.instructions } : {}),
    },
  );
  const inCode = exposedAgents(settings);
  const codeIds = new Set(settings.agents.map((a) => a.id));
  // The agents served as tools: the lifecycle tools riding along act on these agents' runs (a live set).
  const exposed = new Set(inCode.map((a) => a.id));
  const enabled = enabledTools(mcp, exposed.size > 0);
  const registry: ToolRegistry = { server, settings, enabled };
  registerCoreTools(registry);
  registerLifecycleTools(registry, exposed);
  registerSessionTools(registry);
  for (const agent of inCode) registerAgentTool(registry, agent);

  let lifecycleSettled = exposed.size > 0 || !mcp.exposeAgents;
  /** The first stored agent exposed on a server that had none turns on the lifecycle tools that ride along with agent tools. */
  const settleLifecycle = () => {
    if (lifecycleSettled) return;
    lifecycleSettled = true;
    const next = enabledTools(mcp, true);
    const added = [...next.builtin].filter((name) => !enabled.builtin.has(name));
    for (const name of added) enabled.builtin.add(name);
    enabled.lifecycleRidesAlong = next.lifecycleRidesAlong;
    if (added.length > 0) registerLifecycleTools({ server, settings, enabled: { builtin: new Set(added), lifecycleRidesAlong: next.lifecycleRidesAlong } }, exposed);
  };

  const stored = new Map<string, { tool: RegisteredTool; signature: string }>();
  const syncOnce = async () => {
    if (!mcp.exposeAgents) {
      server.sendToolListChanged();
      return;
    }
    let listed: ReturnType<typeof storedAgent>[];
    try {
      listed = (await withSyncSlot(() => storedComponentsOf(settings, principal, "agent"))).map(storedAgent);
    } catch (error) {
      // The tools stay as they were; the next change (or the next session) reads them again.
      log.warn(`[mcp] could not list the stored agents for a session: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const next = new Map(listed.filter((a) => !codeIds.has(a.id) && exposable(a)).map((a) => [a.id, a]));
    for (const [id, entry] of stored) {
      if (next.has(id)) continue;
      entry.tool.remove();
      stored.delete(id);
      exposed.delete(id);
    }
    for (const [id, agent] of next) {
      const signature = JSON.stringify([agent.name, agent.description, agent.version]);
      const entry = stored.get(id);
      if (entry?.signature === signature) continue;
      if (entry) {
        entry.tool.update(agentToolText(agent));
        entry.signature = signature;
      } else {
        stored.set(id, { tool: registerAgentTool(registry, agent), signature });
        exposed.add(id);
      }
    }
    if (exposed.size > 0) settleLifecycle();
    // A change may concern what the tools reach (a team, a workflow, an agent's new version) even when the list reads the same.
    server.sendToolListChanged();
  };

  let running: Promise<void> | null = null;
  let again = false;
  const sync = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await syncOnce();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
  return { server, sync };
}
