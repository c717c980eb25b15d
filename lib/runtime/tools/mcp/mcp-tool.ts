import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../types.ts";
import { endSpan, startMcpSpan } from "../../run-trace.ts";

/**
 * The arguments' check: the tool's JSON schema as zod (`z.fromJSONSchema`), reporting its issues
 * but passing the arguments on unchanged (the server validates them too, and zod must not strip
 * what the schema allows). A schema zod cannot read checks only that the arguments are an object.
 */
export function argumentsSchema(inputSchema: Tool["inputSchema"]): z.ZodType<Record<string, unknown>> {
  const object = z.record(z.string(), z.unknown());
  let check: z.ZodType | null;
  try {
    check = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    check = null;
  }
  if (!check) return object;
  const schema = check;
  return object.superRefine((value, ctx) => {
    let result: ReturnType<typeof schema.safeParse>;
    try {
      result = schema.safeParse(value);
    } catch {
      return;
    }
    for (const issue of result.error?.issues ?? []) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
  });
}

/**
 * A tool result as the model reads it: the text parts joined (resources by their text or link,
 * other media named), or the structured content when there is no text. A result the server
 * marks `isError` is thrown, so the run records it as the tool's error.
 */
export function toolResultValue(result: CallToolResult): unknown {
  if (!Array.isArray(result.content) && "toolResult" in result) return (result as unknown as { toolResult: unknown }).toolResult;
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case "text":
        return part.text;
      case "resource":
        return "text" in part.resource ? String(part.resource.text) : `[resource ${part.resource.uri}]`;
      case "resource_link":
        return `[${part.name}](${part.uri})`;
      default:
        return `[${part.type}${"mimeType" in part ? ` ${String(part.mimeType)}` : ""}]`;
    }
  });
  const text = parts.join("\n");
  if (result.isError) throw new Error(text || "the tool reported an error");
  if (parts.length === 0 && result.structuredContent) return result.structuredContent;
  return text;
}

/** One of the server's tools as an agent's tool: its JSON schema offered as it is, each call made as the run's user. */
export function mcpToolDefinition({
  remote,
  prefix,
  serverName,
  serverId,
  call,
}: {
  remote: Pick<Tool, "name" | "description" | "title" | "inputSchema">;
  prefix: string | null;
  serverName: string;
  /** The toolkit's id, which the call's span names. */
  serverId: string;
  call: (name: string, args: Record<string, unknown>, context: { userId: string | null; signal: AbortSignal }) => Promise<CallToolResult>;
}): ToolDefinition<Record<string, unknown>> {
  return defineTool({
    name: prefix ? `${prefix}_${remote.name}` : remote.name,
    description: remote.description ?? remote.title ?? `${remote.name} (MCP server ${serverName})`,
    parameters: argumentsSchema(remote.inputSchema),
    inputSchema: remote.inputSchema,
    execute: async (args, ctx) => {
      const span = startMcpSpan({ id: serverId, name: serverName }, remote.name, args);
      try {
        const value = toolResultValue(await call(remote.name, args, { userId: ctx.userId, signal: ctx.signal }));
        endSpan(span, value);
        return value;
      } catch (error) {
        endSpan(span, null, error);
        throw error;
      }
    },
  });
}
