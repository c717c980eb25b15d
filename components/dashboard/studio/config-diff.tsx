import type { DiffHunkLine } from "@/lib/http/dashboard/studio-diff.ts";

const TONES = {
  same: "text-slate-600 dark:text-slate-400",
  removed: "bg-red-50 text-red-800 dark:bg-red-950/60 dark:text-red-200",
  added: "bg-emerald-50 text-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-200",
} as const;
const SIGNS = { same: " ", removed: "-", added: "+" } as const;

/** A config diff (lib/http/dashboard/studio-diff.ts): removed lines, then added ones, with a few unchanged around each change. */
export function ConfigDiff({ diff, from, to }: { diff: { lines: DiffHunkLine[]; added: number; removed: number }; from: string; to: string }) {
  if (diff.added === 0 && diff.removed === 0)
    return (
      <p className="text-sm text-slate-500">
        No differences: {to} is the same as {from}.
      </p>
    );
  return (
    <div>
      <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">
        {to} against {from}: <span className="text-emerald-700 dark:text-emerald-300">{diff.added} added</span>, <span className="text-red-700 dark:text-red-300">{diff.removed} removed</span> lines.
      </p>
      <section data-testid="config-diff" aria-label={`Changes in ${to} against ${from}`} className="max-h-96 overflow-auto rounded border border-slate-200 font-mono text-xs dark:border-slate-800">
        {diff.lines.map((line, i) =>
          line.kind === "fold" ? (
            <div key={i} className="bg-slate-50 px-2 text-slate-400 dark:bg-slate-900">
              ⋯ {line.count} unchanged {line.count === 1 ? "line" : "lines"}
            </div>
          ) : (
            <div key={i} data-kind={line.kind} className={`px-2 whitespace-pre-wrap break-all ${TONES[line.kind]}`}>
              <span aria-hidden="true" className="mr-2 select-none">
                {SIGNS[line.kind]}
              </span>
              {line.kind !== "same" && <span className="sr-only">{line.kind}: </span>}
              {line.text}
            </div>
          ),
        )}
      </section>
    </div>
  );
}
