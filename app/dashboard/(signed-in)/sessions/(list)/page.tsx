import { FilterInput, FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { SessionsTable } from "@/components/dashboard/sessions/sessions-table.tsx";
import { listSessionSummaries, type SessionSummarySort } from "@/lib/db/sessions/session-list.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

/** Sessions: a member's own, an admin's everyone's (with the owner and a user filter). */
export default async function SessionsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const params = await searchParams;
  const paging = pagingFrom(params, ["updated_at", "created_at"], "updated_at");
  const problems = [...paging.problems];
  const componentId = firstParam(params, "agent");
  const typeParam = firstParam(params, "type");
  const sessionType = typeParam && ["agent", "team", "workflow"].includes(typeParam) ? typeParam : undefined;
  if (typeParam && !sessionType) problems.push(`type must be one of agent, team, workflow, got "${typeParam}"`);
  const name = firstParam(params, "q");
  const labels = await userLabels(db, principal);
  const page = await loadList(
    (cursor) =>
      listSessionSummaries(db, {
        scope: listScope(principal, params),
        componentId,
        sessionType,
        name,
        sortBy: paging.sort as SessionSummarySort,
        order: paging.order,
        limit: paging.limit,
        ...cursor,
      }),
    { after: paging.after, before: paging.before },
    problems,
  );
  const rows = page.rows.map((s) => ({ ...s, user_label: labelOf(labels, s.user_id) }));
  const filtered = componentId || sessionType || name || firstParam(params, "user");
  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-4 flex items-center gap-3">
        <h1 className="text-2xl font-semibold">Sessions</h1>
        {principal.isAdmin && <span className="text-sm text-slate-500">everyone&apos;s sessions (you are an admin)</span>}
      </header>
      <ListProblems problems={problems} />
      <ListFilters action="/dashboard/sessions" sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        <FilterInput label="Name contains" name="q" value={name} placeholder="e.g. weather" />
        <FilterSelect
          label="Type"
          name="type"
          value={sessionType}
          options={[
            { value: "agent", label: "Agent sessions" },
            { value: "team", label: "Team sessions" },
            { value: "workflow", label: "Workflow sessions" },
          ]}
        />
        <FilterSelect label="Agent or team" name="agent" value={componentId} options={[...settings.agents, ...settings.teams].map((a) => ({ value: a.id, label: a.name }))} />
        {principal.isAdmin && <UserFilter labels={labels} value={firstParam(params, "user")} />}
      </ListFilters>
      <SessionsTable
        rows={rows}
        showUser={principal.isAdmin}
        sort={{ field: paging.sort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: paging.page }}
        empty={filtered ? "No sessions match these filters." : "No sessions yet. Chat with an agent to start one."}
      />
    </main>
  );
}
