import { ActionButton } from "@/components/dashboard/action-button.tsx";
import { formatCount } from "@/components/dashboard/format.ts";
import { FilterSelect, ListProblems } from "@/components/dashboard/list/filter-bar.tsx";
import { BreakdownTable } from "@/components/dashboard/metrics/breakdown-table.tsx";
import { DailyChart } from "@/components/dashboard/metrics/daily-chart.tsx";
import { formatUsd } from "@/components/dashboard/metrics/format-usd.ts";
import { RangeForm } from "@/components/dashboard/metrics/range-form.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { loadMetricsSummary, metricsRange } from "@/lib/http/dashboard/metrics-view.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { refreshMetrics } from "./actions.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/metrics";

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="rounded border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900">
      <dt className="text-xs text-slate-500 uppercase">{label}</dt>
      <dd data-testid={testId} className="text-xl font-semibold tabular-nums">
        {value}
      </dd>
    </div>
  );
}

/**
 * Runs, tokens and cost per day over a date range in the URL (`?from=&to=`, or `?days=`), and
 * the range's runs, tokens and cost per agent and per model: a member's own; an admin's every
 * user's (or one user's with `?user=`), with a Refresh and the top users' page.
 */
export default async function MetricsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, user: me } = await requireDashboardSession();
  const params = await searchParams;
  const isAdmin = principal.isAdmin;
  const problems: string[] = [];
  const range = metricsRange(params, problems);
  const userFilter = isAdmin ? firstParam(params, "user") : undefined;
  const [summary, labels] = await Promise.all([loadMetricsSummary(db, principal, { range, user: userFilter }), userLabels(db, principal)]);
  const people = [
    ...[...labels].map(([id, email]) => ({ value: id, label: id === me.id ? `${email} (you)` : email })),
    ...(userFilter && !labels.has(userFilter) ? [{ value: userFilter, label: userFilter }] : []),
  ];
  const { totals } = summary;
  const empty = totals.runs === 0 && totals.sessions === 0 && totals.tokens === 0 && summary.models.length === 0;

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-1 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Metrics</h1>
        {isAdmin && (
          <span className="flex items-center gap-3 text-sm">
            <a className="underline" href={`${PATH}/users?${new URLSearchParams({ from: range.from, to: range.to }).toString()}`}>
              Top users
            </a>
            <ActionButton action={refreshMetrics} fields={{}} label="Refresh now" pendingLabel="Refreshing…" />
          </span>
        )}
      </header>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">
        {isAdmin
          ? userFilter
            ? `${labels.get(userFilter) ?? userFilter}'s runs, tokens and cost, ${range.from} to ${range.to} (UTC).`
            : `Everyone's runs, tokens and cost, ${range.from} to ${range.to} (UTC; you are an admin).`
          : `Your runs, tokens and cost, ${range.from} to ${range.to} (UTC). Only you (and admins) can see these.`}{" "}
        Runs and tokens count by the day a session started, cost by the day each run ran; figures refresh at least once a minute when viewed.
      </p>

      <ListProblems problems={problems} />
      <RangeForm action={PATH} range={range}>
        {isAdmin && <FilterSelect label="User" name="user" value={userFilter} options={people} />}
      </RangeForm>

      <dl className="mb-4 grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat label="Runs" value={formatCount(totals.runs)} testId="total-runs" />
        <Stat label="Sessions" value={formatCount(totals.sessions)} testId="total-sessions" />
        <Stat label="Tokens" value={formatCount(totals.tokens)} testId="total-tokens" />
        <Stat label="Cost" value={formatUsd(totals.cost)} testId="total-cost" />
      </dl>
      {totals.unpriced_runs > 0 && (
        <p className="mb-4 text-sm text-slate-600 dark:text-slate-400" data-testid="unpriced-note">
          {formatCount(totals.unpriced_runs)} run{totals.unpriced_runs === 1 ? "" : "s"} used a model with no price (set one in <code>metrics.prices</code> of agentry.config.ts); their tokens are
          counted, their cost is not.
        </p>
      )}
      {empty && (
        <p className="mb-4 text-sm text-slate-500" data-testid="metrics-empty">
          Nothing in this range yet.{" "}
          <a className="underline" href="/dashboard/agents">
            Chat with an agent
          </a>{" "}
          and the runs show here.
        </p>
      )}

      <div className="grid gap-4 lg:grid-cols-2">
        <Section id="runs-per-day" title="Runs per day">
          <DailyChart days={summary.days} measure="runs" testId="chart-runs" />
        </Section>
        <Section id="tokens-per-day" title="Tokens per day">
          <DailyChart days={summary.days} measure="tokens" testId="chart-tokens" />
        </Section>
      </div>
      <Section id="cost-per-day" title="Cost per day (USD)">
        <DailyChart days={summary.days} measure="cost" testId="chart-cost" />
      </Section>

      <div className="grid gap-4 lg:grid-cols-2">
        <Section id="per-agent" title="Per agent">
          <BreakdownTable rows={summary.agents} heading="Agent" testId="per-agent" empty="No runs in this range." />
        </Section>
        <Section id="per-model" title="Per model">
          <BreakdownTable rows={summary.models} heading="Model" testId="per-model" empty="No runs in this range." />
        </Section>
      </div>
    </main>
  );
}
