import type { McpSettings, McpTag } from "../config/mcp-settings.ts";

/** Agno's `_BUILTIN_TOOL_NAMES`: the tag groups of each built-in tool (plus get_session and create_session, tag session). */
export const BUILTIN_TOOL_TAGS = {
  get_agentos_config: ["core"],
  run_agent: ["core"],
  run_team: ["core"],
  run_workflow: ["core"],
  continue_run: ["core", "lifecycle"],
  cancel_run: ["core", "lifecycle"],
  get_sessions: ["session"],
  get_session_runs: ["session"],
  get_session: ["session"],
  create_session: ["session"],
} as const satisfies Record<string, readonly McpTag[]>;

export type BuiltinToolName = keyof typeof BUILTIN_TOOL_TAGS;

export interface EnabledTools {
  /** The built-in tools served. */
  builtin: Set<BuiltinToolName>;
  /**
   * continue_run and cancel_run are served only because agents are exposed as tools (neither core
   * nor an explicit lifecycle asked for them): they then act only on the exposed agents' runs.
   */
  lifecycleRidesAlong: boolean;
}

/**
 * Which tag groups are on, as in Agno: no config → core and session; `defaultTools: false` → none;
 * else includeTags (default core and session) minus excludeTags; lifecycle is added when
 * components are exposed (here: agents as `agent_<id>` tools) unless it is excluded or
 * lifecycleTools is off. A tool is served when one of its tags is enabled.
 */
export function enabledTools(mcp: McpSettings, hasExposures: boolean): EnabledTools {
  const enabled = new Set<McpTag>(mcp.defaultTools ? (mcp.includeTags ?? ["core", "session"]) : []);
  if (mcp.defaultTools) for (const tag of mcp.excludeTags) enabled.delete(tag);
  const explicitLifecycle = enabled.has("lifecycle") || enabled.has("core");
  if (hasExposures && mcp.lifecycleTools && !mcp.excludeTags.includes("lifecycle")) enabled.add("lifecycle");
  const builtin = new Set((Object.entries(BUILTIN_TOOL_TAGS) as [BuiltinToolName, readonly McpTag[]][]).filter(([, tags]) => tags.some((t) => enabled.has(t))).map(([name]) => name));
  return { builtin, lifecycleRidesAlong: !explicitLifecycle && enabled.has("lifecycle") };
}
