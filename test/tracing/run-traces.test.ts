import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, TeamDefinition } from "@/lib/config/define.ts";
import { defineWorkflow, step, type WorkflowDefinition } from "@/lib/config/workflow.ts";
import type { RuntimeAgent } from "@/lib/runtime/agents.ts";
import type { RunOutput } from "@/lib/runtime/run-output.ts";
import { NEW_TRACE, startRunTrace } from "@/lib/runtime/run-trace.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, any>;

const SECRET_KEY = "sk-trace-secret-4f1d2a9c77";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

function config(server: ModelServer): { agents: AgentDefinition[]; teams: TeamDefinition[]; workflows: WorkflowDefinition[] } {
  const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: SECRET_KEY };
  const researcher: AgentDefinition = { id: "researcher", name: "Researcher", model, instructions: "Research." };
  return {
    agents: [{ id: "helper", name: "Helper Bot", model, instructions: "Be brief.", tools: [add] }, researcher],
    teams: [{ id: "crew", name: "Crew", model, members: [researcher], mode: "coordinate" } as TeamDefinition],
    workflows: [
      defineWorkflow({
        id: "publish",
        name: "Publish",
        description: "Research, then publish after a person confirms",
        steps: [step({ name: "research", agent: researcher }), step({ name: "post", executor: () => "posted", humanReview: { requiresConfirmation: true } })],
      }),
    ],
  };
}

