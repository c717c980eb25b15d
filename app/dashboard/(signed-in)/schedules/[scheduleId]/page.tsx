import Link from "next/link";
import { notFound } from "next/navigation";
import { ActionButton } from "@/components/dashboard/action-button.tsx";
import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { ListProblems } from "@/components/dashboard/list/filter-bar.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { DeleteScheduleButton } from "@/components/dashboard/schedules/delete-schedule-button.tsx";
import { LocalTime } from "@/components/dashboard/schedules/local-time.tsx";
import { ScheduleForm } from "@/components/dashboard/schedules/schedule-form.tsx";
import { EnabledBadge } from "@/components/dashboard/schedules/schedule-run-status.tsx";
import { ScheduleRunsTable } from "@/components/dashboard/schedules/schedule-runs-table.tsx";
import { scheduleFormValues, scheduleTarget } from "@/components/dashboard/schedules/schedule-view.ts";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { listScheduleRunPage } from "@/lib/db/schedules/schedule-list.ts";
import { getSchedule } from "@/lib/db/schedules/schedules.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { pathId } from "@/lib/http/dashboard/search-params.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { describeCron } from "@/lib/scheduler/cron.ts";
import { deleteSchedule, disableSchedule, enableSchedule, triggerSchedule, updateSchedule } from "../actions.ts";

export const dynamic = "force-dynamic";

const MISFIRE_WORDS: Record<string, string> = { fire_once: "fire once", skip: "skip", catch_up: "catch up" };

/**
 * One schedule: what it runs and when, enable / disable / trigger now / delete, its definition to
 * edit (with the live cron preview) and its run history, each run linked to the run it started.
 * Another user's schedule is a 404 for a member, as one that does not exist.
 */
export default async function SchedulePage({ params, searchParams }: { params: Promise<{ scheduleId: string }>; searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const scheduleId = pathId((await params).scheduleId);
  if (!scheduleId) notFound();
  const scope = dataScopeFor(principal);
  const schedule = await getSchedule(db, { scope, id: scheduleId });
  if (!schedule) notFound();
  const query = await searchParams;
  const paging = pagingFrom(query, ["created_at"], "created_at");
  const problems = [...paging.problems];
  const history = await loadList(
    (cursor) => listScheduleRunPage(db, { scope, scheduleId: schedule.id, order: paging.order, limit: paging.limit, ...cursor }),
    { after: paging.after, before: paging.before },
    problems,
  );
  const labels = await userLabels(db, principal);
  const target = scheduleTarget(schedule);
  const values = scheduleFormValues(schedule);
  const agents = settings.agents.map((a) => ({ id: a.id, name: a.name }));
  const live = history.rows.some((r) => r.status === "running");
  const fields = { scheduleId: schedule.id };

  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/schedules", label: "Schedules" }} current={schedule.name} />
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="schedule-name">
          {schedule.name}
        </h1>
        <EnabledBadge enabled={schedule.enabled} />
        <LiveRefresh active={live} />
        <div className="ml-auto flex flex-wrap items-start gap-2">
          {schedule.enabled && <ActionButton action={triggerSchedule} fields={fields} label="Trigger now" pendingLabel="Running…" />}
          {schedule.enabled ? (
            <ActionButton action={disableSchedule} fields={fields} label="Disable" pendingLabel="Disabling…" />
          ) : (
            <ActionButton action={enableSchedule} fields={fields} label="Enable" pendingLabel="Enabling…" />
          )}
          <DeleteScheduleButton action={deleteSchedule} scheduleId={schedule.id} />
        </div>
      </header>
      {schedule.description && <p className="mb-4 text-slate-700 dark:text-slate-300">{schedule.description}</p>}
      {!settings.scheduler.enabled && (
        <p role="alert" className="mb-4 rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          The scheduler is turned off on this server: this schedule does not fire, and Trigger now is refused.
        </p>
      )}
      {schedule.disabled_reason && (
        <p role="alert" className="mb-4 rounded border border-red-400 bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
          Disabled by the scheduler: {schedule.disabled_reason}
        </p>
      )}

      <dl className="mb-4 grid grid-cols-1 gap-x-4 gap-y-1 rounded border border-slate-200 bg-white p-4 text-sm sm:grid-cols-[10rem_1fr] dark:border-slate-800 dark:bg-slate-900">
        <dt className="text-slate-500">Runs</dt>
        <dd>
          {target.href ? (
            <Link className="text-sky-700 hover:underline dark:text-sky-400" href={target.href}>
              {target.label}
            </Link>
          ) : (
            target.label
          )}
          <span className="ml-2 font-mono text-xs text-slate-500">
            {schedule.method} {schedule.endpoint}
          </span>
        </dd>
        {schedule.payload && (
          <>
            <dt className="text-slate-500">Payload</dt>
            <dd className="font-mono text-xs break-all">{JSON.stringify(schedule.payload)}</dd>
          </>
        )}
        <dt className="text-slate-500">When</dt>
        <dd>
          <span data-testid="schedule-cron-words">{describeCron(schedule.cron_expr)}</span>
          <span className="ml-2 font-mono text-xs text-slate-500">
            {schedule.cron_expr} · {schedule.timezone}
          </span>
        </dd>
        <dt className="text-slate-500">Next fire (your time)</dt>
        <dd data-testid="schedule-next-fire">{schedule.enabled ? <LocalTime epoch={schedule.next_run_at} weekday /> : "— (disabled)"}</dd>
        <dt className="text-slate-500">Retries</dt>
        <dd>
          {schedule.max_retries === 0 ? "none" : `${schedule.max_retries}, ${schedule.retry_delay_seconds} s apart`}; timeout {schedule.timeout_seconds} s
        </dd>
        <dt className="text-slate-500">Missed fires</dt>
        <dd>
          {MISFIRE_WORDS[schedule.misfire_policy] ?? schedule.misfire_policy}
          {schedule.misfire_policy === "catch_up" && ` (at most ${schedule.catch_up_limit})`}; overlap {schedule.allow_overlap ? "allowed" : "not allowed"}
          {schedule.jitter_seconds > 0 && `; jitter up to ${schedule.jitter_seconds} s`}
        </dd>
        {principal.isAdmin && (
          <>
            <dt className="text-slate-500">User</dt>
            <dd>{labelOf(labels, schedule.user_id) ?? "— (shared)"}</dd>
          </>
        )}
        {schedule.managed_by && (
          <>
            <dt className="text-slate-500">Managed by</dt>
            <dd>{schedule.managed_by}</dd>
          </>
        )}
        <dt className="text-slate-500">Created</dt>
        <dd>
          <LocalTime epoch={schedule.created_at} />
        </dd>
      </dl>

      <Section title="Run history" id="run-history">
        <ListProblems problems={problems} />
        <ScheduleRunsTable
          rows={history.rows}
          sort={{ field: paging.sort, order: paging.order }}
          page={{ next: history.next, prev: history.prev, total: history.total, page: problems.length > paging.problems.length ? 1 : paging.page }}
        />
      </Section>

      <Section title="Edit" id="edit-schedule">
        <ScheduleForm action={updateSchedule} agents={agents} initial={values} scheduleId={schedule.id} allowEndpoint={principal.isAdmin || values.target === "endpoint"} submitLabel="Save changes" />
      </Section>
    </main>
  );
}
