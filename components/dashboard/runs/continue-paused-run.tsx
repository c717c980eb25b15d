"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Markdown } from "@/components/markdown/markdown.tsx";
import type { RunRequirement } from "@/lib/runtime/run-output.ts";
import { continueRun, type RunTarget } from "../playground/run-api.ts";
import { RequirementsForm } from "../playground/requirements-form.tsx";
import { decidedTools, type Decisions } from "../playground/transcript.ts";

/**
 * A paused run's requirements form on its detail page: the decisions continue the run through the
 * public continue route (streamed, so progress shows), then the page re-renders with the result.
 */
export function ContinuePausedRun({ target, runId, sessionId, requirements }: { target: RunTarget; runId: string; sessionId: string; requirements: RunRequirement[] }) {
  const router = useRouter();
  const [state, setState] = useState<{ phase: "idle" | "continuing" | "done"; text: string; error: string | null }>({ phase: "idle", text: "", error: null });
  async function submit(decisions: Decisions) {
    setState({ phase: "continuing", text: "", error: null });
    try {
      const events = await continueRun({ target, runId, sessionId, tools: decidedTools(requirements, decisions), signal: new AbortController().signal });
      let text = "";
      for await (const event of events) {
        // The run's own text (a team's TeamRunContent too), not its members'.
        if ((event.event === "RunContent" || event.event === "TeamRunContent") && event.run_id === runId && typeof event.content === "string") {
          text += event.content;
          setState({ phase: "continuing", text, error: null });
        }
        if ((event.event === "RunError" || event.event === "TeamRunError") && event.run_id === runId) throw new Error(typeof event.content === "string" ? event.content : "The run failed");
      }
      setState({ phase: "done", text, error: null });
    } catch (error) {
      setState({ phase: "idle", text: "", error: (error as Error).message });
    }
    router.refresh();
  }
  return (
    <div>
      {state.phase === "idle" && <RequirementsForm requirements={requirements} disabled={false} onSubmit={(d) => void submit(d)} />}
      {state.phase !== "idle" && (
        <div className="space-y-2">
          <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
            {state.phase === "continuing" ? "Continuing the run…" : "The run continued."}
          </p>
          {state.text && <Markdown text={state.text} testId="continued-text" />}
        </div>
      )}
      {state.error && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {state.error}
        </p>
      )}
    </div>
  );
}