/** The trace of a run once its spans are stored. */
async function traceOfRun(app: TestApp, runId: string): Promise<Json> {
  await flushTracing();
  const list = (await (await app.call("GET", `/traces?run_id=${runId}`)).json()) as Json;
  expect(list.data).toHaveLength(1);
  const response = await app.call("GET", `/traces/${list.data[0].trace_id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

const shape = (node: Json): unknown => [node.type, node.name, ...(node.spans ?? []).map(shape)];

describe.each(DIALECTS)("runs recorded as traces ($name)", (dialect) => {
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startModelServer();
    app = await startTestApp({ dialect, ...config(server) });
    await app.db();
  });
  afterAll(async () => {
    await flushTracing();
    await app?.close();
    await server?.close();
  });

  it("an agent run that calls a tool is one trace: the run, its model calls and the tool in order, with tokens", async () => {
    server.script([
      { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }], usage: { prompt_tokens: 20, completion_tokens: 5 } },
      { text: "The sum is 5.", usage: { prompt_tokens: 30, completion_tokens: 4 } },
    ]);
    const run = (await (await app.call("POST", "/agents/helper/runs", { form: { message: "Add 2 and 3", stream: "false", user_id: "alice" } })).json()) as Json;
    expect(run.status).toBe("COMPLETED");
    const trace = await traceOfRun(app, run.run_id);
    expect(trace).toMatchObject({ name: "Helper_Bot.run", status: "OK", run_id: run.run_id, session_id: run.session_id, agent_id: "helper", input: "Add 2 and 3", output: "The sum is 5." });
    expect(trace.tree).toHaveLength(1);
    expect(shape(trace.tree[0])).toEqual(["AGENT", "Helper_Bot.run", ["LLM", "OpenAILike.invoke"], ["TOOL", "add"], ["LLM", "OpenAILike.invoke"]]);
    const [llm, tool] = trace.tree[0].spans;
    expect(llm.metadata).toMatchObject({ model: "scripted", input_tokens: 20, output_tokens: 5 });
    expect(tool.metadata).toMatchObject({ tool_name: "add" });
    expect(JSON.parse(tool.metadata.parameters ?? tool.input)).toEqual({ a: 2, b: 3 });
    expect(trace.tree[0].metadata).toMatchObject({ total_input_tokens: 50, total_output_tokens: 9 });
    // No configured secret reaches a stored span.
    const db = await app.db();
    const rows = await db.sql.query("SELECT * FROM agno_spans");
    expect(rows.length).toBeGreaterThan(3);
    expect(JSON.stringify(rows)).not.toContain(SECRET_KEY);
  });

  it("a team's member runs nest under the team's delegation, as TEAM and AGENT nodes", async () => {
    server.script([{ toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Find X" } }] }, { text: "X is 42." }, { text: "The team says 42." }]);
    const run = (await (await app.call("POST", "/teams/crew/runs", { form: { message: "What is X?", stream: "false" } })).json()) as Json;
    expect(run.status).toBe("COMPLETED");
    const trace = await traceOfRun(app, run.run_id);
    expect(trace).toMatchObject({ name: "Crew.run", team_id: "crew" });
    expect(shape(trace.tree[0])).toEqual([
      "TEAM",
      "Crew.run",
      ["LLM", "OpenAILike.invoke"],
      ["TOOL", "delegate_task_to_member", ["AGENT", "Researcher.run", ["LLM", "OpenAILike.invoke"]]],
      ["LLM", "OpenAILike.invoke"],
    ]);
  });

  it("a workflow paused at a step and continued later is one trace with two roots, the step agent under its step", async () => {
    server.script([{ text: "Findings." }]);
    const paused = (await (await app.call("POST", "/workflows/publish/runs", { form: { message: "Go", stream: "false" } })).json()) as Json;
    expect(paused.status).toBe("PAUSED");
    const first = await traceOfRun(app, paused.run_id);
    expect(first).toMatchObject({ name: "Publish.run", workflow_id: "publish" });
    expect(shape(first.tree[0])).toEqual(["WORKFLOW", "Publish.run", ["WORKFLOW", "research.run", ["AGENT", "Researcher.run", ["LLM", "OpenAILike.invoke"]]]]);
    expect(first.tree[0].spans[0].step_type).toBe("Step");
    const requirement = (paused.step_requirements as Json[]).at(-1);
    const done = (await (
      await app.call("POST", `/workflows/publish/runs/${paused.run_id}/continue`, {
        form: { step_requirements: JSON.stringify([{ ...requirement, confirmed: true }]), session_id: String(paused.session_id), stream: "false" },
      })
    ).json()) as Json;
    expect(done).toMatchObject({ status: "COMPLETED", content: "posted" });
    const whole = await traceOfRun(app, paused.run_id);
    expect(whole.trace_id).toBe(first.trace_id);
    expect(whole.tree.map((root: Json) => root.name)).toEqual(["Publish.run", "Publish.run"]);
    expect(shape(whole.tree[1])).toEqual(["WORKFLOW", "Publish.run", ["WORKFLOW", "post.run"]]);
    expect(Date.parse(whole.end_time)).toBeGreaterThan(Date.parse(first.end_time));
  });

  it("cuts input.value at the byte limit and records the original length", async () => {
    server.script([{ text: "ok" }]);
    const message = "é".repeat(20_000);
    const run = (await (await app.call("POST", "/agents/helper/runs", { form: { message, stream: "false" } })).json()) as Json;
    await flushTracing();
    const db = await app.db();
    const [root] = await db.sql.query<{ attributes: unknown }>("SELECT attributes FROM agno_spans WHERE name = ? AND trace_id IN (SELECT trace_id FROM agno_traces WHERE run_id = ?)", [
      "Helper_Bot.run",
      run.run_id,
    ]);
    const attributes = (typeof root!.attributes === "string" ? JSON.parse(root!.attributes) : root!.attributes) as Json;
    expect(Buffer.byteLength(attributes["input.value"], "utf8")).toBeLessThanOrEqual(16 * 1024);
    expect(attributes["input.value"]).toMatch(/^é+$/);
    expect(attributes["agentry.truncated.input"]).toBe(40_000);
  });

  it("deleting a session deletes its traces and their spans", async () => {
    server.script([{ text: "bye" }]);
    const run = (await (await app.call("POST", "/agents/helper/runs", { form: { message: "to delete", stream: "false" } })).json()) as Json;
    const trace = await traceOfRun(app, run.run_id);
    expect((await app.call("DELETE", `/sessions/${run.session_id}`)).status).toBe(204);
    expect((await app.call("GET", `/traces/${trace.trace_id}`)).status).toBe(404);
    const db = await app.db();
    expect(await db.sql.query("SELECT span_id FROM agno_spans WHERE trace_id = ?", [trace.trace_id])).toEqual([]);
  });
});

describe.each(DIALECTS)("a durable run's trace ($name)", (dialect) => {
  let server: ModelServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startModelServer();
    app = await startTestApp({ dialect, ...config(server), env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50" } });
    await app.db();
  });
  afterAll(async () => {
    await flushTracing();
    await app?.close();
    await server?.close();
  });

  it("a later attempt of the job joins the trace its submit chose, as another root", async () => {
    const agent = { definition: { id: "helper", name: "Helper Bot" }, tools: [] } as unknown as RuntimeAgent;
    const output = { run_id: "r-attempts", session_id: "s", user_id: null } as unknown as RunOutput;
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const first = startRunTrace(agent, output, "x", {
      parent: NEW_TRACE,
      traceId,
      startTime: Date.now() - 50,
      queueWait: { enqueuedAt: Date.now() - 50, claimedAt: Date.now(), jobId: "j", attempt: 1 },
    });
    const second = startRunTrace(agent, output, "x", { parent: NEW_TRACE, traceId });
    expect([first.span.spanContext().traceId, second.span.spanContext().traceId]).toEqual([traceId, traceId]);
    // A third, with no id chosen, starts a trace of its own.
    expect(startRunTrace(agent, output, "x", { parent: NEW_TRACE }).span.spanContext().traceId).not.toBe(traceId);
  });

  // queue.wait is a CHAIN span, which Agno's tree calls WORKFLOW.
  it("starts at the enqueue, with the wait for a worker as its first child", async () => {
    server.script([{ text: "Done in the background." }]);
    const response = await app.call("POST", "/agents/helper/runs", { form: { message: "Later", stream: "false", background: "true" } });
    expect(response.status).toBe(202);
    const { run_id: runId } = (await response.json()) as Json;
    // The run's span ends right after its last write: wait for the stored root.
    await until("the durable run's root span is stored", async () => {
      await flushTracing();
      const list = (await (await app.call("GET", `/traces?run_id=${runId}`)).json()) as Json;
      return list.data?.[0]?.name === "Helper_Bot.run";
    });
    const trace = await traceOfRun(app, runId);
    expect(shape(trace.tree[0])).toEqual(["AGENT", "Helper_Bot.run", ["WORKFLOW", "queue.wait"], ["LLM", "OpenAILike.invoke_stream"]]);
    const [wait] = trace.tree[0].spans;
    expect(wait.start_time).toBe(trace.tree[0].start_time);
  });
});
