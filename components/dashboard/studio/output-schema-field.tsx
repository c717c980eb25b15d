"use client";

import { useEffect, useState } from "react";
import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { textInput } from "../form-field.tsx";
import { IDLE_STATE, type UserAction } from "../users/user-action-types.ts";
import { jsonSchemaProblem, type AgentFormState } from "./config-model.ts";
import { fieldset, legend } from "./editor-shell.tsx";

const EXAMPLE = `{
  "type": "object",
  "properties": {
    "answer": { "type": "string" }
  },
  "required": ["answer"]
}`;

/**
 * The agent's output schema: none (text answers), a schema of the registry by name, or a JSON
 * schema written here. What is typed is checked as it is typed — JSON and an object here, in the
 * browser; against the JSON Schema meta-schema on the server (`check`) once typing pauses.
 */
export function OutputSchemaField({
  id,
  state,
  onChange,
  schemas,
  check,
}: {
  id: string;
  state: Pick<AgentFormState, "outputMode" | "outputSchemaName" | "outputSchemaJson">;
  onChange: (next: Partial<AgentFormState>) => void;
  schemas: { name: string; description: string | null }[];
  check: UserAction;
}) {
  const local = state.outputMode === "json" ? jsonSchemaProblem(state.outputSchemaJson) : null;
  const localProblem = local && "problem" in local ? local.problem : null;
  const [server, setServer] = useState<ActionState & { text?: string }>(IDLE_STATE);
  useEffect(() => {
    if (state.outputMode !== "json" || localProblem) return;
    const text = state.outputSchemaJson;
    let cancelled = false;
    const timer = setTimeout(() => {
      const form = new FormData();
      form.set("schema", text);
      void check(IDLE_STATE, form)
        .then((result) => {
          if (!cancelled) setServer({ ...result, text });
        })
        .catch(() => undefined);
    }, 400);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [state.outputMode, state.outputSchemaJson, localProblem, check]);
  const checked = server.text === state.outputSchemaJson ? server : null;
  return (
    <fieldset className={fieldset}>
      <legend className={legend}>Output schema</legend>
      <div className="mb-2 flex flex-wrap gap-4 text-sm">
        <label className="flex items-center gap-1">
          <input type="radio" name={`${id}-output-mode`} checked={state.outputMode === "none"} onChange={() => onChange({ outputMode: "none" })} /> None (answers in text)
        </label>
        {schemas.length > 0 && (
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name={`${id}-output-mode`}
              checked={state.outputMode === "schema"}
              onChange={() => onChange({ outputMode: "schema", outputSchemaName: state.outputSchemaName || schemas[0]!.name })}
            />{" "}
            A schema of the registry
          </label>
        )}
        <label className="flex items-center gap-1">
          <input type="radio" name={`${id}-output-mode`} checked={state.outputMode === "json"} onChange={() => onChange({ outputMode: "json", outputSchemaJson: state.outputSchemaJson || EXAMPLE })} />{" "}
          A JSON schema
        </label>
      </div>
      {state.outputMode === "schema" && (
        <select aria-label="Registry schema" value={state.outputSchemaName} onChange={(e) => onChange({ outputSchemaName: e.target.value })} className={textInput}>
          {state.outputSchemaName && !schemas.some((s) => s.name === state.outputSchemaName) && <option value={state.outputSchemaName}>{state.outputSchemaName} (as saved)</option>}
          {schemas.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
              {s.description ? ` — ${s.description}` : ""}
            </option>
          ))}
        </select>
      )}
      {state.outputMode === "json" && (
        <>
          <label htmlFor={`${id}-output-json`} className="sr-only">
            JSON schema
          </label>
          <textarea
            id={`${id}-output-json`}
            aria-label="JSON schema"
            aria-invalid={!!localProblem || checked?.ok === false}
            rows={8}
            value={state.outputSchemaJson}
            onChange={(e) => onChange({ outputSchemaJson: e.target.value })}
            className={`${textInput} font-mono text-xs`}
            spellCheck={false}
          />
          <p data-testid="output-schema-check" aria-live="polite" className="mt-1 text-xs">
            {localProblem ? (
              <span className="text-red-700 dark:text-red-300">{localProblem}</span>
            ) : checked === null ? (
              <span className="text-slate-500">Checking…</span>
            ) : checked.ok ? (
              <span className="text-emerald-700 dark:text-emerald-300">{checked.message}</span>
            ) : (
              <span className="text-red-700 dark:text-red-300">{checked.error}</span>
            )}
          </p>
        </>
      )}
    </fieldset>
  );
}
