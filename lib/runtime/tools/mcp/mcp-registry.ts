import { McpServerPool, type McpServerStatus } from "./mcp-server-pool.ts";
import { sameServer, type McpServerSpec } from "./mcp-options.ts";

/**
 * The process's MCP server pools by toolkit id, on `globalThis`: Next bundles route handlers and
 * pages as separate module graphs, each evaluating agentry.config.ts (so each has its own
 * toolkit objects), and all of them must share one pool per server.
 */
const KEY = Symbol.for("agentry.mcp.server-pools");

function pools(): Map<string, McpServerPool> {
  const holder = globalThis as { [KEY]?: Map<string, McpServerPool> };
  holder[KEY] ??= new Map();
  return holder[KEY];
}

/**
 * The pool of the server this spec reaches. An equal spec (the config evaluated again) shares the
 * pool and brings its token getters; a different server under the same id replaces the pool,
 * closing its connections.
 */
export function poolFor(spec: McpServerSpec): McpServerPool {
  const existing = pools().get(spec.id);
  if (existing && (existing.spec === spec || sameServer(existing.spec, spec))) {
    existing.spec = spec;
    return existing;
  }
  if (existing) void existing.close();
  const pool = new McpServerPool(spec);
  pools().set(spec.id, pool);
  return pool;
}

/** The state of the server a toolkit id names, or null when no toolkit of that id was configured in this process. */
export function mcpServerStatus(id: string): McpServerStatus | null {
  return pools().get(id)?.status() ?? null;
}

/** Closes every MCP connection of the process (shutdown, tests). */
export async function closeMcpConnections(): Promise<void> {
  const all = [...pools().values()];
  pools().clear();
  await Promise.all(all.map((pool) => pool.close()));
}
