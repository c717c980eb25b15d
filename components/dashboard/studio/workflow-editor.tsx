"use client";

import { useId } from "react";
import type { StudioChoices } from "@/lib/http/dashboard/studio-view.ts";
import { Field, textInput } from "../form-field.tsx";
import type { UserAction } from "../users/user-action-types.ts";
import { NO_REVIEW, workflowConfig, workflowFormState, type ReviewState, type StepState, type WorkflowFormState } from "./config-model.ts";
import { EditorShell, fieldset, IdentityFields, legend, smallButton, useEditorState, type EditorTarget } from "./editor-shell.tsx";
import { MemberSelect, moved, OrderButtons } from "./member-picker.tsx";

/**
 * Edits a workflow: name, description and its steps in order, each running an agent or a team
 * (code-defined, or published in Studio) with an optional human review — a person confirms before
 * the step runs, or reviews its output after. Steps of other kinds (loops, conditions…, made
 * through the API) are kept as saved and can be moved or removed.
 */
export function WorkflowEditor({ saved, choices, target, save }: { saved: Record<string, unknown>; choices: StudioChoices; target: EditorTarget; save: UserAction }) {
  const id = useId();
  const { state, update, config, problems } = useEditorState<WorkflowFormState>(saved, { isNew: !target.componentId, models: [], read: workflowFormState, write: workflowConfig });
  const setStep = (index: number, step: StepState) => update({ steps: state.steps.map((s, i) => (i === index ? step : s)) });
  const addStep = () => update({ steps: [...state.steps, { kind: "step", name: `step-${state.steps.length + 1}`, executor: "", review: NO_REVIEW }] });
  return (
    <EditorShell action={save} target={target} config={config} problems={problems}>
      <IdentityFields id={id} state={state} update={update} />
      <fieldset className={fieldset}>
        <legend className={legend}>Steps, in order</legend>
        {state.steps.length === 0 && <p className="mb-2 text-sm text-slate-500">No steps yet.</p>}
        <ol aria-label="Steps" className="mb-3 grid gap-2">
          {state.steps.map((step, i) => (
            <li key={i} data-testid="workflow-step" className="rounded border border-slate-200 p-2 dark:border-slate-800">
              <div className="mb-2 flex items-center justify-between gap-2">
                <span className="text-sm font-medium">Step {i + 1}</span>
                <OrderButtons
                  index={i}
                  count={state.steps.length}
                  what={`step ${i + 1}`}
                  onMove={(by) => update({ steps: moved(state.steps, i, by) })}
                  onRemove={() => update({ steps: state.steps.filter((_, j) => j !== i) })}
                />
              </div>
              {step.kind === "other" ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  <code>{step.label}</code> — kept as saved (edit it through the API).
                </p>
              ) : (
                <StepFields id={`${id}-step-${i}`} step={step} choices={choices} onChange={(next) => setStep(i, next)} />
              )}
            </li>
          ))}
        </ol>
        <button type="button" className="rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800" onClick={addStep}>
          Add a step
        </button>
      </fieldset>
    </EditorShell>
  );
}

type EditableStep = Extract<StepState, { kind: "step" }>;

function StepFields({ id, step, choices, onChange }: { id: string; step: EditableStep; choices: StudioChoices; onChange: (step: EditableStep) => void }) {
  const review = step.review;
  const setReview = (next: Partial<ReviewState>) => onChange({ ...step, review: { ...review, ...next } });
  const reviewing = review.confirm || review.outputReview;
  return (
    <div className="grid gap-3">
      <div className="grid gap-3 md:grid-cols-[14rem_1fr]">
        <Field label="Step name" htmlFor={`${id}-name`}>
          <input id={`${id}-name`} value={step.name} onChange={(e) => onChange({ ...step, name: e.target.value })} className={textInput} autoComplete="off" />
        </Field>
        <Field label="Runs" htmlFor={`${id}-executor`}>
          <MemberSelect id={`${id}-executor`} label={`What step ${step.name || "?"} runs`} value={step.executor} onChange={(executor) => onChange({ ...step, executor })} choices={choices.members} />
        </Field>
      </div>
      <details open={reviewing} className="text-sm">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">Human review{reviewing ? " (on)" : ""}</summary>
        <div className="mt-2 grid gap-2 pl-2">
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={review.confirm} onChange={(e) => setReview({ confirm: e.target.checked })} aria-label={`Confirm before step ${step.name || "?"} runs`} /> A person confirms
            before it runs
          </label>
          {review.confirm && (
            <input
              aria-label={`Confirmation message of step ${step.name || "?"}`}
              value={review.confirmMessage}
              onChange={(e) => setReview({ confirmMessage: e.target.value })}
              placeholder="Run this step?"
              className={textInput}
            />
          )}
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={review.outputReview} onChange={(e) => setReview({ outputReview: e.target.checked })} /> A person reviews its output before the next step
          </label>
          {review.outputReview && (
            <input
              aria-label={`Output review message of step ${step.name || "?"}`}
              value={review.outputMessage}
              onChange={(e) => setReview({ outputMessage: e.target.value })}
              placeholder="Is this output right?"
              className={textInput}
            />
          )}
          {reviewing && (
            <label className="flex items-center gap-2 whitespace-nowrap">
              When a person rejects it
              <select
                value={review.onReject}
                onChange={(e) => setReview({ onReject: e.target.value as ReviewState["onReject"] })}
                className="rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-950"
              >
                <option value="cancel">cancel the run</option>
                <option value="skip">skip the step</option>
                <option value="retry">run the step again</option>
              </select>
            </label>
          )}
          {reviewing && (
            <button type="button" className={`${smallButton} justify-self-start`} onClick={() => onChange({ ...step, review: NO_REVIEW })}>
              No review
            </button>
          )}
        </div>
      </details>
    </div>
  );
}
