import type { Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { serveApi } from "@/lib/http/node-server.ts";
import { handleMcpRequest, type McpRequestOptions } from "@/lib/mcp-server/handler.ts";
import { closeMcpSessions, sweepSessions } from "@/lib/mcp-server/sessions.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { testSettings } from "../support/settings.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

const SECRET = "mcp-session-limits-test-secret-of-sufficient-length";
const SCOPES = ["agents:read", "sessions:read", "config:read"];
const PROTOCOL = "2025-06-18";
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const helper: AgentDefinition = { id: "helper", name: "Helper", model: null };

const capDetail = (n: number) =>
  `You have ${n} open MCP sessions, the most one user may have (mcp.maxSessionsPerUser = ${n}); close one (DELETE /mcp with its Mcp-Session-Id) or wait for an idle one to expire`;

function token(sub: string): Promise<string> {
  return new SignJWT({ scopes: SCOPES }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));
}

/** A POST to /mcp as raw HTTP; with a session id, inside that session. */
function post(origin: string, bearer: string, body: unknown, sessionId?: string): Promise<Response> {
  const session: Record<string, string> = sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL } : {};
  return fetch(`${origin}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: `Bearer ${bearer}`, ...session }, body: JSON.stringify(body) });
}

/** Opens a session with the handshake alone (initialize, notifications/initialized): a session that made no call. */
async function handshake(origin: string, bearer: string): Promise<string> {
  const init = await post(origin, bearer, INITIALIZE);
  expect(init.status).toBe(200);
  await init.text();
  const id = init.headers.get("mcp-session-id");
  expect(id).toBeTruthy();
  const ack = await post(origin, bearer, { jsonrpc: "2.0", method: "notifications/initialized" }, id!);
  expect(ack.status).toBe(202);
  return id!;
}

/** tools/list in a session: the HTTP status (200 while the session is open, 404 once it is closed). */
async function listTools(origin: string, bearer: string, sessionId: string): Promise<number> {
  const answer = await post(origin, bearer, { jsonrpc: "2.0", id: 2, method: "tools/list" }, sessionId);
  await answer.text();
  return answer.status;
}

/** An MCP client of the official SDK on /mcp, with a bearer token. */
async function connect(origin: string, bearer: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
  const client = new Client({ name: "agentry-mcp-limits-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** `promise`, or a failure naming `what` when it has not settled within `ms` (a bound, not a timing assertion). */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for: ${what}`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Whether a tool call in this client's session succeeds (it reads the database, as the caller). */
async function works(client: Client): Promise<boolean> {
  const result = await client.callTool({ name: "get_sessions", arguments: {} });
  return !result.isError;
}

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`MCP sessions per user (${dialect.name})`, () => {
    let app: TestApp;
    const servers: Server[] = [];
    const clients: Client[] = [];
    const served: Settings[] = [];
    /** The app's /mcp over real HTTP, with mcp.maxSessionsPerUser = `max`. */
    const capped = (max: number): Settings => {
      const settings: Settings = { ...app.settings, mcp: { ...app.settings.mcp, maxSessionsPerUser: max } };
      served.push(settings);
      return settings;
    };
    /** Serves /mcp of these settings over real HTTP. */
    const serveMcp = async (settings: Settings, options: McpRequestOptions = {}): Promise<string> => {
      const { server, origin } = await serveApi({ settings, mounts: { "/mcp": (request) => handleMcpRequest(request, settings, options) } });
      servers.push(server);
      return origin;
    };
    const serveCapped = (max: number, options: McpRequestOptions = {}): Promise<string> => serveMcp(capped(max), options);
    const open = async (origin: string, bearer: string): Promise<Client> => {
      const client = await connect(origin, bearer);
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [helper], env: { JWT_VERIFICATION_KEY: SECRET, AGENTRY_MCP: "true" } });
    });
    afterAll(async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      for (const settings of served) await closeMcpSessions(settings);
      for (const server of servers) await stop(server);
      await app?.close();
    });

    it("a user at mcp.maxSessionsPerUser gets 429 with a detail and Retry-After; other users and its own sessions are untouched; closing one frees a slot", async () => {
      const origin = await serveCapped(3);
      const { userA, userB } = mintPrincipals();
      const [a, b] = [await token(userA), await token(userB)];
      const mine = [await open(origin, a), await open(origin, a), await open(origin, a)];

      const refused = await post(origin, a, INITIALIZE);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("mcp-session-id")).toBeNull();
      expect(await refused.json()).toEqual({ detail: capDetail(3) });
      // None of the three has made a call yet: the first closes by itself within the unused period (60 s).
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      await expect(open(origin, a)).rejects.toThrow();

      // User B opens sessions as usual, and A's three still work: nothing was closed to make room.
      const theirs = [await open(origin, b), await open(origin, b)];
      for (const client of [...theirs, ...mine]) expect(await works(client)).toBe(true);
      const stillRefused = await post(origin, a, INITIALIZE);
      expect(stillRefused.status).toBe(429);
      expect(await stillRefused.json()).toEqual({ detail: capDetail(3) });
      // All three are used now: the first to close is the first to go idle (sessionIdleSeconds).
      expect(Number(stillRefused.headers.get("retry-after"))).toBeGreaterThan(60);

      // Closing one (DELETE /mcp with its session id) frees its slot, and only one.
      await (mine[0].transport as StreamableHTTPClientTransport).terminateSession();
      await mine[0].close();
      const replacement = await open(origin, a);
      expect(await works(replacement)).toBe(true);
      expect((await post(origin, a, INITIALIZE)).status).toBe(429);
      for (const client of [...mine.slice(1), ...theirs]) expect(await works(client)).toBe(true);
    });

    it("concurrent initializes by one user open exactly mcp.maxSessionsPerUser sessions", async () => {
      const origin = await serveCapped(3);
      const bearer = await token(mintPrincipals().userA);
      // Each body arrives only after every request has been sent, so all ten are past authentication and
      // waiting on their bodies at once: a slot must be taken before the body is read, not once it is answered.
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const slowBody = () =>
        new ReadableStream<Uint8Array>({
          async start(controller) {
            // A first byte (whitespace JSON allows) so the request goes out now; the message follows.
            controller.enqueue(new TextEncoder().encode(" "));
            await released;
            controller.enqueue(new TextEncoder().encode(JSON.stringify(INITIALIZE)));
            controller.close();
          },
        });
      const requests = Array.from({ length: 10 }, () =>
        fetch(`${origin}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: `Bearer ${bearer}` }, body: slowBody(), duplex: "half" } as RequestInit),
      );
      setTimeout(release, 300);
      const answers = await Promise.all(requests);
      for (const answer of answers) await answer.text();
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
      const opened = answers.filter((r) => r.status === 200).map((r) => r.headers.get("mcp-session-id"));
      expect(new Set(opened).size).toBe(3);
    });

    it("past the process's session limit a new session is refused (503 with a detail and Retry-After), and no open session is closed to make room", async () => {
      const settings = capped(3);
      const origin = await serveMcp(settings);
      // The same sessions, served where the process may hold one: A's session alone fills it.
      const full = await serveMcp(settings, { maxSessions: 1 });
      const { userA, userB } = mintPrincipals();
      const [a, b] = [await token(userA), await token(userB)];
      const first = await handshake(origin, a);
      const refused = await post(full, b, INITIALIZE);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ detail: "The MCP server holds the most open sessions one process may have (1); try again once some have closed" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await listTools(full, a, first)).toBe(200);
      expect(await listTools(origin, a, first)).toBe(200);
    });

    it("a session that made no call after the handshake closes by itself after the unused period; a used one stays open", async () => {
      const origin = await serveCapped(2, { unusedSessionMs: 1_000 });
      const bearer = await token(mintPrincipals().userA);
      const unused = await handshake(origin, bearer);
      // Its standalone SSE stream (a GET is no call) ends when the session closes, with no other request to prompt it.
      const stream = await fetch(`${origin}/mcp`, { headers: { accept: "text/event-stream", authorization: `Bearer ${bearer}`, "mcp-session-id": unused, "mcp-protocol-version": PROTOCOL } });
      expect(stream.status).toBe(200);
      const used = await handshake(origin, bearer);
      expect(await listTools(origin, bearer, used)).toBe(200);
      const refused = await post(origin, bearer, INITIALIZE);
      expect(refused.status).toBe(429);
      await refused.text();

      await within(15_000, stream.text(), "the unused session's stream ends");
      expect(await listTools(origin, bearer, unused)).toBe(404);
      expect(await listTools(origin, bearer, used)).toBe(200);

      // Its slot is free again; the sweep (run before every request) closes an unused session past its period too.
      const next = await handshake(origin, bearer);
      await sweepSessions(Date.now() + 5_000);
      expect(await listTools(origin, bearer, next)).toBe(404);
      expect(await listTools(origin, bearer, used)).toBe(200);
    });
  });
}

describe("MCP sessions of a trusted caller (the security key)", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentry-mcp-limits-"));
  const key = "a-security-key-for-the-mcp-limits-test";
  const settings = testSettings({ env: { DATABASE_URL: `file:${join(dir, "never-opened.db")}`, OS_SECURITY_KEY: key }, file: { agents: [helper], mcp: { maxSessionsPerUser: 2 } } });
  let server: Server | undefined;

  afterAll(async () => {
    await closeMcpSessions(settings);
    if (server) await stop(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts every holder of the key against one allowance", async () => {
    const served = await serveApi({ settings, mounts: { "/mcp": (request) => handleMcpRequest(request, settings) } });
    server = served.server;
    await handshake(served.origin, key);
    await handshake(served.origin, key);
    const refused = await post(served.origin, key, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: capDetail(2) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
