import { formatCount } from "@/components/dashboard/format.ts";
import { ListProblems } from "@/components/dashboard/list/filter-bar.tsx";
import { formatUsd } from "@/components/dashboard/metrics/format-usd.ts";
import { RangeForm } from "@/components/dashboard/metrics/range-form.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";
import { loadTopUsers, metricsRange } from "@/lib/http/dashboard/metrics-view.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";
import type { TopUsersSort } from "@/lib/metrics/metrics-summary.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/metrics/users";
const SORTS: { by: TopUsersSort; label: string }[] = [
  { by: "runs", label: "Runs" },
  { by: "tokens", label: "Tokens" },
  { by: "cost", label: "Cost" },
];

/** Admins only (members get a 404): the users with the most runs, tokens or cost (`?by=`) over the URL's range. */
export default async function TopUsersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, user: me } = await requireDashboardAdmin();
  const params = await searchParams;
  const problems: string[] = [];
  const range = metricsRange(params, problems);
  const requested = firstParam(params, "by");
  const by: TopUsersSort = SORTS.some((s) => s.by === requested) ? (requested as TopUsersSort) : "runs";
  if (requested && requested !== by) problems.push(`by must be runs, tokens or cost, got "${requested}"`);
  const [users, labels] = await Promise.all([loadTopUsers(db, principal, { range, by }), userLabels(db, principal)]);
  const link = (sort: TopUsersSort) => `${PATH}?${new URLSearchParams({ from: range.from, to: range.to, by: sort }).toString()}`;
  const cell = "px-2 py-1.5 text-right tabular-nums";

  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <h1 className="mb-1 text-2xl font-semibold">Top users</h1>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">
        Who used the agents most, {range.from} to {range.to} (UTC).{" "}
        <a className="underline" href={`/dashboard/metrics?${new URLSearchParams({ from: range.from, to: range.to }).toString()}`}>
          Back to metrics
        </a>
      </p>
      <ListProblems problems={problems} />
      <RangeForm action={PATH} range={range} keep={{ by }} />
      <Section
        id="top-users"
        title={`By ${by}`}
        actions={
          <nav aria-label="Sort" className="flex gap-3 text-sm">
            {SORTS.map((s) => (
              <a key={s.by} href={link(s.by)} aria-current={s.by === by ? "page" : undefined} className={s.by === by ? "font-semibold" : "underline"}>
                {s.label}
              </a>
            ))}
          </nav>
        }
      >
        {users.length === 0 ? (
          <p className="text-sm text-slate-500">No usage in this range.</p>
        ) : (
          <table data-testid="top-users" className="w-full text-sm">
            <thead className="text-left text-xs text-slate-500 uppercase">
              <tr>
                <th scope="col" className="px-2 py-1.5">
                  User
                </th>
                <th scope="col" className={cell}>
                  Runs
                </th>
                <th scope="col" className={cell}>
                  Sessions
                </th>
                <th scope="col" className={cell}>
                  Tokens
                </th>
                <th scope="col" className={cell}>
                  Cost
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
              {users.map((u) => (
                <tr key={u.user_id ?? ""} data-testid="top-user">
                  <th scope="row" className="px-2 py-1.5 text-left font-normal">
                    {u.user_id === null ? (
                      <span className="text-slate-500">(no user)</span>
                    ) : (
                      <a className="text-sky-700 hover:underline dark:text-sky-400" href={`/dashboard/metrics?${new URLSearchParams({ from: range.from, to: range.to, user: u.user_id }).toString()}`}>
                        {u.user_id === me.id ? `${labelOf(labels, u.user_id)} (you)` : labelOf(labels, u.user_id)}
                      </a>
                    )}
                  </th>
                  <td className={cell}>{formatCount(u.runs)}</td>
                  <td className={cell}>{formatCount(u.sessions)}</td>
                  <td className={cell}>{formatCount(u.tokens)}</td>
                  <td className={cell}>{formatUsd(u.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </main>
  );
}
