"use client";

import { useActionState, useState, type ReactNode } from "react";
import { textInput } from "@/components/dashboard/form-field.tsx";
import { useKeepingForm } from "@/components/dashboard/use-keeping-form.ts";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import type { LearningAction } from "./learning-actions.ts";

export const smallButton = "rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-60 dark:border-slate-700 dark:hover:bg-slate-800";
const saveButton = "rounded bg-slate-900 px-2 py-1 text-xs font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900";

/** What a form sends besides its inputs: which learning (and memory), and the version the page showed. */
function HiddenFields({ fields }: { fields: Record<string, string> }) {
  return Object.entries(fields).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}

/**
 * An edit form: its hidden fields, its inputs (`children`), Save and Cancel. What was typed
 * survives a refusal (a JSON typo, a 409) — the form is submitted by hand, not reset by React —
 * and the form closes once the server saved it.
 */
export function EditForm({ action, fields, label, onDone, children }: { action: LearningAction; fields: Record<string, string>; label: string; onDone: () => void; children: ReactNode }) {
  const { ref, onSubmit, state, pending } = useKeepingForm<Awaited<ReturnType<LearningAction>>>(async (previous, formData) => {
    const result = await action(previous, formData);
    if (result.ok) onDone();
    return result;
  }, IDLE_STATE);
  return (
    <form ref={ref} onSubmit={onSubmit} aria-label={label} className="mt-2 space-y-2">
      <HiddenFields fields={fields} />
      {children}
      <div className="flex gap-2">
        <button type="submit" disabled={pending} className={saveButton}>
          {pending ? "Saving…" : "Save"}
        </button>
        <button type="button" className={smallButton} onClick={onDone}>
          Cancel
        </button>
      </div>
      <ActionResult state={state} />
    </form>
  );
}

/** A labelled single-line input of an edit form. */
export function EditInput({ label, name, defaultValue }: { label: string; name: string; defaultValue: string }) {
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium">{label}</span>
      <input name={name} defaultValue={defaultValue} className={textInput} />
    </label>
  );
}

/** The content of a learning as JSON, to edit whole. */
export function JsonEditor({ value }: { value: Record<string, unknown> }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium">Content (JSON)</span>
      <textarea name="content" rows={Math.min(24, Math.max(6, text.split("\n").length + 1))} defaultValue={text} spellCheck={false} className={`${textInput} font-mono text-xs`} />
    </label>
  );
}

/** Delete behind a second, explicit click ("Keep" backs out). `what` names the thing in the buttons' labels. */
export function ConfirmDelete({
  action,
  fields,
  what,
  label = "Delete",
  question = "Delete for good?",
}: {
  action: LearningAction;
  fields: Record<string, string>;
  what: string;
  label?: string;
  question?: string;
}) {
  const [confirming, setConfirming] = useState(false);
  const [state, formAction, pending] = useActionState(action, IDLE_STATE);
  return (
    <div className="inline-flex flex-col">
      {confirming ? (
        <form action={formAction} className="flex flex-wrap items-center gap-2">
          <HiddenFields fields={fields} />
          <span className="text-xs text-slate-600 dark:text-slate-400">{question}</span>
          <button type="submit" disabled={pending} aria-label={`Confirm deleting ${what}`} className="rounded bg-red-700 px-2 py-1 text-xs font-medium text-white hover:bg-red-600 disabled:opacity-60">
            {pending ? "Deleting…" : "Delete"}
          </button>
          <button type="button" className={smallButton} onClick={() => setConfirming(false)}>
            Keep
          </button>
        </form>
      ) : (
        <button type="button" className={smallButton} onClick={() => setConfirming(true)} aria-label={`Delete ${what}`}>
          {label}
        </button>
      )}
      <ActionResult state={state} />
    </div>
  );
}
