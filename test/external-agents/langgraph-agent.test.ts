import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineExternalAgent } from "@/lib/config/external-agent.ts";
import { getRun, getSession } from "@/lib/db/index.ts";
import { langGraphAdapter } from "@/lib/runtime/external/langgraph.ts";
import { deferred, messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";
import { ScriptedChatModel } from "../../e2e/fixtures/scripted-chat-model.ts";

type Json = Record<string, unknown>;

const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Adds two numbers",
  schema: z.object({ a: z.number(), b: z.number() }),
});

/** A LangGraph ReAct loop over the scripted model: the model, then its tool calls, then the model again. */
function reactGraph(server: ModelServer) {
  const model = new ScriptedChatModel(server.url).bindTools([add]);
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([add]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile();
}

/** A graph whose only node fails. */
function brokenGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (): Promise<{ messages: never[] }> => {
      throw new Error("the graph broke: no tides today");
    })
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile();
}

const form = (fields: Record<string, string>) => ({ form: fields });

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`a LangGraph.js graph as an external agent (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;

    beforeAll(async () => {
      server = await startModelServer();
      app = await startTestApp({
        dialect,
        agents: [
          { id: "native", name: "Native", model: null },
          defineExternalAgent({ name: "Tide Graph", description: "Answers about tides.", adapter: langGraphAdapter({ graph: reactGraph(server) }) }),
          defineExternalAgent({ id: "broken", name: "Broken Graph", adapter: langGraphAdapter({ graph: brokenGraph() }) }),
        ],
        // Durable: a background run of an agent defined here would wait for a worker (none runs); an external one runs inline.
        queue: { durable: true, embeddedWorker: false },
      });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("is listed in /agents, /agents/{id}, /config and /info with its framework", async () => {
      const listed = (await (await app.call("GET", "/agents")).json()) as Json[];
      expect(listed.map((a) => a.id)).toEqual(["native", "tide-graph", "broken"]);
      expect(listed[1]).toEqual({
        id: "tide-graph",
        name: "Tide Graph",
        description: "Answers about tides.",
        db_id: app.settings.database.id,
        sessions: { session_table: "agno_sessions" },
        metadata: { framework: "langgraph" },
      });
      expect(await (await app.call("GET", "/agents/tide-graph")).json()).toEqual({ id: "tide-graph", name: "Tide Graph", description: "Answers about tides.", metadata: { framework: "langgraph" } });
      const config = (await (await app.call("GET", "/config")).json()) as { agents: Json[] };
      expect(config.agents.find((a) => a.id === "tide-graph")).toMatchObject({ name: "Tide Graph", db_id: app.settings.database.id, metadata: { framework: "langgraph" } });
      expect(((await (await app.call("GET", "/info")).json()) as Json).agent_count).toBe(3);
    });

    it("runs not streamed: 200 with the RunOutput, stored as a run of an agent session; the next run gets the history", async () => {
      server.script([{ text: "High tide is at noon." }]);
      const response = await app.call("POST", "/agents/tide-graph/runs", form({ message: "When is high tide?", stream: "false" }));
      expect(response.status).toBe(200);
      const first = (await response.json()) as Json;
      expect(first).toMatchObject({ status: "COMPLETED", agent_id: "tide-graph", agent_name: "Tide Graph", content: "High tide is at noon." });
      expect(messageText(server.requests.at(-1)!.body.messages.at(-1))).toBe("When is high tide?");
      const db = await app.db();
      const session = await getSession(db, { scope: adminScope(), sessionId: String(first.session_id) });
      expect(session).toMatchObject({ session_type: "agent", agent_id: "tide-graph", agent_data: { agent_id: "tide-graph", agent_name: "Tide Graph", framework: "langgraph" } });
      expect(session?.runs.map((r) => r.run_id)).toEqual([first.run_id]);
      const polled = (await (await app.call("GET", `/agents/tide-graph/runs/${first.run_id}?session_id=${first.session_id}`)).json()) as Json;
      expect(polled).toMatchObject({ run_id: first.run_id, status: "COMPLETED", content: "High tide is at noon." });
      expect((polled.messages as Json[]).map((m) => [m.role, m.content])).toEqual([
        ["user", "When is high tide?"],
        ["assistant", "High tide is at noon."],
      ]);

      server.script([{ text: "Low tide is at six." }]);
      const second = (await (await app.call("POST", "/agents/tide-graph/runs", form({ message: "And low tide?", session_id: String(first.session_id), stream: "false" }))).json()) as Json;
      expect(second).toMatchObject({ status: "COMPLETED", session_id: first.session_id, content: "Low tide is at six." });
      expect(server.requests.at(-1)!.body.messages.map((m) => [m.role, messageText(m)])).toEqual([
        ["user", "When is high tide?"],
        ["assistant", "High tide is at noon."],
        ["user", "And low tide?"],
      ]);
    });

    it("streams Agno's events: RunStarted, ToolCallStarted/Completed, RunContent deltas, RunCompleted; the tool calls are kept and replayed as history", async () => {
      server.script([{ toolCalls: [{ name: "add", arguments: { a: 17, b: 23 }, id: "call_add" }] }, { chunks: ["The sum ", "is 40."] }]);
      const events = await readSse(await app.call("POST", "/agents/tide-graph/runs", form({ message: "17 + 23?" })));
      const names = events.map((e) => e.event);
      expect(names[0]).toBe("RunStarted");
      expect(names.at(-1)).toBe("RunCompleted");
      expect(names.filter((n) => n !== "RunContent")).toEqual(["RunStarted", "ToolCallStarted", "ToolCallCompleted", "RunCompleted"]);
      const started = events.find((e) => e.event === "ToolCallStarted")!;
      const completed = events.find((e) => e.event === "ToolCallCompleted")!;
      expect(started).toMatchObject({ agent_id: "tide-graph", tool: { tool_name: "add", tool_args: { a: 17, b: 23 } } });
      expect(completed).toMatchObject({ tool: { tool_name: "add", tool_args: { a: 17, b: 23 }, result: "40" }, content: "40" });
      expect((completed.tool as Json).tool_call_id).toBe((started.tool as Json).tool_call_id);
      const deltas = events.filter((e) => e.event === "RunContent").map((e) => e.content);
      expect(deltas.join("")).toBe("The sum is 40.");
      expect(events.at(-1)).toMatchObject({ content: "The sum is 40.", tools: [expect.objectContaining({ tool_name: "add", result: "40" })] });
      // The graph sent the tool's result back to the model.
      expect(server.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_add", content: "40" });

      const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(events[0]!.run_id) });
      expect(stored?.status).toBe("COMPLETED");
      expect(stored?.run_data).toMatchObject({ content: "The sum is 40.", tools: [expect.objectContaining({ tool_name: "add", result: "40" })] });
      expect(((stored?.run_data.messages ?? []) as Json[]).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);

      server.script([{ text: "Still 40." }]);
      await app.call("POST", "/agents/tide-graph/runs", form({ message: "Sure?", session_id: String(events[0]!.session_id), stream: "false" }));
      const history = server.requests.at(-1)!.body.messages;
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
      expect(history[1]).toMatchObject({ tool_calls: [{ function: { name: "add" } }] });
      expect(history[2]).toMatchObject({ role: "tool", content: "40" });
      expect((history[2] as Json).tool_call_id).toBe((history[1]!.tool_calls as { id: string }[])[0]!.id);
    });

    it("an adapter's exception ends the run ERROR with its text as content: 200 not streamed, RunError streamed", async () => {
      const response = await app.call("POST", "/agents/broken/runs", form({ message: "hi", stream: "false" }));
      expect(response.status).toBe(200);
      const failed = (await response.json()) as Json;
      expect(failed).toMatchObject({ status: "ERROR", agent_id: "broken", content: "the graph broke: no tides today", error: { message: "the graph broke: no tides today", error_type: "Error" } });
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(failed.run_id) });
      expect(stored?.status).toBe("ERROR");
      const events = await readSse(await app.call("POST", "/agents/broken/runs", form({ message: "hi" })));
      expect(events.map((e) => e.event)).toEqual(["RunStarted", "RunError"]);
      expect(events.at(-1)).toMatchObject({ content: "the graph broke: no tides today", error_type: "Error" });
    });

    it("cancel, continue and run listing answer 501, as Agno's routes do for an external agent", async () => {
      server.script([{ text: "ok" }]);
      const run = (await (await app.call("POST", "/agents/tide-graph/runs", form({ message: "hi", stream: "false" }))).json()) as Json;
      const cancel = await app.call("POST", `/agents/tide-graph/runs/${run.run_id}/cancel?session_id=${run.session_id}`);
      expect(cancel.status).toBe(501);
      expect(await cancel.json()).toEqual({ detail: "This agent does not support cancel_run" });
      const resume = await app.call("POST", `/agents/tide-graph/runs/${run.run_id}/continue`, form({ session_id: String(run.session_id), tools: "[]" }));
      expect(resume.status).toBe(501);
      expect(await resume.json()).toEqual({ detail: "This agent does not support continue_run" });
      const list = await app.call("GET", `/agents/tide-graph/runs?session_id=${run.session_id}`);
      expect(list.status).toBe(501);
      expect(await list.json()).toEqual({ detail: "This agent does not support run listing" });
      // An unknown agent is still a 404 first; a file is refused before anything is stored.
      expect((await app.call("POST", "/agents/nope/runs/x/cancel?session_id=s")).status).toBe(404);
      const files = new FormData();
      files.set("message", "read this");
      files.set("stream", "false");
      files.set("files", new File(["tides"], "tides.txt", { type: "text/plain" }));
      const refused = await app.call("POST", "/agents/tide-graph/runs", { form: files });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as Json).detail).toMatch(/runs on langgraph and takes no files/);
    });

    it("background=true runs inline, never on the durable queue: not streamed a 202 with its final status; streamed, the events", async () => {
      server.script([{ text: "Done in the background." }]);
      const accepted = await app.call("POST", "/agents/tide-graph/runs", form({ message: "go", stream: "false", background: "true" }));
      expect(accepted.status).toBe(202);
      const ticket = (await accepted.json()) as Json;
      expect(ticket).toEqual({ run_id: expect.any(String), session_id: expect.any(String), status: "COMPLETED" });
      const polled = (await (await app.call("GET", `/agents/tide-graph/runs/${ticket.run_id}?session_id=${ticket.session_id}`)).json()) as Json;
      expect(polled).toMatchObject({ status: "COMPLETED", content: "Done in the background." });
      const failed = (await (await app.call("POST", "/agents/broken/runs", form({ message: "go", stream: "false", background: "true" }))).json()) as Json;
      expect(failed).toMatchObject({ status: "ERROR" });
      const db = await app.db();
      const jobs = await db.sql.query<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM agno_jobs");
      expect(Number(jobs[0]!.n)).toBe(0);

      server.script([{ chunks: ["streamed ", "inline"] }]);
      const events = await readSse(await app.call("POST", "/agents/tide-graph/runs", form({ message: "go", background: "true" })));
      expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "streamed inline" });
    });

    it("a streamed run is inline: a client that goes away cancels it (the graph's model call is aborted), stored CANCELLED with what it had", async () => {
      const hold = deferred();
      server.script([{ chunks: ["Half ", "an answer"], hold: hold.promise }]);
      const response = await app.call("POST", "/agents/tide-graph/runs", form({ message: "Take your time" }));
      const reader = response.body!.getReader();
      let text = "";
      while (!text.includes('"event":"RunContent"')) text += new TextDecoder().decode((await reader.read()).value);
      const runId = /"run_id":"([^"]+)"/.exec(text)![1]!;
      await reader.cancel();
      await until("the request to the model to be aborted", () => server.requests.at(-1)!.state === "aborted");
      hold.resolve();
      const db = await app.db();
      await until("the run to be stored CANCELLED", async () => (await getRun(db, { scope: adminScope(), runId }))?.status === "CANCELLED");
      expect((await getRun(db, { scope: adminScope(), runId }))?.run_data).toMatchObject({ content: "Half ", error: { error_type: "run_cancelled" } });
    });

    it("a user's runs and sessions are theirs: another user can neither read the run nor run in the session", async () => {
      const minted = mintPrincipals();
      const scopes = ["agents:read", "agents:run", "sessions:read"];
      const [a, b] = [withScopes(minted.a, scopes), withScopes(minted.b, scopes)];
      server.script([{ text: "Mine." }]);
      const mine = (await (await app.call("POST", "/agents/tide-graph/runs", { form: { message: "hi", stream: "false" }, principal: a })).json()) as Json;
      expect(mine).toMatchObject({ status: "COMPLETED", user_id: minted.userA });
      const path = `/agents/tide-graph/runs/${mine.run_id}?session_id=${mine.session_id}`;
      expect((await app.call("GET", path, { principal: a })).status).toBe(200);
      expect((await app.call("GET", path, { principal: b })).status).toBe(404);
      const intruder = await app.call("POST", "/agents/tide-graph/runs", { form: { message: "into A's session", session_id: String(mine.session_id), stream: "false" }, principal: b });
      expect(intruder.status).toBe(404);
      expect((await app.call("GET", `/sessions/${mine.session_id}`, { principal: b })).status).toBe(404);
    });
  });
}
