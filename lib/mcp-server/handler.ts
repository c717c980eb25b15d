import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authenticate } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { MCP_PATH } from "../config/mcp-settings.ts";
import type { Settings } from "../config/settings.ts";
import { corsHeaders, preflightResponse, withHeaders } from "../http/cors.ts";
import { errorResponse } from "../http/errors.ts";
import { getDatabase } from "../server/app-context.ts";
import { buildMcpServer } from "./build-server.ts";
import { addSession, findSession, forgetSession, ownerKey, sweepSessions, type McpSession } from "./sessions.ts";
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

/** A new session: its own server and transport, registered once the client's initialize succeeds. */
async function openSession(settings: Settings, owner: string): Promise<McpSession> {
  const server = buildMcpServer(settings);
  const session = {} as McpSession;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => addSession(id, session),
    onsessionclosed: (id) => {
      forgetSession(id);
      void server.close().catch(() => undefined);
    },
  });
  Object.assign(session, { transport, server, settings, owner, lastUsed: Date.now() });
  await server.connect(transport);
  return session;
}

/**
 * `/mcp`: MCP over Streamable HTTP (the SDK's web-standard transport), for the Next route handler
 * and the node:http server alike. Every request is authenticated as a REST request is (bearer
 * JWT, security key, service-account token, the dashboard session): 401 without credentials when
 * auth is on. A session belongs to the caller that opened it. Off: 404 with a `detail`.
 */
export async function handleMcpRequest(request: Request, settings: Settings): Promise<Response> {
  if (!settings.mcp.enabled) return json(404, { detail: MCP_DISABLED_DETAIL });
  const cors = corsHeaders(request, settings);
  if (request.method === "OPTIONS" && request.headers.get("access-control-request-method")) return preflightResponse(request, settings);
  const exposed = cors["access-control-allow-origin"] ? { ...cors, "access-control-expose-headers": "content-type, mcp-session-id, mcp-protocol-version" } : cors;
  try {
    const principal = await authenticate(request, settings, () => getDatabase(settings));
    await sweepSessions();
    const owner = ownerKey(principal);
    const sessionId = request.headers.get("mcp-session-id");
    let session: McpSession | undefined;
    if (sessionId) {
      session = findSession(sessionId, settings, owner);
      if (!session) return withHeaders(rpcError(404, "Session not found"), exposed);
    } else if (request.method === "POST") {
      session = await openSession(settings, owner);
    } else {
      return withHeaders(rpcError(400, "Bad Request: Mcp-Session-Id header is required"), exposed);
    }
    const response = await session.transport.handleRequest(request, { authInfo: authInfoOf(principal) });
    // A POST without a session that was not an initialize opened nothing the client can use.
    if (!sessionId && !session.transport.sessionId) await session.server.close().catch(() => undefined);
    return withHeaders(response, exposed);
  } catch (error) {
    return withHeaders(errorResponse(error), exposed);
  }
}

export { MCP_PATH };
