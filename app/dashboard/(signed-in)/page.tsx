import { formatCount, formatTime } from "@/components/dashboard/format.ts";
import { DailyChart } from "@/components/dashboard/metrics/daily-chart.tsx";
import { formatUsd } from "@/components/dashboard/metrics/format-usd.ts";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { StatusBadge } from "@/components/dashboard/status-badge.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { listRunSummaries } from "@/lib/db/runs/run-list.ts";
import { dashboardSystemStatus, requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { loadOwnRecentMetrics } from "@/lib/http/dashboard/metrics-view.ts";

export const dynamic = "force-dynamic";

const RECENT_RUNS = 5;

/** What is going on: the signed-in user's latest runs (live while any is unsettled), the agents, the installation. */
export default async function DashboardHome() {
  const { settings, db, principal, user } = await requireDashboardSession();
  const status = await dashboardSystemStatus();
  // The user's own runs, admins included: the workspace pages show admins everyone's.
  const [recent, week] = await Promise.all([
    listRunSummaries(db, { scope: dataScopeFor(principal, principal.isAdmin ? user.id : undefined), limit: RECENT_RUNS }),
    loadOwnRecentMetrics(db, principal, user.id, 7),
  ]);
  const live = recent.rows.some((r) => r.status === "PENDING" || r.status === "RUNNING");
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <header className="mb-6 flex items-center justify-between">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <nav aria-label="API" className="flex gap-4 text-sm">
          <a className="underline" href="/docs">
            API docs
          </a>
          <a className="underline" href="/health">
            Health
          </a>
        </nav>
      </header>
      <Section
        id="recent"
        title="Your recent runs"
        actions={
          <span className="flex items-center gap-3">
            <LiveRefresh active={live} />
            <a className="text-sm underline" href="/dashboard/runs">
              All runs
            </a>
          </span>
        }
      >
        {recent.rows.length === 0 ? (
          <p className="text-sm text-slate-500">
            No runs yet.{" "}
            <a className="underline" href="/dashboard/agents">
              Chat with an agent
            </a>{" "}
            to start one.
          </p>
        ) : (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="recent-runs">
            {recent.rows.map((run) => (
              <li key={run.run_id} className="flex items-center gap-3 py-2 text-sm">
                <StatusBadge status={run.status} />
                <a
                  className="min-w-0 flex-1 truncate text-sky-700 hover:underline dark:text-sky-400"
                  href={`/dashboard/runs/${encodeURIComponent(run.run_id)}?session_id=${encodeURIComponent(run.session_id)}`}
                >
                  {run.input_preview || "(no text input)"}
                </a>
                <span className="hidden text-slate-500 sm:inline">{run.agent_id}</span>
                <span className="whitespace-nowrap text-slate-500">{formatTime(run.created_at)}</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section
        id="last-7-days"
        title="Your last 7 days"
        actions={
          <a className="text-sm underline" href="/dashboard/metrics?days=7">
            Metrics
          </a>
        }
      >
        <p className="mb-2 text-sm text-slate-600 dark:text-slate-400" data-testid="week-totals">
          {formatCount(week.totals.runs)} runs · {formatCount(week.totals.tokens)} tokens · {formatUsd(week.totals.cost)}
        </p>
        <DailyChart days={week.days} measure="runs" testId="chart-week-runs" height={160} />
      </Section>
      <Section id="agents" title="Agents">
        <ul className="divide-y divide-slate-200 dark:divide-slate-800">
          {status.agents.map((agent) => (
            <li key={agent.id} className="flex justify-between py-2">
              <span>
                {agent.name} <span className="text-slate-500">({agent.id})</span>
              </span>
              <span className="text-sm text-slate-600 dark:text-slate-400">{agent.model ?? "no model configured"}</span>
            </li>
          ))}
        </ul>
      </Section>
      <Section id="system" title="System">
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Database</dt>
          <dd data-testid="database">{status.database.dialect ? `${status.database.dialect} — ${status.database.location}` : "unavailable"}</dd>
          <dt className="text-slate-500">Auth mode</dt>
          <dd>{status.authMode}</dd>
          <dt className="text-slate-500">OS id</dt>
          <dd>{settings.osId}</dd>
        </dl>
      </Section>
    </main>
  );
}
