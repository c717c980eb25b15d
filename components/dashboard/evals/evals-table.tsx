"use client";

import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { LocalTime } from "../schedules/local-time.tsx";
import { StatusBadge } from "../status-badge.tsx";
import { listTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import { evalHref, type EvalRow } from "./eval-view.ts";

const helper = createColumnHelper<DashboardTableFeatures, EvalRow>();

const link = "text-sky-700 hover:underline dark:text-sky-400";

const base = [
  helper.accessor((r) => r.name ?? "", {
    id: "name",
    header: "Name",
    cell: (info) => (
      <Link className={`${link} font-medium`} href={evalHref(info.row.original.id)}>
        {info.row.original.name ?? <span className="font-mono text-xs">{info.row.original.id.slice(0, 8)}…</span>}
      </Link>
    ),
  }),
  helper.accessor("kind", { header: "Kind" }),
  helper.accessor((r) => r.agent_id ?? r.team_id ?? "", {
    id: "target",
    header: "Target",
    cell: (info) => {
      const { agent_id, team_id } = info.row.original;
      if (agent_id) {
        return (
          <Link className={link} href={`/dashboard/agents/${encodeURIComponent(agent_id)}`}>
            {agent_id}
          </Link>
        );
      }
      return team_id ? `team ${team_id}` : "—";
    },
  }),
  helper.accessor("model", { header: "Model", cell: (info) => <span className="font-mono text-xs">{info.getValue() ?? "—"}</span> }),
  helper.accessor("result", {
    header: "Result",
    cell: (info) => {
      const row = info.row.original;
      return (
        <span className="flex flex-col gap-0.5" data-testid="eval-result">
          <span className="flex items-center gap-1">
            {row.status !== "COMPLETED" && <StatusBadge status={row.status} />}
            <span className={row.passed === false ? "text-red-700 dark:text-red-300" : row.passed ? "text-emerald-700 dark:text-emerald-300" : undefined}>
              {row.status === "COMPLETED" ? row.result : row.status === "ERROR" || row.status === "CANCELLED" ? <span className="text-xs text-slate-500">{row.result}</span> : null}
            </span>
          </span>
          {row.progress && <span className="text-xs text-slate-500">{row.progress}</span>}
        </span>
      );
    },
  }),
];
const created = helper.accessor((r) => r.created_at, { id: "created_at", header: "Created", cell: (info) => <LocalTime epoch={info.getValue()} /> });
const memberColumns = [...base, created];
const adminColumns = [...base, helper.accessor("owner", { header: "User", cell: (info) => info.getValue() ?? "— (shared)" }), created];

export const EvalsTable = listTable<EvalRow>({
  label: "Eval runs",
  testId: "evals-table",
  memberColumns,
  adminColumns,
  rowId: (r) => r.id,
  sortable: ["created_at", "name"],
});
