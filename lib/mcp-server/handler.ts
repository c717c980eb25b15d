import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authenticate } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { MCP_PATH } from "../config/mcp-settings.ts";
import type { Settings } from "../config/settings.ts";
import { corsHeaders, preflightResponse, withHeaders } from "../http/cors.ts";
import { errorResponse } from "../http/errors.ts";
import { onComponentsChanged } from "../components/changes.ts";
import { getDatabase } from "../server/app-context.ts";
import { buildMcpServer } from "./build-server.ts";
import { refuseNewSession } from "./session-limits.ts";
import { closeSession, findSession, forgetSession, isCall, markSessionUsed, type McpSession, ownerKey, registerSession, sessionBucket, sweepSessions, UNUSED_SESSION_MS } from "./sessions.ts";
import { PRINCIPAL_KEY } from "./tool-context.ts";

/** The detail of /mcp while the MCP server is off. */
export const MCP_DISABLED_DETAIL = "The MCP server is not enabled: set `mcp: true` in agentry.config.ts or AGENTRY_MCP=true";

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** A JSON-RPC error answer, as the SDK's transport gives its own. */
function rpcError(status: number, message: string): Response {
  return json(status, { jsonrpc: "2.0", error: { code: status === 404 ? -32001 : -32000, message }, id: null });
}

/** The caller as the transport hands it to tool handlers (extra.authInfo). No secret is kept in it. */
function authInfoOf(principal: Principal) {
  return { token: "", clientId: principal.userId ?? principal.kind, scopes: [...principal.scopes], extra: { [PRINCIPAL_KEY]: principal } };
}

/** Options of handleMcpRequest. */
export interface McpRequestOptions {
  /** A session that makes no call after the handshake closes this long after opening (default UNUSED_SESSION_MS, 60 s). */
  unusedSessionMs?: number;
  /** At most this many sessions open in the process (default MAX_SESSIONS, 10,000). */
  maxSessions?: number;
}

/**
 * A new session: its own server and transport, registered (and so counted against the caller's
 * allowance) before anything is awaited. Its first call past the handshake marks it used.
 */
async function openSession({ settings, principal, unusedSessionMs }: { settings: Settings; principal: Principal; unusedSessionMs: number }): Promise<{ id: string; session: McpSession }> {
  const id = randomUUID();
  const { server, sync } = buildMcpServer(settings, principal);
  const session = {} as McpSession;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    onsessionclosed: () => {
      forgetSession(id, session);
      void server.close().catch(() => undefined);
    },
  });
  // The server's protocol chains onto these when it connects: they run first, for every message the transport accepted.
  transport.onmessage = (message) => {
    if (!session.used && isCall(message)) markSessionUsed(session);
  };
  transport.onclose = () => forgetSession(id, session);
  const now = Date.now();
  Object.assign(session, { transport, server, settings, owner: ownerKey(principal), bucket: sessionBucket(principal), lastUsed: now, used: false, unusedUntil: now + unusedSessionMs });
  registerSession(id, session);
  // A publish, rollback, archive or restore anywhere re-reads the stored agents the caller may run
  // and tells the client (notifications/tools/list_changed); they are tools from the start.
  session.stopWatching = onComponentsChanged(
    settings,
    () => getDatabase(settings),
    () => void sync(),
  );
  try {
    await sync();
    await server.connect(transport);
  } catch (error) {
    await closeSession(id, session);
    throw error;
  }
  return { id, session };
}

/**
 * `/mcp`: MCP over Streamable HTTP (the SDK's web-standard transport), for the Next route handler
 * and the node:http server alike. Every request is authenticated as a REST request is (bearer
 * JWT, security key, service-account token, the dashboard session): 401 without credentials when
 * auth is on. A session belongs to the caller that opened it. A caller holding
 * `mcp.maxSessionsPerUser` sessions gets 429 for one more (503 past the process's `maxSessions`),
 * with a `detail` and Retry-After; a session with no call after the handshake closes after
 * `unusedSessionMs`, a used one after `sessionIdleSeconds` idle. Off: 404 with a `detail`.
 */
export async function handleMcpRequest(request: Request, settings: Settings, options: McpRequestOptions = {}): Promise<Response> {
  if (!settings.mcp.enabled) return json(404, { detail: MCP_DISABLED_DETAIL });
  const cors = corsHeaders(request, settings);
  if (request.method === "OPTIONS" && request.headers.get("access-control-request-method")) return preflightResponse(request, settings);
  const exposed = cors["access-control-allow-origin"] ? { ...cors, "access-control-expose-headers": "content-type, mcp-session-id, mcp-protocol-version, retry-after" } : cors;
  try {
    const principal = await authenticate(request, settings, () => getDatabase(settings));
    await sweepSessions();
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = findSession(sessionId, settings, ownerKey(principal));
      if (!session) return withHeaders(rpcError(404, "Session not found"), exposed);
      return withHeaders(await session.transport.handleRequest(request, { authInfo: authInfoOf(principal) }), exposed);
    }
    if (request.method !== "POST") return withHeaders(rpcError(400, "Bad Request: Mcp-Session-Id header is required"), exposed);
    // Checked here and registered inside openSession with no await between: concurrent opens by one caller cannot all pass.
    const refusal = refuseNewSession({ settings, bucket: sessionBucket(principal), maxSessions: options.maxSessions });
    if (refusal) return withHeaders(json(refusal.status, { detail: refusal.detail }, { "retry-after": String(refusal.retryAfterSeconds) }), exposed);
    const { id, session } = await openSession({ settings, principal, unusedSessionMs: options.unusedSessionMs ?? UNUSED_SESSION_MS });
    try {
      return withHeaders(await session.transport.handleRequest(request, { authInfo: authInfoOf(principal) }), exposed);
    } finally {
      // A POST without a session that was not an initialize opened nothing the client can use.
      if (!session.transport.sessionId) await closeSession(id, session);
    }
  } catch (error) {
    return withHeaders(errorResponse(error), exposed);
  }
}

export { MCP_PATH };
