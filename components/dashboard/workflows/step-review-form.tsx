"use client";

import { useId, useState, type FormEvent } from "react";
import { Markdown } from "@/components/markdown/markdown.tsx";
import { JsonBlock } from "../playground/json-block.tsx";

type Requirement = Record<string, unknown>;
type Field = { name: string; field_type?: string; description?: string | null; required?: boolean; allowed_values?: unknown[] };

const inputClass =
  "w-full rounded border border-slate-300 bg-white px-3 py-2 text-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300 dark:border-slate-600 dark:bg-slate-950 dark:focus:ring-slate-700";
const buttonClass = "rounded px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-slate-400 disabled:opacity-60";
const confirmClass = `${buttonClass} bg-emerald-700 text-white hover:bg-emerald-800`;
const rejectClass = `${buttonClass} border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800`;

/** A typed value from what the person typed, per the field's type; an error names the field. */
function parseValue(field: Field, text: string): { value: unknown } | { error: string } {
  const type = field.field_type ?? "str";
  if (type === "bool") return { value: text === "true" };
  if (text.trim() === "") return field.required === false ? { value: null } : { error: `${field.name} is required` };
  if (type === "int") return Number.isInteger(Number(text)) ? { value: Number(text) } : { error: `${field.name} must be a whole number` };
  if (type === "float") return Number.isFinite(Number(text)) ? { value: Number(text) } : { error: `${field.name} must be a number` };
  if (type === "list" || type === "dict") {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: `${field.name} must be JSON (a ${type})` };
    }
  }
  return { value: text.trim() };
}

/** A review form's end: what is wrong with the answer (if anything), then its submit button. */
function SubmitWithError({ error, disabled, label }: { error: string | null; disabled: boolean; label: string }) {
  return (
    <>
      {error && (
        <p role="alert" className="text-sm text-red-800 dark:text-red-200">
          {error}
        </p>
      )}
      <button type="submit" className={confirmClass} disabled={disabled}>
        {label}
      </button>
    </>
  );
}

/**
 * The form for the step requirement a paused workflow run waits on, by its kind: a confirmation
 * (run the step or not), the step's input fields, a route to take, an output to approve, edit or
 * reject with feedback, or the step agent's own tool calls to confirm. Submits the requirement as
 * answered (Agno's StepRequirement fields).
 */
