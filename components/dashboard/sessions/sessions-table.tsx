"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import type { SessionSummary } from "@/lib/db/sessions/session-list.ts";
import { formatCount, formatTime } from "../format.ts";
import { listTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";

export type SessionRow = SessionSummary & { user_label: string | null };

const helper = createColumnHelper<DashboardTableFeatures, SessionRow>();

const name = helper.accessor("session_name", {
  header: "Name",
  cell: (info) => (
    <Link className="block max-w-xs truncate text-sky-700 hover:underline dark:text-sky-400" href={`/dashboard/sessions/${encodeURIComponent(info.row.original.session_id)}`}>
      {info.getValue() || <span className="font-mono text-xs">{info.row.original.session_id}</span>}
    </Link>
  ),
});
const agent = helper.accessor("component_id", { header: "Agent", cell: (info) => info.getValue() ?? "—" });
const user = helper.accessor("user_label", { header: "User", cell: (info) => info.getValue() ?? "—" });
const tail = [
  helper.accessor("run_count", { header: "Runs", cell: (info) => formatCount(info.getValue()) }),
  helper.accessor("total_tokens", { header: "Tokens", cell: (info) => formatCount(info.getValue()) }),
  helper.accessor("updated_at", { header: "Updated (UTC)", cell: (info) => <span className="whitespace-nowrap">{formatTime(info.getValue())}</span> }),
  helper.accessor("created_at", { header: "Created (UTC)", cell: (info) => <span className="whitespace-nowrap">{formatTime(info.getValue())}</span> }),
];
const memberColumns = [name, agent, ...tail];
const adminColumns = [name, agent, user, ...tail];
const SORTABLE = ["updated_at", "created_at"];

export const SessionsTable = listTable<SessionRow>({
  label: "Sessions",
  testId: "sessions-table",
  memberColumns,
  adminColumns,
  rowId: (s) => s.session_id,
  sortable: SORTABLE,
});
