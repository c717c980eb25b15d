import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../../log.ts";
import { defineToolkit, type Toolkit, type ToolDefinition, type ToolkitLoadContext } from "../types.ts";
import { errorText } from "./mcp-connection.ts";
import { mcpServerSpec, type McpServerSpec, type McpToolsOptions } from "./mcp-options.ts";
import { poolFor } from "./mcp-registry.ts";
import type { McpServerStatus } from "./mcp-server-pool.ts";
import { mcpToolDefinition } from "./mcp-tool.ts";

/** A toolkit whose tools are an MCP server's (Agno's MCPTools). */
export interface McpToolkit extends Toolkit {
  readonly mcp: {
    readonly spec: McpServerSpec;
    /** The server's state and pooled connections in this process. */
    status(): McpServerStatus;
  };
}

/** Whether a toolkit is an MCP server's. */
export function isMcpToolkit(toolkit: unknown): toolkit is McpToolkit {
  return !!toolkit && typeof toolkit === "object" && "mcp" in toolkit && typeof (toolkit as McpToolkit).loadTools === "function";
}

/** The schema of a tool the server has not described yet (its listing failed): any object. */
const UNLISTED_SCHEMA = { type: "object", additionalProperties: true } as const;

/**
 * One MCP server as an agent's toolkit (Agno's `MCPTools`, one per server): stdio (`command`) or
 * Streamable HTTP (`url`). Its tools are listed when a run first needs them, on that run's
 * user's connection, and offered with their JSON schemas (through `include` / `exclude`, named
 * `<toolNamePrefix>_<tool>` when a prefix is set). Each call is made as the run's user, with the
 * credentials `authTokenGetters` return for them. A server that cannot be reached never fails
 * the run's start: the run offers the tools last listed (or those `include` names), and their
 * calls return the error for the model to read. Options Agno v3 removed (`authTokens`,
 * `authHeaders`) fail naming `authTokenGetters`.
 */
export function mcpTools(options: McpToolsOptions): McpToolkit {
  const spec = mcpServerSpec(options as McpToolsOptions & Record<string, unknown>);
  const pool = () => poolFor(spec);
  pool();
  const call = (name: string, args: Record<string, unknown>, context: { userId: string | null; signal: AbortSignal }) =>
    pool().callTool({ userId: context.userId, name, args, signal: context.signal });
  // Definitions are rebuilt only when a listing brings new tool objects.
  const definitions = new WeakMap<Tool, ToolDefinition<Record<string, unknown>>>();
  const define = (remote: Tool) => {
    let definition = definitions.get(remote);
    if (!definition) definitions.set(remote, (definition = mcpToolDefinition({ remote, prefix: spec.toolNamePrefix, serverName: spec.name, serverId: spec.id, call })));
    return definition;
  };
  const fallback = (): ToolDefinition<Record<string, unknown>>[] => {
    const known = pool().knownTools;
    if (known) return known.map(define);
    return (spec.include ?? []).map((name) =>
      mcpToolDefinition({
        remote: { name, description: `Tool '${name}' of MCP server '${spec.name}' (not described yet: the server has not been reached)`, inputSchema: UNLISTED_SCHEMA },
        prefix: spec.toolNamePrefix,
        serverName: spec.name,
        serverId: spec.id,
        call,
      }),
    );
  };
  return defineToolkit({
    id: spec.id,
    name: spec.name,
    get tools() {
      return (pool().knownTools ?? []).map(define);
    },
    async loadTools({ userId }: ToolkitLoadContext) {
      try {
        return (await pool().listTools(userId)).map(define);
      } catch (error) {
        log.warn(`[mcp ${spec.id}] the run offers the tools last known: ${errorText(error)}`);
        return fallback();
      }
    },
    mcp: { spec, status: () => pool().status() },
  } as McpToolkit) as McpToolkit;
}
