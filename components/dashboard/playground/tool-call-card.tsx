import { JsonBlock } from "./json-block.tsx";
import type { ToolCallStatus, ToolCallView } from "./transcript.ts";

const STATUS: Record<ToolCallStatus, { label: string; className: string }> = {
  running: { label: "running…", className: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100" },
  awaiting: { label: "waiting for you", className: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100" },
  done: { label: "done", className: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100" },
  failed: { label: "failed", className: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100" },
  rejected: { label: "rejected", className: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100" },
};

/** The arguments on one line, for the folded card: `a: 2, b: 3`, cut short when long. */
function argsPreview(args: Record<string, unknown>): string {
  const text = Object.entries(args)
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * One tool call between the messages, folded to a line (its name, arguments in brief, status);
 * opened, its arguments and its result once it has one. A call waiting for the person's decision
 * starts open, so what it would do is in view.
 */
export function ToolCallCard({ call }: { call: ToolCallView }) {
  const status = STATUS[call.status];
  const hasArgs = Object.keys(call.args).length > 0;
  return (
    <details
      aria-label={`Tool call ${call.name}`}
      data-testid="tool-call"
      open={call.status === "awaiting"}
      className="group rounded border border-slate-200 bg-white text-sm dark:border-slate-700 dark:bg-slate-900"
    >
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-2 px-3 py-2 [&::-webkit-details-marker]:hidden">
        <span aria-hidden="true" className="inline-block text-xs text-slate-400 transition-transform group-open:rotate-90">
          ▶
        </span>
        <span className="text-xs text-slate-500 dark:text-slate-400">Tool</span>
        <code className="font-semibold">{call.name}</code>
        {hasArgs && <code className="min-w-0 truncate text-xs text-slate-600 group-open:hidden dark:text-slate-400">{argsPreview(call.args)}</code>}
        <span className={`rounded px-1.5 py-0.5 text-xs ${status.className}`}>{status.label}</span>
      </summary>
      <div className="space-y-2 border-t border-slate-200 px-3 py-2 dark:border-slate-700">
        {hasArgs ? <JsonBlock label="Arguments" value={call.args} /> : <p className="text-xs text-slate-500 dark:text-slate-400">No arguments.</p>}
        {call.result !== undefined ? (
          <JsonBlock label={call.status === "failed" ? "Error" : "Result"} value={call.result} />
        ) : (
          <p className="text-xs text-slate-500 dark:text-slate-400">{call.status === "rejected" ? "Not run." : "No result yet."}</p>
        )}
      </div>
    </details>
  );
}
