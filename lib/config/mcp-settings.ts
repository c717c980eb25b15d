import { z } from "zod";

/** Agno's MCP tag groups (MCPBuiltinTag): every built-in tool carries one or more. */
export const MCP_TAGS = ["core", "session", "lifecycle"] as const;
export type McpTag = (typeof MCP_TAGS)[number];

/** The path the MCP endpoint is served at (Agno's `mcp.http_app(path="/mcp")`). */
export const MCP_PATH = "/mcp";

/**
 * `mcp` in agentry.config.ts: `true`, or Agno's MCPConfig in camelCase (a config object turns the
 * server on unless it says `enabled: false`). AGENTRY_MCP in the environment wins over `enabled`.
 */
export const McpConfigSchema = z.union([
  z.boolean(),
  z
    .object({
      enabled: z.boolean().optional(),
      /** The tag groups whose tools are served (default core and session); an empty list serves none. */
      includeTags: z.array(z.enum(MCP_TAGS)).optional(),
      /** Tag groups taken away from includeTags. */
      excludeTags: z.array(z.enum(MCP_TAGS)).optional(),
      /** false: none of the built-in tools (Agno's default_tools). */
      defaultTools: z.boolean().optional(),
      /** continue_run and cancel_run ride along with exposed agents even when core is excluded (default true). */
      lifecycleTools: z.boolean().optional(),
      /** Each configured agent as its own tool `agent_<id>` (message, session_id?); default true. */
      exposeAgents: z.boolean().optional(),
      /** Sent in the initialize response (default: the OS name and version 1.0.0). */
      name: z.string().min(1).optional(),
      version: z.string().min(1).optional(),
      /** Tells the calling model what the tools are for (none by default, as in Agno). */
      instructions: z.string().min(1).optional(),
      /** An MCP session nobody used for this long is closed (default 1800). */
      sessionIdleSeconds: z.number().int().min(10).max(86_400).optional(),
      /** Open MCP sessions one caller (principal) may hold at once; one more answers 429 (default 32). */
      maxSessionsPerUser: z.number().int().min(1).max(10_000).optional(),
    })
    .strict(),
]);
export type McpConfig = z.infer<typeof McpConfigSchema>;

/** The MCP server's settings (lib/mcp-server). */
export interface McpSettings {
  enabled: boolean;
  /** null: Agno's default (core and session). */
  includeTags: McpTag[] | null;
  excludeTags: McpTag[];
  defaultTools: boolean;
  lifecycleTools: boolean;
  exposeAgents: boolean;
  name?: string;
  version?: string;
  instructions?: string;
  sessionIdleSeconds: number;
  /** Open sessions per principal (its user id, or its kind of trusted caller). */
  maxSessionsPerUser: number;
}

export const DEFAULT_MCP_SESSION_IDLE_SECONDS = 1800;
export const DEFAULT_MCP_MAX_SESSIONS_PER_USER = 32;

/** The keys of agentry.config.ts that name the MCP server: `mcp`, and the older names of it. */
export interface McpFileKeys {
  mcp?: McpConfig;
  /** Deprecated alias of `mcp` (Agno v3 calls the AgentOS argument `mcp_server`). */
  mcpServer?: McpConfig;
  /** Agno v2's `enable_mcp_server` and v3's `mcp_config` attribute: refused, naming `mcp`. */
  enableMcpServer?: unknown;
  mcpConfig?: unknown;
}

/**
 * The MCP server's entry in the file and the key it was written under, or the problem with it.
 * `mcpServer` stands for `mcp`, with a warning naming `mcp`; `enableMcpServer` and `mcpConfig`
 * (Agno's names for the on/off flag and the config kept apart), and `mcp` together with
 * `mcpServer`, are problems naming `mcp`.
 */
export function mcpFromFile(file: McpFileKeys, warn: (message: string) => void): { raw: McpConfig | undefined; key: "mcp" | "mcpServer" } | { problem: string } {
  for (const refused of ["enableMcpServer", "mcpConfig"] as const) {
    if (file[refused] !== undefined) {
      return { problem: `${refused} is not an option: the MCP server is configured by mcp (true, or an object with its settings such as includeTags or exposeAgents)` };
    }
  }
  if (file.mcpServer === undefined) return { raw: file.mcp, key: "mcp" };
  if (file.mcp !== undefined) return { problem: "Both mcp and mcpServer are set: mcpServer is a deprecated alias of mcp. Keep mcp only." };
  warn("agentry.config.ts: mcpServer is deprecated; rename it to mcp (it takes the same value: true, or an object with the MCP server's settings)");
  return { raw: file.mcpServer, key: "mcpServer" };
}

/** `mcp` from the file, with AGENTRY_MCP (the environment wins) deciding whether it is on. */
export function resolveMcp(envEnabled: boolean | undefined, raw: McpConfig | undefined, sources: Record<string, string>, fileKey: "mcp" | "mcpServer" = "mcp"): McpSettings {
  const file = typeof raw === "object" ? raw : {};
  const fileEnabled = typeof raw === "boolean" ? raw : raw === undefined ? undefined : (raw.enabled ?? true);
  let enabled: boolean;
  if (envEnabled !== undefined) {
    enabled = envEnabled;
    sources["mcp.enabled"] = "env:AGENTRY_MCP";
  } else if (fileEnabled !== undefined) {
    enabled = fileEnabled;
    sources["mcp.enabled"] = `config:${fileKey}`;
  } else {
    enabled = false;
    sources["mcp.enabled"] = "default";
  }
  return {
    enabled,
    includeTags: file.includeTags ?? null,
    excludeTags: file.excludeTags ?? [],
    defaultTools: file.defaultTools ?? true,
    lifecycleTools: file.lifecycleTools ?? true,
    exposeAgents: file.exposeAgents ?? true,
    name: file.name,
    version: file.version,
    instructions: file.instructions,
    sessionIdleSeconds: file.sessionIdleSeconds ?? DEFAULT_MCP_SESSION_IDLE_SECONDS,
    maxSessionsPerUser: file.maxSessionsPerUser ?? DEFAULT_MCP_MAX_SESSIONS_PER_USER,
  };
}
