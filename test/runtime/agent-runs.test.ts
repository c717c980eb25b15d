import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { getRun, getSession } from "@/lib/db/index.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { deferred, startModelServer, messageText, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS, sqliteDialect } from "../support/databases.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { humanInTheLoopTools } from "./human-tools.ts";
import { adminScope } from "../support/scopes.ts";
import { firstSseData } from "../support/api.ts";

type Json = Record<string, unknown>;

const calls: string[] = [];
const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    calls.push(`add(${a},${b})`);
    return { sum: a + b };
  },
});
const { deleteFile, sendEmail, lookupStock } = humanInTheLoopTools(calls);

function agents(server: ModelServer): AgentDefinition[] {
  const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "test" };
  return [
    { id: "helper", name: "Helper", model, instructions: "Be brief.", addHistoryToContext: true, numHistoryRuns: 3, tools: [add, deleteFile, sendEmail, lookupStock] },
    { id: "unconfigured", name: "No Model", model: null },
  ];
}

const form = (fields: Record<string, string>) => ({ form: fields });

describe("agent runs through the API (scripted model, SQLite)", () => {
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startModelServer();
    app = await startTestApp({ dialect: sqliteDialect, agents: agents(server) });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  it("answers a non-streamed run with the RunOutput and stores the run", async () => {
    server.script([{ text: "Hello there!", usage: { prompt_tokens: 12, completion_tokens: 3 } }]);
    const response = await app.call("POST", "/agents/helper/runs", form({ message: "Hi", stream: "false" }));
    expect(response.status).toBe(200);
    const output = (await response.json()) as Json;
    expect(output).toMatchObject({ status: "COMPLETED", content: "Hello there!", content_type: "str", agent_id: "helper" });
    expect(output.metrics).toMatchObject({ input_tokens: 12, output_tokens: 3, total_tokens: 15 });
    expect(messageText(server.requests.at(-1)!.body.messages[0])).toContain("Be brief.");
    const db = await app.db();
    const stored = await getRun(db, { scope: adminScope(), runId: String(output.run_id) });
    expect(stored?.status).toBe("COMPLETED");
    const session = await getSession(db, { scope: adminScope(), sessionId: String(output.session_id) });
    expect(session?.runs.map((r) => r.run_id)).toEqual([output.run_id]);
    expect(session?.session_data?.session_metrics).toMatchObject({ input_tokens: 12, output_tokens: 3, total_tokens: 15 });
    const listed = (await (await app.call("GET", `/agents/helper/runs?session_id=${output.session_id}&status=COMPLETED`)).json()) as Json[];
    expect(listed).toEqual([expect.objectContaining({ run_id: output.run_id, run_input: "Hi", content: "Hello there!", status: "COMPLETED" })]);
    expect(await (await app.call("GET", `/agents/helper/runs?session_id=${output.session_id}&status=ERROR`)).json()).toEqual([]);
    expect((await app.call("GET", "/agents/helper/runs?session_id=missing")).status).toBe(404);
  });

  it("streams SSE events whose deltas add up to the final content, each carrying its event name", async () => {
    server.script([{ text: "One two three four", chunks: ["One ", "two ", "three ", "four"] }]);
    const response = await app.call("POST", "/agents/helper/runs", form({ message: "Count", session_id: "" }));
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const raw = await response.clone().text();
    expect(raw).not.toContain("[DONE]");
    expect(raw).toMatch(/^event: RunStarted\ndata: \{/);
    const events = await readSse(response);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("RunStarted");
    expect(names.at(-1)).toBe("RunCompleted");
    const deltas = events
      .filter((e) => e.event === "RunContent")
      .map((e) => e.content)
      .join("");
    expect(deltas).toBe("One two three four");
    expect(events.at(-1)!.content).toBe(deltas);
    for (const event of events) {
      expect(event).toMatchObject({ agent_id: "helper", agent_name: "Helper", run_id: events[0].run_id, session_id: events[0].session_id });
      expect(typeof event.created_at).toBe("number");
    }
    expect(events.map((e) => e.event_index)).toEqual(events.map((_, i) => i));
  });

  it("delivers the first event while the model still holds the rest", async () => {
    const hold = deferred();
    server.script([{ text: "first second", chunks: ["first", " second"], hold: hold.promise }]);
    const response = await app.call("POST", "/agents/helper/runs", form({ message: "Go" }));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"event":"RunContent"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('"content":"first"');
    expect(text).not.toContain("RunCompleted");
    hold.resolve();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain("RunCompleted");
  });

  it("runs a tool call round trip and sends the result back to the model", async () => {
    server.script([{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "The sum is 5." }]);
    const events = await readSse(await app.call("POST", "/agents/helper/runs", form({ message: "2+3?" })));
    const names = events.map((e) => e.event);
    expect(names).toEqual(expect.arrayContaining(["ToolCallStarted", "ToolCallCompleted", "RunCompleted"]));
    const completed = events.find((e) => e.event === "ToolCallCompleted")!;
    expect(completed.tool).toMatchObject({ tool_name: "add", tool_args: { a: 2, b: 3 }, result: { sum: 5 } });
    expect(events.at(-1)!.content).toBe("The sum is 5.");
    const followUp = server.requests.at(-1)!.body.messages;
    expect(followUp.at(-1)).toMatchObject({ role: "tool" });
    expect(messageText(followUp.at(-1))).toContain('"sum":5');
  });

  async function pausedRun(toolCall: { name: string; arguments: Json }) {
    server.script([{ toolCalls: [toolCall] }]);
    const response = await app.call("POST", "/agents/helper/runs", form({ message: "do it", stream: "false" }));
    const output = (await response.json()) as Json;
    expect(output.status).toBe("PAUSED");
    return output as Json & { requirements: Json[]; run_id: string; session_id: string };
  }

  it("pauses for confirmation and runs the tool once confirmed", async () => {
    const paused = await pausedRun({ name: "delete_file", arguments: { path: "/tmp/x" } });
    expect(paused.requirements[0].tool_execution).toMatchObject({ tool_name: "delete_file", requires_confirmation: true });
    const stored = await getRun(await app.db(), { scope: adminScope(), runId: paused.run_id });
    expect(stored?.status).toBe("PAUSED");
    const requirement = { ...paused.requirements[0], confirmation: true };
    server.script([{ text: "Deleted." }]);
    const response = await app.call("POST", `/agents/helper/runs/${paused.run_id}/continue`, form({ requirements: JSON.stringify([requirement]), session_id: paused.session_id, stream: "false" }));
    const output = (await response.json()) as Json;
    expect(output).toMatchObject({ status: "COMPLETED", content: "Deleted.", run_id: paused.run_id });
    expect(calls).toContain("delete(/tmp/x)");
    // Continuing twice: the run is no longer paused.
    const again = await app.call("POST", `/agents/helper/runs/${paused.run_id}/continue`, form({ requirements: JSON.stringify([requirement]), session_id: paused.session_id, stream: "false" }));
    expect(again.status).toBe(409);
  });

  it("tells the model when the user rejects a tool call (Agno's `tools` field)", async () => {
    const before = calls.length;
    const paused = await pausedRun({ name: "delete_file", arguments: { path: "/etc" } });
    const tool = { ...(paused.requirements[0].tool_execution as Json), confirmed: false, confirmation_note: "never" };
    server.script([{ text: "Okay, I will not." }]);
    const output = (await (
      await app.call("POST", `/agents/helper/runs/${paused.run_id}/continue`, form({ tools: JSON.stringify([tool]), session_id: paused.session_id, stream: "false" }))
    ).json()) as Json;
    expect(output.status).toBe("COMPLETED");
    expect(calls.length).toBe(before);
    expect(messageText(server.requests.at(-1)!.body.messages.at(-1))).toMatch(/rejected.*never/);
  });

  it("collects user input by schema before running the tool", async () => {
    const paused = await pausedRun({ name: "send_email", arguments: { subject: "Hello" } });
    const requirement = paused.requirements[0] as Json & { user_input_schema: Json[] };
    expect(requirement.user_input_schema.map((f) => f.name)).toEqual(["to"]);
    const missing = await app.call("POST", `/agents/helper/runs/${paused.run_id}/continue`, form({ requirements: JSON.stringify([requirement]), session_id: paused.session_id, stream: "false" }));
    expect(missing.status).toBe(400);
    const answered = { ...requirement, user_input_schema: [{ name: "to", field_type: "str", value: "ada@example.com" }] };
    server.script([{ text: "Sent." }]);
    const output = (await (
      await app.call("POST", `/agents/helper/runs/${paused.run_id}/continue`, form({ requirements: JSON.stringify([answered]), session_id: paused.session_id, stream: "false" }))
    ).json()) as Json;
    expect(output.status).toBe("COMPLETED");
    expect(calls).toContain("email(ada@example.com,Hello)");
  });

  it("takes an externally executed tool's result from the client", async () => {
    const paused = await pausedRun({ name: "lookup_stock", arguments: { symbol: "ACME" } });
    const requirement = { ...paused.requirements[0], external_execution_result: "ACME is at 42" };
    server.script([{ text: "ACME trades at 42." }]);
    const events = await readSse(await app.call("POST", `/agents/helper/runs/${paused.run_id}/continue`, form({ requirements: JSON.stringify([requirement]), session_id: paused.session_id })));
    expect(events[0].event).toBe("RunContinued");
    expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "ACME trades at 42." });
    expect(messageText(server.requests.at(-1)!.body.messages.at(-1))).toContain("ACME is at 42");
  });

  it("refuses to continue a run that is not paused, or without its session", async () => {
    server.script([{ text: "done" }]);
    const output = (await (await app.call("POST", "/agents/helper/runs", form({ message: "hi", stream: "false" }))).json()) as Json;
    expect((await app.call("POST", `/agents/helper/runs/${output.run_id}/continue`, form({ session_id: String(output.session_id), stream: "false" }))).status).toBe(409);
    expect((await app.call("POST", `/agents/helper/runs/${output.run_id}/continue`, form({ stream: "false" }))).status).toBe(400);
    expect((await app.call("POST", `/agents/helper/runs/${output.run_id}/continue`, form({ session_id: String(output.session_id), tools: "{oops" }))).status).toBe(400);
  });

  it("agent stream cancelled mid-answer: the stream ends RunCancelled then RunCompleted (Agno's end sentinel), the run stored CANCELLED", async () => {
    const hold = deferred();
    server.script([{ text: "a b c", chunks: ["a", " b", " c"], hold: hold.promise }]);
    const response = await app.call("POST", "/agents/helper/runs", form({ message: "slow" }));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"event":"RunContent"')) text += decoder.decode((await reader.read()).value);
    const first = firstSseData<Json>(text);
    const cancel = await app.call("POST", `/agents/helper/runs/${first.run_id}/cancel?session_id=${first.session_id}`);
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toEqual({});
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    hold.resolve();
    const events = text
      .split("\n\n")
      .map((frame) => frame.split("\n").find((line) => line.startsWith("data: ")))
      .filter((line): line is string => !!line)
      .map((line) => JSON.parse(line.slice(6)) as Json);
    const [cancelled, completed] = events.slice(-2);
    expect(events.filter((e) => e.event === "RunCompleted")).toHaveLength(1);
    expect(cancelled).toMatchObject({ event: "RunCancelled", run_id: first.run_id, agent_id: "helper", reason: "Run cancelled by request", content: "a" });
    // The completed event carries what the run has: its answer so far, its metrics.
    expect(completed).toMatchObject({ event: "RunCompleted", run_id: first.run_id, agent_id: "helper", content: "a", metrics: expect.any(Object) });
    expect(completed.event_index).toBe((cancelled.event_index as number) + 1);
    const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(first.run_id) });
    expect(stored?.status).toBe("CANCELLED");
    expect(stored?.run_data).toMatchObject({ status: "CANCELLED", content: "a", error: { error_type: "run_cancelled" } });
  });

  it("reports a provider 401 as a classified RunError (model_provider_error, as Agno), and a missing provider plainly", async () => {
    server.script([{ error: { status: 401, message: "Incorrect API key provided" } }]);
    const events = await readSse(await app.call("POST", "/agents/helper/runs", form({ message: "hi" })));
    expect(events.at(-1)).toMatchObject({ event: "RunError", error_type: "model_provider_error" });
    expect(String(events.at(-1)!.content)).toContain("Incorrect API key provided");
    server.script([{ error: { status: 401, message: "Incorrect API key provided" } }]);
    // Not streamed: 200 with the RunOutput, as Agno answers (`run_response.to_dict()` whatever its status).
    const nonStream = await app.call("POST", "/agents/helper/runs", form({ message: "hi", stream: "false" }));
    expect(nonStream.status).toBe(200);
    const failed = (await nonStream.json()) as Json;
    expect(failed).toMatchObject({ status: "ERROR", agent_id: "helper", error: { error_type: events.at(-1)!.error_type } });
    expect(String(failed.content)).toContain("Incorrect API key provided");
    expect((failed.error as Json).message).toBe(failed.content);
    const polled = (await (await app.call("GET", `/agents/helper/runs/${failed.run_id}?session_id=${failed.session_id}`)).json()) as Json;
    expect(polled).toMatchObject({ run_id: failed.run_id, status: "ERROR", content: failed.content });
    const unconfigured = await app.call("POST", "/agents/unconfigured/runs", form({ message: "hi", stream: "false" }));
    expect(unconfigured.status).toBe(503);
    expect(((await unconfigured.json()) as Json).detail).toMatch(/OPENAI_API_KEY.*ANTHROPIC_API_KEY.*OPENAI_COMPATIBLE_BASE_URL/);
    const streamed = await readSse(await app.call("POST", "/agents/unconfigured/runs", form({ message: "hi" })));
    expect(streamed.at(-1)).toMatchObject({ event: "RunError", error_type: "model_not_configured_error" });
  });

  it("retries a 429 with backoff and then answers", async () => {
    const before = server.requests.length;
    server.script([{ error: { status: 429, message: "Slow down", headers: { "retry-after": "0" } } }, { text: "Recovered." }]);
    const output = (await (await app.call("POST", "/agents/helper/runs", form({ message: "hi", stream: "false" }))).json()) as Json;
    expect(output).toMatchObject({ status: "COMPLETED", content: "Recovered." });
    expect(server.requests.length - before).toBe(2);
  });

  it("answers bad form input with clear 4xx", async () => {
    const missing = await app.call("POST", "/agents/helper/runs", form({ stream: "false" }));
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await missing.json())).toContain('"loc":["body","message"]');
    expect((await app.call("POST", "/agents/nobody/runs", form({ message: "hi" }))).status).toBe(404);
    const badSchema = await app.call("POST", "/agents/helper/runs", form({ message: "hi", output_schema: "{not json" }));
    expect(badSchema.status).toBe(422);
    expect(JSON.stringify(await badSchema.json())).toContain('"loc":["body","output_schema"]');
    const upload = new FormData();
    upload.set("message", "look");
    upload.append("files", new File(["MZ..."], "tool.exe", { type: "application/x-msdownload" }));
    const unsupported = await app.call("POST", "/agents/helper/runs", { form: upload });
    expect(unsupported.status).toBe(400);
    expect(((await unsupported.json()) as Json).detail).toMatch(/Unsupported file type: 'tool\.exe'/);
  });

  it("resumes a finished run's stream from an event index (replay)", async () => {
    server.script([{ text: "abc", chunks: ["a", "b", "c"] }]);
    const events = await readSse(await app.call("POST", "/agents/helper/runs", form({ message: "hi" })));
    const runId = String(events[0].run_id);
    const resumed = await readSse(await app.call("POST", `/agents/helper/runs/${runId}/resume`, form({ last_event_index: "2", session_id: String(events[0].session_id) })));
    expect(resumed[0]).toMatchObject({ event: "replay", run_id: runId, status: "COMPLETED" });
    expect(resumed.slice(1).map((e) => e.event_index)).toEqual(events.slice(3).map((e) => e.event_index));
    const unknown = await readSse(await app.call("POST", "/agents/helper/runs/nope/resume", form({})));
    expect(unknown).toEqual([{ event: "error", error: "Run nope not found in buffer or database" }]);
  });

  it("lists agents with db_id as agent-ui expects, and empty teams/workflows", async () => {
    const list = (await (await app.call("GET", "/agents")).json()) as Json[];
    expect(list.map((a) => a.id)).toEqual(["helper", "unconfigured"]);
    expect(list[0]).toMatchObject({ db_id: app.settings.database.id, model: { model: "scripted", provider: "openai-compatible" } });
    expect(await (await app.call("GET", "/teams")).json()).toEqual([]);
    expect(await (await app.call("GET", "/workflows")).json()).toEqual([]);
    expect((await app.call("GET", "/agents/nobody")).status).toBe(404);
  });
});

