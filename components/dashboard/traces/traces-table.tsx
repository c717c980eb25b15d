"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import type { DashboardTraceRow, TraceSessionStatsRow } from "@/lib/db/traces/traces.ts";
import { formatDurationMs } from "@/lib/tracing/trace-tree.ts";
import { formatCount } from "../format.ts";
import { StatusBadge } from "../status-badge.tsx";
import { listTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import { formatTraceTime } from "./trace-format.ts";

/** A trace row as the table gets it: the list's row and, for admins, its owner's email. */
export type TraceListRow = DashboardTraceRow & { user_label: string | null };
/** A session row of the "By session" view. */
export type TraceSessionRow = TraceSessionStatsRow & { user_label: string | null };

const link = "text-sky-700 hover:underline dark:text-sky-400";
const traceHref = (traceId: string) => `/dashboard/traces/${encodeURIComponent(traceId)}`;
const componentOf = (row: { agent_id: string | null; team_id: string | null; workflow_id: string | null }) =>
  row.workflow_id ? `workflow ${row.workflow_id}` : row.team_id ? `team ${row.team_id}` : row.agent_id ? `agent ${row.agent_id}` : "—";
const time = (value: string) => <span className="whitespace-nowrap">{formatTraceTime(value)}</span>;

const traces = createColumnHelper<DashboardTableFeatures, TraceListRow>();

const traceBase = [
  traces.accessor("name", {
    header: "Trace",
    cell: (info) => (
      <span className="block max-w-sm">
        <Link className={`${link} font-mono text-xs`} href={traceHref(info.row.original.trace_id)}>
          {info.getValue()}
        </Link>
        <span className="block truncate text-slate-600 dark:text-slate-400" data-testid="trace-input">
          {info.row.original.input || <span className="text-slate-500">(no input)</span>}
        </span>
      </span>
    ),
  }),
  traces.accessor("status", { header: "Status", cell: (info) => <StatusBadge status={info.getValue()} /> }),
];
const traceTail = [
  traces.accessor("start_time", { header: "Started (UTC)", cell: (info) => time(info.getValue()) }),
  traces.accessor("duration_ms", { header: "Duration", cell: (info) => <span className="whitespace-nowrap">{formatDurationMs(info.getValue())}</span> }),
  traces.accessor("total_spans", {
    header: "Spans",
    cell: (info) => (
      <span className="whitespace-nowrap" data-testid="trace-spans">
        {formatCount(info.getValue())}
        {info.row.original.error_count > 0 && (
          <span className="font-medium text-red-700 dark:text-red-300">
            {" "}
            · {formatCount(info.row.original.error_count)} {info.row.original.error_count === 1 ? "error" : "errors"}
          </span>
        )}
      </span>
    ),
  }),
  traces.accessor((row) => row.input_tokens + row.output_tokens, {
    id: "tokens",
    header: "Tokens (in / out)",
    cell: (info) => (
      <span className="whitespace-nowrap">
        {formatCount(info.row.original.input_tokens)} / {formatCount(info.row.original.output_tokens)}
      </span>
    ),
  }),
];

/** "By run": one trace per row, linked to its trace view. */
export const TracesTable = listTable<TraceListRow>({
  label: "Traces",
  testId: "traces-table",
  memberColumns: [...traceBase, ...traceTail],
  adminColumns: [...traceBase, traces.accessor("user_label", { header: "User", cell: (info) => info.getValue() ?? "—" }), ...traceTail],
  rowId: (row) => row.trace_id,
  sortable: [],
});

const sessions = createColumnHelper<DashboardTableFeatures, TraceSessionRow>();

const sessionBase = [
  sessions.accessor("session_id", {
    header: "Session",
    cell: (info) => (
      <Link className={`${link} font-mono text-xs`} href={`/dashboard/traces?session=${encodeURIComponent(info.getValue())}`} title="This session's traces">
        {info.getValue()}
      </Link>
    ),
  }),
  sessions.accessor((row) => componentOf(row), { id: "component", header: "Agent, team or workflow" }),
];
const sessionTail = [
  sessions.accessor("total_traces", { header: "Traces", meta: { className: "text-right" }, cell: (info) => formatCount(info.getValue()) }),
  sessions.accessor("first_trace_at", { header: "First trace (UTC)", cell: (info) => time(info.getValue()) }),
  sessions.accessor("last_trace_at", { header: "Last trace (UTC)", cell: (info) => time(info.getValue()) }),
  sessions.display({
    id: "open",
    header: "",
    cell: (info) => (
      <Link className={`${link} whitespace-nowrap`} href={`/dashboard/sessions/${encodeURIComponent(info.row.original.session_id)}`}>
        Session page
      </Link>
    ),
  }),
];

/** "By session": one session per row, linked to its traces and its page. */
export const TraceSessionsTable = listTable<TraceSessionRow>({
  label: "Trace sessions",
  testId: "trace-sessions-table",
  memberColumns: [...sessionBase, ...sessionTail],
  adminColumns: [...sessionBase, sessions.accessor("user_label", { header: "User", cell: (info) => info.getValue() ?? "—" }), ...sessionTail],
  rowId: (row) => row.session_id,
  sortable: [],
});
