"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { continueWorkflow } from "../playground/run-api.ts";
import { StepReviewForm } from "../workflows/step-review-form.tsx";

/**
 * A paused workflow run's review form on its detail page: the answer continues the run through the
 * public continue route (streamed), then the page re-renders with the result.
 */
export function ContinuePausedWorkflow({ workflowId, runId, sessionId, requirements }: { workflowId: string; runId: string; sessionId: string; requirements: Record<string, unknown>[] }) {
  const router = useRouter();
  const [state, setState] = useState<{ phase: "idle" | "continuing"; error: string | null }>({ phase: "idle", error: null });
  const active = requirements.at(-1);
  async function submit(answered: Record<string, unknown>) {
    setState({ phase: "continuing", error: null });
    try {
      const events = await continueWorkflow({ workflowId, runId, sessionId, stepRequirements: [...requirements.slice(0, -1), answered], signal: new AbortController().signal });
      for await (const event of events) {
        if (event.event === "WorkflowError" && event.run_id === runId) throw new Error(String(event.error ?? event.content ?? "The run failed"));
      }
      setState({ phase: "idle", error: null });
    } catch (error) {
      setState({ phase: "idle", error: (error as Error).message });
    }
    router.refresh();
  }
  if (!active) return <p className="text-sm text-slate-500">The run records no step waiting for a person.</p>;
  return (
    <div>
      <StepReviewForm requirement={active} disabled={state.phase !== "idle"} onSubmit={(answered) => void submit(answered)} />
      {state.phase === "continuing" && (
        <p role="status" className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          Continuing the run…
        </p>
      )}
      {state.error && (
        <p role="alert" className="mt-2 text-sm text-red-800 dark:text-red-200">
          {state.error}
        </p>
      )}
    </div>
  );
}
