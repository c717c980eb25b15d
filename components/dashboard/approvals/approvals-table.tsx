"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { LocalTime } from "../schedules/local-time.tsx";
import { StatusBadge } from "../status-badge.tsx";
import type { TablePage } from "@/lib/http/dashboard/list-view.ts";
import { DataTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import type { UserAction } from "../users/user-action-types.ts";
import { approvalRunHref, type ApprovalRow } from "./approval-row.ts";
import { ResolveApprovalForm } from "./resolve-approval-form.tsx";

const helper = createColumnHelper<DashboardTableFeatures, ApprovalRow>();
const link = "text-sky-700 hover:underline dark:text-sky-400";

const base = [
  helper.accessor("tool_name", {
    header: "Tool call",
    cell: (info) => (
      <span className="flex flex-col gap-0.5">
        <span className="font-mono font-medium">{info.getValue() ?? "—"}</span>
        <code className="max-w-xs text-xs break-all text-slate-600 dark:text-slate-400" data-testid="approval-args">
          {info.row.original.args}
        </code>
      </span>
    ),
  }),
  helper.accessor("status", {
    header: "Status",
    cell: (info) => (
      <span className="flex flex-col items-start gap-0.5">
        <StatusBadge status={info.getValue()} />
        <span className="text-xs text-slate-500">{info.row.original.approval_type === "audit" ? "audit" : "required"}</span>
      </span>
    ),
  }),
  helper.accessor("run_id", {
    header: "Run",
    cell: (info) => (
      <span className="flex flex-col gap-0.5">
        <Link className={`${link} font-mono text-xs`} href={approvalRunHref(info.row.original)}>
          {info.getValue().slice(0, 8)}
        </Link>
        <span className="text-xs text-slate-500">
          {info.row.original.source}
          {info.row.original.run_status ? ` · ${info.row.original.run_status}` : ""}
        </span>
      </span>
    ),
  }),
  helper.accessor("asked_by", { header: "Asked by" }),
  helper.accessor("created_at", {
    header: "Asked",
    cell: (info) => (
      <span className="flex flex-col gap-0.5">
        <LocalTime epoch={info.getValue()} />
        {info.row.original.expires_at !== null && info.row.original.status === "pending" && (
          <span className="text-xs text-slate-500">
            expires <LocalTime epoch={info.row.original.expires_at} />
          </span>
        )}
      </span>
    ),
  }),
];

const decided = (row: ApprovalRow) =>
  row.status === "pending" ? (
    <span className="text-slate-500">waiting for an admin</span>
  ) : (
    <span className="flex flex-col gap-0.5 text-xs">
      <span>{row.resolved_by ? `by ${row.resolved_by}` : "—"}</span>
      {row.resolved_at !== null && <LocalTime epoch={row.resolved_at} />}
      {row.note && <span className="text-slate-600 italic dark:text-slate-400">“{row.note}”</span>}
    </span>
  );

/** The approvals table: admins decide pending ones in place; members see their own and how they were decided. */
export function ApprovalsTable({ rows, page, resolve, canResolve }: { rows: ApprovalRow[]; page: TablePage; resolve: UserAction; canResolve: boolean }) {
  const decision = helper.display({
    id: "decision",
    header: "Decision",
    cell: (info) => {
      const row = info.row.original;
      if (row.status === "pending" && canResolve) return <ResolveApprovalForm action={resolve} approvalId={row.id} toolName={row.tool_name ?? "the call"} />;
      return decided(row);
    },
  });
  return (
    <DataTable
      label="Approvals"
      testId="approvals-table"
      columns={[...base, decision]}
      rows={rows}
      rowId={(r) => r.id}
      sortable={[]}
      sort={{ field: "created_at", order: "desc" }}
      page={page}
      empty="No approvals here. A tool marked with a required approval asks for one when an agent calls it."
    />
  );
}
