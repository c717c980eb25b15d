import { describe, expect, it } from "vitest";
import { applyRunEvent, newRun } from "@/components/dashboard/playground/transcript.ts";
import { applyWorkflowEvent, newWorkflowRun } from "@/components/dashboard/workflows/workflow-view.ts";

describe("the playground's team view", () => {
  it("applies the team's Team* events to the answer and each member's events to that member, folded", () => {
    let run = newRun();
    run = applyRunEvent(run, { event: "TeamRunStarted", run_id: "team-1", session_id: "s", team_id: "desk" });
    run = applyRunEvent(run, { event: "TeamToolCallStarted", run_id: "team-1", tool: { tool_call_id: "c1", tool_name: "delegate_task_to_member", tool_args: {}, created_at: 0 } });
    run = applyRunEvent(run, { event: "RunStarted", run_id: "m-1", agent_id: "analyst", agent_name: "Analyst", parent_run_id: "team-1" });
    run = applyRunEvent(run, { event: "RunContent", run_id: "m-1", agent_name: "Analyst", content: "five" });
    run = applyRunEvent(run, { event: "RunCompleted", run_id: "m-1", agent_name: "Analyst", content: "five" });
    run = applyRunEvent(run, { event: "TeamRunContent", run_id: "team-1", content: "The answer is five." });
    run = applyRunEvent(run, { event: "TeamRunCompleted", run_id: "team-1", content: "The answer is five." });
    expect(run.phase).toBe("completed");
    expect(run.parts).toEqual([expect.objectContaining({ kind: "tool" }), { kind: "text", text: "The answer is five." }]);
    expect(run.members).toEqual([{ runId: "m-1", name: "Analyst", view: expect.objectContaining({ phase: "completed", parts: [{ kind: "text", text: "five" }] }) }]);
  });
});

describe("the workflow timeline", () => {
  const steps = [
    { name: "draft", type: "Step" },
    { name: "review", type: "Step" },
  ];
  it("moves each top-level step as its events arrive, and shows the pause's requirement", () => {
    let view = newWorkflowRun(steps);
    view = applyWorkflowEvent(view, { event: "WorkflowStarted", workflow_id: "w", run_id: "r", session_id: "s" });
    view = applyWorkflowEvent(view, { event: "StepStarted", workflow_id: "w", run_id: "r", step_name: "draft", step_index: 0 });
    expect(view.steps.map((s) => s.status)).toEqual(["running", "pending"]);
    // A step agent's events (their own run id) only add to the step's activity.
    view = applyWorkflowEvent(view, { event: "RunCompleted", run_id: "agent-run", agent_name: "Writer", workflow_id: "w", step_index: 0 });
    view = applyWorkflowEvent(view, { event: "StepCompleted", workflow_id: "w", run_id: "r", step_name: "draft", step_index: 0, content: "a draft" });
    view = applyWorkflowEvent(view, { event: "StepPaused", workflow_id: "w", run_id: "r", step_name: "review", step_index: 1 });
    view = applyWorkflowEvent(view, { event: "WorkflowPaused", workflow_id: "w", run_id: "r", step_requirements: [{ step_id: "x", step_index: 1 }] });
    expect(view.phase).toBe("paused");
    expect(view.steps).toEqual([
      { name: "draft", type: "Step", status: "done", content: "a draft", activity: ["Writer answered"], live: [] },
      { name: "review", type: "Step", status: "paused", content: null, activity: [], live: [] },
    ]);
    expect(view.requirements).toEqual([{ step_id: "x", step_index: 1 }]);
    view = applyWorkflowEvent(view, { event: "WorkflowCompleted", workflow_id: "w", run_id: "r", content: "a draft", step_results: [{ step_name: "draft" }] });
    expect(view.steps.map((s) => s.status)).toEqual(["done", "skipped"]);
    expect(view).toMatchObject({ phase: "completed", content: "a draft", requirements: [] });
  });

  it("gathers what a step's agents stream, one entry per run, under its top-level step (empty chunks add nothing)", () => {
    let view = newWorkflowRun(steps);
    view = applyWorkflowEvent(view, { event: "WorkflowStarted", workflow_id: "w", run_id: "r", session_id: "s" });
    view = applyWorkflowEvent(view, { event: "StepStarted", workflow_id: "w", run_id: "r", step_name: "draft", step_index: 0 });
    for (const content of ["| a |", "\n| - |", "\n| 1 |"])
      view = applyWorkflowEvent(view, { event: "RunContent", run_id: "writer-run", agent_name: "Writer", workflow_id: "w", step_index: 0, content });
    // A team in a nested step: its own text and its member's, each under its run (the step is the top-level one).
    view = applyWorkflowEvent(view, { event: "TeamRunContent", run_id: "desk-run", team_name: "Desk", workflow_id: "w", step_index: [0, 1], content: "Lead" });
    view = applyWorkflowEvent(view, { event: "RunContent", run_id: "writer-run", agent_name: "Writer", workflow_id: "w", step_index: 0, content: "" });
    expect(view.steps[0]!.live).toEqual([
      { runId: "writer-run", name: "Writer", text: "| a |\n| - |\n| 1 |" },
      { runId: "desk-run", name: "Desk", text: "Lead" },
    ]);
    expect(view.steps[1]!.live).toEqual([]);
    expect(view.steps[0]!.activity).toEqual([]);
  });

  it("a cancelled run's WorkflowCompleted after its WorkflowCancelled leaves it cancelled, its steps as they were", () => {
    let view = newWorkflowRun(steps);
    view = applyWorkflowEvent(view, { event: "WorkflowStarted", workflow_id: "w", run_id: "r", session_id: "s" });
    view = applyWorkflowEvent(view, { event: "StepStarted", workflow_id: "w", run_id: "r", step_name: "draft", step_index: 0 });
    view = applyWorkflowEvent(view, { event: "WorkflowCancelled", workflow_id: "w", run_id: "r", reason: "Run cancelled by request", content: "Run cancelled by request" });
    view = applyWorkflowEvent(view, { event: "WorkflowCompleted", workflow_id: "w", run_id: "r", content: "Run cancelled by request" });
    expect(view).toMatchObject({ phase: "cancelled", error: "Run cancelled by request" });
    expect(view.steps.map((s) => s.status)).toEqual(["running", "pending"]);
  });
});
