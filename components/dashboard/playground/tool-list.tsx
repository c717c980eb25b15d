import type { AgentToolSummary } from "./agent-summary.ts";

const badge = "rounded px-1.5 py-0.5 text-xs";

/** An agent's tools by name, marked where a run pauses for a person. */
export function ToolList({ tools }: { tools: AgentToolSummary[] }) {
  if (tools.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No tools.</p>;
  return (
    <ul className="flex flex-wrap gap-2" aria-label="Tools">
      {tools.map((tool) => (
        <li key={tool.name} title={tool.description} className="flex flex-wrap items-center gap-1 rounded border border-slate-200 bg-slate-50 px-2 py-1 dark:border-slate-700 dark:bg-slate-800">
          <code className="text-sm">{tool.name}</code>
          {tool.needsConfirmation && <span className={`${badge} bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100`}>needs confirmation</span>}
          {tool.needsUserInput && <span className={`${badge} bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100`}>asks for input</span>}
          {tool.needsApproval && <span className={`${badge} bg-rose-100 text-rose-900 dark:bg-rose-900 dark:text-rose-100`}>needs approval</span>}
          {tool.runsExternally && <span className={`${badge} bg-violet-100 text-violet-900 dark:bg-violet-900 dark:text-violet-100`}>runs externally</span>}
        </li>
      ))}
    </ul>
  );
}
