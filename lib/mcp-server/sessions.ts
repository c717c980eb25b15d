import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";

/**
 * The process's open MCP sessions (Streamable HTTP is stateful, as Agno serves it: a session's
 * server is what a `notifications/cancelled` reaches, and what carries progress). Kept on
 * `globalThis`: Next bundles route handlers as separate module graphs, and a module-level map
 * could exist twice in one process.
 *
 * A session is registered the moment it is opened, before its `initialize` has been answered, so
 * the per-principal cap counts sessions still opening; only an initialized one can be found by id.
 */
export interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** The settings it was opened under: another configuration's request never reaches it. */
  settings: Settings;
  /** Who opened it: only the same caller may use it (ownerKey). */
  owner: string;
  /** The allowance it counts against (sessionBucket): at most `mcp.maxSessionsPerUser` per bucket. */
  bucket: string;
  lastUsed: number;
  /** Whether a call past the handshake (`initialize`, `notifications/initialized`) has reached it. */
  used: boolean;
  /** Until its first call it closes at this time (ms since the epoch), whatever else happens. */
  unusedUntil: number;
  /** Closes it at `unusedUntil` unless a call came first; cleared by the first call. */
  unusedTimer?: ReturnType<typeof setTimeout>;
  /** Stops its watch of component changes (lib/components/changes.ts); called when it is forgotten. */
  stopWatching?: () => void;
}

/** A session that made no call after the handshake closes this long after it opened. */
export const UNUSED_SESSION_MS = 60_000;

/** The messages of the handshake: a session that has seen only these has not been used. */
const HANDSHAKE_METHODS = new Set(["initialize", "notifications/initialized"]);

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

/**
 * The allowance a caller's sessions count against: its user id (a JWT's subject, a service
 * account, a dashboard member — however it authenticated), or, for a trusted caller with no
 * identity (auth off, the security key, a JWT without a subject), one shared allowance per way of
 * authenticating.
 */
export function sessionBucket(principal: Principal): string {
  return principal.userId !== null ? JSON.stringify(["user", principal.userId]) : JSON.stringify(["caller", principal.authenticatedBy]);
}

/** Every open session (opening ones too), across all settings. */
export function openSessions(): IterableIterator<McpSession> {
  return sessions().values();
}

/** The open session with this id, if it is initialized and this caller's under these settings. */
export function findSession(id: string, settings: Settings, owner: string): McpSession | undefined {
  const session = sessions().get(id);
  if (!session || session.transport.sessionId !== id || session.settings !== settings || session.owner !== owner) return undefined;
  session.lastUsed = Date.now();
  return session;
}

/**
 * Registers a session under the id its transport will hand out, and starts its unused clock: at
 * `unusedUntil` it closes unless a call has reached it (markSessionUsed) by then.
 */
export function registerSession(id: string, session: McpSession): void {
  sessions().set(id, session);
  const timer = setTimeout(() => {
    if (!session.used) void closeSession(id, session);
  }, session.unusedUntil - Date.now());
  timer.unref();
  session.unusedTimer = timer;
}

/** Whether a JSON-RPC message is a call past the handshake (a request or notification; responses are not). */
export function isCall(message: object): boolean {
  return "method" in message && typeof message.method === "string" && !HANDSHAKE_METHODS.has(message.method);
}

/** The session has made a call: from now on only the idle limit (`sessionIdleSeconds`) closes it. */
export function markSessionUsed(session: McpSession): void {
  session.used = true;
  clearTimeout(session.unusedTimer);
  session.unusedTimer = undefined;
}

/** Drops a session from the registry (its transport closed); a later one under the same id is left alone. */
export function forgetSession(id: string, session: McpSession): void {
  clearTimeout(session.unusedTimer);
  session.stopWatching?.();
  session.stopWatching = undefined;
  if (sessions().get(id) === session) sessions().delete(id);
}

/** Drops a session and closes its server (and with it the transport and its streams). */
export async function closeSession(id: string, session: McpSession): Promise<void> {
  forgetSession(id, session);
  await session.server.close().catch(() => undefined);
}

/** Closes the sessions idle past their settings' limit, and the unused ones past `unusedUntil`. */
export async function sweepSessions(now = Date.now()): Promise<void> {
  for (const [id, session] of sessions()) {
    const idle = now - session.lastUsed > session.settings.mcp.sessionIdleSeconds * 1000;
    if (idle || (!session.used && now >= session.unusedUntil)) await closeSession(id, session);
  }
}

/** Closes every session opened under these settings (a test app's close, a shutdown). */
export async function closeMcpSessions(settings?: Settings): Promise<void> {
  for (const [id, session] of sessions()) {
    if (!settings || session.settings === settings) await closeSession(id, session);
  }
}
