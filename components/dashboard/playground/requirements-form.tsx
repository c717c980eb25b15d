"use client";

import { useId, useState, type FormEvent } from "react";
import type { RunRequirement, UserInputFieldValue } from "@/lib/runtime/run-output.ts";
import { inputFields, needsConfirmation, needsExternalResult, needsUserInput, type Decisions } from "./transcript.ts";
import { JsonBlock } from "./json-block.tsx";

type Raw = string | boolean;

/** A typed value from what the user typed, per Agno's field_type; an error names the field. */
function parseField(field: UserInputFieldValue, raw: Raw | undefined): { value: unknown } | { error: string } {
  if (field.field_type === "bool") return { value: raw === true };
  const text = typeof raw === "string" ? raw.trim() : "";
  if (text === "") return { error: `${field.name} is required` };
  switch (field.field_type) {
    case "str":
      return { value: text };
    case "int":
      return Number.isInteger(Number(text)) ? { value: Number(text) } : { error: `${field.name} must be a whole number` };
    case "float":
      return Number.isFinite(Number(text)) ? { value: Number(text) } : { error: `${field.name} must be a number` };
    default:
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: `${field.name} must be JSON (a ${field.field_type})` };
      }
  }
}

/** An external tool's result: JSON when it parses, else the text as given. */
function parseResult(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const inputClass =
  "w-full rounded border border-slate-300 bg-white px-3 py-2 text-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300 dark:border-slate-600 dark:bg-slate-950 dark:focus:ring-slate-700";
const buttonClass = "rounded px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-slate-400 disabled:opacity-60";
const confirmClass = `${buttonClass} bg-emerald-700 text-white hover:bg-emerald-800`;
const rejectClass = `${buttonClass} border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800`;
const chosenClass = "ring-2 ring-offset-2 ring-slate-900 dark:ring-slate-100 dark:ring-offset-slate-900";

function FieldInput({ id, field, value, onChange }: { id: string; field: UserInputFieldValue; value: Raw | undefined; onChange: (value: Raw) => void }) {
  const hint = field.description ? `${id}-hint` : undefined;
  if (field.field_type === "bool") {
    return (
      <div className="flex items-start gap-2">
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint} className="mt-1 h-4 w-4" />
        <div>
          <label htmlFor={id} className="text-sm font-medium">
            {field.name}
          </label>
          {hint && (
            <p id={hint} className="text-xs text-slate-600 dark:text-slate-400">
              {field.description}
            </p>
          )}
        </div>
      </div>
    );
  }
  const numeric = field.field_type === "int" || field.field_type === "float";
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {field.name} <span className="font-normal text-slate-500 dark:text-slate-400">({field.field_type})</span>
      </label>
      <input
        id={id}
        type={numeric ? "number" : "text"}
        step={field.field_type === "int" ? 1 : numeric ? "any" : undefined}
        required
        value={typeof value === "string" ? value : ""}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={hint}
        className={inputClass}
      />
      {hint && (
        <p id={hint} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {field.description}
        </p>
      )}
    </div>
  );
}

/**
 * The decisions a paused run waits for: confirm or reject each tool call that needs it, fill in
 * the fields a tool asks the user for, paste an external tool's result. A lone confirmation is
 * decided in one click; anything more is collected and sent with "Continue run". Disabled while
 * another run is in flight (one stream at a time).
 */
