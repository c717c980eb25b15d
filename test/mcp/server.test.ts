import type { Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, FileConfig } from "@/lib/config/define.ts";
import { defineTeam } from "@/lib/config/define.ts";
import { defineWorkflow, step } from "@/lib/config/workflow.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { serveApi } from "@/lib/http/node-server.ts";
import { closeMcpSessions } from "@/lib/mcp-server/sessions.ts";
import { handleMcpRequest, MCP_DISABLED_DETAIL } from "@/lib/mcp-server/handler.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { deferred, messageText, startModelServer, type ChatCompletionRequest, type Deferred, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { testSettings } from "../support/settings.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;
type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: Json; isError?: boolean };

const SECRET = "mcp-server-test-secret-of-sufficient-length";
const USER_SCOPES = ["agents:read", "agents:run", "teams:read", "teams:run", "workflows:read", "workflows:run", "sessions:read", "sessions:write", "config:read"];

const lookup = defineTool({
  name: "lookup",
  description: "Looks a fact up",
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => `fact about ${q}: 42`,
});

const wipe = defineTool({
  name: "wipe_disk",
  description: "Erases a disk",
  parameters: z.object({ disk: z.string() }),
  requiresConfirmation: true,
  execute: ({ disk }) => `wiped ${disk}`,
});

function token(sub: string, scopes = USER_SCOPES): Promise<string> {
  return new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));
}

