import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineExternalAgent } from "@/lib/config/external-agent.ts";
import { getRun } from "@/lib/db/index.ts";
import { claudeAgentSdkAdapter } from "@/lib/runtime/external/claude-agent-sdk.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;

const form = (fields: Record<string, string>) => ({ form: fields });

/** The text of an Anthropic request's messages (string contents and text blocks), for finding what was sent. */
function sentText(body: unknown): string {
  return JSON.stringify(body);
}

/**
 * What the binary sent anywhere so far: nothing but Anthropic's Messages API at the fixture (no
 * proxy CONNECT to another host, no other path), and at least `requests` calls of it.
 */
function expectOnlyMessagesApi(server: ModelServer, requests: number): void {
  expect(server.allRequests.filter((r) => r.method === "CONNECT").map((r) => r.path)).toEqual([]);
  const other = server.allRequests.filter((r) => !(r.method === "POST" && (r.path === "/v1/messages" || r.path === "/v1/messages/count_tokens")));
  expect(other.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  expect(server.allRequests.length).toBeGreaterThanOrEqual(requests);
}

/**
 * The Claude Agent SDK adapter runs the real SDK — its bundled `claude` binary — against the
 * scripted model server's Anthropic Messages API. The binary gets a private HOME and config
 * directory, its non-essential traffic turned off, and the fixture as its HTTPS proxy, so any
 * attempt to reach another host would be recorded there as a CONNECT (and refused).
 */
for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`the Claude Agent SDK as an external agent (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    let home: string;
    let work: string;
    /** What the adapter spawned the binary with, for the agent left to its defaults. */
    const spawned: { args: string[]; cwd?: string; env: Record<string, string | undefined> }[] = [];

    beforeAll(async () => {
      // A variable of the server's environment the binary must not see.
      process.env.AGENTRY_TEST_SERVER_SECRET = "server-secret-marker";
      server = await startModelServer();
      home = mkdtempSync(join(tmpdir(), "agentry-claude-home-"));
      work = mkdtempSync(join(tmpdir(), "agentry-claude-work-"));
      writeFileSync(join(work, "tides.txt"), "High tide at 12:04, low tide at 18:17.\n");
      const env = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, ".claude"),
        ANTHROPIC_BASE_URL: server.origin,
        ANTHROPIC_API_KEY: "test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
        // Anything bound elsewhere goes through the fixture, which records and refuses it.
        HTTPS_PROXY: server.origin,
        HTTP_PROXY: server.origin,
        NO_PROXY: "127.0.0.1,localhost",
      };
      app = await startTestApp({
        dialect,
        agents: [
          defineExternalAgent({
            id: "claude",
            name: "Claude Tides",
            adapter: claudeAgentSdkAdapter({
              systemPrompt: "You answer questions about tides from tides.txt.",
              model: "claude-scripted",
              allowedTools: ["Read"],
              maxTurns: 4,
              cwd: work,
              options: { env },
            }),
          }),
          defineExternalAgent({
            id: "claude-defaults",
            name: "Claude Defaults",
            adapter: claudeAgentSdkAdapter({
              model: "claude-scripted",
              maxTurns: 4,
              // Only where to reach the model: the adapter builds the rest of the environment.
              env: { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: "test", HTTPS_PROXY: server.origin, HTTP_PROXY: server.origin, NO_PROXY: "127.0.0.1,localhost" },
              options: {
                spawnClaudeCodeProcess: (spawnOptions) => {
                  spawned.push({ args: spawnOptions.args, cwd: spawnOptions.cwd, env: spawnOptions.env });
                  return spawn(spawnOptions.command, spawnOptions.args, { cwd: spawnOptions.cwd, env: spawnOptions.env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "ignore"] });
                },
              },
            }),
          }),
          defineExternalAgent({
            id: "claude-bash-not-allowed",
            name: "Claude Bash Not Allowed",
            adapter: claudeAgentSdkAdapter({
              model: "claude-scripted",
              maxTurns: 4,
              env: { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: "test", HTTPS_PROXY: server.origin, HTTP_PROXY: server.origin, NO_PROXY: "127.0.0.1,localhost" },
              // Bash offered to the model but allowed by no rule.
              options: { tools: ["Bash"] },
            }),
          }),
        ],
      });
    });
    afterAll(async () => {
      delete process.env.AGENTRY_TEST_SERVER_SECRET;
      await app?.close();
      await server?.close();
      if (home) rmSync(home, { recursive: true, force: true });
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("is listed with framework claude-agent-sdk", async () => {
      expect(await (await app.call("GET", "/agents/claude")).json()).toEqual({ id: "claude", name: "Claude Tides", metadata: { framework: "claude-agent-sdk" } });
    });

    it("runs not streamed through the binary: the SDK's result is the content; the next run in the session resumes the SDK session", async () => {
      const before = server.requests.length;
      server.script([{ text: "Tides come twice a day." }]);
      const response = await app.call("POST", "/agents/claude/runs", form({ message: "How often do tides come?", stream: "false" }));
      expect(response.status).toBe(200);
      const first = (await response.json()) as Json;
      expect(first).toMatchObject({ status: "COMPLETED", agent_id: "claude", content: "Tides come twice a day." });
      const sent = server.requests.slice(before);
      expect(sent.map((r) => r.path)).toEqual(["/v1/messages"]);
      expect(sent[0]!.body.model).toBe("claude-scripted");
      expect(sentText(sent[0]!.body.system ?? sent[0]!.body.messages)).toContain("You answer questions about tides from tides.txt.");
      expect(sentText(sent[0]!.body.messages)).toContain("How often do tides come?");
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(first.run_id) });
      const sdkSession = (stored?.run_data.external_state as Json | undefined)?.claude_agent_sdk_session_id;
      expect(sdkSession).toEqual(expect.any(String));
      // Kept stored for the next run, never answered: not in the run's answer, its poll, nor the session's runs.
      expect(first).not.toHaveProperty("external_state");
      const polled = (await (await app.call("GET", `/agents/claude/runs/${String(first.run_id)}?session_id=${String(first.session_id)}`)).json()) as Json;
      expect(polled).toMatchObject({ run_id: first.run_id, status: "COMPLETED" });
      expect(polled).not.toHaveProperty("external_state");
      const sessionRuns = await (await app.call("GET", `/sessions/${String(first.session_id)}/runs`)).text();
      expect(sessionRuns).toContain(String(first.run_id));
      expect(sessionRuns).not.toContain(String(sdkSession));

      server.script([{ text: "Yes, twice." }]);
      const second = (await (await app.call("POST", "/agents/claude/runs", form({ message: "Twice, really?", session_id: String(first.session_id), stream: "false" }))).json()) as Json;
      expect(second).toMatchObject({ status: "COMPLETED", content: "Yes, twice." });
      // Resumed: the binary sends the first exchange again before the new message.
      const resumed = sentText(server.requests.at(-1)!.body.messages);
      expect(resumed).toContain("How often do tides come?");
      expect(resumed).toContain("Tides come twice a day.");
      expect(resumed).toContain("Twice, really?");
      expectOnlyMessagesApi(server, 2);
    });

    it("streams the SDK's text deltas and its tool use (Read) with the tool's result as Agno's events", async () => {
      const before = server.requests.length;
      server.script([{ toolCalls: [{ name: "Read", arguments: { file_path: join(work, "tides.txt") }, id: "toolu_read" }] }, { chunks: ["High tide ", "is at 12:04."] }]);
      const events = await readSse(await app.call("POST", "/agents/claude/runs", form({ message: "When is high tide?" })));
      const names = events.map((e) => e.event);
      expect(names.filter((n) => n !== "RunContent")).toEqual(["RunStarted", "ToolCallStarted", "ToolCallCompleted", "RunCompleted"]);
      expect(events.find((e) => e.event === "ToolCallStarted")).toMatchObject({ tool: { tool_call_id: "toolu_read", tool_name: "Read", tool_args: { file_path: join(work, "tides.txt") } } });
      const completed = events.find((e) => e.event === "ToolCallCompleted")!;
      expect(completed).toMatchObject({ tool: { tool_call_id: "toolu_read", tool_name: "Read" } });
      expect(String(completed.content)).toContain("High tide at 12:04, low tide at 18:17.");
      expect(
        events
          .filter((e) => e.event === "RunContent")
          .map((e) => e.content)
          .join(""),
      ).toBe("High tide is at 12:04.");
      expect(events.at(-1)).toMatchObject({ content: "High tide is at 12:04." });
      expect(JSON.stringify(events)).not.toContain("external_state");
      // The binary ran the tool and sent its result back to the model.
      const sent = server.requests.slice(before);
      expect(sent.map((r) => [r.path, r.stream])).toEqual([
        ["/v1/messages", true],
        ["/v1/messages", true],
      ]);
      expect(sentText(sent[1]!.body.messages)).toContain("tool_result");
      expect(sentText(sent[1]!.body.messages)).toContain("High tide at 12:04");
      expectOnlyMessagesApi(server, 2);
    });

    it("a result the SDK marks as an error ends the run ERROR with its text (200 not streamed)", async () => {
      // A 403, which the binary does not retry (it retries a 400 and a 401 several times, and 5xx with backoff).
      server.script([{ error: { status: 403, message: "scripted refusal: this request is not allowed" } }]);
      const response = await app.call("POST", "/agents/claude/runs", form({ message: "Refuse me", stream: "false" }));
      expect(response.status).toBe(200);
      const failed = (await response.json()) as Json;
      expect(failed).toMatchObject({ status: "ERROR", error: { error_type: "Error" } });
      expect(String(failed.content)).toMatch(/^Claude Agent SDK error \(is_error=true/);
      expect(String(failed.content)).toContain("scripted refusal");
      expect(server.pending).toBe(0);
      expect((await getRun(await app.db(), { scope: adminScope(), runId: String(failed.run_id) }))?.status).toBe("ERROR");
      expectOnlyMessagesApi(server, 1);
    });

    it("left to its defaults: no built-in tool (Bash and Read are refused), dontAsk, no settings files, an empty private working directory removed after the run, and none of the server's environment", async () => {
      const before = server.requests.length;
      spawned.length = 0;
      server.script([
        {
          toolCalls: [
            { name: "Bash", arguments: { command: "env" }, id: "toolu_bash" },
            { name: "Read", arguments: { file_path: join(process.cwd(), "package.json") }, id: "toolu_read_server" },
          ],
        },
        { text: "I cannot do that." },
      ]);
      const response = await app.call("POST", "/agents/claude-defaults/runs", form({ message: "Show me your environment and the server's package.json", stream: "false" }));
      expect(response.status).toBe(200);
      const run = (await response.json()) as Json;
      expect(run).toMatchObject({ status: "COMPLETED", content: "I cannot do that." });

      const sent = server.requests.slice(before);
      expect(sent).toHaveLength(2);
      // The model is offered no tool at all.
      expect(sent[0]!.body.tools ?? []).toEqual([]);
      // Both calls came back as errors that ran nothing: no environment listing, no file.
      const results = (sent[1]!.body.messages as { role: string; content: unknown }[])
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []))
        .filter((block) => block.type === "tool_result");
      expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
        ["toolu_bash", true],
        ["toolu_read_server", true],
      ]);
      for (const result of results) expect(sentText(result.content)).toMatch(/No such tool available/);
      expect(sentText(sent[1]!.body)).not.toContain("server-secret-marker");
      expect(sentText(sent[1]!.body)).not.toContain('"name": "agentry"');

      expect(spawned).toHaveLength(1);
      const [child] = spawned;
      expect(child!.args).toEqual(expect.arrayContaining(["--tools=", "--setting-sources=", "--permission-mode=dontAsk"]));
      // The environment: nothing of the server's but PATH.
      expect(child!.env.AGENTRY_TEST_SERVER_SECRET).toBeUndefined();
      expect(child!.env.PATH).toBe(process.env.PATH);
      expect(child!.env.HOME).not.toBe(process.env.HOME);
      expect(child!.env.CLAUDE_CONFIG_DIR).toBe(join(child!.env.HOME!, ".claude"));
      expect(child!.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe("1");
      // CLAUDE_AGENT_SDK_VERSION: the SDK sets it in this process and in the binary's environment itself.
      const shared = Object.keys(process.env).filter((name) => process.env[name] !== undefined && child!.env[name] === process.env[name]);
      const serverOnly = shared.filter((name) => name !== "PATH" && name !== "CLAUDE_AGENT_SDK_VERSION");
      expect(serverOnly).toEqual([]);
      // The working directory: a fresh one, not the server's, gone after the run.
      expect(child!.cwd).toBeTruthy();
      expect(child!.cwd).not.toBe(process.cwd());
      expect(existsSync(child!.cwd!)).toBe(false);
      expectOnlyMessagesApi(server, 2);
    });

    it("left to its defaults, the session's next run resumes the SDK session from the private config directory", async () => {
      server.script([{ text: "The moon pulls the sea." }]);
      const first = (await (await app.call("POST", "/agents/claude-defaults/runs", form({ message: "What makes tides?", stream: "false" }))).json()) as Json;
      expect(first).toMatchObject({ status: "COMPLETED", content: "The moon pulls the sea." });
      server.script([{ text: "And the sun, a little." }]);
      const second = (await (await app.call("POST", "/agents/claude-defaults/runs", form({ message: "Anything else?", session_id: String(first.session_id), stream: "false" }))).json()) as Json;
      expect(second).toMatchObject({ status: "COMPLETED", content: "And the sun, a little." });
      const resumed = sentText(server.requests.at(-1)!.body.messages);
      expect(resumed).toContain("What makes tides?");
      expect(resumed).toContain("The moon pulls the sea.");
      expect(resumed).toContain("Anything else?");
    });

    it("a tool offered but allowed by no rule is denied (permission mode dontAsk by default)", async () => {
      const before = server.requests.length;
      server.script([{ toolCalls: [{ name: "Bash", arguments: { command: "env" }, id: "toolu_bash_denied" }] }, { text: "Not allowed." }]);
      const run = (await (await app.call("POST", "/agents/claude-bash-not-allowed/runs", form({ message: "Run echo", stream: "false" }))).json()) as Json;
      expect(run).toMatchObject({ status: "COMPLETED", content: "Not allowed." });
      const sent = server.requests.slice(before);
      expect(sent).toHaveLength(2);
      expect((sent[0]!.body.tools as unknown as Json[]).map((t) => t.name)).toContain("Bash");
      const result = (sent[1]!.body.messages as { content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : [])).find((block) => block.type === "tool_result");
      expect(result).toMatchObject({ tool_use_id: "toolu_bash_denied", is_error: true });
      expect(String(result!.content)).toMatch(/^Permission to use Bash has been denied because Claude Code is running in don't ask mode/);
      expect(sentText(result!.content)).not.toContain("PATH=");
    });

    it("left to its defaults, a session whose SDK transcript is not in the private config directory (as after a restart) starts a new SDK session", async () => {
      const adapter = claudeAgentSdkAdapter({ model: "claude-scripted", env: { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: "test" } });
      const lost = "7d7c1c1e-1111-4222-8333-944444444444";
      const state: Record<string, unknown> = { claude_agent_sdk_session_id: lost };
      server.script([{ text: "Starting afresh." }]);
      const answer = await adapter.invoke({ input: "Hello again", history: [], runId: "run", sessionId: "session", userId: null, signal: new AbortController().signal, state });
      expect(answer).toBe("Starting afresh.");
      expect(state.claude_agent_sdk_session_id).toEqual(expect.any(String));
      expect(state.claude_agent_sdk_session_id).not.toBe(lost);
    });
  });
}
