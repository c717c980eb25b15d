import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { getRun } from "@/lib/db/index.ts";
import { mcpTools, type McpToolkit } from "@/lib/runtime/tools/mcp/mcp-tools.ts";
import { closeMcpConnections, mcpServerStatus } from "@/lib/runtime/tools/mcp/mcp-registry.ts";
import type { ToolDefinition } from "@/lib/runtime/tools/types.ts";
import { startModelServer, type ModelServer, type RecordedRequest } from "../../e2e/fixtures/model-server.ts";
import { startMcpHttpFixture, type McpHttpFixture } from "../fixtures/mcp-server/http-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp-server/stdio-server.ts", import.meta.url));
/** The stdio fixture as MCPTools spawns it: node running the TypeScript file through tsx. */
const stdio = { command: process.execPath, args: ["--import", "tsx", STDIO_SERVER], cwd: ROOT };

const member = (id: string): Principal => ({ kind: "user", userId: id, scopes: ["agents:read", "agents:run"], authenticatedBy: "jwt", isAdmin: false });
const tokenOf = ({ userId }: { userId: string | null }) => (userId ? `token-of-${userId}` : null);

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const offeredTools = (request: RecordedRequest) => ((request.body.tools ?? []) as { function: { name: string; parameters: Json } }[]).map((t) => t.function);
const ctx = (userId: string | null) => ({ runId: "r", sessionId: "s", agentId: "a", userId, signal: new AbortController().signal });
const run = (tool: ToolDefinition<unknown>, args: Json, userId: string | null) => Promise.resolve(tool.execute!(args, ctx(userId)));

afterAll(async () => {
  await closeMcpConnections();
});

describe("mcpTools options", () => {
  it("refuses authTokens and authHeaders, naming authTokenGetters (Agno v3 removed them)", () => {
    for (const removed of ["authTokens", "authHeaders"]) {
      expect(() => mcpTools({ id: "x", url: "http://127.0.0.1:1/mcp", [removed]: { github: "t" } } as never)).toThrow(new RegExp(`option '${removed}' was removed in v3; use authTokenGetters`));
    }
  });

  it("needs exactly one of command and url, refuses SSE, unknown options and a name both included and excluded", () => {
    expect(() => mcpTools({ id: "x" })).toThrow(/give 'command' \(a stdio server to spawn\) or 'url'/);
    expect(() => mcpTools({ id: "x", command: "srv", url: "http://127.0.0.1:1/mcp" })).toThrow(/not both/);
    expect(() => mcpTools({ id: "x", url: "http://127.0.0.1:1/sse", transport: "sse" } as never)).toThrow(/SSE transport is deprecated/);
    expect(() => mcpTools({ id: "x", url: "http://127.0.0.1:1/mcp", includeTools: ["a"] } as never)).toThrow(/Unrecognized key: "includeTools"/);
    expect(() => mcpTools({ id: "x", url: "http://127.0.0.1:1/mcp", include: ["a"], exclude: ["a"] })).toThrow(/'a' both included and excluded/);
    expect(() => mcpTools({ id: "bad id", url: "http://127.0.0.1:1/mcp" })).toThrow(/id: letters, digits/);
    expect(() => mcpTools({ id: "x", command: "srv", headers: { a: "b" } })).toThrow(/'headers' are sent over HTTP only/);
  });

  it("splits a command line when no args are given", () => {
    const kit = mcpTools({ id: `split-${Date.now()}`, command: 'node "my server.js" --flag' });
    expect(kit.mcp.spec).toMatchObject({ transport: "stdio", command: "node", args: ["my server.js", "--flag"] });
  });
});

