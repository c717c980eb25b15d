import { z } from "zod";
import { ApprovalsTable } from "@/components/dashboard/approvals/approvals-table.tsx";
import type { ApprovalRow } from "@/components/dashboard/approvals/approval-row.ts";
import { FilterBar, ListProblems } from "@/components/dashboard/list/filter-bar.tsx";
import { ListPage } from "@/components/dashboard/list/list-page.tsx";
import { APPROVAL_STATUSES, listApprovals, type StoredApproval } from "@/lib/db/approvals/approvals.ts";
import { oneOf } from "@/lib/http/dashboard/list-filters.ts";
import { readListFilters, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { firstParam, PAGE_SIZE } from "@/lib/http/dashboard/list-params.ts";
import { resolveApproval } from "./actions.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/approvals";

function rowOf(a: StoredApproval, label: (id: string | null) => string | null): ApprovalRow {
  const note = a.resolution_data && typeof a.resolution_data.note === "string" ? a.resolution_data.note : null;
  return {
    id: a.id,
    status: a.status,
    approval_type: a.approval_type,
    tool_name: a.tool_name,
    args: JSON.stringify(a.tool_args ?? {}),
    source: `${a.source_type} ${a.source_name ?? a.agent_id ?? a.team_id ?? a.workflow_id ?? ""}`.trim(),
    run_id: a.run_id,
    session_id: a.session_id,
    run_status: a.run_status,
    asked_by: label(a.user_id) ?? a.user_id ?? "— (no user)",
    created_at: a.created_at,
    expires_at: a.expires_at,
    resolved_by: a.resolved_by ? (label(a.resolved_by) ?? a.resolved_by) : null,
    resolved_at: a.resolved_at,
    note,
  };
}

const filters = z.object({ status: oneOf(APPROVAL_STATUSES, { label: "Status" }) });

/**
 * Approvals: tool calls waiting for (or decided by) an approver, pending first. A member sees the
 * ones its runs asked for; an admin sees everyone's (or one user's with `?user=`) and approves or
 * rejects pending ones here, which continues the paused run in the background. The list's own
 * order (pending first) is paged by number (`?page=`), not by cursor.
 */
export default async function ApprovalsPage({ searchParams }: ListPageProps) {
  const list = await readListFilters(PATH, filters, { searchParams });
  const rawPage = Number(firstParam(list.params, "page") ?? "1");
  const page = Number.isInteger(rawPage) && rawPage >= 1 ? rawPage : 1;
  const { approvals, totalCount } = await listApprovals(list.session.db, { scope: list.scope, filters: { status: list.filters.status }, page, limit: PAGE_SIZE });
  const rows = approvals.map((a) => rowOf(a, list.ownerLabel));
  const more = page * PAGE_SIZE < totalCount;

  return (
    <ListPage
      title="Approvals"
      live={rows.some((r) => r.status === "pending")}
      liveIntervalMs={5000}
      description={
        list.isAdmin
          ? "Tool calls that wait for an approver, pending first. Approving or rejecting one continues its run in the background."
          : "Tool calls of your runs that wait for an admin's approval, and how they were decided. An admin decides; you cannot approve your own."
      }
    >
      <ListProblems problems={list.problems} />
      <FilterBar bar={{ ...list.bar, sort: undefined, order: undefined }} />
      <ApprovalsTable
        rows={rows}
        page={{ page, prev: page > 1 ? String(page - 1) : null, next: more ? String(page + 1) : null, total: { count: totalCount, capped: false }, numbered: true }}
        resolve={resolveApproval}
        canResolve={list.isAdmin}
      />
    </ListPage>
  );
}
