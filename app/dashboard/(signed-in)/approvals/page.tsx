import { ApprovalsTable } from "@/components/dashboard/approvals/approvals-table.tsx";
import type { ApprovalRow } from "@/components/dashboard/approvals/approval-row.ts";
import { FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { APPROVAL_STATUSES, listApprovals, type StoredApproval } from "@/lib/db/approvals/approvals.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, listScope, PAGE_SIZE, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";
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

/**
 * Approvals: tool calls waiting for (or decided by) an approver, pending first. A member sees the
 * ones its runs asked for; an admin sees everyone's (or one user's with `?user=`) and approves or
 * rejects pending ones here, which continues the paused run in the background.
 */
export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal } = await requireDashboardSession();
  const params = await searchParams;
  const problems: string[] = [];
  const rawStatus = firstParam(params, "status");
  const status = rawStatus && (APPROVAL_STATUSES as readonly string[]).includes(rawStatus) ? rawStatus : undefined;
  if (rawStatus && !status) problems.push(`status must be one of ${APPROVAL_STATUSES.join(", ")}, got "${rawStatus}"`);
  const rawPage = Number(firstParam(params, "page") ?? "1");
  const page = Number.isInteger(rawPage) && rawPage >= 1 ? rawPage : 1;
  const userFilter = principal.isAdmin ? firstParam(params, "user") : undefined;
  const labels = await userLabels(db, principal);
  const { approvals, totalCount } = await listApprovals(db, { scope: listScope(principal, params), filters: { status }, page, limit: PAGE_SIZE });
  const rows = approvals.map((a) => rowOf(a, (id) => labelOf(labels, id)));
  const pending = rows.some((r) => r.status === "pending");
  const more = page * PAGE_SIZE < totalCount;

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-1 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold">Approvals</h1>
        <LiveRefresh active={pending} intervalMs={5000} />
      </header>
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        {principal.isAdmin
          ? "Tool calls that wait for an approver, pending first. Approving or rejecting one continues its run in the background."
          : "Tool calls of your runs that wait for an admin's approval, and how they were decided. An admin decides; you cannot approve your own."}
      </p>
      <ListProblems problems={problems} />
      <ListFilters action={PATH} sort={undefined} order={undefined}>
        <FilterSelect label="Status" name="status" value={rawStatus} options={APPROVAL_STATUSES.map((s) => ({ value: s, label: s }))} />
        {principal.isAdmin && <UserFilter labels={labels} value={userFilter} />}
      </ListFilters>
      <ApprovalsTable
        rows={rows}
        page={{ page, prev: page > 1 ? String(page - 1) : null, next: more ? String(page + 1) : null, total: { count: totalCount, capped: false } }}
        resolve={resolveApproval}
        canResolve={principal.isAdmin}
      />
    </main>
  );
}
