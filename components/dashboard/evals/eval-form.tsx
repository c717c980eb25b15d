"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect, useId, useState, useTransition, type FormEvent } from "react";
import { Field, primaryButton, textInput } from "@/components/dashboard/form-field.tsx";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "@/components/dashboard/users/user-action-types.ts";
import type { EvalType } from "@/lib/db/evals/eval-runs.ts";
import { EVAL_KIND_LABELS } from "./eval-view.ts";

const KIND_HINTS: Record<EvalType, string> = {
  accuracy: "Runs the agent on the input and has a judge model score each answer against the expected output (1–10).",
  agent_as_judge: "Runs the agent and has a judge model check each answer against your criteria: a score with a threshold, or pass/fail.",
  performance: "Times the agent's runs (after warm-ups): run time, memory and tokens per run, with their spread.",
  reliability: "Runs the agent once and checks the tools it called (and their arguments) against the ones you expect.",
};

/** A configured model to pick, or "" for the agent's own. */
function ModelSelect({ id, name, models, ownLabel }: { id: string; name: string; models: { value: string; label: string }[]; ownLabel: string }) {
  return (
    <select id={id} name={name} defaultValue="" className={textInput}>
      <option value="">{ownLabel}</option>
      {models.map((m) => (
        <option key={m.value} value={m.value}>
          {m.label}
        </option>
      ))}
    </select>
  );
}

/**
 * Starts an eval of one of the four kinds; the fields follow the kind. The eval runs in the
 * background and its page opens at once, following it live. What was typed survives a refusal.
 */