export function StepReviewForm({ requirement, disabled, onSubmit }: { requirement: Requirement; disabled: boolean; onSubmit: (answered: Requirement) => void }) {
  const id = useId();
  const [values, setValues] = useState<Record<string, string>>({});
  const [choices, setChoices] = useState<string[]>([]);
  const [feedback, setFeedback] = useState("");
  const [edited, setEdited] = useState<string | null>(null);
  const [executorDecisions, setExecutorDecisions] = useState<Record<number, boolean>>({});
  const [error, setError] = useState<string | null>(null);
  const name = String(requirement.step_name ?? "step");

  if (requirement.requires_executor_input) {
    const list = (requirement.executor_requirements as Requirement[] | undefined) ?? [];
    const submit = (event: FormEvent) => {
      event.preventDefault();
      if (list.some((_, i) => executorDecisions[i] === undefined)) return setError("Decide every tool call first.");
      onSubmit({ ...requirement, executor_requirements: list.map((r, i) => ({ ...r, confirmation: executorDecisions[i] })) });
    };
    return (
      <form onSubmit={submit} aria-label={`Review ${name}`} className="space-y-3" data-testid="step-review">
        <p className="text-sm">
          <strong>{String(requirement.executor_name ?? "The step's agent")}</strong> waits for you before running:
        </p>
        {list.map((r, i) => {
          const execution = (r.tool_execution ?? {}) as { tool_name?: string; tool_args?: unknown };
          return (
            <fieldset key={i} className="space-y-2 rounded border border-slate-200 p-3 dark:border-slate-700">
              <legend className="px-1 text-sm font-medium">
                <code>{execution.tool_name}</code>
              </legend>
              <JsonBlock label="Arguments" value={execution.tool_args ?? {}} />
              <div className="flex gap-2">
                <button type="button" className={confirmClass} aria-pressed={executorDecisions[i] === true} onClick={() => setExecutorDecisions({ ...executorDecisions, [i]: true })}>
                  Allow
                </button>
                <button type="button" className={rejectClass} aria-pressed={executorDecisions[i] === false} onClick={() => setExecutorDecisions({ ...executorDecisions, [i]: false })}>
                  Deny
                </button>
              </div>
            </fieldset>
          );
        })}
        <SubmitWithError error={error} disabled={disabled} label="Continue" />
      </form>
    );
  }

  if (requirement.requires_output_review) {
    const output = (requirement.step_output as { content?: unknown } | undefined)?.content;
    return (
      <section aria-label={`Review ${name}`} className="space-y-3" data-testid="step-review">
        <p className="text-sm font-medium">{String(requirement.output_review_message ?? `Review output of step '${name}'?`)}</p>
        {typeof output === "string" ? <Markdown text={output} testId="output-under-review" className="rounded bg-slate-100 p-3 dark:bg-slate-800" /> : <JsonBlock label="Output" value={output} />}
        {edited !== null && (
          <label className="block text-sm">
            <span className="mb-1 block font-medium">Edited output</span>
            <textarea className={inputClass} rows={4} value={edited} onChange={(e) => setEdited(e.target.value)} />
          </label>
        )}
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Feedback (sent with a rejection)</span>
          <input className={inputClass} value={feedback} onChange={(e) => setFeedback(e.target.value)} />
        </label>
        <div className="flex flex-wrap gap-2">
          <button type="button" className={confirmClass} disabled={disabled} onClick={() => onSubmit({ ...requirement, confirmed: true, ...(edited !== null ? { edited_output: edited } : {}) })}>
            {edited !== null ? "Save edit and continue" : "Approve"}
          </button>
          {edited === null && (
            <button type="button" className={rejectClass} disabled={disabled} onClick={() => setEdited(typeof output === "string" ? output : JSON.stringify(output ?? "", null, 2))}>
              Edit
            </button>
          )}
          <button type="button" className={rejectClass} disabled={disabled} onClick={() => onSubmit({ ...requirement, confirmed: false, rejection_feedback: feedback || null })}>
            Reject
          </button>
        </div>
      </section>
    );
  }

  if (requirement.requires_route_selection) {
    const available = (requirement.available_choices as string[] | undefined) ?? [];
    const multiple = requirement.allow_multiple_selections === true;
    const submit = (event: FormEvent) => {
      event.preventDefault();
      if (choices.length === 0) return setError("Choose a route.");
      onSubmit({ ...requirement, selected_choices: choices });
    };
    return (
      <form onSubmit={submit} aria-label={`Review ${name}`} className="space-y-3" data-testid="step-review">
        <fieldset className="space-y-1">
          <legend className="mb-1 text-sm font-medium">{String(requirement.user_input_message ?? "Select a route")}</legend>
          {available.map((choice) => (
            <label key={choice} className="flex items-center gap-2 text-sm">
              <input
                type={multiple ? "checkbox" : "radio"}
                name={`${id}-route`}
                checked={choices.includes(choice)}
                onChange={(e) => setChoices(multiple ? (e.target.checked ? [...choices, choice] : choices.filter((c) => c !== choice)) : [choice])}
              />
              {choice}
            </label>
          ))}
        </fieldset>
        <SubmitWithError error={error} disabled={disabled} label="Take this route" />
      </form>
    );
  }

  if (requirement.requires_user_input) {
    const fields = (requirement.user_input_schema as Field[] | undefined) ?? [];
    const submit = (event: FormEvent) => {
      event.preventDefault();
      const input: Record<string, unknown> = {};
      for (const field of fields) {
        const parsed = parseValue(field, values[field.name] ?? "");
        if ("error" in parsed) return setError(parsed.error);
        input[field.name] = parsed.value;
      }
      onSubmit({ ...requirement, user_input: input });
    };
    return (
      <form onSubmit={submit} aria-label={`Review ${name}`} className="space-y-3" data-testid="step-review">
        <p className="text-sm font-medium">{String(requirement.user_input_message ?? `Input for step '${name}'`)}</p>
        {fields.map((field) => {
          const fieldId = `${id}-${field.name}`;
          return (
            <div key={field.name} className="text-sm">
              <label htmlFor={fieldId} className="mb-1 block font-medium">
                {field.name}
                {field.description ? <span className="ml-2 font-normal text-slate-600 dark:text-slate-400">{field.description}</span> : null}
              </label>
              {field.field_type === "bool" ? (
                <input id={fieldId} type="checkbox" checked={values[field.name] === "true"} onChange={(e) => setValues({ ...values, [field.name]: String(e.target.checked) })} />
              ) : (
                <input id={fieldId} className={inputClass} value={values[field.name] ?? ""} onChange={(e) => setValues({ ...values, [field.name]: e.target.value })} />
              )}
            </div>
          );
        })}
        <SubmitWithError error={error} disabled={disabled} label="Continue" />
      </form>
    );
  }

  return (
    <section aria-label={`Review ${name}`} className="space-y-3" data-testid="step-review">
      <p className="text-sm font-medium">{String(requirement.confirmation_message ?? `Run step '${name}'?`)}</p>
      <div className="flex gap-2">
        <button type="button" className={confirmClass} disabled={disabled} onClick={() => onSubmit({ ...requirement, confirmed: true })}>
          Confirm
        </button>
        <button type="button" className={rejectClass} disabled={disabled} onClick={() => onSubmit({ ...requirement, confirmed: false })}>
          Reject
        </button>
      </div>
    </section>
  );
}
