"use client";

import { useId } from "react";
import type { StudioChoices } from "@/lib/http/dashboard/studio-view.ts";
import { Field, textInput } from "../form-field.tsx";
import type { UserAction } from "../users/user-action-types.ts";
import { teamConfig, teamFormState, type TeamFormState } from "./config-model.ts";
import { EditorShell, fieldset, IdentityFields, legend, ModelField, useEditorState, type EditorTarget } from "./editor-shell.tsx";
import { AddMember, memberLabel, moved, OrderButtons } from "./member-picker.tsx";

const MODE_WORDS: Record<string, string> = {
  coordinate: "The leader delegates tasks and answers with what the members found.",
  route: "The leader hands the request to one member, who answers.",
  broadcast: "Every member gets the request.",
  tasks: "The leader plans tasks and works through them with the members.",
};

/** Edits a team: name, description, its leader's model and instructions, mode, and its members in order (code-defined agents and teams, or published Studio ones). */
export function TeamEditor({ saved, choices, target, save }: { saved: Record<string, unknown>; choices: StudioChoices; target: EditorTarget; save: UserAction }) {
  const id = useId();
  const { state, update, config, problems } = useEditorState<TeamFormState>(saved, { isNew: !target.componentId, models: choices.models, read: teamFormState, write: teamConfig });
  const f = (name: string) => `${id}-${name}`;
  const available = choices.members.filter((c) => !state.members.some((m) => m.key === `${c.type}:${c.id}`));
  return (
    <EditorShell action={save} target={target} config={config} problems={problems}>
      <IdentityFields id={id} state={state} update={update} />
      <div className="grid gap-4 md:grid-cols-2">
        <ModelField id={id} label="Leader model" state={state} update={update} models={choices.models} />
        <Field label="Mode" htmlFor={f("mode")} hint={MODE_WORDS[state.mode]}>
          <select id={f("mode")} value={state.mode} onChange={(e) => update({ mode: e.target.value })} className={textInput}>
            {!choices.teamModes.includes(state.mode) && <option value={state.mode}>{state.mode} (as saved)</option>}
            {choices.teamModes.map((mode) => (
              <option key={mode} value={mode}>
                {mode}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Leader instructions" htmlFor={f("instructions")} hint="What the team's leader is told: whom to ask for what, how to answer.">
        <textarea id={f("instructions")} rows={4} value={state.instructions} onChange={(e) => update({ instructions: e.target.value })} className={textInput} />
      </Field>
      <fieldset className={fieldset}>
        <legend className={legend}>Members</legend>
        {state.members.length === 0 ? (
          <p className="mb-2 text-sm text-slate-500">No members yet.</p>
        ) : (
          <ol aria-label="Members" className="mb-3 grid gap-1">
            {state.members.map((m, i) => (
              <li key={m.key} data-testid="team-member" className="flex items-center justify-between gap-2 rounded border border-slate-200 px-2 py-1 text-sm dark:border-slate-800">
                <span>
                  {i + 1}. {memberLabel(choices.members, m.key)}
                </span>
                <OrderButtons
                  index={i}
                  count={state.members.length}
                  what={m.key.replace(":", " ")}
                  onMove={(by) => update({ members: moved(state.members, i, by) })}
                  onRemove={() => update({ members: state.members.filter((_, j) => j !== i) })}
                />
              </li>
            ))}
          </ol>
        )}
        <AddMember choices={available} label="Member to add" onAdd={(key) => update({ members: [...state.members, { key }] })} />
      </fieldset>
    </EditorShell>
  );
}