export function RequirementsForm({ requirements, disabled = false, onSubmit }: { requirements: RunRequirement[]; disabled?: boolean; onSubmit: (decisions: Decisions) => void }) {
  const formId = useId();
  const [confirmed, setConfirmed] = useState<Record<string, boolean>>({});
  const [raw, setRaw] = useState<Record<string, Record<string, Raw>>>({});
  const [results, setResults] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const oneClick = requirements.length === 1 && needsConfirmation(requirements[0]) && !needsUserInput(requirements[0]) && !needsExternalResult(requirements[0]);

  function decide(id: string, yes: boolean) {
    if (oneClick) return onSubmit({ confirmed: { [id]: yes }, values: {}, results: {} });
    setProblem(null);
    setConfirmed((c) => ({ ...c, [id]: yes }));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const values: Decisions["values"] = {};
    const problems: string[] = [];
    for (const requirement of requirements) {
      if (needsConfirmation(requirement) && confirmed[requirement.id] === undefined) problems.push(`Confirm or reject ${requirement.tool_execution.tool_name}`);
      if (needsExternalResult(requirement) && !results[requirement.id]?.trim()) problems.push(`Give the result of ${requirement.tool_execution.tool_name}`);
      if (!needsUserInput(requirement)) continue;
      values[requirement.id] = {};
      for (const field of inputFields(requirement)) {
        const parsed = parseField(field, raw[requirement.id]?.[field.name]);
        if ("error" in parsed) problems.push(parsed.error);
        else values[requirement.id][field.name] = parsed.value;
      }
    }
    setProblem(problems.length > 0 ? `${problems.join("; ")}.` : null);
    if (problems.length > 0) return;
    const parsedResults = Object.fromEntries(Object.entries(results).map(([id, text]) => [id, parseResult(text)]));
    onSubmit({ confirmed, values, results: parsedResults });
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Decisions for the paused run" className="space-y-3 rounded border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/40">
      <p className="text-sm font-medium text-amber-900 dark:text-amber-100">The run is paused until you decide.</p>
      {requirements.map((requirement, index) => {
        const execution = requirement.tool_execution;
        const id = requirement.id;
        return (
          <fieldset key={id} disabled={disabled} className="space-y-2 rounded border border-amber-200 bg-white p-3 dark:border-amber-800 dark:bg-slate-900">
            <legend className="px-1 text-sm">
              <code className="font-semibold">{execution.tool_name}</code>{" "}
              <span className="text-slate-600 dark:text-slate-400">{needsConfirmation(requirement) ? "wants to run" : needsUserInput(requirement) ? "needs your input" : "runs outside Agentry"}</span>
            </legend>
            {Object.keys(execution.tool_args ?? {}).length > 0 && <JsonBlock label="Arguments" value={execution.tool_args} />}
            {needsConfirmation(requirement) && (
              <div className="flex flex-wrap gap-2">
                <button
                  type="button"
                  className={`${confirmClass} ${confirmed[id] === true ? chosenClass : ""}`}
                  aria-pressed={oneClick ? undefined : confirmed[id] === true}
                  onClick={() => decide(id, true)}
                >
                  Confirm
                </button>
                <button
                  type="button"
                  className={`${rejectClass} ${confirmed[id] === false ? chosenClass : ""}`}
                  aria-pressed={oneClick ? undefined : confirmed[id] === false}
                  onClick={() => decide(id, false)}
                >
                  Reject
                </button>
              </div>
            )}
            {needsUserInput(requirement) && (
              <div className="space-y-3">
                {inputFields(requirement).map((field) => (
                  <FieldInput
                    key={field.name}
                    id={`${formId}-${index}-${field.name}`}
                    field={field}
                    value={raw[id]?.[field.name]}
                    onChange={(value) => {
                      setProblem(null);
                      setRaw((r) => ({ ...r, [id]: { ...r[id], [field.name]: value } }));
                    }}
                  />
                ))}
              </div>
            )}
            {needsExternalResult(requirement) && (
              <div>
                <label htmlFor={`${formId}-${index}-result`} className="mb-1 block text-sm font-medium">
                  Result (JSON or text)
                </label>
                <textarea
                  id={`${formId}-${index}-result`}
                  rows={3}
                  value={results[id] ?? ""}
                  onChange={(e) => {
                    setProblem(null);
                    setResults((r) => ({ ...r, [id]: e.target.value }));
                  }}
                  className={inputClass}
                />
              </div>
            )}
          </fieldset>
        );
      })}
      {problem && (
        <p role="alert" className="text-sm text-red-800 dark:text-red-300">
          {problem}
        </p>
      )}
      {!oneClick && (
        <button type="submit" disabled={disabled} className={`${buttonClass} bg-slate-900 text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300`}>
          Continue run
        </button>
      )}
    </form>
  );
}
