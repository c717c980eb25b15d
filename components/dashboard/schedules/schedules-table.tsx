"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { listTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import { LocalTime } from "./local-time.tsx";
import { runHref, scheduleHref, type ScheduleRow } from "./schedule-row.ts";
import { EnabledBadge, ScheduleRunStatus } from "./schedule-run-status.tsx";

const helper = createColumnHelper<DashboardTableFeatures, ScheduleRow>();

const link = "text-sky-700 hover:underline dark:text-sky-400";

const base = [
  helper.accessor("name", {
    header: "Name",
    cell: (info) => (
      <Link className={`${link} font-medium`} href={scheduleHref(info.row.original.id)}>
        {info.getValue()}
      </Link>
    ),
  }),
  helper.accessor((s) => s.target.label, {
    id: "target",
    header: "Target",
    cell: (info) => {
      const { target } = info.row.original;
      return target.href ? (
        <Link className={link} href={target.href}>
          {target.label}
        </Link>
      ) : (
        <span className="font-mono text-xs break-all">{target.label}</span>
      );
    },
  }),
  helper.accessor("cron_words", {
    header: "When",
    cell: (info) => (
      <span data-testid="cron-words">
        {info.getValue()}
        <span className="block font-mono text-xs text-slate-500">
          {info.row.original.cron_expr} · {info.row.original.timezone}
        </span>
      </span>
    ),
  }),
  helper.accessor("next_run_at", {
    header: "Next fire (your time)",
    cell: (info) => (info.row.original.enabled ? <LocalTime epoch={info.getValue()} /> : <span className="text-slate-500">— (disabled)</span>),
  }),
  helper.accessor((s) => s.last_run?.status ?? null, {
    id: "last_result",
    header: "Last result",
    cell: (info) => {
      const last = info.row.original.last_run;
      if (!last) return <span className="text-slate-500">never fired</span>;
      return (
        <span className="flex flex-col gap-0.5">
          <span>
            {last.run_id ? (
              <Link href={runHref(last.run_id, last.session_id)} title="Open the run">
                <ScheduleRunStatus status={last.status} />
              </Link>
            ) : (
              <ScheduleRunStatus status={last.status} />
            )}
          </span>
          <span className="text-xs text-slate-500">
            <LocalTime epoch={last.completed_at ?? last.triggered_at} />
          </span>
        </span>
      );
    },
  }),
  helper.accessor("enabled", { header: "Enabled", cell: (info) => <EnabledBadge enabled={info.getValue()} /> }),
];
const created = helper.accessor((s) => s.created_at, { id: "created_at", header: "Created", cell: (info) => <LocalTime epoch={info.getValue()} /> });
const memberColumns = [...base, created];
const adminColumns = [...base, helper.accessor("owner", { header: "User", cell: (info) => info.getValue() ?? "— (shared)" }), created];

export const SchedulesTable = listTable<ScheduleRow>({
  label: "Schedules",
  testId: "schedules-table",
  memberColumns,
  adminColumns,
  rowId: (s) => s.id,
  sortable: ["created_at", "name"],
});
