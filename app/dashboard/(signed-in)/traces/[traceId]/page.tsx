import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { formatCount } from "@/components/dashboard/format.ts";
import { JsonView } from "@/components/dashboard/json-view.tsx";
import { formatUsd } from "@/components/dashboard/metrics/format-usd.ts";
import { Section } from "@/components/dashboard/section.tsx";
import { StatusBadge } from "@/components/dashboard/status-badge.tsx";
import { formatTraceTime, jsonOrText } from "@/components/dashboard/traces/trace-format.ts";
import { TraceWaterfall } from "@/components/dashboard/traces/trace-waterfall.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { pathId } from "@/lib/http/dashboard/search-params.ts";
import { loadTraceTimeline } from "@/lib/http/dashboard/trace-views.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

const link = "text-sky-700 hover:underline dark:text-sky-400";

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-500">{label}</dt>
      <dd className="min-w-0 truncate">{children}</dd>
    </>
  );
}

/**
 * One trace: its header (status, timing, the run, session and user it belongs to, tokens and
 * cost), its input and output or error, and its span tree beside the waterfall. Read in the
 * signed-in user's scope: another user's trace is a 404 to a member.
 */
export default async function TracePage({ params }: { params: Promise<{ traceId: string }> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const traceId = pathId((await params).traceId);
  if (!traceId) notFound();
  const trace = await loadTraceTimeline(db, { scope: dataScopeFor(principal), traceId, prices: settings.metrics.prices });
  if (!trace) notFound();
  const labels = await userLabels(db, principal);
  const component = trace.workflowId ? ["Workflow", trace.workflowId] : trace.teamId ? ["Team", trace.teamId] : trace.agentId ? ["Agent", trace.agentId] : null;
  return (
    <main className="mx-auto max-w-7xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/traces", label: "Traces" }} current={trace.traceId} />
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="font-mono text-2xl font-semibold break-all" data-testid="trace-name">
          {trace.name}
        </h1>
        <StatusBadge status={trace.status} />
        <span className="text-sm text-slate-600 dark:text-slate-400" data-testid="trace-duration">
          {trace.duration}
        </span>
        {trace.roots > 1 && <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900 dark:bg-amber-900/60 dark:text-amber-100">{trace.roots} runs: paused and continued</span>}
      </header>
      <dl className="mb-4 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 rounded border border-slate-200 bg-white p-4 text-sm sm:grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)] lg:grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)_auto_minmax(0,1fr)] dark:border-slate-800 dark:bg-slate-900">
        <Item label="Run">
          {trace.runId ? (
            <Link className={`${link} font-mono text-xs`} href={`/dashboard/runs/${encodeURIComponent(trace.runId)}${trace.sessionId ? `?session_id=${encodeURIComponent(trace.sessionId)}` : ""}`}>
              {trace.runId}
            </Link>
          ) : (
            "—"
          )}
        </Item>
        <Item label="Session">
          {trace.sessionId ? (
            <Link className={`${link} font-mono text-xs`} href={`/dashboard/sessions/${encodeURIComponent(trace.sessionId)}`}>
              {trace.sessionId}
            </Link>
          ) : (
            "—"
          )}
        </Item>
        <Item label="User">
          {principal.isAdmin && trace.userId ? (
            <Link className={link} href={`/dashboard/traces?user=${encodeURIComponent(trace.userId)}`} title="This user's traces">
              {labelOf(labels, trace.userId)}
            </Link>
          ) : trace.userId ? (
            "you"
          ) : (
            "— (no user)"
          )}
        </Item>
        <Item label={component?.[0] ?? "Agent"}>{component?.[1] ?? "—"}</Item>
        <Item label="Started (UTC)">{formatTraceTime(trace.startTime)}</Item>
        <Item label="Spans">
          {formatCount(trace.totalSpans)}
          {trace.errorCount > 0 && <span className="ml-1 font-medium text-red-700 dark:text-red-300">({formatCount(trace.errorCount)} failed)</span>}
        </Item>
        <Item label="Tokens">
          <span data-testid="trace-tokens">
            {formatCount(trace.tokens.input)} in · {formatCount(trace.tokens.output)} out
          </span>
        </Item>
        <Item label="Cost">
          <span data-testid="trace-cost" title={trace.unpricedModelSpans > 0 ? `${trace.unpricedModelSpans} model call(s) without a price` : undefined}>
            {formatUsd(trace.cost)}
          </span>
        </Item>
      </dl>
      <div className="grid gap-4 md:grid-cols-2">
        <Section title="Input" id="trace-input">
          {trace.input !== null ? <JsonView value={jsonOrText(trace.input)} label="Trace input" /> : <p className="text-sm text-slate-500">(no input)</p>}
        </Section>
        {trace.error !== null ? (
          <Section title="Error" id="trace-error">
            <p role="alert" className="rounded border border-red-300 bg-red-50 p-2 text-sm whitespace-pre-wrap text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
              {trace.error}
            </p>
          </Section>
        ) : (
          <Section title="Output" id="trace-output">
            {trace.output !== null ? <JsonView value={jsonOrText(trace.output)} label="Trace output" /> : <p className="text-sm text-slate-500">(no output)</p>}
          </Section>
        )}
      </div>
      <Section title={`Spans (${trace.totalSpans})`} id="spans">
        <TraceWaterfall timeline={trace} initialSpanId={trace.spans[0]?.id} />
      </Section>
    </main>
  );
}
