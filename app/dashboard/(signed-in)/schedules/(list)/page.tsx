import Link from "next/link";
import { FilterInput, FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { SchedulesTable } from "@/components/dashboard/schedules/schedules-table.tsx";
import { scheduleRowOf } from "@/components/dashboard/schedules/schedule-view.ts";
import { listSchedulePage, SCHEDULE_LIST_SORTS, type ScheduleListSort } from "@/lib/db/schedules/schedule-list.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/schedules";
const ENABLED = { yes: true, no: false } as const;

/**
 * The signed-in user's schedules (an admin's: everyone's, or one user's with `?user=`), filtered
 * by state (`?enabled=yes|no`) and name (`?q=`), sorted and keyset-paginated through the URL.
 */
export default async function SchedulesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const params = await searchParams;
  const isAdmin = principal.isAdmin;
  const paging = pagingFrom(params, SCHEDULE_LIST_SORTS, "created_at");
  const problems = [...paging.problems];
  const rawEnabled = firstParam(params, "enabled");
  if (rawEnabled && !(rawEnabled in ENABLED)) problems.push(`enabled must be yes or no, got "${rawEnabled}"`);
  const enabled = rawEnabled === "yes" || rawEnabled === "no" ? ENABLED[rawEnabled] : undefined;
  const search = firstParam(params, "q")?.trim() || undefined;
  const userFilter = isAdmin ? firstParam(params, "user") : undefined;
  const labels = await userLabels(db, principal);
  const page = await loadList(
    (cursor) => listSchedulePage(db, { scope: listScope(principal, params), enabled, search, sortBy: paging.sort as ScheduleListSort, order: paging.order, limit: paging.limit, ...cursor }),
    { after: paging.after, before: paging.before },
    problems,
  );
  const pageNumber = problems.length > paging.problems.length ? 1 : paging.page;
  const rows = page.rows.map((item) => scheduleRowOf(item, (userId) => labelOf(labels, userId)));
  const created = firstParam(params, "created");
  const filtered = Boolean(search || enabled !== undefined || userFilter);

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-1 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold">Schedules</h1>
        <Link href={`${PATH}/new`} className="ml-auto rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
          New schedule
        </Link>
      </header>
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        {isAdmin
          ? userFilter
            ? `The schedules of ${labels.get(userFilter) ?? userFilter}.`
            : "Everyone's schedules (you are an admin)."
          : "Agents run on a timetable you set. Only you (and admins) can see these."}
        {!settings.scheduler.enabled && " The scheduler is turned off on this server: schedules do not fire, and Trigger now is refused."}
      </p>
      {created && (
        <p role="status" className="mb-4 rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100">
          Schedule &ldquo;{created}&rdquo; created.
        </p>
      )}
      <ListProblems problems={problems} />
      <ListFilters action={PATH} sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        <FilterInput label="Name contains" name="q" value={search} placeholder="e.g. report" />
        <FilterSelect
          label="State"
          name="enabled"
          value={rawEnabled}
          options={[
            { value: "yes", label: "Enabled" },
            { value: "no", label: "Disabled" },
          ]}
        />
        {isAdmin && <UserFilter labels={labels} value={userFilter} />}
      </ListFilters>
      <SchedulesTable
        rows={rows}
        showUser={isAdmin}
        sort={{ field: paging.sort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: pageNumber }}
        empty={filtered ? "No schedules match these filters." : "No schedules yet. Create one to run an agent on a timetable."}
      />
    </main>
  );
}
