import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { condition, defineWorkflow, loop, router, step, type StepInput, type WorkflowDefinition } from "@/lib/config/workflow.ts";
import { getRun } from "@/lib/db/index.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;

let attempts = 0;
function write(input: StepInput) {
  attempts++;
  const feedback = input.additional_data.feedback;
  return feedback ? `draft ${attempts} (after: ${String(feedback)})` : `draft ${attempts}`;
}
const greet = (input: StepInput) => `Hello ${String((input.additional_data.user_input as Json | undefined)?.name)} (${String((input.additional_data.user_input as Json | undefined)?.age)})`;
let iteration = 0;
const refine = () => `version ${++iteration}`;

const wipe = defineTool({ name: "wipe_disk", description: "Erases a disk", parameters: z.object({ disk: z.string() }), requiresConfirmation: true, execute: ({ disk }) => `wiped ${disk}` });

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`workflow human review (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;

    beforeAll(async () => {
      server = await startModelServer({
        respond: (body) => (body.messages.at(-1)?.role === "tool" ? { text: `Done: ${messageText(body.messages.at(-1))}` } : { toolCalls: [{ name: "wipe_disk", arguments: { disk: "sdb" } }] }),
      });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const operator: AgentDefinition = { id: "operator", name: "Operator", model, tools: [wipe] };
      const workflows: WorkflowDefinition[] = [
        defineWorkflow({
          id: "input",
          name: "Input",
          steps: [step({ name: "greet", executor: greet, humanReview: { requiresUserInput: true, userInputMessage: "Who?", userInputSchema: [{ name: "name" }, { name: "age", fieldType: "int" }] } })],
        }),
        defineWorkflow({ id: "review", name: "Review", steps: [step({ name: "write", executor: write, humanReview: { requiresOutputReview: true, onReject: "retry", maxRetries: 1 } })] }),
        defineWorkflow({ id: "iterate", name: "Iterate", steps: [loop({ name: "polish", steps: [refine], maxIterations: 5, humanReview: { requiresIterationReview: true, onReject: "retry" } })] }),
        defineWorkflow({
          id: "branch",
          name: "Branch",
          steps: [
            condition({
              name: "gate",
              evaluator: true,
              steps: [step({ name: "yes", executor: () => "if branch" })],
              elseSteps: [step({ name: "no", executor: () => "else branch" })],
              humanReview: { requiresConfirmation: true },
            }),
          ],
        }),
        defineWorkflow({
          id: "route",
          name: "Route",
          steps: [
            router({ name: "pick", choices: [step({ name: "fast", executor: () => "fast path" }), step({ name: "slow", executor: () => "slow path" })], humanReview: { requiresUserInput: true } }),
          ],
        }),
        defineWorkflow({
          id: "timed",
          name: "Timed",
          steps: [step({ name: "act", executor: () => "acted", humanReview: { requiresConfirmation: true, timeout: 1, onTimeout: "skip" } }), step({ name: "after", executor: () => "after" })],
        }),
        defineWorkflow({ id: "ops", name: "Ops", steps: [operator, step({ name: "report", executor: (i: StepInput) => `report: ${String(i.previous_step_content)}` })] }),
      ];
      app = await startTestApp({ dialect, agents: [operator], workflows });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    const run = async (id: string, message = "go") => (await (await app.call("POST", `/workflows/${id}/runs`, { form: { message, stream: "false" } })).json()) as Json;
    const cont = async (id: string, paused: Json, change: Json, stream = "false") =>
      app.call("POST", `/workflows/${id}/runs/${paused.run_id}/continue`, {
        form: { step_requirements: JSON.stringify([{ ...(paused.step_requirements as Json[]).at(-1), ...change }]), session_id: String(paused.session_id), stream },
      });

    it("user input: the form's fields are checked (required, types) and reach the step", async () => {
      const paused = await run("input");
      expect(paused.status).toBe("PAUSED");
      expect((paused.step_requirements as Json[])[0]).toMatchObject({
        requires_user_input: true,
        user_input_message: "Who?",
        user_input_schema: [
          { name: "name", field_type: "str" },
          { name: "age", field_type: "int" },
        ],
      });
      const missing = await cont("input", paused, { user_input: { name: "Ada" } });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as Json).detail).toMatch(/required field 'age' is missing/);
      const wrongType = await cont("input", paused, { user_input: { name: "Ada", age: "old" } });
      expect(((await wrongType.json()) as Json).detail).toMatch(/field 'age' must be an integer/);
      const done = (await (await cont("input", paused, { user_input: { name: "Ada", age: 36 } })).json()) as Json;
      expect(done).toMatchObject({ status: "COMPLETED", content: "Hello Ada (36)" });
    });

    it("output review: rejected with retry runs the step again with the feedback, up to max_retries, then cancels; approved keeps it, edited replaces it", async () => {
      attempts = 0;
      const first = await run("review");
      expect(first).toMatchObject({ status: "PAUSED", step_results: [expect.objectContaining({ content: "draft 1" })] });
      const requirement = (first.step_requirements as Json[])[0]!;
      expect(requirement).toMatchObject({ requires_output_review: true, is_post_execution: true, step_output: { content: "draft 1" } });
      const retried = (await (await cont("review", first, { confirmed: false, rejection_feedback: "shorter" })).json()) as Json;
      expect(retried).toMatchObject({ status: "PAUSED", step_results: [expect.objectContaining({ content: "draft 2 (after: shorter)" })] });
      expect((retried.step_requirements as Json[]).at(-1)).toMatchObject({ retry_count: 1 });
      const gaveUp = (await (await cont("review", retried, { confirmed: false, rejection_feedback: "still long" })).json()) as Json;
      expect(gaveUp).toMatchObject({ status: "CANCELLED", content: "Max retries (1) reached for step 'write'" });

      const again = await run("review");
      const edited = (await (await cont("review", again, { confirmed: true, edited_output: "my own words" })).json()) as Json;
      expect(edited).toMatchObject({ status: "COMPLETED", content: "my own words" });
    });

    it("iteration review: each iteration waits; a rejection runs another, an approval ends the loop with its output", async () => {
      iteration = 0;
      const first = await run("iterate");
      expect(first).toMatchObject({ status: "PAUSED", paused_step_name: "polish" });
      expect((first.step_requirements as Json[])[0]).toMatchObject({ step_type: "Loop", is_post_execution: true, requires_output_review: true });
      const second = (await (await cont("iterate", first, { confirmed: false, rejection_feedback: "more" })).json()) as Json;
      expect(second.status).toBe("PAUSED");
      const done = (await (await cont("iterate", second, { confirmed: true })).json()) as Json;
      expect(done).toMatchObject({ status: "COMPLETED", content: "version 2" });
      expect((done.step_results as Json[])[0]).toMatchObject({ content: "Loop polish completed 2 iterations with 2 total steps" });
    });

    it("a Condition's rejection takes its else branch; a Router's route is the person's selection", async () => {
      const gate = await run("branch");
      expect((gate.step_requirements as Json[])[0]).toMatchObject({ on_reject: "else", confirmation_message: "Execute condition 'gate'? (yes=if branch, no=else branch)" });
      expect(await (await cont("branch", gate, { confirmed: false })).json()).toMatchObject({ status: "COMPLETED", content: "else branch" });
      const route = await run("route");
      expect((route.step_requirements as Json[])[0]).toMatchObject({ requires_route_selection: true, available_choices: ["fast", "slow"], user_input_message: "Select a route from: fast, slow" });
      expect((await cont("route", route, {})).status).toBe(400);
      const streamed = await readSse(await cont("route", route, { selected_choices: ["slow"] }, "true"));
      expect(streamed.find((e) => e.event === "RouterExecutionStarted")).toMatchObject({ selected_steps: ["slow"] });
      expect(streamed.at(-1)).toMatchObject({ event: "WorkflowCompleted", content: "slow path" });
    });

    it("a decision after the timeout is the timeout's: on_timeout skip skips the step", async () => {
      const paused = await run("timed");
      expect((paused.step_requirements as Json[])[0]!.timeout_at).toEqual(expect.any(String));
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const done = (await (await cont("timed", paused, { confirmed: true })).json()) as Json;
      expect(done).toMatchObject({ status: "COMPLETED", content: "after" });
      expect((done.step_results as Json[]).map((r) => r.step_name)).toEqual(["after"]);
    });

    it("a step's agent that pauses for confirmation pauses the workflow (executor requirement); continuing continues the agent's own run", async () => {
      const paused = await run("ops");
      expect(paused).toMatchObject({ status: "PAUSED", pause_kind: "executor", paused_step_name: "Operator" });
      const requirement = (paused.step_requirements as Json[])[0]!;
      expect(requirement).toMatchObject({ requires_executor_input: true, executor_id: "operator", executor_type: "agent" });
      const executorRunId = String(requirement.executor_run_id);
      const db = await app.db();
      expect((await getRun(db, { scope: adminScope(), runId: executorRunId }))?.status).toBe("PAUSED");
      const answered = (requirement.executor_requirements as Json[]).map((r) => ({ ...r, confirmation: true }));
      const done = (await (await cont("ops", paused, { executor_requirements: answered })).json()) as Json;
      expect(done).toMatchObject({ status: "COMPLETED", content: "report: Done: wiped sdb" });
      expect((await getRun(db, { scope: adminScope(), runId: executorRunId }))?.status).toBe("COMPLETED");
    });
  });
}
