import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

    beforeAll(async () => {
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
        ],
      });
    });
    afterAll(async () => {
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
  });
}
