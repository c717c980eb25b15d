import { z } from "zod";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { SchedulesTable } from "@/components/dashboard/schedules/schedules-table.tsx";
import { scheduleRowOf } from "@/components/dashboard/schedules/schedule-view.ts";
import { listSchedulePage, SCHEDULE_LIST_SORTS } from "@/lib/db/schedules/schedule-list.ts";
import { oneOf, text } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { firstParam } from "@/lib/http/dashboard/search-params.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/schedules";

const schedules = defineListPage({
  path: PATH,
  filters: z.object({
    q: text({ label: "Name contains", placeholder: "e.g. report", trim: true }),
    enabled: oneOf(["yes", "no"], { label: "State", labels: { yes: "Enabled", no: "Disabled" }, expected: "yes or no" }),
  }),
  sorts: SCHEDULE_LIST_SORTS,
  query: ({ db, scope, filters: { q, enabled }, sort, page }) => listSchedulePage(db, { scope, enabled: enabled === undefined ? undefined : enabled === "yes", search: q, sortBy: sort, ...page }),
});

/**
 * The signed-in user's schedules (an admin's: everyone's, or one user's with `?user=`), filtered
 * by state (`?enabled=yes|no`) and name (`?q=`), sorted and keyset-paginated through the URL.
 */
export default async function SchedulesPage({ searchParams }: ListPageProps) {
  const list = await loadListPage(schedules, { searchParams });
  const rows = list.items.map((item) => scheduleRowOf(item, list.ownerLabel));
  const created = firstParam(list.params, "created");
  return (
    <ListPage
      title="Schedules"
      action={{ href: `${PATH}/new`, label: "New schedule" }}
      description={
        <>
          {list.isAdmin
            ? list.userFilter
              ? `The schedules of ${list.userFilterLabel}.`
              : "Everyone's schedules (you are an admin)."
            : "Agents run on a timetable you set. Only you (and admins) can see these."}
          {!list.session.settings.scheduler.enabled && " The scheduler is turned off on this server: schedules do not fire, and Trigger now is refused."}
        </>
      }
    >
      {created && (
        <p role="status" className="mb-4 rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100">
          Schedule &ldquo;{created}&rdquo; created.
        </p>
      )}
      <ListBody list={list} table={SchedulesTable} rows={rows} empty={{ filtered: "No schedules match these filters.", none: "No schedules yet. Create one to run an agent on a timetable." }} />
    </ListPage>
  );
}
