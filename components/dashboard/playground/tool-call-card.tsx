import { JsonBlock } from "./json-block.tsx";
import type { ToolCallStatus, ToolCallView } from "./transcript.ts";

const STATUS: Record<ToolCallStatus, { label: string; className: string }> = {
  running: { label: "running…", className: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100" },
  awaiting: { label: "waiting for you", className: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100" },
  done: { label: "done", className: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100" },
  failed: { label: "failed", className: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100" },
  rejected: { label: "rejected", className: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100" },
};

/** One tool call between the messages: its name and arguments (if any) first, its result once it has one. */
export function ToolCallCard({ call }: { call: ToolCallView }) {
  const status = STATUS[call.status];
  return (
    <section aria-label={`Tool call ${call.name}`} data-testid="tool-call" className="space-y-2 rounded border border-slate-200 bg-white p-3 text-sm dark:border-slate-700 dark:bg-slate-900">
      <header className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-slate-500 dark:text-slate-400">Tool</span>
        <code className="font-semibold">{call.name}</code>
        <span className={`rounded px-1.5 py-0.5 text-xs ${status.className}`}>{status.label}</span>
      </header>
      {Object.keys(call.args).length > 0 && <JsonBlock label="Arguments" value={call.args} />}
      {call.result !== undefined && <JsonBlock label={call.status === "failed" ? "Error" : "Result"} value={call.result} />}
    </section>
  );
}
