"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import type { StoredJob } from "@/lib/db/jobs/job-row.ts";
import { formatTime } from "../format.ts";
import { StatusBadge } from "../status-badge.tsx";
import { listTable, type ListTableProps } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import { JobActions, JobActionsContext, type JobActionSet } from "./job-actions.tsx";

/** A job as the table gets it: without its payload (the run's input, which may hold secrets). */
export type JobRow = Omit<StoredJob, "payload"> & { user_label: string | null; is_admin: boolean };

const helper = createColumnHelper<DashboardTableFeatures, JobRow>();

const lead = [
  helper.accessor("status", {
    header: "Status",
    cell: (info) => (
      <span className="flex flex-col gap-1">
        <StatusBadge status={info.getValue()} />
        {info.row.original.cancel_requested_at !== null && info.getValue() !== "cancelled" && <span className="text-xs text-amber-700 dark:text-amber-300">cancel requested</span>}
      </span>
    ),
  }),
  helper.accessor("id", {
    header: "Job",
    // A run job (it has a session) links to its run; a job of another kind has no run page.
    cell: (info) =>
      info.row.original.session_id !== null ? (
        <Link
          className="font-mono text-xs text-sky-700 hover:underline dark:text-sky-400"
          href={`/dashboard/runs/${encodeURIComponent(info.getValue())}?session_id=${encodeURIComponent(info.row.original.session_id)}`}
        >
          {info.getValue().slice(0, 8)}…
        </Link>
      ) : (
        <span className="font-mono text-xs" title={info.getValue()}>
          {info.getValue().slice(0, 8)}…
        </span>
      ),
  }),
  helper.accessor("job_type", { header: "Kind" }),
  helper.accessor("component_id", {
    header: "For",
    cell: (info) => (
      <span className="flex flex-col">
        <span className="text-xs text-slate-500 dark:text-slate-400">{info.row.original.component_type}</span>
        {/* An eval job's subject is its eval run, whose page shows its progress. */}
        {info.row.original.job_type === "eval_run" ? (
          <Link className="font-mono text-xs text-sky-700 hover:underline dark:text-sky-400" href={`/dashboard/evals/${encodeURIComponent(info.getValue())}`}>
            eval {info.getValue().slice(0, 8)}…
          </Link>
        ) : (
          <span>{info.getValue()}</span>
        )}
      </span>
    ),
  }),
];
const user = helper.accessor("user_label", { header: "User", cell: (info) => info.getValue() ?? "—" });
const tail = [
  helper.accessor((job) => `${job.attempt - job.lease_losses}/${job.max_attempts}`, {
    id: "attempts",
    header: "Attempts",
    cell: (info) => (
      <span title="attempts spent / allowed (lost leases do not count)">
        {info.getValue()}
        {info.row.original.lease_losses > 0 && <span className="ml-1 text-xs text-slate-500">+{info.row.original.lease_losses} lost</span>}
      </span>
    ),
  }),
  helper.accessor("locked_by", {
    header: "Lease holder",
    cell: (info) => {
      const job = info.row.original;
      if (!info.getValue()) return "—";
      // A finished job keeps the name of the worker that ran it last; only a live one holds a lease.
      const holding = job.status === "running" || job.status === "paused";
      return (
        <span className={`font-mono text-xs ${holding ? "" : "text-slate-500"}`}>
          {holding ? info.getValue() : `ran on ${info.getValue()}`}
          {holding && <span className="block text-slate-500">since {formatTime(job.locked_at).slice(11)}</span>}
        </span>
      );
    },
  }),
  helper.accessor("error", { header: "Error", cell: (info) => <span className="block max-w-xs text-xs break-words text-red-700 dark:text-red-300">{info.getValue() ?? ""}</span> }),
  helper.accessor("created_at", { header: "Created (UTC)", cell: (info) => <span className="whitespace-nowrap">{formatTime(info.getValue())}</span> }),
  helper.display({ id: "actions", header: "Actions", cell: (info) => <JobActions job={info.row.original} isAdmin={info.row.original.is_admin} /> }),
];
const memberColumns = [...lead, ...tail];
const adminColumns = [...lead, user, ...tail];
const SORTABLE = ["created_at"];

const JobsList = listTable<JobRow>({
  label: "Jobs",
  testId: "jobs-table",
  memberColumns,
  adminColumns,
  rowId: (j) => j.id,
  sortable: SORTABLE,
});

/** The queue's jobs; `actions` are the page's server actions behind each row's buttons. */
export function JobsTable({ actions, ...table }: ListTableProps<JobRow> & { actions: JobActionSet }) {
  return (
    <JobActionsContext.Provider value={actions}>
      <JobsList {...table} />
    </JobActionsContext.Provider>
  );
}
