import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";

/**
 * The process's open MCP sessions (Streamable HTTP is stateful, as Agno serves it: a session's
 * server is what a `notifications/cancelled` reaches, and what carries progress). Kept on
 * `globalThis`: Next bundles route handlers as separate module graphs, and a module-level map
 * could exist twice in one process.
 */
export interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** The settings it was opened under: another configuration's request never reaches it. */
  settings: Settings;
  /** Who opened it: only the same caller may use it (ownerKey). */
  owner: string;
  lastUsed: number;
}

/** At most this many sessions are open at once; past it the least recently used is closed. */
const MAX_SESSIONS = 10_000;

const key = Symbol.for("agentry.mcpSessions");
type Holder = { [key]?: Map<string, McpSession> };

function sessions(): Map<string, McpSession> {
  const holder = globalThis as Holder;
  holder[key] ??= new Map();
  return holder[key];
}

/**
 * The caller a session belongs to. Each request is authenticated on its own; a session id is no
 * credential, so a request from anyone else naming it is answered as for an unknown session.
 */
export function ownerKey(principal: Principal): string {
  return JSON.stringify([principal.kind, principal.authenticatedBy, principal.userId]);
}

/** The open session with this id, if it is this caller's under these settings. */
export function findSession(id: string, settings: Settings, owner: string): McpSession | undefined {
  const session = sessions().get(id);
  if (!session || session.settings !== settings || session.owner !== owner) return undefined;
  session.lastUsed = Date.now();
  return session;
}

export function addSession(id: string, session: McpSession): void {
  sessions().set(id, session);
}

export function forgetSession(id: string): void {
  sessions().delete(id);
}

async function close(id: string, session: McpSession): Promise<void> {
  sessions().delete(id);
  await session.server.close().catch(() => undefined);
}

/** Closes the sessions idle past their settings' limit, and the least recently used ones past MAX_SESSIONS. */
export async function sweepSessions(now = Date.now()): Promise<void> {
  const all = sessions();
  for (const [id, session] of all) {
    if (now - session.lastUsed > session.settings.mcp.sessionIdleSeconds * 1000) await close(id, session);
  }
  if (all.size < MAX_SESSIONS) return;
  const oldest = [...all.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed).slice(0, all.size - MAX_SESSIONS + 1);
  for (const [id, session] of oldest) await close(id, session);
}

/** Closes every session opened under these settings (a test app's close, a shutdown). */
export async function closeMcpSessions(settings?: Settings): Promise<void> {
  for (const [id, session] of sessions()) {
    if (!settings || session.settings === settings) await close(id, session);
  }
}