export function EvalForm({
  action,
  agents,
  models,
  initialKind = "accuracy",
  initialAgent,
}: {
  action: UserAction;
  agents: { id: string; name: string; model: string | null }[];
  /** Configured models, `<provider>::<id>` with a label, for the agent's model override and the judge. */
  models: { value: string; label: string }[];
  initialKind?: EvalType;
  initialAgent?: string;
}) {
  const id = useId();
  const router = useRouter();
  const [kind, setKind] = useState<EvalType>(initialKind);
  const [strategy, setStrategy] = useState<"binary" | "numeric">("binary");
  const [, startTransition] = useTransition();
  const [state, dispatch, pending] = useActionState(action, IDLE_STATE);
  useEffect(() => {
    if (state.ok && state.href) router.push(state.href);
  }, [state, router]);
  // Submitted by hand: React resets a form after an action submitted through `action=`.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formData = new FormData(event.currentTarget);
    startTransition(() => dispatch(formData));
  };
  const f = (name: string) => `${id}-${name}`;
  const judged = kind === "accuracy" || kind === "agent_as_judge";

  return (
    <form onSubmit={onSubmit} className="grid gap-4" aria-label="New eval" noValidate>
      <div className="grid gap-4 md:grid-cols-3">
        <Field label="Kind" htmlFor={f("kind")}>
          <select id={f("kind")} name="eval_type" value={kind} onChange={(e) => setKind(e.target.value as EvalType)} className={textInput}>
            {(Object.keys(EVAL_KIND_LABELS) as EvalType[]).map((k) => (
              <option key={k} value={k}>
                {EVAL_KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Agent" htmlFor={f("agent")}>
          <select id={f("agent")} name="agent_id" defaultValue={initialAgent ?? agents[0]?.id} className={textInput}>
            {agents.length === 0 && <option value="">No agents are configured</option>}
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.id}){a.model ? "" : " — no model configured"}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Name" htmlFor={f("name")} hint="Re-runs with the same name and agent make one trend.">
          <input id={f("name")} name="name" placeholder="capital-cities" className={textInput} autoComplete="off" />
        </Field>
      </div>
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="eval-kind-hint">
        {KIND_HINTS[kind]}
      </p>
      <Field label="Input" htmlFor={f("input")} hint="What the agent is asked.">
        <textarea id={f("input")} name="input" rows={2} className={textInput} placeholder="What is the capital of France?" />
      </Field>

      {kind === "accuracy" && (
        <div className="grid gap-4 md:grid-cols-2">
          <Field label="Expected output" htmlFor={f("expected")} hint="The answer you vouch for; the judge treats it as correct.">
            <textarea id={f("expected")} name="expected_output" rows={2} className={textInput} placeholder="Paris" />
          </Field>
          <Field label="Additional context" htmlFor={f("context")} hint="Given to the judge (optional).">
            <textarea id={f("context")} name="additional_context" rows={2} className={textInput} />
          </Field>
        </div>
      )}
      {kind === "agent_as_judge" && (
        <div className="grid gap-4 md:grid-cols-[1fr_12rem_8rem]">
          <Field label="Criteria" htmlFor={f("criteria")} hint="What a good answer does.">
            <textarea id={f("criteria")} name="criteria" rows={2} className={textInput} placeholder="Answers in one sentence and names a source." />
          </Field>
          <Field label="Scoring" htmlFor={f("strategy")}>
            <select id={f("strategy")} name="scoring_strategy" value={strategy} onChange={(e) => setStrategy(e.target.value as "binary" | "numeric")} className={textInput}>
              <option value="binary">Pass / fail</option>
              <option value="numeric">Score 1–10</option>
            </select>
          </Field>
          {strategy === "numeric" && (
            <Field label="Pass at" htmlFor={f("threshold")} hint="1–10">
              <input id={f("threshold")} name="threshold" type="number" min={1} max={10} defaultValue={7} className={textInput} />
            </Field>
          )}
        </div>
      )}
      {judged && (
        <Field label="Guidelines for the judge" htmlFor={f("guidelines")} hint="Optional.">
          <input id={f("guidelines")} name="additional_guidelines" className={textInput} placeholder="Ignore capitalisation." />
        </Field>
      )}
      {kind === "performance" && (
        <Field label="Warm-up runs" htmlFor={f("warmup")} hint="Run first and not measured (0–10).">
          <input id={f("warmup")} name="warmup_runs" type="number" min={0} max={10} defaultValue={0} className={`${textInput} max-w-32`} />
        </Field>
      )}
      {kind === "reliability" && (
        <div className="grid gap-4 md:grid-cols-2">
          <Field label="Expected tool calls" htmlFor={f("tools")} hint="Tool names, separated by commas.">
            <input id={f("tools")} name="expected_tool_calls" className={textInput} placeholder="add, multiply" />
          </Field>
          <Field label="Expected arguments (JSON)" htmlFor={f("args")} hint='Optional, per tool: {"add": {"a": 2}}'>
            <input id={f("args")} name="expected_tool_call_arguments" className={`${textInput} font-mono`} />
          </Field>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="allow_additional_tool_calls" /> Other tool calls are allowed
          </label>
        </div>
      )}

      <details className="rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
        <summary className="cursor-pointer font-medium">Iterations and models</summary>
        <div className="mt-3 grid gap-4 md:grid-cols-3">
          {kind !== "reliability" && (
            <Field label="Iterations" htmlFor={f("iterations")} hint="1–100">
              <input id={f("iterations")} name="num_iterations" type="number" min={1} max={100} defaultValue={1} className={textInput} />
            </Field>
          )}
          <Field label="Run the agent on" htmlFor={f("model")} hint="For this eval only.">
            <ModelSelect id={f("model")} name="model" models={models} ownLabel="its own model" />
          </Field>
          {judged && (
            <Field label="Judge model" htmlFor={f("judge")}>
              <ModelSelect id={f("judge")} name="judge_model" models={models} ownLabel="the agent's own model" />
            </Field>
          )}
        </div>
      </details>

      <div className="max-w-60">
        <button type="submit" disabled={pending} className={primaryButton}>
          {pending ? "Starting…" : "Run eval"}
        </button>
      </div>
      <ActionResult state={state} />
    </form>
  );
}
