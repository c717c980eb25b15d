import type { ReactNode } from "react";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { TraceViewTabs, type TraceListView } from "@/components/dashboard/traces/trace-view-tabs.tsx";
import { TraceSessionsTable, TracesTable } from "@/components/dashboard/traces/traces-table.tsx";
import type { DashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { defineNumberedListPage, loadNumberedListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { componentChoices, droppedSpansRecently, TRACE_RUN_FILTERS, TRACE_SESSION_FILTERS, traceRunPage, traceSessionPage } from "@/lib/http/dashboard/trace-views.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/traces";
const byRun = defineNumberedListPage({ path: PATH, filters: TRACE_RUN_FILTERS, query: (query) => traceRunPage(query) });
const bySession = defineNumberedListPage({ path: PATH, filters: TRACE_SESSION_FILTERS, query: (query) => traceSessionPage(query) });

/** What both views filter on, carried from one tab to the other. */
const SHARED = ["component", "since", "from", "to", "user"] as const;
const options = ({ settings }: DashboardSession) => ({ component: componentChoices(settings) });

interface FrameProps {
  view: TraceListView;
  session: DashboardSession;
  params: SearchParams;
  isAdmin: boolean;
  userFilterLabel?: string;
  children: (none: string) => ReactNode;
}

/** The page around either view: title, whose traces, the tabs, the spans dropped lately; `children` gets the empty text. */
async function TracesFrame({ view, session: { db, settings }, params, isAdmin, userFilterLabel, children }: FrameProps) {
  const dropped = await droppedSpansRecently(db);
  const kept: Record<string, string> = {};
  for (const name of SHARED) {
    const value = firstParam(params, name);
    if (value) kept[name] = value;
  }
  const none = settings.tracing.enabled
    ? "No traces yet. Every agent, team and workflow run is recorded as one once it ends."
    : "Tracing is off (tracing.enabled in agentry.config.ts, or AGENTRY_TRACING): runs are not recorded as traces.";
  return (
    <ListPage
      title="Traces"
      description={
        isAdmin
          ? userFilterLabel
            ? `The traces of ${userFilterLabel}.`
            : "Everyone's traces (you are an admin): each run's model calls, tool calls and the runs it started, timed."
          : "Each of your runs as a trace: its model calls, tool calls and the runs it started, timed."
      }
    >
      <TraceViewTabs view={view} kept={kept} />
      {dropped > 0 && (
        <p
          role="status"
          data-testid="dropped-spans"
          className="mb-3 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          {dropped.toLocaleString("en")} {dropped === 1 ? "span" : "spans"} dropped in the last 7 days (the exporter&apos;s queue was full): some traces may be incomplete.
        </p>
      )}
      {children(none)}
    </ListPage>
  );
}

/**
 * Traces: every agent, team and workflow run recorded as spans — a member's own, an admin's
 * everyone's (or one user's with `?user=`) — by run (one trace a row, linked to its trace view) or
 * by session, filtered by time, status, component, session, run and name, in numbered pages.
 */
export default async function TracesPage({ searchParams }: ListPageProps) {
  if (firstParam(await searchParams, "view") === "session") {
    const list = await loadNumberedListPage(bySession, { searchParams, options });
    const rows = list.items.map((row) => ({ ...row, user_label: list.ownerLabel(row.user_id) }));
    return (
      <TracesFrame view="session" {...list}>
        {(none) => <ListBody list={list} table={TraceSessionsTable} rows={rows} hidden={{ view: "session" }} empty={{ filtered: "No sessions have traces matching these filters.", none }} />}
      </TracesFrame>
    );
  }
  const list = await loadNumberedListPage(byRun, { searchParams, options });
  const rows = list.items.map((row) => ({ ...row, user_label: list.ownerLabel(row.user_id) }));
  return (
    <TracesFrame view="run" {...list}>
      {(none) => <ListBody list={list} table={TracesTable} rows={rows} empty={{ filtered: "No traces match these filters.", none }} />}
    </TracesFrame>
  );
}
