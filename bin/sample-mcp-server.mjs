#!/usr/bin/env node
/**
 * A small MCP server over stdio, for the sample configuration's Wordsmith agent (agentry.config.ts
 * reaches it with `mcpTools({ command: "node", args: ["bin/sample-mcp-server.mjs"] })`): text
 * tools with nothing to install or configure. Written with the official SDK, as any MCP server.
 *   node bin/sample-mcp-server.mjs
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "agentry-sample-text-tools", version: "1.0.0" });

server.registerTool("word_count", { description: "Counts the words, characters and lines of a text", inputSchema: { text: z.string().describe("the text to count") } }, async ({ text }) => {
  const counts = { words: text.split(/\s+/).filter(Boolean).length, characters: [...text].length, lines: text === "" ? 0 : text.split("\n").length };
  return { content: [{ type: "text", text: JSON.stringify(counts) }], structuredContent: counts };
});

server.registerTool(
  "change_case",
  {
    description: "Writes a text in upper case, lower case or title case",
    inputSchema: { text: z.string(), case: z.enum(["upper", "lower", "title"]).describe("the case to write it in") },
  },
  async ({ text, case: wanted }) => {
    const changed = wanted === "upper" ? text.toUpperCase() : wanted === "lower" ? text.toLowerCase() : text.toLowerCase().replace(/(^|\s)\p{L}/gu, (m) => m.toUpperCase());
    return { content: [{ type: "text", text: changed }] };
  },
);

await server.connect(new StdioServerTransport());
