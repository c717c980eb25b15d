"use client";

import { useRef, useState } from "react";
import { Markdown } from "@/components/markdown/markdown.tsx";
import { Composer } from "../playground/composer.tsx";
import { JsonBlock } from "../playground/json-block.tsx";
import { ApiError, cancelRun, continueWorkflow, startRun, type RunStreamEvent } from "../playground/run-api.ts";
import { StepReviewForm } from "./step-review-form.tsx";
import { applyWorkflowEvent, newWorkflowRun, type StepStatus, type WorkflowRunView } from "./workflow-view.ts";

export interface WorkflowSummary {
  id: string;
  name: string;
  description: string | null;
  steps: { name: string; type: string; description: string | null }[];
  /** A stored (Studio) workflow's version the playground runs (a draft when trying one); absent for one defined in code. */
  version?: number;
}

const STATUS: Record<StepStatus, { label: string; className: string }> = {
  pending: { label: "pending", className: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300" },
  running: { label: "running…", className: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100" },
  paused: { label: "waiting for you", className: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100" },
  done: { label: "done", className: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100" },
  failed: { label: "failed", className: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100" },
  skipped: { label: "skipped", className: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100" },
};

const IN_FLIGHT = new Set(["running", "continuing"]);

/**
 * Runs a workflow through the public API (POST /workflows/{id}/runs, streamed) and shows its steps
 * as a timeline that moves as the events arrive, with what each step's agents write (Markdown, as
 * it streams) until the step's output replaces it; a paused step shows its review form, whose answer
 * continues the run (…/continue with the run's step requirements).
 */
export function WorkflowPlayground({ workflow }: { workflow: WorkflowSummary }) {
  const [run, setRun] = useState<WorkflowRunView | null>(null);
  const [input, setInput] = useState<string | null>(null);
  const inflight = useRef<AbortController | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const busy = !!run && IN_FLIGHT.has(run.phase);

  async function follow(open: (signal: AbortSignal) => Promise<AsyncIterable<RunStreamEvent>>) {
    const controller = new AbortController();
    inflight.current = controller;
    try {
      for await (const event of await open(controller.signal)) setRun((view) => (view ? applyWorkflowEvent(view, event) : view));
      setRun((view) => (view && IN_FLIGHT.has(view.phase) ? { ...view, phase: "error", error: "The connection closed before the run finished; its details page shows how it ended." } : view));
    } catch (error) {
      const message = error instanceof ApiError ? error.message : `The event stream broke off: ${(error as Error).message}`;
      setRun((view) => (view ? { ...view, phase: view.phase === "continuing" ? "paused" : "error", error: message } : view));
    } finally {
      if (inflight.current === controller) inflight.current = null;
    }
  }

  function send(message: string) {
    setInput(message);
    setRun(newWorkflowRun(workflow.steps));
    void follow((signal) => startRun({ target: { kind: "workflow", id: workflow.id, version: workflow.version }, message, sessionId: null, signal }));
  }

  function answer(answered: Record<string, unknown>) {
    if (!run?.runId || !run.sessionId) return;
    const stepRequirements = [...run.requirements.slice(0, -1), answered];
    const { runId, sessionId } = run;
    setRun({ ...run, phase: "continuing", error: null, steps: run.steps.map((s) => (s.status === "paused" ? { ...s, status: "running" } : s)) });
    void follow((signal) => continueWorkflow({ workflowId: workflow.id, runId, sessionId, stepRequirements, signal }));
  }

  function stop() {
    if (!run?.runId) return inflight.current?.abort();
    cancelRun({ target: { kind: "workflow", id: workflow.id }, runId: run.runId, sessionId: run.sessionId }).catch((error: Error) =>
      setRun((view) => (view ? { ...view, error: `Could not cancel the run: ${error.message}` } : view)),
    );
  }

  const active = run?.phase === "paused" ? run.requirements.at(-1) : undefined;
  return (
    <>
      <header className="mb-4 space-y-2">
        <p className="text-sm">
          <a className="text-slate-600 underline hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100" href="/dashboard/agents">
            Agents, teams and workflows
          </a>
        </p>
        <h1 className="text-2xl font-semibold break-words">{workflow.name}</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <code>{workflow.id}</code> · workflow of {workflow.steps.length} steps
        </p>
        {workflow.description && <p className="text-sm text-slate-700 dark:text-slate-300">{workflow.description}</p>}
      </header>

      {input !== null && (
        <p className="mb-4 ml-auto w-fit max-w-[85%] whitespace-pre-wrap rounded-lg bg-slate-900 px-3 py-2 text-sm text-white dark:bg-slate-200 dark:text-slate-900" data-testid="workflow-input">
          {input}
        </p>
      )}

      <ol aria-label="Steps" className="relative mb-4 space-y-3 border-l-2 border-slate-200 pl-5 dark:border-slate-700" data-testid="workflow-steps">
        {(run?.steps ?? workflow.steps.map((s) => ({ ...s, status: "pending" as StepStatus, content: null, activity: [], live: [] }))).map((step, i) => {
          const status = STATUS[step.status];
          return (
            <li key={step.name} data-testid={`workflow-step-${i}`} data-status={step.status} className="relative">
              <span
                aria-hidden="true"
                className={`absolute top-1.5 -left-[27px] h-3 w-3 rounded-full border-2 border-white dark:border-slate-950 ${step.status === "done" ? "bg-emerald-600" : step.status === "running" ? "bg-sky-600" : step.status === "paused" ? "bg-amber-500" : step.status === "failed" ? "bg-red-600" : "bg-slate-300 dark:bg-slate-600"}`}
              />
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{step.name}</span>
                <span className="text-xs text-slate-500">{step.type}</span>
                <span className={`rounded px-1.5 py-0.5 text-xs ${status.className}`}>{status.label}</span>
              </div>
              {step.activity.length > 0 && (
                <ul className="mt-1 text-xs text-slate-600 dark:text-slate-400">
                  {step.activity.slice(-5).map((line, j) => (
                    <li key={j}>{line}</li>
                  ))}
                </ul>
              )}
              {step.status !== "done" && step.live.length > 0 && (
                <div className="mt-1 space-y-2" data-testid="step-live">
                  {step.live.map((entry) => (
                    <div key={entry.runId} className="min-w-0">
                      {step.live.length > 1 && <p className="text-xs font-medium text-slate-500 dark:text-slate-400">{entry.name}</p>}
                      <Markdown text={entry.text} />
                    </div>
                  ))}
                </div>
              )}
              {step.status === "done" &&
                step.content !== null &&
                step.content !== undefined &&
                (typeof step.content === "string" ? (
                  <Markdown text={step.content} testId="step-content" className="mt-1" />
                ) : (
                  <div className="mt-1">
                    <JsonBlock label="Output" value={step.content} />
                  </div>
                ))}
              {active && Number(active.step_index) === i && (
                <div className="mt-2 rounded border border-amber-300 bg-amber-50 p-3 dark:border-amber-800 dark:bg-amber-950/40">
                  <StepReviewForm key={String(active.step_id)} requirement={active} disabled={busy} onSubmit={answer} />
                </div>
              )}
            </li>
          );
        })}
      </ol>

      {run?.error && (
        <p role="alert" className="mb-4 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100" data-testid="run-error">
          {run.error}
        </p>
      )}
      {run?.phase === "completed" && (
        <section aria-label="Result" className="mb-4 rounded border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950/40" data-testid="workflow-result">
          {typeof run.content === "string" ? <Markdown text={run.content} /> : <JsonBlock label="Result" value={run.content} />}
        </section>
      )}
      {run?.runId && run.sessionId && (
        <p className="mb-4 text-xs text-slate-600 dark:text-slate-400" data-testid="run-status">
          Run <code>{run.runId.slice(0, 8)}</code> {run.phase} ·{" "}
          <a className="underline" href={`/dashboard/runs/${encodeURIComponent(run.runId)}?session_id=${encodeURIComponent(run.sessionId)}`}>
            Run details
          </a>
        </p>
      )}

      <div className="border-t border-slate-200 pt-3 pb-6 dark:border-slate-800">
        <Composer inputRef={inputRef} busy={busy} stopping={false} onSend={send} onStop={stop} />
      </div>
    </>
  );
}
