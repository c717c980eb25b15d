import { JsonView } from "../json-view.tsx";
import { modelKey, stepLabel } from "./config-model.ts";

type Config = Record<string, unknown>;

const list = (value: unknown): Config[] => (Array.isArray(value) ? (value as unknown[]).filter((v): v is Config => !!v && typeof v === "object" && !Array.isArray(v)) : []);
const text = (value: unknown): string | null => (typeof value === "string" && value ? value : Array.isArray(value) ? value.filter((v) => typeof v === "string").join("\n") || null : null);

function learningWords(value: unknown): string | null {
  if (value === true) return "on (a user profile and memories)";
  if (value === false || value === null || value === undefined) return null;
  const name = (value as { name?: unknown }).name;
  return typeof name === "string" && Object.keys(value as object).length === 1 ? `learning machine “${name}”` : "as configured";
}

/**
 * A version's config as someone who may not edit it reads it: the fields the editor has, in words,
 * then the whole config as JSON.
 */
export function ConfigSummary({ type, config }: { type: string; config: Config }) {
  const rows: [string, React.ReactNode][] = [];
  const model = modelKey(config.model);
  if (model) rows.push([type === "team" ? "Leader model" : "Model", <code key="m">{model}</code>]);
  if (type === "team" && typeof config.mode === "string") rows.push(["Mode", config.mode]);
  const instructions = text(config.instructions);
  if (instructions)
    rows.push([
      type === "team" ? "Leader instructions" : "Instructions",
      <span key="i" className="whitespace-pre-wrap">
        {instructions}
      </span>,
    ]);
  const tools = list(config.tools);
  if (tools.length > 0) {
    rows.push([
      "Tools",
      <ul key="t" className="flex flex-wrap gap-1">
        {tools.map((t) => (
          <li key={`${String(t.toolkit)}:${String(t.name)}`} className="rounded border border-slate-200 px-1.5 text-xs dark:border-slate-700">
            <code>{String(t.name)}</code>
            {typeof t.toolkit === "string" && <span className="text-slate-500"> ({t.toolkit})</span>}
            {t.requires_confirmation === true && <span className="text-amber-700 dark:text-amber-300"> · asks first</span>}
          </li>
        ))}
      </ul>,
    ]);
  }
  const knowledge = (config.knowledge as { name?: unknown } | null | undefined)?.name;
  if (typeof knowledge === "string") rows.push(["Knowledge", knowledge]);
  const learning = learningWords(config.learning);
  if (learning) rows.push(["Learning", learning]);
  if (config.add_history_to_context === true) rows.push(["History", `the session's last ${typeof config.num_history_runs === "number" ? config.num_history_runs : "few"} runs`]);
  if (config.output_schema) rows.push(["Output schema", typeof config.output_schema === "string" ? `registry schema “${config.output_schema}”` : "a JSON schema (below)"]);
  const members = list(config.members);
  if (members.length > 0) rows.push(["Members", members.map((m) => String(m.agent_id ?? m.team_id ?? "?")).join(", ")]);
  const steps = list(config.steps);
  if (steps.length > 0) {
    rows.push([
      "Steps",
      <ol key="s" className="list-decimal pl-5">
        {steps.map((s, i) => (
          <li key={i}>
            {stepLabel(s)}
            {typeof s.agent_id === "string" && ` → agent ${s.agent_id}`}
            {typeof s.team_id === "string" && ` → team ${s.team_id}`}
            {s.human_review ? " · human review" : ""}
          </li>
        ))}
      </ol>,
    ]);
  }
  return (
    <div className="grid gap-3">
      {rows.length > 0 && (
        <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[10rem_1fr]">
          {rows.map(([label, value]) => (
            <div key={label} className="contents">
              <dt className="text-slate-500">{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
      <details>
        <summary className="cursor-pointer text-sm text-slate-600 dark:text-slate-400">The whole config (JSON)</summary>
        <JsonView value={config} label="Config" />
      </details>
    </div>
  );
}
