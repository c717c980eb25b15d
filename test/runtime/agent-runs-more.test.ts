import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal.ts";
import { getRun, listMemories } from "@/lib/db/index.ts";
import { startAgentRun } from "@/lib/runtime/agent-run.ts";
import { findAgent } from "@/lib/runtime/agents.ts";
import { requestCancel } from "@/lib/live-runs/run-registry.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { deferred, messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { firstSseData } from "../support/api.ts";

type Json = Record<string, unknown>;

const RUN_SCOPES = ["agents:read", "agents:run", "sessions:read"];
const user = (id: string): Principal => ({ kind: "user", userId: id, scopes: RUN_SCOPES, authenticatedBy: "jwt", isAdmin: false });

const confirmTool = defineTool({
  name: "wipe",
  description: "Wipes something",
  parameters: z.object({ what: z.string() }),
  requiresConfirmation: true,
  execute: () => "wiped",
});

describe("more of the run lifecycle", () => {
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startModelServer();
    const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
    app = await startTestApp({
      dialect: sqliteDialect,
      agents: [
        { id: "plain", name: "Plain", model, tools: [confirmTool] },
        { id: "rememberer", name: "Rememberer", model, updateMemoryOnRun: true },
        { id: "historian", name: "Historian", model, searchPastSessions: true, numPastSessionsToSearch: 2, numPastSessionRunsInSearch: 2 },
        { id: "thinker", name: "Thinker", model, reasoningModel: { ...model, id: "scripted-reasoner" } },
      ],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it("a cancel recorded before the run starts stops it before the model is called", async () => {
    const before = server.requests.length;
    const runId = `pre-cancelled-${Date.now()}`;
    requestCancel(runId);
    const started = await startAgentRun({
      db: await app.db(),
      agent: findAgent(app.settings, "plain")!,
      scope: adminScope(),
      userId: null,
      message: "hi",
      runId,
    });
    const output = await started.done;
    expect(output.status).toBe("CANCELLED");
    expect(server.requests.length).toBe(before);
    expect(started.live.events.map((e) => e.event)).toEqual(["RunStarted", "RunCancelled", "RunCompleted"]);
    // Nothing was answered: the reason is the run's content, in both events and the stored run.
    expect(started.live.events.slice(1)).toMatchObject([{ reason: "Run cancelled by request", content: "Run cancelled by request" }, { content: "Run cancelled by request" }]);
    expect(output.content).toBe("Run cancelled by request");
    expect((await getRun(await app.db(), { scope: adminScope(), runId }))?.status).toBe("CANCELLED");
  });

  it("a client that disconnects from an inline stream cancels the run", async () => {
    const hold = deferred();
    server.script([{ text: "one two", chunks: ["one", " two"], hold: hold.promise }]);
    const response = await app.call("POST", "/agents/plain/runs", { form: { message: "go" } });
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes('"event":"RunContent"')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel().catch(() => undefined);
    const first = firstSseData<Json>(text);
    hold.resolve();
    let status: string | null | undefined;
    for (let i = 0; i < 200 && status !== "CANCELLED"; i++) {
      await new Promise((r) => setTimeout(r, 10));
      status = (await getRun(await app.db(), { scope: adminScope(), runId: String(first.run_id) }))?.status;
    }
    expect(status).toBe("CANCELLED");
  });

  it("resumes a live run: catch_up with the missed events, subscribed, then the rest live", async () => {
    const hold2 = deferred();
    server.script([{ text: "alpha beta", chunks: ["alpha", " beta"], hold: hold2.promise }]);
    const started = await startAgentRun({ db: await app.db(), agent: findAgent(app.settings, "plain")!, scope: adminScope(), userId: null, message: "again" });
    while (!started.live.events.some((e) => e.event === "RunContent")) await new Promise((r) => setTimeout(r, 5));
    const resumed = app.call("POST", `/agents/plain/runs/${started.runId}/resume`, { form: { last_event_index: "0", session_id: started.sessionId } });
    setTimeout(() => hold2.resolve(), 20);
    const events = await readSse(await resumed);
    expect(events[0]).toMatchObject({ event: "catch_up", run_id: started.runId });
    expect(events[1]).toMatchObject({ event: "subscribed", status: "running" });
    const indexes = events.slice(2).map((e) => e.event_index as number);
    expect(indexes[0]).toBe(1);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(new Set(indexes).size).toBe(indexes.length);
    expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "alpha beta" });
  });

  it("updateMemoryOnRun: memories are extracted from the input while the model answers, awaited before RunCompleted, their tokens in the run's metrics; the next run has them", async () => {
    const extractionSeen = deferred();
    const isExtraction = (body: { messages: unknown[] }) => messageText(body.messages[0] as never).includes("You maintain long-term memories");
    const answer = (body: { messages: unknown[] }) => {
      if (isExtraction(body)) {
        extractionSeen.resolve();
        return { text: JSON.stringify({ memories: [{ memory: "The user's name is Ada", topics: ["name"] }] }), usage: { prompt_tokens: 100, completion_tokens: 20 } };
      }
      // The answer waits until the extraction has been asked: the two run at once.
      return { text: "Nice to meet you, Ada.", hold: extractionSeen.promise, usage: { prompt_tokens: 10, completion_tokens: 5 } };
    };
    server.script([answer, answer]);
    const events = await readSse(await app.call("POST", "/agents/rememberer/runs", { form: { message: "I'm Ada", user_id: "ada" } }));
    const names = events.map((e) => e.event);
    expect(names.indexOf("MemoryUpdateStarted")).toBeGreaterThan(names.indexOf("RunContentCompleted"));
    expect(names.indexOf("MemoryUpdateCompleted")).toBeLessThan(names.indexOf("RunCompleted"));
    expect(events.find((e) => e.event === "MemoryUpdateCompleted")).toMatchObject({ memories: ["The user's name is Ada"] });
    // The extraction's prompt is the user's input, not the answer.
    const extraction = server.requests.slice(-2).find((r) => isExtraction(r.body))!;
    expect(JSON.stringify(extraction.body.messages)).toContain("I'm Ada");
    expect(JSON.stringify(extraction.body.messages)).not.toContain("Nice to meet you");
    expect(events.at(-1)).toMatchObject({ event: "RunCompleted", metrics: { input_tokens: 110, output_tokens: 25, total_tokens: 135 } });
    const { memories } = await listMemories(await app.db(), { scope: userScope("ada") });
    expect(memories.map((m) => m.memory)).toEqual(["The user's name is Ada"]);
    server.script([
      (body) => (isExtraction(body) ? { text: JSON.stringify({ memories: [] }) } : { text: "Hi Ada!" }),
      (body) => (isExtraction(body) ? { text: JSON.stringify({ memories: [] }) } : { text: "Hi Ada!" }),
    ]);
    await app.call("POST", "/agents/rememberer/runs", { form: { message: "Who am I?", user_id: "ada", stream: "false" } });
    const next = server.requests.slice(-2).find((r) => !isExtraction(r.body))!;
    expect(messageText(next.body.messages[0])).toContain("The user's name is Ada");
  });

  it("searchPastSessions gives the agent its user's earlier sessions, and only theirs", async () => {
    server.script([{ text: "The capital of France is Paris." }, { text: "Mine is secret." }]);
    await app.call("POST", "/agents/historian/runs", { form: { message: "Capital of France?", user_id: "u1", stream: "false" } });
    await app.call("POST", "/agents/historian/runs", { form: { message: "Other user's question", user_id: "u2", stream: "false" } });
    server.script([{ toolCalls: [{ name: "search_past_sessions", arguments: { query: "France" } }] }, { text: "We talked about Paris." }]);
    const output = (await (await app.call("POST", "/agents/historian/runs", { form: { message: "What did we discuss?", user_id: "u1", stream: "false" } })).json()) as Json & { tools: Json[] };
    expect(output.status).toBe("COMPLETED");
    const result = JSON.stringify(output.tools[0].result);
    expect(result).toContain("Capital of France?");
    expect(result).not.toContain("Other user's question");
  });

  it("with a reasoningModel, reasons first and gives the reasoning to the main model", async () => {
    server.script([{ text: "First, 17 is prime. Then double it." }, { text: "34" }]);
    const events = await readSse(await app.call("POST", "/agents/thinker/runs", { form: { message: "Double the 7th prime" } }));
    const names = events.map((e) => e.event);
    expect(names.indexOf("ReasoningStarted")).toBeLessThan(names.indexOf("ReasoningCompleted"));
    expect(names.indexOf("ReasoningCompleted")).toBeLessThan(names.indexOf("RunContent"));
    expect(events.find((e) => e.event === "ReasoningCompleted")).toMatchObject({ reasoning_content: "First, 17 is prime. Then double it." });
    expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "34" });
    const [reasoner, main] = server.requests.slice(-2);
    expect(reasoner.body.model).toBe("scripted-reasoner");
    expect(messageText(main.body.messages[0])).toContain("First, 17 is prime.");
  });

  it("cancelling a paused run stores it CANCELLED, so a later continue gets 409", async () => {
    server.script([{ toolCalls: [{ name: "wipe", arguments: { what: "cache" } }] }]);
    const paused = (await (await app.call("POST", "/agents/plain/runs", { form: { message: "wipe", stream: "false" } })).json()) as Json;
    expect(paused.status).toBe("PAUSED");
    expect((await app.call("POST", `/agents/plain/runs/${paused.run_id}/cancel?session_id=${paused.session_id}`)).status).toBe(200);
    expect((await getRun(await app.db(), { scope: adminScope(), runId: String(paused.run_id) }))?.status).toBe("CANCELLED");
    const requirements = JSON.stringify([{ ...(paused.requirements as Json[])[0], confirmation: true }]);
    expect((await app.call("POST", `/agents/plain/runs/${paused.run_id}/continue`, { form: { requirements, session_id: String(paused.session_id), stream: "false" } })).status).toBe(409);
  });

  it("refuses a form with more fields than any client sends (413)", async () => {
    const form = new FormData();
    form.set("message", "hi");
    for (let i = 0; i < 5_000; i++) form.append("x", "");
    const response = await app.call("POST", "/agents/plain/runs", { form });
    expect(response.status).toBe(413);
    expect(((await response.json()) as Json).detail).toMatch(/more than 1000 fields/);
  });

  it("answers with structured output when the form sends an output_schema", async () => {
    server.script([{ text: JSON.stringify({ city: "Oslo", temperature: 21 }) }]);
    const schema = { title: "Weather", type: "object", properties: { city: { type: "string" }, temperature: { type: "number" } }, required: ["city", "temperature"] };
    const output = (await (await app.call("POST", "/agents/plain/runs", { form: { message: "weather", stream: "false", output_schema: JSON.stringify(schema) } })).json()) as Json;
    expect(output).toMatchObject({ status: "COMPLETED", content: { city: "Oslo", temperature: 21 }, content_type: "Weather" });
    expect(server.requests.at(-1)!.body.response_format).toBeDefined();
  });

  it("keeps one user's runs from another: read, cancel, continue and resume all answer 404", async () => {
    server.script([{ toolCalls: [{ name: "wipe", arguments: { what: "disk" } }] }]);
    const alice = user("alice");
    const bob = user("bob");
    const paused = (await (await app.call("POST", "/agents/plain/runs", { form: { message: "wipe it", stream: "false", user_id: "bob" }, principal: alice })).json()) as Json;
    expect(paused).toMatchObject({ status: "PAUSED", user_id: "alice" });
    const path = `/agents/plain/runs/${paused.run_id}`;
    const session = String(paused.session_id);
    expect((await app.call("GET", `${path}?session_id=${session}`, { principal: bob })).status).toBe(404);
    expect((await app.call("GET", `${path}?session_id=${session}`, { principal: alice })).status).toBe(200);
    expect((await app.call("POST", `${path}/cancel?session_id=${session}`, { principal: bob })).status).toBe(404);
    expect((await app.call("POST", `${path}/cancel`, { principal: bob })).status).toBe(400);
    const requirements = JSON.stringify([{ ...(paused.requirements as Json[])[0], confirmation: true }]);
    expect((await app.call("POST", `${path}/continue`, { form: { requirements, session_id: session, stream: "false" }, principal: bob })).status).toBe(404);
    const resume = await readSse(await app.call("POST", `${path}/resume`, { form: { session_id: session }, principal: bob }));
    expect(resume[0]).toMatchObject({ event: "error" });
    // Bob cannot start a run in Alice's session either.
    expect((await app.call("POST", "/agents/plain/runs", { form: { message: "hi", session_id: session, stream: "false" }, principal: bob })).status).toBe(404);
    // Bob naming his own session does not let him cancel Alice's run either.
    const bobs = (await (await app.call("POST", "/agents/plain/runs", { form: { message: "mine", stream: "false" }, principal: bob })).json()) as Json;
    server.script([{ text: "ok" }]);
    expect((await app.call("POST", `${path}/cancel?session_id=${bobs.session_id}`, { principal: bob })).status).toBe(404);
    // Alice can continue her own run.
    server.script([{ text: "Wiped." }]);
    const done = (await (await app.call("POST", `${path}/continue`, { form: { requirements, session_id: session, stream: "false" }, principal: alice })).json()) as Json;
    expect(done.status).toBe("COMPLETED");
  });
});
