import { z } from "zod";
import { requeueJob } from "@/app/dashboard/_actions/queue.ts";
import { cancelRun } from "@/app/dashboard/_actions/runs.ts";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { JobsTable } from "@/components/dashboard/queue/jobs-table.tsx";
import { QueueLive } from "@/components/dashboard/queue/queue-live.tsx";
import { JOB_STATUSES } from "@/lib/db/jobs/job-row.ts";
import { listJobPage } from "@/lib/db/jobs/job-list-page.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { someOf } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { firstParam, listScope } from "@/lib/http/dashboard/list-params.ts";
import { queueSnapshot } from "@/lib/http/dashboard/queue-snapshot.ts";
import { cancelEval } from "../evals/actions.ts";

export const dynamic = "force-dynamic";

const jobs = defineListPage({
  path: "/dashboard/queue",
  filters: z.object({ status: someOf(JOB_STATUSES, { label: "Status" }) }),
  sorts: ["created_at"],
  query: ({ db, scope, filters, page }) => listJobPage(db, { scope, statuses: filters.status, ...page }),
});

/**
 * Background work: the durable queue's jobs (a member's own, an admin's everyone's), or — when the
 * queue is not durable — the background runs this server holds in memory.
 */
export default async function QueuePage({ searchParams }: ListPageProps) {
  const { db, principal, settings } = await requireDashboardSession();
  const params = await searchParams;
  const user = principal.isAdmin ? firstParam(params, "user") : undefined;
  const feed = `/dashboard/queue-events${user ? `?user=${encodeURIComponent(user)}` : ""}`;
  const snapshot = await queueSnapshot(db, settings, listScope(principal, params));
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
  const list = await loadListPage(jobs, { searchParams });
  // The payload (the run's input, dependencies, attachments) never goes to the browser.
  const rows = list.items.map(({ payload: _payload, ...job }) => ({ ...job, user_label: list.ownerLabel(job.user_id), is_admin: list.isAdmin }));
  return (
    <ListPage title="Queue" note={list.isAdmin ? "everyone's jobs (you are an admin)" : "your background runs"}>
      <QueueLive initial={snapshot} feed={feed} />
      <ListBody
        list={list}
        table={JobsTable}
        tableProps={{ actions: { cancel: cancelRun, cancelEval, requeue: requeueJob } }}
        rows={rows}
        empty={{ filtered: "No jobs match these filters.", none: "No background jobs yet. Submit a run with background=true to see it here." }}
      />
    </ListPage>
  );
}
