"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import type { StoredScheduleRun } from "@/lib/db/schedules/schedules.ts";
import type { TablePage } from "@/lib/http/dashboard/list-view.ts";
import { DataTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import { LocalTime } from "./local-time.tsx";
import { runHref } from "./schedule-row.ts";
import { ScheduleRunStatus } from "./schedule-run-status.tsx";

const helper = createColumnHelper<DashboardTableFeatures, StoredScheduleRun>();

const columns = [
  helper.accessor("status", { header: "Status", cell: (info) => <ScheduleRunStatus status={info.getValue()} /> }),
  helper.accessor((r) => r.created_at, { id: "created_at", header: "Started", cell: (info) => <LocalTime epoch={info.row.original.triggered_at ?? info.getValue()} /> }),
  helper.accessor("completed_at", { header: "Completed", cell: (info) => <LocalTime epoch={info.getValue()} empty={info.row.original.status === "running" ? "running…" : "—"} /> }),
  helper.accessor("scheduled_for", {
    header: "Fired for",
    cell: (info) => (info.getValue() === null ? <span className="text-slate-500">trigger (manual)</span> : <LocalTime epoch={info.getValue()} />),
  }),
  helper.accessor("attempt", { header: "Attempt" }),
  helper.accessor("run_id", {
    header: "Run",
    cell: (info) => {
      const runId = info.getValue();
      if (!runId) return <span className="text-slate-500">—</span>;
      return (
        <Link data-testid="run-link" className="font-mono text-xs text-sky-700 hover:underline dark:text-sky-400" href={runHref(runId, info.row.original.session_id)}>
          {runId}
        </Link>
      );
    },
  }),
  helper.accessor((r) => r.error ?? (r.status_code !== null && r.status_code >= 400 ? `HTTP ${r.status_code}` : null), {
    id: "error",
    header: "Error",
    cell: (info) => (info.getValue() ? <span className="block max-w-xs text-xs break-words text-red-700 dark:text-red-300">{info.getValue()}</span> : null),
  }),
];

/** A schedule's runs, newest first, keyset-paginated through the URL; each row links to the run it started. */
export function ScheduleRunsTable({ rows, page, sort }: { rows: StoredScheduleRun[]; page: TablePage; sort: { field: string; order: "asc" | "desc" } }) {
  return (
    <DataTable
      label="Run history"
      testId="schedule-runs-table"
      columns={columns}
      rows={rows}
      rowId={(r) => r.id}
      sortable={["created_at"]}
      sort={sort}
      page={page}
      empty="No runs yet. The schedule records one at each fire; Trigger now fires it at once."
    />
  );
}
