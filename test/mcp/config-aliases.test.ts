import type { Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, type AgentDefinition, type FileConfig } from "@/lib/config/define.ts";
import { parseEnv } from "@/lib/config/env.ts";
import { resolveSettings, type Settings } from "@/lib/config/settings.ts";
import { serveApi } from "@/lib/http/node-server.ts";
import { handleMcpRequest } from "@/lib/mcp-server/handler.ts";
import { closeMcpSessions } from "@/lib/mcp-server/sessions.ts";

/**
 * The MCP server's older names in agentry.config.ts: `mcpServer` is a deprecated alias of `mcp`
 * (warned about once, when the settings are resolved), `enableMcpServer` and `mcpConfig` are
 * refused naming `mcp` (lib/config/mcp-settings.ts `mcpFromFile`).
 */

const dir = mkdtempSync(join(tmpdir(), "agentry-mcp-alias-"));
const agents: AgentDefinition[] = [{ id: "helper", name: "Helper", model: null }];
const KEY = "a-security-key-for-the-mcp-alias-test";

/** Settings as the server resolves them, with the warnings collected instead of logged. */
function resolve(file: Record<string, unknown>, env: Record<string, string> = {}): { settings: Settings; warnings: string[] } {
  const warnings: string[] = [];
  const settings = resolveSettings({
    env: parseEnv({ DATABASE_URL: `file:${join(dir, "never-opened.db")}`, OS_SECURITY_KEY: KEY, ...env }),
    file: { agents, ...file } as FileConfig,
    warn: (message) => warnings.push(message),
  });
  return { settings, warnings };
}

function refusal(file: Record<string, unknown>): Error {
  try {
    resolve(file);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`resolving ${JSON.stringify(file)} did not fail`);
}

const servers: Server[] = [];
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await closeMcpSessions();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("mcpServer, the deprecated alias of mcp", () => {
  it("mcpServer: true turns the MCP server on, with one warning naming mcp", () => {
    const { settings, warnings } = resolve({ mcpServer: true });
    expect(settings.mcp.enabled).toBe(true);
    expect(settings.sources["mcp.enabled"]).toBe("config:mcpServer");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/mcpServer is deprecated; rename it to mcp\b/);
  });

  it("takes the same object as mcp and resolves to the same settings", () => {
    const object = { includeTags: ["session" as const], exposeAgents: false, name: "Desk", sessionIdleSeconds: 60 };
    const viaAlias = resolve({ mcpServer: object });
    const viaMcp = resolve({ mcp: object });
    expect(viaAlias.settings.mcp).toEqual(viaMcp.settings.mcp);
    expect(viaAlias.settings.mcp).toMatchObject({ enabled: true, includeTags: ["session"], exposeAgents: false, name: "Desk", sessionIdleSeconds: 60 });
    expect(resolve({ mcpServer: { enabled: false } }).settings.mcp.enabled).toBe(false);
    expect(resolve({ mcpServer: false }).settings.mcp.enabled).toBe(false);
    expect(viaMcp.warnings).toEqual([]);
  });

  it("is checked like mcp: a bad value fails naming mcpServer", () => {
    const error = refusal({ mcpServer: { includeTags: ["memory"] } });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/^agentry\.config\.ts is invalid: mcpServer\b/);
    expect(refusal({ mcpServer: { exposeAgent: true } }).message).toMatch(/invalid: mcpServer\b/);
    expect(refusal({ mcpServer: "yes" }).message).toMatch(/invalid: mcpServer\b/);
  });

  it("AGENTRY_MCP still wins over it", () => {
    const { settings } = resolve({ mcpServer: true }, { AGENTRY_MCP: "false" });
    expect(settings.mcp.enabled).toBe(false);
    expect(settings.sources["mcp.enabled"]).toBe("env:AGENTRY_MCP");
  });

  it("fails when mcp is set too, naming both", () => {
    const error = refusal({ mcp: true, mcpServer: true });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe("Both mcp and mcpServer are set: mcpServer is a deprecated alias of mcp. Keep mcp only.");
  });

  it("serves /mcp over HTTP like mcp does", async () => {
    const { settings } = resolve({ mcpServer: { includeTags: ["session"], exposeAgents: false } });
    const { server, origin } = await serveApi({ settings, mounts: { "/mcp": (request) => handleMcpRequest(request, settings) } });
    servers.push(server);
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } });
    const client = new Client({ name: "agentry-mcp-alias-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["create_session", "get_session", "get_session_runs", "get_sessions"]);
    const info = (await (await fetch(`${origin}/info`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { mcp: unknown };
    expect(info.mcp).toEqual({ enabled: true, path: "/mcp", oauth: null });
  });
});

describe("enableMcpServer and mcpConfig are refused, naming mcp", () => {
  it.each([
    ["enableMcpServer", true],
    ["enableMcpServer", false],
    ["mcpConfig", { includeTags: ["core"] }],
  ])("%s: %j", (key, value) => {
    const error = refusal({ [key]: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(new RegExp(`^${key} is not an option: the MCP server is configured by mcp \\(true, or an object`));
  });

  it("refuses them even beside a valid mcp", () => {
    expect(refusal({ mcp: true, enableMcpServer: true }).message).toMatch(/^enableMcpServer is not an option.*\bmcp\b/);
    expect(refusal({ mcp: { exposeAgents: false }, mcpConfig: { exposeAgents: true } }).message).toMatch(/^mcpConfig is not an option.*\bmcp\b/);
  });
});
