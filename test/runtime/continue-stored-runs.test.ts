import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transitionRunStatus } from "@/lib/db/index.ts";
import { findAgent } from "@/lib/runtime/agents.ts";
import { continueAgentRun } from "@/lib/runtime/continue-run.ts";
import { messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { pythonJsonDumps } from "../fixtures/python-json.ts";
import { DIALECTS } from "../support/databases.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { humanInTheLoopTools } from "./human-tools.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * Continuing paused runs as other writers stored them (written with raw SQL and Python's
 * json.dumps text, as Agno does): one with little more than its id, Agno 2.x ones whose pending
 * calls are in `tools` with no `requirements` and no `metrics`. Each continue is a 4xx that
 * leaves the run PAUSED, or a completed run — never a 5xx, and the row is never left RUNNING.
 */

type Json = Record<string, unknown>;

const calls: string[] = [];
const { deleteFile, sendEmail, lookupStock } = humanInTheLoopTools(calls);

const T0 = 1_748_779_200;
const OWNER = "agno-user";

/** An Agno 2.x ToolExecution dict as it serialises one (every field, Python None as null). */
function agnoTool(fields: Json): Json {
  return {
    tool_call_id: null,
    tool_name: null,
    tool_args: {},
    tool_call_error: null,
    result: null,
    metrics: null,
    child_run_id: null,
    stop_after_tool_call: false,
    created_at: T0 + 2,
    requires_confirmation: null,
    confirmed: null,
    confirmation_note: null,
    requires_user_input: null,
    user_input_schema: null,
    answered: null,
    external_execution_required: null,
    ...fields,
  };
}

/** An Agno 2.x paused run: the model's call in its messages, the pending call in `tools`, no requirements or metrics. */
function agnoV2PausedRun({ runId, sessionId, tool, question }: { runId: string; sessionId: string; tool: Json; question: string }): Json {
  return {
    run_id: runId,
    agent_id: "keeper",
    agent_name: "Keeper",
    session_id: sessionId,
    user_id: OWNER,
    content: "I have tools to execute, but I need confirmation.",
    content_type: "str",
    model: "gpt-4o-mini",
    model_provider: "OpenAI",
    status: "PAUSED",
    input: { input_content: question },
    messages: [
      { role: "system", content: "Be careful.", created_at: T0 + 1 },
      { role: "user", content: question, created_at: T0 + 1 },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: tool.tool_call_id, type: "function", function: { name: tool.tool_name, arguments: JSON.stringify(tool.tool_args) } }],
        created_at: T0 + 2,
      },
    ],
    tools: [tool],
    events: [{ event: "RunPaused", run_id: runId, created_at: T0 + 2 }],
    created_at: T0 + 1,
  };
}

