import Link from "next/link";
import type { RunTrace } from "@/lib/http/dashboard/trace-views.ts";
import { Section } from "../section.tsx";
import { TraceWaterfall } from "./trace-waterfall.tsx";

/**
 * A run page's trace, compact, with a link to its trace view. A team member's or a workflow
 * step's run is shown in its parent's trace, its own span selected. Until the trace is stored it
 * says so (the page refreshes itself while `awaiting`).
 */
export function RunTraceSection({ runId, trace: { timeline, awaiting, tracing } }: { runId: string; trace: RunTrace }) {
  const own = timeline?.runId === runId;
  const focus = timeline && !own ? timeline.spans.find((s) => s.attributes["agno.run.id"] === runId)?.id : undefined;
  return (
    <Section
      title="Trace"
      id="trace"
      actions={
        timeline && (
          <Link
            href={`/dashboard/traces/${encodeURIComponent(timeline.traceId)}`}
            className="rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
          >
            Open trace
          </Link>
        )
      }
    >
      {timeline ? (
        <>
          <p className="mb-2 text-sm text-slate-600 dark:text-slate-400" data-testid="run-trace-summary">
            {!own && "Part of the team's or workflow's trace. "}
            {timeline.totalSpans} spans in {timeline.duration}
            {timeline.errorCount > 0 && <span className="text-red-700 dark:text-red-300">, {timeline.errorCount} failed</span>}.
          </p>
          <TraceWaterfall timeline={timeline} compact initialSpanId={focus} />
        </>
      ) : (
        <p className="text-sm text-slate-500" data-testid="run-trace-pending">
          {awaiting
            ? "trace not exported yet"
            : tracing
              ? "No trace is stored for this run (it ran while tracing was off, or its trace is past the retention period)."
              : "Tracing is off: runs are not recorded as traces."}
        </p>
      )}
    </Section>
  );
}
