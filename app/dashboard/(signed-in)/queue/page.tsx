import { requeueJob } from "@/app/dashboard/_actions/queue.ts";
import { cancelRun } from "@/app/dashboard/_actions/runs.ts";
import { cancelEval } from "../evals/actions.ts";
import { FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { JobsTable } from "@/components/dashboard/queue/jobs-table.tsx";
import { QueueLive } from "@/components/dashboard/queue/queue-live.tsx";
import { JOB_STATUSES, type JobStatus } from "@/lib/db/jobs/job-row.ts";
import { listJobPage } from "@/lib/db/jobs/job-list-page.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { allParams, firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { queueSnapshot } from "@/lib/http/dashboard/queue-snapshot.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

/**
 * Background work: the durable queue's jobs (a member's own, an admin's everyone's), or — when the
 * queue is not durable — the background runs this server holds in memory.
 */
export default async function QueuePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const params = await searchParams;
  const scope = listScope(principal, params);
  const user = principal.isAdmin ? firstParam(params, "user") : undefined;
  const feed = `/dashboard/queue-events${user ? `?user=${encodeURIComponent(user)}` : ""}`;
  const snapshot = await queueSnapshot(db, settings, scope);
  if (!snapshot.durable) {
    return (
      <main className="mx-auto max-w-6xl p-4 md:p-6">
        <h1 className="mb-2 text-2xl font-semibold">Queue</h1>
        <p role="note" data-testid="durable-off" className="mb-4 rounded border border-slate-300 bg-slate-50 p-3 text-sm dark:border-slate-700 dark:bg-slate-900">
          Durable mode is off: background runs execute in the server that accepted them and are lost if it stops. Set <code>queue.durable</code> (or <code>AGENTRY_QUEUE_DURABLE=true</code>) to keep
          them in the database. Below are this server&apos;s background runs
          {principal.isAdmin ? " (everyone's)" : " (yours)"}.
        </p>
        <QueueLive initial={snapshot} feed={feed} />
      </main>
    );
  }
  const paging = pagingFrom(params, ["created_at"], "created_at");
  const problems = [...paging.problems];
  const statuses = allParams(params, "status").filter((s): s is JobStatus => {
    if ((JOB_STATUSES as readonly string[]).includes(s)) return true;
    problems.push(`status must be one of ${JOB_STATUSES.join(", ")}, got "${s}"`);
    return false;
  });
  const labels = await userLabels(db, principal);
  const page = await loadList((cursor) => listJobPage(db, { scope, statuses, order: paging.order, limit: paging.limit, ...cursor }), { after: paging.after, before: paging.before }, problems);
  // The payload (the run's input, dependencies, attachments) never goes to the browser.
  const rows = page.rows.map(({ payload: _payload, ...job }) => ({ ...job, user_label: labelOf(labels, job.user_id), is_admin: principal.isAdmin }));
  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-4 flex items-center gap-3">
        <h1 className="text-2xl font-semibold">Queue</h1>
        <span className="text-sm text-slate-500">{principal.isAdmin ? "everyone's jobs (you are an admin)" : "your background runs"}</span>
      </header>
      <QueueLive initial={snapshot} feed={feed} />
      <ListProblems problems={problems} />
      <ListFilters action="/dashboard/queue" sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        <FilterSelect label="Status" name="status" value={statuses[0]} options={JOB_STATUSES.map((s) => ({ value: s, label: s }))} />
        {principal.isAdmin && <UserFilter labels={labels} value={user} />}
      </ListFilters>
      <JobsTable
        actions={{ cancel: cancelRun, cancelEval, requeue: requeueJob }}
        rows={rows}
        showUser={principal.isAdmin}
        sort={{ field: paging.sort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: paging.page }}
        empty={statuses.length > 0 || user ? "No jobs match these filters." : "No background jobs yet. Submit a run with background=true to see it here."}
      />
    </main>
  );
}
