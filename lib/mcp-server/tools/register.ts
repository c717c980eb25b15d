import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Settings } from "../../config/settings.ts";
import { errorToolResult, type ToolAnswer } from "../run-result.ts";
import { toolContext, type ToolContext, type ToolExtra } from "../tool-context.ts";
import type { EnabledTools } from "../tool-tags.ts";

/** What every tool module registers its tools with. */
export interface ToolRegistry {
  server: McpServer;
  settings: Settings;
  enabled: EnabledTools;
}

/** Agno's annotations by kind of tool. */
export const ANNOTATIONS = {
  config: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  cancel: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  session: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  sessionWrite: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
} as const;

/**
 * A tool handler with its context (the caller's principal, the cancel signal, progress); any
 * failure becomes an error result whose text is the reason, as FastMCP answers Agno's exceptions.
 */
export function handled<A>(body: (args: A, context: ToolContext) => Promise<ToolAnswer>) {
  return async (args: A, extra: ToolExtra): Promise<ToolAnswer> => {
    try {
      return await body(args, toolContext(extra));
    } catch (error) {
      return errorToolResult(error);
    }
  };
}

/** The same for a tool without arguments (the SDK then passes only the request's extra). */
export function handledNoArgs(body: (context: ToolContext) => Promise<ToolAnswer>) {
  return async (extra: ToolExtra): Promise<ToolAnswer> => {
    try {
      return await body(toolContext(extra));
    } catch (error) {
      return errorToolResult(error);
    }
  };
}
