import Link from "next/link";
import { createServiceAccount, revokeServiceAccount } from "@/app/dashboard/_actions/service-accounts.ts";
import { RevokeServiceAccountButton } from "@/components/dashboard/admin/revoke-service-account-button.tsx";
import { ServiceAccountCreateForm } from "@/components/dashboard/admin/service-account-create-form.tsx";
import { formatTime } from "@/components/dashboard/format.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { listServiceAccounts, type StoredServiceAccount } from "@/lib/db/service-accounts/service-accounts.ts";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";
import { Section } from "@/components/dashboard/section.tsx";

export const dynamic = "force-dynamic";

const PAGE_SIZE = 50;
const PATH = "/dashboard/admin/service-accounts";
const pager = "rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800";

function status(account: StoredServiceAccount, now: number): { label: string; since?: number } {
  if (account.revoked_at !== null) return { label: "revoked", since: account.revoked_at };
  if (account.expires_at !== null && account.expires_at <= now) return { label: "expired", since: account.expires_at };
  return { label: "active" };
}

/** Admins only (members get a 404): every service account, newest first, revoked ones included. */
export default async function AdminServiceAccountsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal } = await requireDashboardAdmin();
  const page = Math.max(1, Number.parseInt(firstParam(await searchParams, "page") ?? "1", 10) || 1);
  const { accounts, totalCount } = await listServiceAccounts(db, {
    scope: dataScopeFor(principal),
    includeRevoked: true,
    page,
    limit: PAGE_SIZE,
    sortBy: "created_at",
    sortOrder: "desc",
  });
  const now = Math.floor(Date.now() / 1000);
  const pages = Math.max(1, Math.ceil(totalCount / PAGE_SIZE));
  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <h1 className="mb-1 text-2xl font-semibold">Service accounts</h1>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">
        API credentials for programs: each has a bearer token (<code>agno_pat_…</code>) limited to the scopes granted here. Its data is its own, seen by no one else but admins.
      </p>

      <Section id="create-account" title="Create a service account">
        <ServiceAccountCreateForm action={createServiceAccount} />
      </Section>

      <Section id="accounts" title={<>Accounts ({totalCount})</>}>
        {totalCount === 0 ? (
          <p className="text-sm text-slate-500">None yet. Create one above to give a program access to the API.</p>
        ) : accounts.length === 0 ? (
          <p role="alert" className="text-sm text-slate-600 dark:text-slate-400">
            There is no page {page}: the accounts fit on {pages}.{" "}
            <Link className="underline" href={PATH}>
              First page
            </Link>
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-slate-500">
                <tr>
                  <th className="py-2 pr-3 font-medium">Name</th>
                  <th className="py-2 pr-3 font-medium">Scopes</th>
                  <th className="hidden py-2 pr-4 font-medium whitespace-nowrap md:table-cell">Created (UTC)</th>
                  <th className="hidden py-2 pr-4 font-medium whitespace-nowrap md:table-cell">Last used</th>
                  <th className="hidden py-2 pr-4 font-medium md:table-cell">Expires</th>
                  <th className="py-2 font-medium">Status</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
                {accounts.map((account) => {
                  const { label, since } = status(account, now);
                  const times = {
                    created: formatTime(account.created_at),
                    used: account.last_used_at === null ? "never" : formatTime(account.last_used_at),
                    expires: account.expires_at === null ? "never" : formatTime(account.expires_at),
                  };
                  return (
                    <tr key={account.id} data-testid={`service-account-row-${account.name}`} className="align-top">
                      <td className="py-2 pr-3">
                        <span className="font-medium">{account.name}</span>
                        {account.token_prefix && <span className="block font-mono text-xs text-slate-500">{account.token_prefix}…</span>}
                        {/* Phones have no room for the time columns: the same times, under the name. */}
                        <span className="mt-1 block text-xs text-slate-500 md:hidden">
                          created {times.created} · last used {times.used} · expires {times.expires}
                        </span>
                      </td>
                      <td className="py-2 pr-3">
                        <ul className="flex max-w-72 flex-wrap gap-1" aria-label={`Scopes of ${account.name}`}>
                          {account.scopes.map((entry) => (
                            <li
                              key={`${entry.effect}:${entry.scope}`}
                              className={`rounded px-1.5 py-0.5 font-mono text-xs ${
                                entry.effect === "deny" ? "bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200"
                              }`}
                            >
                              {entry.effect === "deny" ? `deny ${entry.scope}` : entry.scope}
                            </li>
                          ))}
                        </ul>
                      </td>
                      <td className="hidden py-2 pr-4 whitespace-nowrap md:table-cell">{times.created}</td>
                      <td className="hidden py-2 pr-4 whitespace-nowrap md:table-cell">{times.used}</td>
                      <td className="hidden py-2 pr-4 whitespace-nowrap md:table-cell">{times.expires}</td>
                      <td className="py-2">
                        <span className={since === undefined ? "" : "text-slate-500"}>
                          {label}
                          {since !== undefined && <span className="block text-xs">{formatTime(since)}</span>}
                        </span>
                        {account.revoked_at === null && (
                          <div className="mt-1">
                            <RevokeServiceAccountButton accountId={account.id} name={account.name} action={revokeServiceAccount} />
                          </div>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        {pages > 1 && (
          <nav aria-label="Service account pages" className="mt-3 flex items-center justify-end gap-3 text-sm">
            {page > 1 && (
              <Link className={pager} href={`${PATH}?page=${page - 1}`}>
                ← Previous
              </Link>
            )}
            <span>
              Page {page} of {pages}
            </span>
            {page < pages && (
              <Link className={pager} href={`${PATH}?page=${page + 1}`}>
                Next →
              </Link>
            )}
          </nav>
        )}
      </Section>
    </main>
  );
}
