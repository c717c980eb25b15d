"use client";

import { useId } from "react";
import type { StudioChoices } from "@/lib/http/dashboard/studio-view.ts";
import { Field, textInput } from "../form-field.tsx";
import type { UserAction } from "../users/user-action-types.ts";
import { agentConfig, agentFormState, type AgentFormState, type LearningChoice, type ToolPick } from "./config-model.ts";
import { EditorShell, fieldset, IdentityFields, legend, ModelField, smallButton, useEditorState, type EditorTarget } from "./editor-shell.tsx";
import { OutputSchemaField } from "./output-schema-field.tsx";

/**
 * Edits an agent: name, description, model, instructions, tools (the registry's toolkits and
 * their functions, each with "ask before each call"), knowledge, learning, history and output
 * schema. It starts from the saved config and writes only these keys over it.
 */
export function AgentEditor({
  saved,
  choices,
  target,
  save,
  checkSchema,
}: {
  saved: Record<string, unknown>;
  choices: StudioChoices;
  target: EditorTarget;
  save: UserAction;
  checkSchema: UserAction;
}) {
  const id = useId();
  const { state, update, config, problems } = useEditorState<AgentFormState>(saved, { isNew: !target.componentId, models: choices.models, read: agentFormState, write: agentConfig });
  const f = (name: string) => `${id}-${name}`;

  return (
    <EditorShell action={save} target={target} config={config} problems={problems}>
      <IdentityFields id={id} state={state} update={update} />
      <ModelField id={id} label="Model" state={state} update={update} models={choices.models} />
      <Field label="Instructions" htmlFor={f("instructions")} hint="What the agent is told before every run (its system prompt's instructions).">
        <textarea id={f("instructions")} rows={5} value={state.instructions} onChange={(e) => update({ instructions: e.target.value })} className={textInput} />
      </Field>
      <ToolsField tools={state.tools} onChange={(tools) => update({ tools })} toolkits={choices.toolkits} />
      <div className="grid gap-4 md:grid-cols-2">
        <Field label="Knowledge" htmlFor={f("knowledge")} hint="A knowledge base it searches with its search tool; each user sees their own contents and the shared ones.">
          <select id={f("knowledge")} value={state.knowledge} onChange={(e) => update({ knowledge: e.target.value })} className={textInput}>
            <option value="">None</option>
            {state.knowledge && !choices.knowledge.some((k) => k.name === state.knowledge) && <option value={state.knowledge}>{state.knowledge} (as saved)</option>}
            {choices.knowledge.map((k) => (
              <option key={k.name} value={k.name}>
                {k.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Learning" htmlFor={f("learning")} hint="What it learns about each user as they talk (What agents know shows it).">
          <select id={f("learning")} value={state.learning} onChange={(e) => update({ learning: e.target.value as LearningChoice })} className={textInput}>
            <option value="off">Off</option>
            <option value="on">On: a user profile and memories</option>
            {choices.learning.map((m) => (
              <option key={m.name} value={`name:${m.name}`}>
                Learning machine “{m.name}”
              </option>
            ))}
            {state.learning.startsWith("name:") && !choices.learning.some((m) => `name:${m.name}` === state.learning) && <option value={state.learning}>{state.learning.slice(5)} (as saved)</option>}
            {state.learning === "custom" && <option value="custom">As configured through the API (kept)</option>}
          </select>
        </Field>
      </div>
      <fieldset className={fieldset}>
        <legend className={legend}>History</legend>
        <div className="flex flex-wrap items-center gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={state.addHistory} onChange={(e) => update({ addHistory: e.target.checked })} /> Add the session's history to each run
          </label>
          <label className="flex items-center gap-2 whitespace-nowrap">
            Earlier runs
            <input
              aria-label="Earlier runs"
              inputMode="numeric"
              value={state.numHistoryRuns}
              disabled={!state.addHistory}
              onChange={(e) => update({ numHistoryRuns: e.target.value })}
              placeholder="3"
              className={`${textInput} w-20`}
            />
          </label>
        </div>
      </fieldset>
      <OutputSchemaField id={id} state={state} onChange={update} schemas={choices.schemas} check={checkSchema} />
    </EditorShell>
  );
}

/**
 * The tools: each registry toolkit the caller may attach, its functions as checkboxes, and for each
 * chosen one whether every call waits for the user's confirmation (locked on for a function whose
 * toolkit always asks). Tools saved earlier that the registry does not offer the caller stay listed,
 * to keep or remove.
 */
function ToolsField({ tools, onChange, toolkits }: { tools: ToolPick[]; onChange: (tools: ToolPick[]) => void; toolkits: StudioChoices["toolkits"] }) {
  const owner = (pick: ToolPick) => (pick.toolkit ? toolkits.find((k) => k.name === pick.toolkit || k.id === pick.toolkit) : toolkits.find((k) => k.functions.some((f) => f.name === pick.name)));
  const find = (toolkit: string, name: string) => tools.findIndex((t) => owner(t)?.name === toolkit && t.name === name);
  const offered = tools.filter((t) => {
    return owner(t)?.functions.some((f) => f.name === t.name) === true;
  });
  const others = tools.filter((t) => !offered.includes(t));
  const toggle = (toolkit: string, fn: { name: string; requiresConfirmation: boolean }, on: boolean) => {
    const at = find(toolkit, fn.name);
    if (on && at < 0) onChange([...tools, { toolkit, name: fn.name, confirm: fn.requiresConfirmation }]);
    if (!on && at >= 0) onChange(tools.filter((_, i) => i !== at));
  };
  const setConfirm = (toolkit: string, name: string, confirm: boolean) => onChange(tools.map((t, i) => (i === find(toolkit, name) ? { ...t, confirm } : t)));
  return (
    <fieldset className={fieldset}>
      <legend className={legend}>Tools</legend>
      {toolkits.length === 0 && <p className="text-sm text-slate-500">The registry offers you no toolkits.</p>}
      <div className="grid gap-3 md:grid-cols-2">
        {toolkits.map((kit) => (
          <section key={kit.name} aria-label={`Toolkit ${kit.name}`} data-testid={`toolkit-${kit.name}`} className="rounded border border-slate-200 p-2 dark:border-slate-800">
            <h4 className="mb-1 text-sm font-medium">
              {kit.name}
              {kit.adminOnly && <span className="ml-2 rounded bg-amber-100 px-1 text-xs text-amber-800 dark:bg-amber-900/60 dark:text-amber-200">admins only</span>}
            </h4>
            {kit.functions.length === 0 && <p className="text-xs text-slate-500">Its tools are listed when it runs (an MCP server).</p>}
            <ul className="grid gap-1">
              {kit.functions.map((fn) => {
                const at = find(kit.name, fn.name);
                const chosen = at >= 0;
                return (
                  <li key={fn.name} className="text-sm">
                    <label className="flex items-start gap-2">
                      <input type="checkbox" className="mt-1" checked={chosen} onChange={(e) => toggle(kit.name, fn, e.target.checked)} aria-label={`Tool ${fn.name}`} />
                      <span>
                        <code>{fn.name}</code>
                        {fn.description && <span className="block text-xs text-slate-500">{fn.description}</span>}
                      </span>
                    </label>
                    {chosen && (
                      <label className="ml-6 flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
                        <input
                          type="checkbox"
                          checked={fn.requiresConfirmation || tools[at]!.confirm}
                          disabled={fn.requiresConfirmation}
                          onChange={(e) => setConfirm(kit.name, fn.name, e.target.checked)}
                          aria-label={`Ask before each call of ${fn.name}`}
                        />
                        Ask the user before each call{fn.requiresConfirmation && " (always, for this tool)"}
                      </label>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      </div>
      {others.length > 0 && (
        <div className="mt-3 text-sm">
          <p className="mb-1 text-slate-600 dark:text-slate-400">Saved tools the registry does not offer you (saving keeps them; the server decides whether they are allowed):</p>
          <ul className="grid gap-1">
            {others.map((t) => (
              <li key={`${t.toolkit}:${t.name}`} className="flex items-center gap-2">
                <code>{t.toolkit ? `${t.toolkit}.${t.name}` : t.name}</code>
                <button type="button" className={smallButton} onClick={() => onChange(tools.filter((o) => o !== t))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </fieldset>
  );
}
