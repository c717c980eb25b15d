import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { condition, defineWorkflow, loop, parallel, router, step, steps, type StepInput, type WorkflowDefinition } from "@/lib/config/workflow.ts";
import { getRun } from "@/lib/db/index.ts";
import { deferred, messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

const upper = (input: StepInput) => String(input.previous_step_content ?? input.input).toUpperCase();
const exclaim = (input: StepInput) => `${String(input.previous_step_content)}!`;
function counter(input: StepInput) {
  const n = Number(input.session_state.count ?? 0) + 1;
  input.session_state.count = n;
  return `count ${n}`;
}

let started = deferred<{ runId: string; sessionId: string }>();
let aborted = false;

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`workflow runs (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;

    beforeAll(async () => {
      server = await startModelServer({ respond: (body) => ({ text: `Summary of: ${messageText(body.messages.at(-1))}` }) });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const summarizer: AgentDefinition = { id: "summarizer", name: "Summarizer", model, instructions: "Summarise." };
      const workflows: WorkflowDefinition[] = [
        defineWorkflow({ id: "pipeline", name: "Pipeline", description: "Upper, exclaim, summarise.", steps: [upper, step({ name: "exclaim", executor: exclaim }), summarizer] }),
        defineWorkflow({
          id: "shapes",
          name: "Shapes",
          steps: [
            steps({ name: "prep", steps: [step({ name: "a", executor: () => "A" }), step({ name: "b", executor: (i) => `${String(i.previous_step_content)}B` })] }),
            loop({ name: "count", steps: [counter], maxIterations: 5, endCondition: (outputs) => outputs.some((o) => o.content === "count 3") }),
            parallel({ name: "fan", steps: [step({ name: "left", executor: () => "L" }), step({ name: "right", executor: () => "R" })] }),
            condition({
              name: "big",
              evaluator: (i) => String(i.input).length > 3,
              steps: [step({ name: "long", executor: () => "long input" })],
              elseSteps: [step({ name: "short", executor: () => "short input" })],
            }),
            router({
              name: "pick",
              selector: () => "second",
              choices: [step({ name: "first", executor: () => "one" }), step({ name: "second", executor: (i) => `two after ${String(i.previous_step_content)}` })],
            }),
          ],
        }),
        defineWorkflow({
          id: "slow",
          name: "Slow",
          steps: [
            step({
              name: "wait",
              maxRetries: 0,
              executor: (_input, ctx) =>
                new Promise((resolve) => {
                  ctx.signal.addEventListener("abort", () => {
                    aborted = true;
                    resolve("stopped");
                  });
                  started.resolve({ runId: ctx.runId, sessionId: ctx.sessionId });
                }),
            }),
          ],
        }),
        defineWorkflow({
          id: "reviewed",
          name: "Reviewed",
          steps: [
            step({ name: "draft", executor: (i) => `draft of ${String(i.input)}` }),
            step({ name: "publish", executor: (i) => `published ${String(i.previous_step_content)}`, humanReview: { requiresConfirmation: true, confirmationMessage: "Publish it?" } }),
          ],
        }),
      ];
      app = await startTestApp({ dialect, agents: [summarizer], workflows });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("lists the workflows and describes one with its steps; unknown ones and versions are 404", async () => {
      const list = (await (await app.call("GET", "/workflows")).json()) as Json[];
      expect(list.map((w) => w.id)).toEqual(["pipeline", "shapes", "slow", "reviewed"]);
      expect(list[0]).toEqual({ id: "pipeline", name: "Pipeline", description: "Upper, exclaim, summarise.", db_id: expect.any(String), is_component: false });
      // Agno's null-field rule: a workflow without a description leaves it out.
      expect(list[1]).not.toHaveProperty("description");
      const one = (await (await app.call("GET", "/workflows/pipeline")).json()) as Json;
      const stepsOf = one.steps as Json[];
      expect(stepsOf.map((s) => [s.type, s.name])).toEqual([
        ["Step", "upper"],
        ["Step", "exclaim"],
        ["Step", "Summarizer"],
      ]);
      expect(stepsOf[2]).toMatchObject({ agent_id: "summarizer", agent: { id: "summarizer", name: "Summarizer" } });
      expect((await app.call("GET", "/workflows/nope")).status).toBe(404);
      const versioned = await app.call("GET", "/workflows/pipeline?version=2");
      expect(versioned.status).toBe(404);
      expect(await versioned.json()).toEqual({ detail: "Workflow not found" });
      expect((await app.call("POST", "/workflows/pipeline/runs", { form: { message: "x", version: "3" } })).status).toBe(404);
    });

    it("runs function and agent steps in order, each given the last one's output; the agent's run is its own row under the workflow run", async () => {
      const response = await app.call("POST", "/workflows/pipeline/runs", { form: { message: "hello", stream: "false" } });
      expect(response.status).toBe(200);
      const run = (await response.json()) as Json;
      expect(run).toMatchObject({ workflow_id: "pipeline", workflow_name: "Pipeline", status: "COMPLETED", input: "hello", content: "Summary of: HELLO!" });
      const results = run.step_results as Json[];
      expect(results.map((r) => [r.step_name, r.content, r.executor_type])).toEqual([
        ["upper", "HELLO", "function"],
        ["exclaim", "HELLO!", "function"],
        ["Summarizer", "Summary of: HELLO!", "agent"],
      ]);
      const executorRuns = run.step_executor_runs as Json[];
      expect(executorRuns).toHaveLength(1);
      expect(executorRuns[0]).toMatchObject({ agent_id: "summarizer", parent_run_id: run.run_id, workflow_step_id: results[2]!.step_id });
      const db = await app.db();
      expect(await getRun(db, { scope: adminScope(), runId: String(run.run_id) })).toMatchObject({ run_type: "workflow", workflow_id: "pipeline", status: "COMPLETED" });
      expect(await getRun(db, { scope: adminScope(), runId: String(executorRuns[0]!.run_id) })).toMatchObject({ run_type: "agent", agent_id: "summarizer", parent_run_id: run.run_id });
      const listed = (await (await app.call("GET", `/workflows/pipeline/runs?session_id=${run.session_id}`)).json()) as Json[];
      expect(listed.map((r) => [r.run_id, r.workflow_id, r.status, r.run_input])).toEqual([[run.run_id, "pipeline", "COMPLETED", "hello"]]);
      const one = (await (await app.call("GET", `/workflows/pipeline/runs/${run.run_id}?session_id=${run.session_id}`)).json()) as Json;
      expect(one).toMatchObject({ run_id: run.run_id, content: "Summary of: HELLO!" });
      const session = (await (await app.call("GET", `/sessions/${run.session_id}?type=workflow`)).json()) as Json;
      expect(session).toMatchObject({ session_id: run.session_id, workflow_id: "pipeline" });
    });

    it("streams Workflow and Step events with event_index, the agent's own events carrying the step's context", async () => {
      const events = await readSse(await app.call("POST", "/workflows/pipeline/runs", { form: { message: "hi" } }));
      const names = events.map((e) => e.event);
      expect(names[0]).toBe("WorkflowStarted");
      expect(names.at(-1)).toBe("WorkflowCompleted");
      expect(names.filter((n) => n === "StepStarted")).toHaveLength(3);
      expect(names.filter((n) => n === "StepCompleted")).toHaveLength(3);
      const indexes = events.map((e) => e.event_index as number);
      expect(indexes).toEqual(indexes.map((_, i) => indexes[0]! + i));
      const workflowRunId = events[0]!.run_id;
      const agentEvents = events.filter((e) => e.agent_id === "summarizer");
      expect(agentEvents.map((e) => e.event)).toEqual(expect.arrayContaining(["RunStarted", "RunCompleted"]));
      for (const e of agentEvents) expect(e).toMatchObject({ workflow_id: "pipeline", workflow_run_id: workflowRunId, step_name: "Summarizer", step_index: 2, parent_run_id: workflowRunId });
      expect(events.at(-1)).toMatchObject({ workflow_id: "pipeline", content: "Summary of: HI!" });
    });

    it("Steps, Loop, Parallel, Condition and Router, with a session state shared by the steps", async () => {
      const events = await readSse(await app.call("POST", "/workflows/shapes/runs", { form: { message: "tiny" } }));
      const names = events.map((e) => e.event);
      for (const name of [
        "StepsExecutionStarted",
        "StepsExecutionCompleted",
        "LoopExecutionStarted",
        "LoopIterationStarted",
        "LoopIterationCompleted",
        "LoopExecutionCompleted",
        "ParallelExecutionStarted",
        "ParallelExecutionCompleted",
        "ConditionExecutionStarted",
        "ConditionExecutionCompleted",
        "RouterExecutionStarted",
        "RouterExecutionCompleted",
      ]) {
        expect(names, name).toContain(name);
      }
      expect(names.filter((n) => n === "LoopIterationStarted")).toHaveLength(3);
      const done = events.at(-1)!;
      expect(done.event).toBe("WorkflowCompleted");
      const results = done.step_results as Json[];
      expect(results.map((r) => [r.step_name, r.step_type])).toEqual([
        ["prep", "Steps"],
        ["count", "Loop"],
        ["fan", "Parallel"],
        ["big", "Condition"],
        ["pick", "Router"],
      ]);
      expect((results[0]!.steps as Json[]).map((s) => s.content)).toEqual(["A", "AB"]);
      expect(results[1]!.content).toBe("Loop count completed 3 iterations with 3 total steps");
      expect(results[2]!.content).toBe("## Parallel Execution Results\n\n### ✅ SUCCESS: left\nL\n\n### ✅ SUCCESS: right\nR");
      expect((results[3]!.steps as Json[])[0]).toMatchObject({ step_name: "long", content: "long input" });
      expect(events.find((e) => e.event === "RouterExecutionStarted")).toMatchObject({ selected_steps: ["second"] });
      expect(done.content).toBe("two after long input");
      const session = (await (await app.call("GET", `/sessions/${done.session_id}?type=workflow`)).json()) as Json;
      expect((session.session_state as Json).count).toBe(3);
    });

    it("a step with human review pauses the run; continue with a confirmation runs it, a rejection cancels; a second continue is 409", async () => {
      const events = await readSse(await app.call("POST", "/workflows/reviewed/runs", { form: { message: "news" } }));
      const names = events.map((e) => e.event);
      expect(names.slice(-2)).toEqual(["StepPaused", "WorkflowPaused"]);
      const paused = events.at(-1)!;
      expect(paused).toMatchObject({ status: "PAUSED", paused_step_index: 1, paused_step_name: "publish", pause_kind: "step" });
      const requirement = (paused.step_requirements as Json[])[0]!;
      expect(requirement).toMatchObject({ step_name: "publish", step_index: 1, requires_confirmation: true, confirmation_message: "Publish it?", confirmed: null, on_reject: "cancel" });
      const runId = String(paused.run_id);
      const sessionId = String(paused.session_id);
      const db = await app.db();
      await until("the run is stored PAUSED", async () => (await getRun(db, { scope: adminScope(), runId }))?.status === "PAUSED");
      const listed = (await (await app.call("GET", `/workflows/reviewed/runs?session_id=${sessionId}&status=PAUSED`)).json()) as Json[];
      expect(listed[0]).toMatchObject({ run_id: runId, pause_kind: "step", paused_step_name: "publish", paused_step_index: 1 });

      const unanswered = await app.call("POST", `/workflows/reviewed/runs/${runId}/continue`, { form: { step_requirements: JSON.stringify([requirement]), session_id: sessionId, stream: "false" } });
      expect(unanswered.status).toBe(400);
      expect(((await unanswered.json()) as Json).detail).toMatch(/publish' needs confirmed: true or false/);
      expect((await app.call("POST", `/workflows/reviewed/runs/${runId}/continue`, { form: { step_requirements: "{not json", session_id: sessionId } })).status).toBe(400);

      const continued = await readSse(
        await app.call("POST", `/workflows/reviewed/runs/${runId}/continue`, { form: { step_requirements: JSON.stringify([{ ...requirement, confirmed: true }]), session_id: sessionId } }),
      );
      expect(continued.map((e) => e.event)).toEqual(["StepContinued", "StepStarted", "StepOutput", "StepCompleted", "WorkflowCompleted"]);
      expect(continued.at(-1)).toMatchObject({ run_id: runId, content: "published draft of news" });
      const again = await app.call("POST", `/workflows/reviewed/runs/${runId}/continue`, {
        form: { step_requirements: JSON.stringify([{ ...requirement, confirmed: true }]), session_id: sessionId, stream: "false" },
      });
      expect(again.status).toBe(409);
      expect(((await again.json()) as Json).detail).toBe("run is already completed");

      // Rejected: on_reject "cancel" ends the run CANCELLED.
      const second = (await (await app.call("POST", "/workflows/reviewed/runs", { form: { message: "rumour", stream: "false" } })).json()) as Json;
      expect(second.status).toBe("PAUSED");
      const rejected = (await (
        await app.call("POST", `/workflows/reviewed/runs/${second.run_id}/continue`, {
          form: { step_requirements: JSON.stringify([{ ...(second.step_requirements as Json[])[0], confirmed: false }]), session_id: String(second.session_id), stream: "false" },
        })
      ).json()) as Json;
      expect(rejected).toMatchObject({ status: "CANCELLED", content: "Workflow cancelled: Step 'publish' was rejected", cancellation_stage: "paused" });
    });

    it("a schedule can run a workflow: its fire is a workflow run owned by the schedule's owner", async () => {
      const created = (await (
        await app.call("POST", "/schedules", { json: { name: `wf-${Date.now()}`, cron_expr: "0 6 * * *", endpoint: "/workflows/pipeline/runs", payload: { message: "scheduled" } } })
      ).json()) as Json;
      expect(created).toMatchObject({ endpoint: "/workflows/pipeline/runs" });
      const fired = (await (await app.call("POST", `/schedules/${created.id}/trigger`)).json()) as Json;
      expect(fired).toMatchObject({ status: "success" });
      const db = await app.db();
      expect(await getRun(db, { scope: adminScope(), runId: String(fired.run_id) })).toMatchObject({ run_type: "workflow", workflow_id: "pipeline", status: "COMPLETED" });
    });

    it("workflow stream cancelled: it ends WorkflowCancelled then WorkflowCompleted (content the reason), the run stored CANCELLED", async () => {
      started = deferred();
      const response = app.call("POST", "/workflows/slow/runs", { form: { message: "go" } });
      const { runId, sessionId } = await started.promise;
      expect((await app.call("POST", `/workflows/slow/runs/${runId}/cancel?session_id=${sessionId}`)).status).toBe(200);
      const events = await readSse(await response);
      const [cancelled, completed] = events.slice(-2);
      expect(cancelled).toMatchObject({
        event: "WorkflowCancelled",
        run_id: runId,
        workflow_id: "slow",
        workflow_name: "Slow",
        reason: "Run cancelled by request",
        content: "Run cancelled by request",
      });
      expect(completed).toMatchObject({ event: "WorkflowCompleted", run_id: runId, workflow_id: "slow", content: "Run cancelled by request", metrics: expect.any(Object) });
      expect(completed.event_index).toBe((cancelled.event_index as number) + 1);
      expect(events.filter((e) => e.event === "WorkflowCompleted")).toHaveLength(1);
      const db = await app.db();
      await until("the run is stored CANCELLED", async () => (await getRun(db, { scope: adminScope(), runId }))?.status === "CANCELLED");
      expect((await getRun(db, { scope: adminScope(), runId }))?.run_data).toMatchObject({ status: "CANCELLED", content: "Run cancelled by request" });
    });

    it("a step a person rejects (on_reject cancel) ends the continue's stream at WorkflowCancelled alone, as Agno's does", async () => {
      const paused = (await (await app.call("POST", "/workflows/reviewed/runs", { form: { message: "gossip", stream: "false" } })).json()) as Json;
      const events = await readSse(
        await app.call("POST", `/workflows/reviewed/runs/${paused.run_id}/continue`, {
          form: { step_requirements: JSON.stringify([{ ...(paused.step_requirements as Json[])[0], confirmed: false }]), session_id: String(paused.session_id) },
        }),
      );
      expect(events.at(-1)).toMatchObject({ event: "WorkflowCancelled", run_id: paused.run_id, reason: "Workflow cancelled: Step 'publish' was rejected" });
      expect(events.some((e) => e.event === "WorkflowCompleted")).toBe(false);
    });

    it("cancelling a running workflow aborts its step and ends it CANCELLED; an unknown workflow is a 404", async () => {
      started = deferred();
      const response = app.call("POST", "/workflows/slow/runs", { form: { message: "go", stream: "false" } });
      const { runId, sessionId } = await started.promise;
      const cancel = await app.call("POST", `/workflows/slow/runs/${runId}/cancel?session_id=${sessionId}`);
      expect(cancel.status).toBe(200);
      expect(await cancel.json()).toEqual({});
      const run = (await (await response).json()) as Json;
      expect(run).toMatchObject({ run_id: runId, status: "CANCELLED" });
      expect(aborted).toBe(true);
      expect((await app.call("POST", `/workflows/nope/runs/${runId}/cancel?session_id=${sessionId}`)).status).toBe(404);
    });
  });
}

describe("defineWorkflow", () => {
  it("is keyword-only, and refuses the flat review options naming humanReview", () => {
    expect(() => (defineWorkflow as unknown as (...a: unknown[]) => unknown)("Name", [])).toThrow(/defineWorkflow takes one object: defineWorkflow\(\{ name, steps: \[\.\.\.\] \}\)/);
    expect(() => step({ name: "s", executor: () => 1, requiresConfirmation: true } as never)).toThrow(/option 'requiresConfirmation' was removed in v3; use humanReview: \{ requiresConfirmation \}/);
    expect(() => step({ name: "s", executor: () => 1, humanReview: { hitlMaxRetries: 2 } as never })).toThrow(/humanReview.hitlMaxRetries was renamed in v3; use humanReview.maxRetries/);
    expect(() => loop({ name: "l", steps: [upper], humanReview: { requiresOutputReview: true } })).toThrow(
      /requiresOutputReview is not supported on Loop. Supported: requiresConfirmation, requiresIterationReview/,
    );
    expect(() => defineWorkflow({ name: "w", steps: [step({ name: "x", executor: () => 1 }), step({ name: "x", executor: () => 2 })] })).toThrow(/two steps are named 'x'/);
    expect(defineWorkflow({ name: "My Flow", steps: [upper] })).toMatchObject({ id: "my-flow", steps: [{ type: "Step", name: "upper" }] });
  });
});