describe.each(DIALECTS)("continuing paused runs as Agno stored them, on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    let counter = 0;

    beforeAll(async () => {
      server = await startModelServer();
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "test" };
      app = await startTestApp({ dialect, agents: [{ id: "keeper", name: "Keeper", model, tools: [deleteFile, sendEmail, lookupStock] }] });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    /** A session (its session_data as Agno writes it: double-encoded on SQLite) holding one PAUSED run. */
    async function seedPausedRun(runData: (ids: { runId: string; sessionId: string }) => unknown): Promise<{ runId: string; sessionId: string }> {
      const n = ++counter;
      const ids = { runId: `agno-paused-${n}`, sessionId: `agno-session-${n}` };
      const db = await app.db();
      const sessionData = pythonJsonDumps({ session_state: {} });
      await db.sql.exec("INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, session_data, agent_data, created_at, updated_at) VALUES (?, 'agent', 'keeper', ?, ?, ?, ?, ?)", [
        ids.sessionId,
        OWNER,
        dialect.name === "sqlite" ? pythonJsonDumps(sessionData) : sessionData,
        "null",
        T0,
        T0 + 2,
      ]);
      const data = runData(ids);
      await db.sql.exec(
        "INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at) VALUES (?, ?, 'agent', 'keeper', ?, NULL, 'PAUSED', 0, ?, ?, ?)",
        [ids.runId, ids.sessionId, OWNER, pythonJsonDumps(data), T0 + 1, T0 + 2],
      );
      return ids;
    }

    async function storedRun(runId: string): Promise<{ status: string; run_data: Json }> {
      const [row] = await (await app.db()).sql.query<{ status: string; run_data: unknown }>("SELECT status, run_data FROM agno_runs WHERE run_id = ?", [runId]);
      return { status: row.status, run_data: (typeof row.run_data === "string" ? JSON.parse(row.run_data) : row.run_data) as Json };
    }

    const continueRun = (ids: { runId: string; sessionId: string }, fields: Record<string, string>) =>
      app.call("POST", `/agents/keeper/runs/${ids.runId}/continue`, { form: { session_id: ids.sessionId, stream: "false", ...fields } });

    it.each([
      ["only its id and status", (ids: { runId: string }) => ({ run_id: ids.runId, status: "PAUSED" })],
      ["JSON null", () => null],
      [
        "tools that need nothing more",
        (ids: { runId: string }) => ({
          run_id: ids.runId,
          status: "PAUSED",
          tools: [agnoTool({ tool_call_id: "done", tool_name: "delete_file", requires_confirmation: true, confirmed: true })],
          requirements: [],
        }),
      ],
      ["lists that are not lists", (ids: { runId: string }) => ({ run_id: ids.runId, status: "PAUSED", tools: { a: 1 }, requirements: "none", messages: 7, metrics: [] })],
    ])("a paused run holding %s is a 409 saying why, and stays PAUSED", async (_, data) => {
      const ids = await seedPausedRun(data);
      for (const stream of ["false", "true"]) {
        const response = await continueRun(ids, { stream, tools: JSON.stringify([{ tool_call_id: "done", confirmed: true }]) });
        expect(response.status).toBe(409);
        expect(((await response.json()) as Json).detail).toBe(
          `Run ${ids.runId} cannot be continued: it is PAUSED but records no tool call waiting for a confirmation, user input or an external result`,
        );
      }
      expect((await storedRun(ids.runId)).status).toBe("PAUSED");
    });

    it("an Agno 2.x run waiting for a confirmation: no decision is a 400 naming the call; confirmed through `tools` it runs and completes", async () => {
      const tool = agnoTool({ tool_call_id: "call_v2_confirm", tool_name: "delete_file", tool_args: { path: "/tmp/old" }, requires_confirmation: true });
      const ids = await seedPausedRun((i) => agnoV2PausedRun({ ...i, tool, question: "Delete /tmp/old" }));
      const undecided = await continueRun(ids, {});
      expect(undecided.status).toBe(400);
      expect(((await undecided.json()) as Json).detail).toBe("Requirement call_v2_confirm (delete_file) needs confirmed: true or false");
      expect((await storedRun(ids.runId)).status).toBe("PAUSED");

      server.script([{ text: "Deleted it." }]);
      const response = await continueRun(ids, { tools: JSON.stringify([{ ...tool, confirmed: true }]) });
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: "Deleted it.", requirements: null });
      expect(calls).toContain("delete(/tmp/old)");
      const sent = server.requests.at(-1)!.body.messages;
      expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
      expect(sent[3]).toMatchObject({ tool_call_id: "call_v2_confirm" });
      expect(messageText(sent[3])).toBe("deleted /tmp/old");
      const stored = await storedRun(ids.runId);
      expect(stored.status).toBe("COMPLETED");
      expect(stored.run_data).toMatchObject({ status: "COMPLETED", content: "Deleted it.", user_id: OWNER, metrics: { input_tokens: expect.any(Number), duration: expect.any(Number) } });
      expect(stored.run_data.tools).toEqual([expect.objectContaining({ tool_call_id: "call_v2_confirm", confirmed: true, result: "deleted /tmp/old" })]);
    });

    it("an Agno 2.x run rejected in a stream ends RunCompleted without running the tool", async () => {
      const tool = agnoTool({ tool_call_id: "call_v2_reject", tool_name: "delete_file", tool_args: { path: "/etc/keep" }, requires_confirmation: true });
      const ids = await seedPausedRun((i) => agnoV2PausedRun({ ...i, tool, question: "Delete /etc/keep" }));
      server.script([{ text: "Kept it." }]);
      const events = await readSse(await continueRun(ids, { stream: "true", tools: JSON.stringify([{ ...tool, confirmed: false, confirmation_note: "no" }]) }));
      expect(events[0]).toMatchObject({ event: "RunContinued" });
      expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "Kept it." });
      expect(calls).not.toContain("delete(/etc/keep)");
      expect(messageText(server.requests.at(-1)!.body.messages.at(-1))).toMatch(/rejected this tool call\. Note: no/);
      expect((await storedRun(ids.runId)).status).toBe("COMPLETED");
    });

    it("an Agno 2.x run waiting for user input or an external result (result null) needs the answer, then completes", async () => {
      const input = agnoTool({
        tool_call_id: "call_v2_input",
        tool_name: "send_email",
        tool_args: { subject: "Hi" },
        requires_user_input: true,
        user_input_schema: [{ name: "to", field_type: "str", description: "Recipient", value: null }],
      });
      const asking = await seedPausedRun((i) => agnoV2PausedRun({ ...i, tool: input, question: "Email them" }));
      const unanswered = await continueRun(asking, { tools: JSON.stringify([input]) });
      expect(unanswered.status).toBe(400);
      expect(((await unanswered.json()) as Json).detail).toBe("Requirement call_v2_input (send_email) needs user input for: to");
      server.script([{ text: "Sent." }]);
      const answered = await continueRun(asking, { tools: JSON.stringify([{ ...input, user_input_schema: [{ name: "to", field_type: "str", value: "ann@example.com" }] }]) });
      expect(answered.status).toBe(200);
      expect(messageText(server.requests.at(-1)!.body.messages.at(-1))).toBe("sent 'Hi' to ann@example.com");
      expect((await storedRun(asking.runId)).status).toBe("COMPLETED");

      const external = agnoTool({ tool_call_id: "call_v2_external", tool_name: "lookup_stock", tool_args: { symbol: "ACME" }, external_execution_required: true });
      const waiting = await seedPausedRun((i) => agnoV2PausedRun({ ...i, tool: external, question: "ACME?" }));
      const noResult = await continueRun(waiting, { tools: JSON.stringify([external]) });
      expect(noResult.status).toBe(400);
      expect(((await noResult.json()) as Json).detail).toBe("Requirement call_v2_external (lookup_stock) needs the external execution's result");
      server.script([{ text: "ACME is at 42." }]);
      const done = await continueRun(waiting, { tools: JSON.stringify([{ ...external, result: "42.0" }]) });
      expect(((await done.json()) as Json).content).toBe("ACME is at 42.");
      expect((await storedRun(waiting.runId)).status).toBe("COMPLETED");
    });

    it("a paused run whose messages lack the model's call (and whose tool is gone) still completes: the call is put back before its result", async () => {
      const ids = await seedPausedRun((i) => ({
        run_id: i.runId,
        session_id: i.sessionId,
        agent_id: "keeper",
        user_id: OWNER,
        status: "PAUSED",
        input: { input_content: "delete everything?" },
        messages: [{ role: "user", content: "delete everything?", created_at: T0 + 1 }, "not a message", { role: "assistant", tool_calls: "none", created_at: T0 + 1 }],
        tools: [{ tool_call_id: "call-v2", tool_name: "delete_all", tool_args: {}, requires_confirmation: true, confirmed: null }],
        created_at: T0 + 1,
      }));
      server.script([{ text: "That tool is gone." }]);
      const response = await continueRun(ids, { tools: JSON.stringify([{ tool_call_id: "call-v2", confirmed: true }]) });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Json).status).toBe("COMPLETED");
      const sent = server.requests.at(-1)!.body.messages;
      expect(sent.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "call-v2", function: { name: "delete_all" } }] });
      expect(sent.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call-v2" });
      expect(messageText(sent.at(-1))).toBe("Unknown tool 'delete_all'");
      expect((await storedRun(ids.runId)).status).toBe("COMPLETED");
    });

    it("whatever fails after the claim ends the run ERROR with the error recorded, never left RUNNING", async () => {
      const tool = agnoTool({ tool_call_id: "call_v2_fail", tool_name: "delete_file", tool_args: { path: "/x" }, requires_confirmation: true });
      const ids = await seedPausedRun((i) => agnoV2PausedRun({ ...i, tool, question: "Delete /x" }));
      const db = await app.db();
      const scope = adminScope();
      const started = await continueAgentRun({
        db,
        agent: findAgent(app.settings, "keeper")!,
        scope,
        ...ids,
        resolutions: [{ tool_call_id: "call_v2_fail", confirmed: true }],
        claim: () => transitionRunStatus(db, { scope, runId: ids.runId, sessionId: ids.sessionId, from: "PAUSED", to: "RUNNING" }),
        beforeStart: async () => {
          throw new TypeError("something broke after the claim");
        },
      });
      const output = await started.done;
      expect(output.status).toBe("ERROR");
      expect(output.error).toMatchObject({ error_type: "run_error", message: expect.stringMatching(/^Internal error while running the agent \(error_id [0-9a-f-]+\)$/) });
      const stored = await storedRun(ids.runId);
      expect(stored.status).toBe("ERROR");
      expect(stored.run_data.error).toEqual(output.error);
      expect(calls).not.toContain("delete(/x)");
      // And the API says so for an ERROR continuation, with a detail.
      const again = await continueRun(ids, { tools: JSON.stringify([{ ...tool, confirmed: true }]) });
      expect(again.status).toBe(409);
      expect(((await again.json()) as Json).detail).toBe(`Run ${ids.runId} is ERROR, not PAUSED: only a paused run can be continued`);
    });
  });
});
