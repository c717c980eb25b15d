import Link from "next/link";
import { createServiceAccount, revokeServiceAccount } from "@/app/dashboard/_actions/service-accounts.ts";
import { ServiceAccountCreateForm } from "@/components/dashboard/admin/service-account-create-form.tsx";
import { ServiceAccountsTable } from "@/components/dashboard/admin/service-accounts-table.tsx";
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

const pick = ({ id, name, token_prefix, scopes, created_at, last_used_at, expires_at }: StoredServiceAccount) => ({ id, name, token_prefix, scopes, created_at, last_used_at, expires_at });

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
        <ServiceAccountsTable
          rows={accounts.map((a) => ({ ...pick(a), revoked: a.revoked_at !== null, status: status(a, now) }))}
          revoke={revokeServiceAccount}
          empty={
            totalCount === 0 ? (
              "None yet. Create one above to give a program access to the API."
            ) : (
              <p role="alert" className="text-sm text-slate-600 dark:text-slate-400">
                There is no page {page}: the accounts fit on {pages}.{" "}
                <Link className="underline" href={PATH}>
                  First page
                </Link>
              </p>
            )
          }
        />
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
