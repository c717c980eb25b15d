"use client";

import { useRouter } from "next/navigation";
import { useActionState, useId, useMemo, useState, useTransition, type FormEvent, type ReactNode } from "react";
import { parseComponentConfig, type ComponentType } from "@/lib/config/component-config.ts";
import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { Field, textInput } from "../form-field.tsx";
import { ActionResult } from "../users/action-result.tsx";
import { IDLE_STATE, type UserAction } from "../users/user-action-types.ts";

/** Where an editor saves: a new component, a draft saved in place, or a new draft after `latestVersion`. */
export interface EditorTarget {
  componentType: ComponentType;
  componentId?: string;
  /** The draft being edited (saved in place). */
  version?: number;
  /** The newest version the page showed (a new draft is refused if another was made since). */
  latestVersion?: number;
}

const primary = "h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900";

/**
 * The frame of every Studio editor: its fields (children), the problems the browser finds in the
 * config as it is edited (the shared zod schema of lib/config/component-config.ts, and the editor's
 * own checks), notes for the version, and "Save draft", which sends the whole config as JSON. The
 * server checks it again (and the registry, and the limits); what it refuses is shown, and what was
 * typed stays. After a save the page shows the saved draft.
 */
export function EditorShell({
  action,
  target,
  config,
  problems,
  children,
}: {
  action: UserAction;
  target: EditorTarget;
  config: Record<string, unknown>;
  /** The editor's own problems (an output schema that is not JSON…). */
  problems: string[];
  children: ReactNode;
}) {
  const id = useId();
  const router = useRouter();
  const [, startTransition] = useTransition();
  // The page moves on as soon as the save answers: a saved version re-renders the page with a new
  // editor (keyed by the version), which would unmount an effect waiting to navigate.
  const [state, dispatch, pending] = useActionState(async (previous: ActionState, form: FormData): Promise<ActionState> => {
    const result = await action(previous, form);
    if (result.ok && result.href) router.push(result.href);
    else if (result.ok) router.refresh();
    return result;
  }, IDLE_STATE);
  const schemaProblems = useMemo(() => {
    const parsed = parseComponentConfig(target.componentType, config);
    return parsed.ok ? [] : parsed.problems;
  }, [config, target.componentType]);
  const allProblems = [...problems, ...schemaProblems];
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (allProblems.length > 0) return;
    const form = new FormData(event.currentTarget);
    form.set("componentType", target.componentType);
    if (target.componentId) form.set("componentId", target.componentId);
    if (target.version !== undefined) form.set("version", String(target.version));
    if (target.latestVersion !== undefined) form.set("latestVersion", String(target.latestVersion));
    form.set("config", JSON.stringify(config));
    startTransition(() => dispatch(form));
  };
  return (
    <form onSubmit={onSubmit} className="grid gap-4" aria-label={`Edit ${target.componentType}`} noValidate>
      {children}
      <Field label="Notes for this version" htmlFor={`${id}-notes`} hint="Optional: what changed, for the version history.">
        <input id={`${id}-notes`} name="notes" className={textInput} autoComplete="off" />
      </Field>
      {allProblems.length > 0 && (
        <ul
          role="alert"
          aria-label="Problems"
          data-testid="editor-problems"
          className="list-disc rounded border border-amber-300 bg-amber-50 py-2 pr-3 pl-6 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          {allProblems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending || allProblems.length > 0} className={primary}>
          {pending ? "Saving…" : "Save draft"}
        </button>
        <span className="text-xs text-slate-500">
          {target.version !== undefined
            ? `Saves draft v${target.version} in place.`
            : target.componentId
              ? "Saves a new draft version; the published one keeps running."
              : "Creates it as a draft: only you can run it until you publish it."}
        </span>
        <ActionResult state={state} />
      </div>
    </form>
  );
}

/** The model select: the registry's models, and the saved one when the registry no longer has it (so a save shows why it is refused). */
export function ModelSelect({
  id,
  value,
  onChange,
  models,
  allowNone,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  models: { provider: string; id: string; label: string }[];
  allowNone?: boolean;
}) {
  const keys = models.map((m) => `${m.provider}:${m.id}`);
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)} className={textInput}>
      {(allowNone || value === "") && <option value="">{allowNone ? "The OS's default model" : "Choose a model"}</option>}
      {value && !keys.includes(value) && <option value={value}>{value} (as saved)</option>}
      {models.map((m) => (
        <option key={`${m.provider}:${m.id}`} value={`${m.provider}:${m.id}`}>
          {m.label}
        </option>
      ))}
    </select>
  );
}

/** Name and description, the first fields of every editor. */
export function IdentityFields({ id, state, update }: { id: string; state: { name: string; description: string }; update: (next: { name?: string; description?: string }) => void }) {
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <Field label="Name" htmlFor={`${id}-name`}>
        <input id={`${id}-name`} value={state.name} onChange={(e) => update({ name: e.target.value })} className={textInput} autoComplete="off" maxLength={200} />
      </Field>
      <Field label="Description" htmlFor={`${id}-description`}>
        <input id={`${id}-description`} value={state.description} onChange={(e) => update({ description: e.target.value })} className={textInput} placeholder="What it is for (optional)" />
      </Field>
    </div>
  );
}

/** The model field of an agent or a team's leader. */
export function ModelField({
  id,
  label,
  state,
  update,
  models,
}: {
  id: string;
  label: string;
  state: { model: string };
  update: (next: { model: string }) => void;
  models: { provider: string; id: string; label: string }[];
}) {
  return (
    <Field label={label} htmlFor={`${id}-model`}>
      <ModelSelect id={`${id}-model`} value={state.model} onChange={(model) => update({ model })} models={models} />
    </Field>
  );
}

export const fieldset = "rounded border border-slate-200 p-3 dark:border-slate-800";
export const legend = "px-1 text-sm font-medium";
export const smallButton = "rounded border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-50 disabled:opacity-40 dark:border-slate-700 dark:hover:bg-slate-800";

/**
 * An editor's state and the config it makes: the state read from the saved config (a new agent or
 * team starts on the registry's first model), an update for some of its fields, and the config with
 * its problems, recomputed as the state changes.
 */
export function useEditorState<S extends object>(
  saved: Record<string, unknown>,
  options: {
    isNew: boolean;
    models: { provider: string; id: string }[];
    read: (config: Record<string, unknown>) => S;
    write: (saved: Record<string, unknown>, state: S) => { config: Record<string, unknown>; problems: string[] };
  },
) {
  const [state, setState] = useState<S>(() => {
    const initial = options.read(saved);
    const first = options.models[0];
    const withModel = initial as { model?: string };
    if (options.isNew && "model" in withModel && !withModel.model && first) withModel.model = `${first.provider}:${first.id}`;
    return initial;
  });
  const update = (next: Partial<S>) => setState((s) => ({ ...s, ...next }));
  const write = options.write;
  const built = useMemo(() => write(saved, state), [write, saved, state]);
  return { state, update, ...built };
}