/** An MCP client of the official SDK on the server's real /mcp, with a bearer token. */
async function connect(origin: string, bearer?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} } });
  const client = new Client({ name: "agentry-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Json = {}, options: Parameters<Client["callTool"]>[2] = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as ToolResult;
}

/** A list in a result's structuredContent (`result` for a tool answering a list, as FastMCP wraps it). */
const listOf = (result: ToolResult, key = "result") => (result.structuredContent?.[key] ?? []) as Json[];
const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("");

/** Serves `settings`' /mcp (and the route table) over real HTTP. */
async function serve(settings: Settings): Promise<{ server: Server; origin: string }> {
  return serveApi({ settings, mounts: { "/mcp": (request) => handleMcpRequest(request, settings) } });
}

async function stop(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** What the scripted model answers: a held answer for "hold", a tool call for "look …", else an echo. */
function respond(gate: () => Deferred) {
  return (body: ChatCompletionRequest): ScriptStep => {
    const last = body.messages.at(-1);
    if (last?.role === "tool") return { text: `Found it: ${messageText(last)}` };
    const said = messageText([...body.messages].reverse().find((m) => m.role === "user"));
    if (said.startsWith("hold")) return { text: "a slow answer that never finishes", hold: gate().promise };
    if (said.startsWith("look ")) return { toolCalls: [{ name: "lookup", arguments: { q: said.slice(5) } }] };
    if (said.startsWith("wipe ")) return { toolCalls: [{ name: "wipe_disk", arguments: { disk: said.slice(5) } }] };
    return { text: `echo: ${said}` };
  };
}

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`the MCP server at /mcp (${dialect.name})`, () => {
    let model: ModelServer;
    let app: TestApp;
    let http: { server: Server; origin: string };
    let gate = deferred();
    const { admin, userA, userB } = mintPrincipals();
    const clients: Client[] = [];
    const open = async (bearer?: string) => {
      const client = await connect(http.origin, bearer);
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      model = await startModelServer({ respond: respond(() => gate) });
      const scripted = { provider: "openai-compatible" as const, id: "scripted", baseUrl: model.url, apiKey: "t" };
      const assistant: AgentDefinition = { id: "assistant", name: "Assistant", description: "Answers questions.", model: scripted, tools: [lookup] };
      const writer: AgentDefinition = { id: "writer", name: "Writer", model: scripted, tools: [wipe] };
      app = await startTestApp({
        dialect,
        agents: [assistant, writer],
        teams: [defineTeam({ id: "desk", name: "Desk", model: scripted, members: [writer] })],
        workflows: [defineWorkflow({ id: "shout", name: "Shout", steps: [step({ name: "upper", executor: (input) => String(input.input).toUpperCase() })] })],
        env: { JWT_VERIFICATION_KEY: SECRET, AGENTRY_MCP: "true" },
      });
      http = await serve(app.settings);
    });
    afterAll(async () => {
      gate.resolve();
      for (const client of clients) await client.close().catch(() => undefined);
      await closeMcpSessions(app?.settings);
      await stop(http?.server);
      await app?.close();
      await model?.close();
    });

    it("/info reports the MCP endpoint", async () => {
      const info = (await (await app.call("GET", "/info")).json()) as Json;
      expect(info.mcp).toEqual({ enabled: true, path: "/mcp", oauth: null });
    });

    it("refuses a request without a token (401, as REST) and one with a bad token", async () => {
      const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const bare = await fetch(`${http.origin}/mcp`, { method: "POST", headers, body: JSON.stringify(initialize) });
      expect(bare.status).toBe(401);
      expect(await bare.json()).toEqual({ detail: "Authorization header required" });
      const forged = await fetch(`${http.origin}/mcp`, { method: "POST", headers: { ...headers, authorization: "Bearer not-a-jwt" }, body: JSON.stringify(initialize) });
      expect(forged.status).toBe(401);
      await expect(connect(http.origin)).rejects.toThrow();
    });

    it("lists Agno's tools with their arguments, defaults and annotations, and one tool per agent", async () => {
      const client = await open(await token(userA));
      expect(client.getServerVersion()?.name).toBe(app.settings.name);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        [
          "get_agentos_config",
          "run_agent",
          "run_team",
          "run_workflow",
          "continue_run",
          "cancel_run",
          "get_sessions",
          "get_session_runs",
          "get_session",
          "create_session",
          "agent_assistant",
          "agent_writer",
        ].sort(),
      );
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.run_agent.inputSchema.required?.sort()).toEqual(["agent_id", "message"]);
      expect(Object.keys(byName.run_agent.inputSchema.properties ?? {}).sort()).toEqual(["agent_id", "message", "session_id", "user_id"]);
      const sessions = byName.get_sessions.inputSchema.properties as Record<string, { default?: unknown }>;
      expect(Object.fromEntries(Object.entries(sessions).map(([k, v]) => [k, v.default]))).toEqual({
        session_type: "agent",
        component_id: undefined,
        user_id: undefined,
        session_name: undefined,
        limit: 20,
        page: 1,
        sort_by: "created_at",
        sort_order: "desc",
        db_id: undefined,
      });
      expect(byName.get_session_runs.inputSchema.required).toEqual(["session_id"]);
      expect(Object.keys(byName.continue_run.inputSchema.properties ?? {}).sort()).toEqual(["agent_id", "requirements", "run_id", "session_id", "team_id", "user_id", "workflow_id"]);
      expect(byName.get_agentos_config.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      expect(byName.cancel_run.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
      expect(byName.agent_assistant.inputSchema.required).toEqual(["message"]);
      expect(Object.keys(byName.agent_assistant.inputSchema.properties ?? {}).sort()).toEqual(["message", "session_id"]);
      expect(byName.agent_assistant.description).toContain("Answers questions.");
      const config = await call(client, "get_agentos_config");
      expect(config.isError).toBeFalsy();
      expect(config.structuredContent).toMatchObject({ os_id: app.settings.osId, databases: [app.settings.database.id] });
      expect(listOf(config, "agents").map((a) => a.id)).toEqual(["assistant", "writer"]);
    });

    it("runs an agent for the caller (user_id bound to the token's subject), with progress, and reads its session back", async () => {
      const client = await open(await token(userA));
      const progress: string[] = [];
      const result = await call(client, "run_agent", { agent_id: "assistant", message: "look tides", user_id: "mallory" }, { onprogress: (p) => progress.push(String(p.message)) });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "COMPLETED", agent_id: "assistant", content: "Found it: fact about tides: 42" });
      expect(text(result)).toBe("Found it: fact about tides: 42");
      expect(progress).toEqual(["Tool call started: lookup", "Tool call completed: lookup"]);
      const { run_id: runId, session_id: sessionId } = result.structuredContent as { run_id: string; session_id: string };

      // The run is user A's, whatever user_id the arguments named.
      const stored = (await (await app.call("GET", `/agents/assistant/runs/${runId}?session_id=${sessionId}`, { principal: admin })).json()) as Json;
      expect(stored.user_id).toBe(userA);

      const sessions = await call(client, "get_sessions", { session_type: "agent", limit: 5 });
      expect(sessions.isError).toBeFalsy();
      expect(listOf(sessions, "data").map((s) => s.session_id)).toContain(sessionId);
      expect(sessions.structuredContent?.meta).toMatchObject({ page: 1, limit: 5, total_pages: 1 });

      const history = await call(client, "get_session_runs", { session_id: sessionId });
      expect(history.isError).toBeFalsy();
      const runs = history.structuredContent?.result as Json[];
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ run_id: runId, status: "COMPLETED", content: "Found it: fact about tides: 42", agent_id: "assistant" });
      expect(Object.keys(runs[0]).every((k) => ["run_id", "run_input", "content", "status", "created_at", "agent_id", "team_id", "workflow_id"].includes(k))).toBe(true);
      const full = await call(client, "get_session_runs", { session_id: sessionId, run_id: runId });
      expect(listOf(full)[0]).toMatchObject({ run_id: runId, tools: expect.any(Array) });
      const missing = await call(client, "get_session_runs", { session_id: sessionId, run_id: "nope" });
      expect(missing).toMatchObject({ isError: true });
      expect(text(missing)).toBe(`Run nope not found in session ${sessionId}`);

      // An admin token with a subject is bound too (Agno's _resolve_user_id): its runs are its own.
      const boss = await open(await token(`boss-${userA}`, ["agent_os:admin"]));
      const bossRun = await call(boss, "run_agent", { agent_id: "writer", message: "as the boss", user_id: "mallory" });
      const bossStored = (await (
        await app.call("GET", `/agents/writer/runs/${bossRun.structuredContent?.run_id}?session_id=${bossRun.structuredContent?.session_id}`, { principal: admin })
      ).json()) as Json;
      expect(bossStored.user_id).toBe(`boss-${userA}`);
      const bossSession = await call(boss, "create_session", { session_name: "Boss's", user_id: "mallory" });
      expect(bossSession.structuredContent).toMatchObject({ user_id: `boss-${userA}` });

      const session = await call(client, "get_session", { session_id: sessionId });
      expect(session.structuredContent).toMatchObject({ session_id: sessionId, user_id: userA });
      const unknown = await call(client, "run_agent", { agent_id: "ghost", message: "hi" });
      expect(unknown).toMatchObject({ isError: true });
      expect(text(unknown)).toBe("Agent ghost not found");
    });

    it("runs a team and a workflow (a progress notification per step)", async () => {
      const client = await open(await token(userA));
      const team = await call(client, "run_team", { team_id: "desk", message: "team words" });
      expect(team.structuredContent).toMatchObject({ status: "COMPLETED", team_id: "desk", content: "echo: team words" });
      const steps: string[] = [];
      const flow = await call(client, "run_workflow", { workflow_id: "shout", message: "quiet" }, { onprogress: (p) => steps.push(String(p.message)) });
      expect(flow.structuredContent).toMatchObject({ status: "COMPLETED", workflow_id: "shout", content: "QUIET" });
      expect(steps).toEqual(["Step started: upper", "Step completed: upper"]);
    });

    it("a run that pauses answers PAUSED with its requirements; continue_run goes on with the decisions", async () => {
      const client = await open(await token(userA));
      const paused = await call(client, "run_agent", { agent_id: "writer", message: "wipe sda" });
      expect(paused.structuredContent).toMatchObject({ status: "PAUSED", agent_id: "writer" });
      const requirements = paused.structuredContent?.requirements as Json[];
      expect(requirements).toHaveLength(1);
      expect(requirements[0]).toMatchObject({ tool_execution: { tool_name: "wipe_disk" } });
      const { run_id: runId, session_id: sessionId } = paused.structuredContent as { run_id: string; session_id: string };
      await until("the paused run is stored", async () => {
        const run = (await (await app.call("GET", `/agents/writer/runs/${runId}?session_id=${sessionId}`, { principal: admin })).json()) as Json;
        return run.status === "PAUSED";
      });
      const done = await call(client, "continue_run", { run_id: runId, session_id: sessionId, agent_id: "writer", requirements: [{ ...requirements[0], confirmation: true }] });
      expect(done.isError).toBeFalsy();
      expect(done.structuredContent).toMatchObject({ run_id: runId, status: "COMPLETED", content: "Found it: wiped sda" });
    });

    it("serves each agent as its own tool agent_<id>, continuing a session when given its id", async () => {
      const client = await open(await token(userA));
      const first = await call(client, "agent_writer", { message: "first words" });
      expect(first.structuredContent).toMatchObject({ status: "COMPLETED", agent_id: "writer", content: "echo: first words" });
      const sessionId = first.structuredContent?.session_id as string;
      const second = await call(client, "agent_writer", { message: "more words", session_id: sessionId });
      expect(second.structuredContent).toMatchObject({ status: "COMPLETED", session_id: sessionId, content: "echo: more words" });
      const history = await call(client, "get_session_runs", { session_id: sessionId });
      expect(listOf(history).map((r) => r.content)).toEqual(["echo: first words", "echo: more words"]);
      const created = await call(client, "create_session", { session_name: "Planned", agent_id: "writer", user_id: "mallory" });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ session_name: "Planned", user_id: userA });
    });

    it("user B's MCP session can neither see nor run against user A's session", async () => {
      const a = await open(await token(userA));
      const b = await open(await token(userB));
      const ran = await call(a, "run_agent", { agent_id: "writer", message: "a secret of A" });
      const { run_id: runId, session_id: sessionId } = ran.structuredContent as { run_id: string; session_id: string };

      const listed = await call(b, "get_sessions", { user_id: userA });
      expect(listOf(listed, "data").map((s) => s.session_id)).not.toContain(sessionId);
      const history = await call(b, "get_session_runs", { session_id: sessionId, user_id: userA });
      expect(history).toMatchObject({ isError: true });
      expect(text(history)).toBe(`Session ${sessionId} not found`);
      expect(await call(b, "get_session", { session_id: sessionId, user_id: userA })).toMatchObject({ isError: true });
      const intrude = await call(b, "run_agent", { agent_id: "writer", message: "let me in", session_id: sessionId });
      expect(intrude).toMatchObject({ isError: true });
      expect(await call(b, "cancel_run", { run_id: runId, session_id: sessionId, agent_id: "writer" })).toMatchObject({ isError: true });
      expect(await call(b, "continue_run", { run_id: runId, session_id: sessionId, agent_id: "writer", requirements: [] })).toMatchObject({ isError: true });
      // A's session still holds only A's run.
      const mine = await call(a, "get_session_runs", { session_id: sessionId });
      expect(listOf(mine).map((r) => r.run_id)).toEqual([runId]);
      // A session id is no credential: B's token cannot use A's MCP session.
      const stolen = await fetch(`${http.origin}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${await token(userB)}`,
          "mcp-session-id": (a.transport as StreamableHTTPClientTransport).sessionId!,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
      expect(stolen.status).toBe(404);
    });

    it("checks the REST scopes: a token without agents:run cannot run, and without identity rules over arguments", async () => {
      const reader = await open(await token(userA, ["sessions:read"]));
      const refused = await call(reader, "run_agent", { agent_id: "writer", message: "hi" });
      expect(refused).toMatchObject({ isError: true });
      expect(text(refused)).toBe("Insufficient permissions. Required scope(s): agents:run");
      expect(text(await call(reader, "get_agentos_config"))).toBe("Insufficient permissions. Required scope(s): config:read");
      expect((await call(reader, "get_sessions")).isError).toBeFalsy();
      const twoIds = await call(reader, "cancel_run", { run_id: "r", session_id: "s", agent_id: "writer", team_id: "desk" });
      expect(text(twoIds)).toBe("Provide exactly one of agent_id, team_id, or workflow_id");
      const noSession = await call(reader, "cancel_run", { run_id: "r", agent_id: "writer" });
      expect(text(noSession)).toBe("session_id is required to act on this run");
    });

    it("a run cancelled while its run tool waits: the tool reads on past RunCancelled to the stream's RunCompleted and answers CANCELLED, not COMPLETED", async () => {
      gate = deferred();
      const client = await open(await token(userA));
      const sessionId = `mcp-cancelled-${Math.random().toString(36).slice(2, 8)}`;
      const before = model.requests.length;
      const pending = call(client, "run_agent", { agent_id: "writer", message: "hold and be cancelled", session_id: sessionId });
      await model.waitForRequests(before + 1, 10_000);
      const [running] = (await (await app.call("GET", `/sessions/${sessionId}/runs`, { principal: admin })).json()) as Json[];
      expect((await app.call("POST", `/agents/writer/runs/${running.run_id}/cancel?session_id=${sessionId}`, { principal: admin })).status).toBe(200);
      const result = await pending;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ run_id: running.run_id, session_id: sessionId, status: "CANCELLED", agent_id: "writer" });
      gate.resolve();
    });

    it("a cancelled MCP request cancels its run; cancel_run cancels a run by id", async () => {
      gate = deferred();
      const client = await open(await token(userA));
      const sessionId = `mcp-cancel-${Math.random().toString(36).slice(2, 8)}`;
      const abort = new AbortController();
      const before = model.requests.length;
      const pending = call(client, "run_agent", { agent_id: "writer", message: "hold on", session_id: sessionId }, { signal: abort.signal });
      await model.waitForRequests(before + 1, 10_000);
      abort.abort("changed my mind");
      await expect(pending).rejects.toThrow();
      const runsOf = async () => (await (await app.call("GET", `/sessions/${sessionId}/runs`, { principal: admin })).json()) as Json[];
      await until("the aborted MCP request's run is cancelled", async () => {
        const runs = await runsOf();
        return runs.length === 1 && runs[0].status === "CANCELLED";
      });

      // A background run started over REST, cancelled with the cancel_run tool.
      const started = (await (
        await app.call("POST", "/agents/writer/runs", {
          form: { message: "hold again", stream: "false", background: "true" },
          principal: { ...mintPrincipals().a, userId: userA, scopes: USER_SCOPES },
        })
      ).json()) as { run_id: string; session_id: string };
      await model.waitForRequests(before + 2, 10_000);
      const cancelled = await call(client, "cancel_run", { run_id: started.run_id, session_id: started.session_id, agent_id: "writer" });
      expect(cancelled).toMatchObject({ structuredContent: { result: `Run ${started.run_id} cancellation requested` } });
      await until("cancel_run's run is cancelled", async () => {
        const run = (await (await app.call("GET", `/agents/writer/runs/${started.run_id}?session_id=${started.session_id}`, { principal: admin })).json()) as Json;
        return run.status === "CANCELLED";
      });
      gate.resolve();
    });
  });
}

