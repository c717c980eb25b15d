"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import type { RunSummary } from "@/lib/db/runs/run-list.ts";
import { formatCount, formatDuration, formatTime } from "../format.ts";
import { StatusBadge } from "../status-badge.tsx";
import { listTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";

/** A run row as the table gets it: the summary and, for admins, its owner's email. */
export type RunRow = RunSummary & { user_label: string | null };

const helper = createColumnHelper<DashboardTableFeatures, RunRow>();

const runHref = (run: RunRow) => `/dashboard/runs/${encodeURIComponent(run.run_id)}?session_id=${encodeURIComponent(run.session_id)}`;

const base = [
  helper.accessor("status", { header: "Status", cell: (info) => <StatusBadge status={info.getValue()} /> }),
  helper.accessor("input_preview", {
    header: "Input",
    cell: (info) => (
      <Link className="block max-w-xs truncate text-sky-700 hover:underline dark:text-sky-400" href={runHref(info.row.original)}>
        {info.getValue() || <span className="text-slate-500">(no text input)</span>}
      </Link>
    ),
  }),
  helper.accessor((run) => run.agent_id ?? run.team_id ?? run.workflow_id, {
    id: "agent",
    header: "Agent or team",
    cell: (info) => (
      <span>
        {info.row.original.run_type !== "agent" && <span className="mr-1 rounded bg-slate-100 px-1 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300">{info.row.original.run_type}</span>}
        {info.getValue() ?? "—"}
      </span>
    ),
  }),
];
const tail = [
  helper.accessor("duration", { header: "Duration", cell: (info) => formatDuration(info.getValue()) }),
  helper.accessor("total_tokens", { header: "Tokens", cell: (info) => formatCount(info.getValue()) }),
  helper.accessor("created_at", { header: "Created (UTC)", cell: (info) => <span className="whitespace-nowrap">{formatTime(info.getValue())}</span> }),
];
const memberColumns = [...base, ...tail];
const adminColumns = [...base, helper.accessor("user_label", { header: "User", cell: (info) => info.getValue() ?? "—" }), ...tail];

const RUN_SORTS = ["created_at"];

export const RunsTable = listTable<RunRow>({
  label: "Runs",
  testId: "runs-table",
  memberColumns,
  adminColumns,
  rowId: (run) => run.run_id,
  sortable: RUN_SORTS,
});