describe.each(DIALECTS)("run rows and session metrics on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("writes one row per run per state change and sums session metrics", async () => {
      const server = await startModelServer();
      const app = await startTestApp({ dialect, agents: agents(server) });
      try {
        server.script([
          { text: "first", usage: { prompt_tokens: 10, completion_tokens: 2 } },
          { text: "second", usage: { prompt_tokens: 20, completion_tokens: 4 } },
        ]);
        const one = (await (await app.call("POST", "/agents/helper/runs", form({ message: "1", stream: "false" }))).json()) as Json;
        const two = (await (await app.call("POST", "/agents/helper/runs", form({ message: "2", stream: "false", session_id: String(one.session_id) }))).json()) as Json;
        const session = await getSession(await app.db(), { scope: adminScope(), sessionId: String(one.session_id) });
        expect(session?.runs.map((r) => [r.run_id, r.status])).toEqual([
          [one.run_id, "COMPLETED"],
          [two.run_id, "COMPLETED"],
        ]);
        expect(session?.session_data?.session_metrics).toMatchObject({ input_tokens: 30, output_tokens: 6, total_tokens: 36 });
        // The second run saw the first as history.
        const history = server.requests[1].body.messages.map((m) => `${m.role}:${messageText(m)}`);
        expect(history).toEqual(expect.arrayContaining(["user:1", "assistant:first", "user:2"]));
      } finally {
        await app.close();
        await server.close();
      }
    });

    it("sums every run's tokens when runs of one session end at once (each end's session update races the others')", async () => {
      const server = await startModelServer();
      const app = await startTestApp({ dialect, agents: agents(server) });
      try {
        server.script([{ text: "first", usage: { prompt_tokens: 1, completion_tokens: 1 } }]);
        const first = (await (await app.call("POST", "/agents/helper/runs", form({ message: "0", stream: "false" }))).json()) as Json;
        server.script(Array.from({ length: 6 }, () => ({ text: "again", usage: { prompt_tokens: 10, completion_tokens: 1 } })));
        const ends = await Promise.all(
          Array.from(
            { length: 6 },
            async (_, i) => (await (await app.call("POST", "/agents/helper/runs", form({ message: `${i + 1}`, stream: "false", session_id: String(first.session_id) }))).json()) as Json,
          ),
        );
        expect(ends.map((e) => e.status)).toEqual(Array(6).fill("COMPLETED"));
        const session = await getSession(await app.db(), { scope: adminScope(), sessionId: String(first.session_id) });
        expect(session?.runs).toHaveLength(7);
        expect(session?.session_data?.session_metrics).toMatchObject({ input_tokens: 61, output_tokens: 7, total_tokens: 68 });
      } finally {
        await app.close();
        await server.close();
      }
    });
  });
});