describe("MCP configuration: tag groups, agent tools, off", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentry-mcp-"));
  const agents: AgentDefinition[] = [{ id: "helper", name: "Helper", model: null }];
  const servers: Server[] = [];
  const clients: Client[] = [];
  const settingsWith = (mcp: FileConfig["mcp"], env: Record<string, string> = {}) =>
    testSettings({ env: { DATABASE_URL: `file:${join(dir, "never-opened.db")}`, JWT_VERIFICATION_KEY: SECRET, ...env }, file: { agents, mcp } });
  const toolsOf = async (settings: Settings) => {
    const { server, origin } = await serve(settings);
    servers.push(server);
    const client = await connect(origin, await token("someone"));
    clients.push(client);
    return { client, names: (await client.listTools()).tools.map((t) => t.name).sort() };
  };

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await closeMcpSessions();
    for (const server of servers) await stop(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it("includeTags picks tag groups; lifecycle tools ride along with exposed agents, for those agents only", async () => {
    const { client, names } = await toolsOf(settingsWith({ includeTags: ["session"] }));
    expect(names).toEqual(["agent_helper", "cancel_run", "continue_run", "create_session", "get_session", "get_session_runs", "get_sessions"]);
    const other = await call(client, "cancel_run", { run_id: "r", session_id: "s", team_id: "desk" });
    expect(text(other)).toBe("cancel_run on this server only acts on runs of its published components; team 'desk' is not one of them. Use the REST API to manage other components' runs.");
    const onlySessions = await toolsOf(settingsWith({ includeTags: ["session"], exposeAgents: false }));
    expect(onlySessions.names).toEqual(["create_session", "get_session", "get_session_runs", "get_sessions"]);
  });

  it("excludeTags removes a group; lifecycle can be excluded; defaultTools: false leaves only the agent tools", async () => {
    expect((await toolsOf(settingsWith({ excludeTags: ["session"] }))).names).toEqual(["agent_helper", "cancel_run", "continue_run", "get_agentos_config", "run_agent", "run_team", "run_workflow"]);
    expect((await toolsOf(settingsWith({ includeTags: ["session"], excludeTags: ["lifecycle"] }))).names).toEqual([
      "agent_helper",
      "create_session",
      "get_session",
      "get_session_runs",
      "get_sessions",
    ]);
    expect((await toolsOf(settingsWith({ defaultTools: false }))).names).toEqual(["agent_helper", "cancel_run", "continue_run"]);
    expect((await toolsOf(settingsWith({ defaultTools: false, exposeAgents: false }))).names).toEqual([]);
  });

  it("takes the security key like the API: the key lists the tools, no key or a wrong one is a 401", async () => {
    const key = "a-security-key-for-the-mcp-test";
    const settings = testSettings({ env: { DATABASE_URL: `file:${join(dir, "never-opened.db")}`, OS_SECURITY_KEY: key }, file: { agents, mcp: true } });
    const { server, origin } = await serve(settings);
    servers.push(server);
    const client = await connect(origin, key);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("agent_helper");
    await expect(connect(origin, "not-the-key")).rejects.toThrow();
    const bare = await fetch(`${origin}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ detail: "Authorization header required" });
  });

  it("is off by default: /mcp answers 404 with a detail and /info says so; AGENTRY_MCP=false wins over the file", async () => {
    for (const settings of [settingsWith(undefined), settingsWith(true, { AGENTRY_MCP: "false" })]) {
      expect(settings.mcp.enabled).toBe(false);
      const { server, origin } = await serve(settings);
      servers.push(server);
      const answer = await fetch(`${origin}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(answer.status).toBe(404);
      expect(await answer.json()).toEqual({ detail: MCP_DISABLED_DETAIL });
      const info = (await (await fetch(`${origin}/info`)).json()) as Json;
      expect(info.mcp).toEqual({ enabled: false, path: null, oauth: null });
    }
    expect(settingsWith(true).mcp.enabled).toBe(true);
    expect(settingsWith({ exposeAgents: false }).mcp.enabled).toBe(true);
    expect(settingsWith({ enabled: false }).mcp.enabled).toBe(false);
    expect(() => settingsWith({ includeTags: ["memory"] } as never)).toThrow(/mcp/);
  });
});
