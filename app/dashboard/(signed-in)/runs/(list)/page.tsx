import { FilterInput, FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { RunsTable } from "@/components/dashboard/runs/runs-table.tsx";
import { listRunSummaries } from "@/lib/db/runs/run-list.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { allParams, dayParam, firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

const STATUSES = ["PENDING", "RUNNING", "COMPLETED", "PAUSED", "CANCELLED", "ERROR"];
const TYPES = [
  { value: "agent", label: "Agent runs" },
  { value: "team", label: "Team runs" },
  { value: "workflow", label: "Workflow runs" },
];

/** Runs across sessions: a member's own, an admin's everyone's (filterable by user). */
export default async function RunsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const params = await searchParams;
  const paging = pagingFrom(params, ["created_at"], "created_at");
  const problems = [...paging.problems];
  const statuses = allParams(params, "status").filter((s) => {
    if (STATUSES.includes(s)) return true;
    problems.push(`status must be one of ${STATUSES.join(", ")}, got "${s}"`);
    return false;
  });
  const createdFrom = dayParam(params, "from", problems);
  const createdTo = dayParam(params, "to", problems, { endOfDay: true });
  const agentId = firstParam(params, "agent");
  const runType = firstParam(params, "type");
  if (runType && !TYPES.some((t) => t.value === runType)) problems.push(`type must be one of agent, team, workflow, got "${runType}"`);
  const type = runType && TYPES.some((t) => t.value === runType) ? runType : undefined;
  const labels = await userLabels(db, principal);
  const page = await loadList(
    (cursor) => listRunSummaries(db, { scope: listScope(principal, params), statuses, agentId, runType: type, createdFrom, createdTo, order: paging.order, limit: paging.limit, ...cursor }),
    { after: paging.after, before: paging.before },
    problems,
  );
  const rows = page.rows.map((run) => ({ ...run, user_label: labelOf(labels, run.user_id) }));
  const live = rows.some((r) => r.status === "PENDING" || r.status === "RUNNING");
  const filtered = statuses.length > 0 || agentId || type || createdFrom !== undefined || createdTo !== undefined || firstParam(params, "user");
  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-4 flex items-center gap-3">
        <h1 className="text-2xl font-semibold">Runs</h1>
        <LiveRefresh active={live} />
        {principal.isAdmin && <span className="text-sm text-slate-500">everyone&apos;s runs (you are an admin)</span>}
      </header>
      <ListProblems problems={problems} />
      <ListFilters action="/dashboard/runs" sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        <FilterSelect label="Status" name="status" value={statuses[0]} options={STATUSES.map((s) => ({ value: s, label: s }))} />
        <FilterSelect label="Type" name="type" value={type} options={TYPES} />
        <FilterSelect label="Agent or team" name="agent" value={agentId} options={[...settings.agents, ...settings.teams].map((a) => ({ value: a.id, label: a.name }))} />
        <FilterInput label="From" name="from" type="date" value={firstParam(params, "from")} />
        <FilterInput label="To" name="to" type="date" value={firstParam(params, "to")} />
        {principal.isAdmin && <UserFilter labels={labels} value={firstParam(params, "user")} />}
      </ListFilters>
      <RunsTable
        rows={rows}
        showUser={principal.isAdmin}
        sort={{ field: paging.sort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: paging.page }}
        empty={filtered ? "No runs match these filters." : "No runs yet. Start one from an agent's or a team's playground."}
      />
    </main>
  );
}