describe("MCP toolkits over Streamable HTTP and stdio (no run)", () => {
  let http: McpHttpFixture;
  const tag = Math.random().toString(36).slice(2, 8);
  beforeAll(async () => {
    http = await startMcpHttpFixture();
  });
  afterAll(async () => {
    await http?.close();
  });

  it("lists the server's tools with their JSON schemas, filtered by include/exclude, prefixed", async () => {
    const all = mcpTools({ id: `all-${tag}`, url: http.url });
    expect(all.tools).toEqual([]); // nothing listed before a run needs it
    const listed = await all.loadTools!({ userId: "u1", signal: new AbortController().signal });
    expect(listed.map((t) => t.name).sort()).toEqual(["add", "echo", "fail", "whoami"]);
    const echo = listed.find((t) => t.name === "echo")!;
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string", description: "what to echo" } }, required: ["text"] });
    expect(all.tools.map((t) => t.name).sort()).toEqual(["add", "echo", "fail", "whoami"]);

    const included = mcpTools({ id: `inc-${tag}`, url: http.url, include: ["echo", "add"], toolNamePrefix: "fx" });
    expect((await included.loadTools!({ userId: "u1", signal: new AbortController().signal })).map((t) => t.name).sort()).toEqual(["fx_add", "fx_echo"]);
    const excluded = mcpTools({ id: `exc-${tag}`, url: http.url, exclude: ["fail", "whoami"] });
    expect((await excluded.loadTools!({ userId: "u1", signal: new AbortController().signal })).map((t) => t.name).sort()).toEqual(["add", "echo"]);
  });

  it("calls a tool: its text result, its error result, invalid arguments checked against the JSON schema", async () => {
    const kit = mcpTools({ id: `calls-${tag}`, url: http.url });
    const tools = await kit.loadTools!({ userId: "u1", signal: new AbortController().signal });
    const byName = (name: string) => tools.find((t) => t.name === name)!;
    expect(await run(byName("echo"), { text: "hi" }, "u1")).toBe("echo: hi");
    expect(await run(byName("add"), { a: 2, b: 3 }, "u1")).toBe("5");
    await expect(run(byName("fail"), {}, "u1")).rejects.toThrow("the fixture refused");
    const check = byName("add").parameters.safeParse({ a: 1.5, b: "x" });
    expect(check.success).toBe(false);
    expect(check.error!.issues.map((i) => i.path.join("."))).toEqual(["a", "b"]);
    expect(byName("echo").parameters.safeParse({ text: "ok", extra: 1 })).toMatchObject({ success: true, data: { text: "ok", extra: 1 } });
  });

  it("an include or exclude naming a tool the server lacks: a clear error on every call, none at the run's start", async () => {
    const kit = mcpTools({ id: `unknown-${tag}`, url: http.url, include: ["echo", "nope"] });
    const tools = await kit.loadTools!({ userId: "u1", signal: new AbortController().signal });
    expect(tools.map((t) => t.name)).toEqual(["echo", "nope"]); // offered by name, so a call can say what is wrong
    await expect(run(tools[0]!, { text: "x" }, "u1")).rejects.toThrow(/include names 'nope', which the server does not offer \(it offers: echo, add, whoami, fail\)/);
    expect(mcpServerStatus(kit.id)).toMatchObject({ state: "failed", lastError: expect.stringContaining("include names 'nope'") });
    const excluded = mcpTools({ id: `unknown-x-${tag}`, url: http.url, exclude: ["gone"] });
    await excluded.loadTools!({ userId: "u1", signal: new AbortController().signal });
    expect(mcpServerStatus(excluded.id)?.lastError).toMatch(/exclude names 'gone', which the server does not offer/);
  });

  it("sends each user's own token on every request of their own connection", async () => {
    const before = http.authorizations.length;
    const kit = mcpTools({ id: `tokens-${tag}`, url: http.url, authTokenGetters: { authorization: tokenOf, github: () => "gh" }, headers: { "x-static": "1" } });
    const a = await kit.loadTools!({ userId: `a-${tag}`, signal: new AbortController().signal });
    const b = await kit.loadTools!({ userId: `b-${tag}`, signal: new AbortController().signal });
    const whoami = (tools: readonly ToolDefinition<unknown>[]) => tools.find((t) => t.name === "whoami")!;
    expect(await run(whoami(a), {}, `a-${tag}`)).toContain(`authorization=Bearer token-of-a-${tag}`);
    expect(await run(whoami(b), {}, `b-${tag}`)).toContain(`authorization=Bearer token-of-b-${tag}`);
    expect(await run(whoami(a), {}, `a-${tag}`)).toContain(`authorization=Bearer token-of-a-${tag}`);
    const seen = http.authorizations.slice(before);
    expect(seen.length).toBeGreaterThan(4);
    expect(seen.every((h) => h === `Bearer token-of-a-${tag}` || h === `Bearer token-of-b-${tag}`)).toBe(true);
    expect(mcpServerStatus(kit.id)).toMatchObject({ state: "connected", openConnections: 2, tools: expect.arrayContaining([{ name: "echo", description: "Echoes the text back" }]) });
  });

  it("a server that is down: each call fails with a clear error after backoff; once it is back, calls work again", async () => {
    const kit = mcpTools({ id: `restart-${tag}`, url: http.url, include: ["echo"] });
    const [echo] = await kit.loadTools!({ userId: "u1", signal: new AbortController().signal });
    expect(await run(echo!, { text: "1" }, "u1")).toBe("echo: 1");
    await http.stop();
    try {
      await expect(run(echo!, { text: "2" }, "u1")).rejects.toThrow(/MCP server '.*' failed during the call to 'echo' .*; the next call reconnects/);
      await expect(run(echo!, { text: "3" }, "u1")).rejects.toThrow(/MCP server '.*' is unreachable: .*(ECONNREFUSED|fetch failed)/);
      await expect(run(echo!, { text: "4" }, "u1")).rejects.toThrow(/is unreachable \(could not connect: .*\); the next attempt is in 1 s/);
      expect(mcpServerStatus(kit.id)).toMatchObject({ state: "failed", openConnections: 0 });
    } finally {
      await http.start();
    }
    await until("the server to answer again", async () => (await run(echo!, { text: "5" }, "u1").catch(() => null)) === "echo: 5", 5000);
    expect(mcpServerStatus(kit.id)).toMatchObject({ state: "connected", openConnections: 1 });
  });

  it("closes a connection left idle, and reconnects on the next call", async () => {
    const kit = mcpTools({ id: `idle-${tag}`, ...stdio, idleTimeoutSeconds: 0.3 });
    const tools = await kit.loadTools!({ userId: "u1", signal: new AbortController().signal });
    const whoami = tools.find((t) => t.name === "whoami")!;
    const first = String(await run(whoami, {}, "u1"));
    const pid = Number(/pid=(\d+)/.exec(first)![1]);
    expect(mcpServerStatus(kit.id)).toMatchObject({ state: "connected", openConnections: 1 });
    await until("the idle connection to close", () => mcpServerStatus(kit.id)!.openConnections === 0, 5000);
    expect(mcpServerStatus(kit.id)).toMatchObject({ state: "idle", connections: [] });
    await until("the idle process to exit", () => !alive(pid), 5000);
    const again = String(await run(whoami, {}, "u1"));
    expect(again).not.toContain(`pid=${pid}`);
  }, 20_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(DIALECTS)("agents using MCP servers, runs stored on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let model: ModelServer;
    let http: McpHttpFixture;
    let app: TestApp;
    const tag = `${dialect.name}-${Math.random().toString(36).slice(2, 8)}`;
    const alice = member(`alice-${tag}`);
    const bob = member(`bob-${tag}`);
    let web: McpToolkit;
    let proc: McpToolkit;
    let down: McpToolkit;

    beforeAll(async () => {
      model = await startModelServer();
      http = await startMcpHttpFixture();
      const spec = { provider: "openai-compatible" as const, id: "scripted", baseUrl: model.url, apiKey: "t" };
      web = mcpTools({ id: `web-${tag}`, name: "Web fixture", url: http.url, authTokenGetters: { authorization: tokenOf } });
      proc = mcpTools({ id: `proc-${tag}`, name: "Process fixture", ...stdio, authTokenGetters: { MCP_TEST_TOKEN: tokenOf } });
      down = mcpTools({ id: `down-${tag}`, url: `http://127.0.0.1:${await deadPort()}/mcp`, include: ["echo"], timeoutSeconds: 2 });
      const filtered = mcpTools({ id: `filtered-${tag}`, url: http.url, include: ["echo"], toolNamePrefix: "fx" });
      const agents: AgentDefinition[] = [
        { id: "web", name: "Web", model: spec, tools: [web] },
        { id: "proc", name: "Proc", model: spec, tools: [proc] },
        { id: "down", name: "Down", model: spec, tools: [down] },
        { id: "filtered", name: "Filtered", model: spec, tools: [filtered] },
      ];
      app = await startTestApp({ dialect, agents });
    });
    afterAll(async () => {
      await app?.close();
      await http?.close();
      await model?.close();
    });

    const runAs = async (agent: string, who: Principal) => (await (await app.call("POST", `/agents/${agent}/runs`, { form: { message: "go", stream: "false" }, principal: who })).json()) as Json;
    const toolMessages = (output: Json) => (output.messages as Json[]).filter((m) => m.role === "tool");

    it("an agent calls the server's tool through the model; the model was offered its JSON schema", async () => {
      model.script([{ toolCalls: [{ name: "echo", arguments: { text: "hello" } }] }, { text: "It echoed." }]);
      const output = await runAs("web", alice);
      expect(output).toMatchObject({ status: "COMPLETED", content: "It echoed." });
      expect(toolMessages(output)).toEqual([expect.objectContaining({ tool_name: "echo", content: "echo: hello", tool_call_error: false })]);
      const offered = offeredTools(model.requests.at(-2)!);
      expect(offered.map((t) => t.name).sort()).toEqual(["add", "echo", "fail", "whoami"]);
      expect(offered.find((t) => t.name === "echo")!.parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(output.run_id) });
      expect(stored?.status).toBe("COMPLETED");
      expect(stored?.run_data.tools).toEqual([expect.objectContaining({ tool_name: "echo", result: "echo: hello", tool_call_error: false })]);
      // Listed once: GET /agents now reports the server's tools under the toolkit's id.
      const agent = (await (await app.call("GET", "/agents/web")).json()) as { tools: { tools: Json[] } };
      expect(agent.tools.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: "echo", toolkit_id: web.id })]));
    });

    it("per-user tokens reach the HTTP server: alice's run and bob's run each carry their own", async () => {
      model.script([{ toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "a" }, { toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "b" }]);
      const a = await runAs("web", alice);
      const b = await runAs("web", bob);
      expect(toolMessages(a)[0]!.content).toContain(`authorization=Bearer token-of-${alice.userId}`);
      expect(toolMessages(b)[0]!.content).toContain(`authorization=Bearer token-of-${bob.userId}`);
      // The MCP call is a span under the tool's, with the server's id; the tokens the tool echoed never reach a stored span.
      await flushTracing();
      const db = await app.db();
      const spans = await db.sql.query<{ name: string; attributes: unknown }>("SELECT s.name, s.attributes FROM agno_spans s JOIN agno_traces t ON t.trace_id = s.trace_id WHERE t.run_id = ?", [
        a.run_id,
      ]);
      const mcpSpan = spans.find((s) => s.name === `mcp.${web.id.replace(/-/g, "_")}.whoami`);
      const attributes = (typeof mcpSpan!.attributes === "string" ? JSON.parse(mcpSpan!.attributes) : mcpSpan!.attributes) as Json;
      expect(attributes).toMatchObject({ "mcp.server.id": web.id, "tool.name": "whoami" });
      expect(String(attributes["output.value"])).toContain("[REDACTED]");
      expect(JSON.stringify(await db.sql.query("SELECT attributes FROM agno_spans"))).not.toContain(`token-of-${alice.userId}`);
      const whoamis = http.calls.filter((c) => c.tool === "whoami").map((c) => c.authorization);
      expect(whoamis).toEqual([`Bearer token-of-${alice.userId}`, `Bearer token-of-${bob.userId}`]);
      expect(http.authorizations.every((h) => h === `Bearer token-of-${alice.userId}` || h === `Bearer token-of-${bob.userId}`)).toBe(true);
      expect(mcpServerStatus(web.id)).toMatchObject({ state: "connected", openConnections: 2 });
      expect(
        mcpServerStatus(web.id)!
          .connections.map((c) => c.userId)
          .sort(),
      ).toEqual([alice.userId, bob.userId].sort());
    });

    it("per-user tokens reach a stdio server: each user's own process, with their token", async () => {
      model.script([{ toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "a" }, { toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "b" }]);
      const a = String(toolMessages(await runAs("proc", alice))[0]!.content);
      const b = String(toolMessages(await runAs("proc", bob))[0]!.content);
      expect(a).toContain(`authorization=token-of-${alice.userId}`);
      expect(b).toContain(`authorization=token-of-${bob.userId}`);
      expect(/pid=(\d+)/.exec(a)![1]).not.toBe(/pid=(\d+)/.exec(b)![1]);
    }, 20_000);

    it("include and a prefix: the model is offered only the included tools, under the prefix", async () => {
      model.script([{ toolCalls: [{ name: "fx_echo", arguments: { text: "x" } }] }, { text: "ok" }]);
      const output = await runAs("filtered", alice);
      expect(offeredTools(model.requests.at(-2)!).map((t) => t.name)).toEqual(["fx_echo"]);
      expect(toolMessages(output)[0]).toMatchObject({ tool_name: "fx_echo", content: "echo: x", tool_call_error: false });
    });

    it("a server that is down: the run starts, the call's error result is for the model to read, the run completes", async () => {
      model.script([{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "The tool is unavailable." }]);
      const output = await runAs("down", alice);
      expect(output).toMatchObject({ status: "COMPLETED", content: "The tool is unavailable." });
      const [message] = toolMessages(output);
      expect(message).toMatchObject({ tool_name: "echo", tool_call_error: true });
      expect(String(message!.content)).toMatch(/^Error running echo: MCP server '.*' is unreachable/);
      // The model read the same error.
      expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain("is unreachable");
      expect(mcpServerStatus(down.id)).toMatchObject({ state: "failed", openConnections: 0, lastError: expect.stringContaining("could not connect") });
    });

    it("a stdio server crashing mid-run: that call fails cleanly, the next call reconnects, the run completes", async () => {
      model.script([{ toolCalls: [{ name: "whoami", arguments: {} }] }, { toolCalls: [{ name: "crash", arguments: {} }] }, { toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "Recovered." }]);
      const output = await runAs("proc", alice);
      expect(output).toMatchObject({ status: "COMPLETED", content: "Recovered." });
      const [before, crash, after] = toolMessages(output);
      expect(crash).toMatchObject({ tool_name: "crash", tool_call_error: true });
      expect(String(crash!.content)).toMatch(/MCP server 'Process fixture' failed during the call to 'crash' \(.*\); the next call reconnects/);
      expect(after).toMatchObject({ tool_name: "whoami", tool_call_error: false });
      const pidOf = (m: Json | undefined) => /pid=(\d+)/.exec(String(m?.content))![1];
      expect(pidOf(after)).not.toBe(pidOf(before));
      expect(String(after!.content)).toContain(`token-of-${alice.userId}`);
      expect(mcpServerStatus(proc.id)!.connections.find((c) => c.userId === alice.userId)).toMatchObject({ state: "connected" });
    }, 30_000);
  });
});
