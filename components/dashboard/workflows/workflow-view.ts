import type { RunStreamEvent } from "../playground/run-api.ts";

/**
 * A workflow run as the dashboard shows it, built from its events alone: each top-level step's
 * status as the events arrive (pending, running, paused, done, failed, skipped), what its agents
 * write while it runs, what it produced, the requirement a paused run waits on, and the run's
 * outcome.
 */
export type StepStatus = "pending" | "running" | "paused" | "done" | "failed" | "skipped";

export interface StepView {
  name: string;
  type: string;
  status: StepStatus;
  /** What the step produced (its content), once done. */
  content: unknown;
  /** Nested steps' and the step agent's activity, one line each. */
  activity: string[];
  /** What the step's agents (or a team and its members) have written so far, one entry per run, as it streams. */
  live: LiveText[];
}

/** The text one agent or team run inside a step has streamed so far. */
export interface LiveText {
  runId: string;
  name: string;
  text: string;
}

export type WorkflowPhase = "idle" | "running" | "paused" | "continuing" | "completed" | "cancelled" | "error";

export interface WorkflowRunView {
  runId: string | null;
  sessionId: string | null;
  phase: WorkflowPhase;
  steps: StepView[];
  /** The run's requirements as stored (the last one is the one waited on). */
  requirements: Record<string, unknown>[];
  content: unknown;
  error: string | null;
}

export function newWorkflowRun(steps: { name: string; type: string }[]): WorkflowRunView {
  return {
    runId: null,
    sessionId: null,
    phase: "running",
    steps: steps.map((s) => ({ ...s, status: "pending", content: null, activity: [], live: [] })),
    requirements: [],
    content: null,
    error: null,
  };
}

const STARTED = new Set(["StepStarted", "StepsExecutionStarted", "LoopExecutionStarted", "ParallelExecutionStarted", "ConditionExecutionStarted", "RouterExecutionStarted"]);
const COMPLETED = new Set(["StepCompleted", "StepsExecutionCompleted", "LoopExecutionCompleted", "ParallelExecutionCompleted", "ConditionExecutionCompleted", "RouterExecutionCompleted"]);
const PAUSED = new Set(["StepPaused", "StepOutputReview", "RouterPaused", "StepExecutorPaused"]);

function setStep(view: WorkflowRunView, index: number, change: (step: StepView) => StepView): WorkflowRunView {
  if (!view.steps[index]) return view;
  return { ...view, steps: view.steps.map((s, i) => (i === index ? change(s) : s)) };
}

/** A one-line account of an event inside a step (a nested step, the step agent's tool calls and answer). */
function activityLine(event: RunStreamEvent): string | null {
  const name = String(event.event);
  if (name === "StepCompleted") return `${String(event.step_name)} done`;
  if (name === "LoopIterationCompleted") return `iteration ${String(event.iteration)} done`;
  if (name === "ToolCallCompleted" || name === "TeamToolCallCompleted")
    return `${String(event.agent_name ?? event.team_name ?? "agent")} called ${String((event.tool as { tool_name?: string } | undefined)?.tool_name ?? "a tool")}`;
  if (name === "RunCompleted" && event.agent_name) return `${String(event.agent_name)} answered`;
  return null;
}

/** A step agent's streamed text added to its run's entry (a run seen for the first time gets one). */
function withLiveText(live: LiveText[], event: RunStreamEvent): LiveText[] {
  const runId = String(event.run_id ?? "");
  const text = String(event.content);
  const at = live.findIndex((entry) => entry.runId === runId);
  if (at >= 0) return live.map((entry, i) => (i === at ? { ...entry, text: entry.text + text } : entry));
  return [...live, { runId, name: String(event.agent_name ?? event.team_name ?? "Agent"), text }];
}

const CONTENT = new Set(["RunContent", "TeamRunContent"]);

/** The run after one of its events. */
export function applyWorkflowEvent(view: WorkflowRunView, event: RunStreamEvent): WorkflowRunView {
  const ids = { runId: view.runId ?? (event.workflow_id ? (event.run_id ?? null) : null), sessionId: event.session_id ?? view.sessionId };
  const name = String(event.event);
  // Only the workflow's own events move it; its step agents' events say what a step is doing.
  const own = event.workflow_id !== undefined && (view.runId === null || event.run_id === view.runId);
  const index = typeof event.step_index === "number" ? event.step_index : Array.isArray(event.step_index) ? Number(event.step_index[0]) : null;
  let next: WorkflowRunView = { ...view, ...ids };
  if (!own) {
    if (index !== null && CONTENT.has(name) && typeof event.content === "string" && event.content) {
      return setStep(next, index, (s) => ({ ...s, live: withLiveText(s.live, event) }));
    }
    const line = activityLine(event);
    return line && index !== null ? setStep(next, index, (s) => ({ ...s, activity: [...s.activity, line] })) : next;
  }
  const topLevel = typeof event.step_index === "number";
  if (topLevel && index !== null) {
    if (STARTED.has(name)) next = setStep(next, index, (s) => ({ ...s, status: "running" }));
    if (COMPLETED.has(name)) next = setStep(next, index, (s) => ({ ...s, status: "done", content: name === "StepCompleted" ? event.content : (event.step_results ?? s.content) }));
    if (PAUSED.has(name)) next = setStep(next, index, (s) => ({ ...s, status: "paused" }));
    if (name === "StepError") next = setStep(next, index, (s) => ({ ...s, status: "failed", activity: [...s.activity, String(event.error ?? "failed")] }));
  } else if (index !== null) {
    const line = activityLine(event);
    if (line) next = setStep(next, index, (s) => ({ ...s, activity: [...s.activity, line] }));
  }
  switch (name) {
    case "WorkflowStarted":
      return { ...next, phase: "running" };
    case "WorkflowPaused":
      return { ...next, phase: "paused", requirements: (event.step_requirements as Record<string, unknown>[] | undefined) ?? [], content: event.content ?? null };
    case "WorkflowCompleted": {
      // A cancelled run's stream ends with WorkflowCompleted too: the run stays cancelled.
      if (view.phase === "cancelled") return next;
      const ran = new Set(((event.step_results as { step_name?: string }[] | undefined) ?? []).map((r) => r.step_name));
      return {
        ...next,
        phase: "completed",
        content: event.content ?? null,
        requirements: [],
        // A step the run passed without running it (skipped by a person's decision, or after a stop).
        steps: next.steps.map((s) => (s.status === "pending" || s.status === "paused" ? { ...s, status: ran.has(s.name) ? "done" : "skipped" } : s)),
      };
    }
    case "WorkflowCancelled":
      return { ...next, phase: "cancelled", error: String(event.reason ?? event.content ?? "cancelled"), requirements: [] };
    case "WorkflowError":
      return { ...next, phase: "error", error: String(event.error ?? event.content ?? "The run failed"), requirements: [] };
    default:
      return next;
  }
}
