import type { ReactNode } from "react";
import { signOutAction, signOutEverywhereAction } from "@/app/dashboard/_actions/auth.ts";
import { pendingApprovalCount } from "@/app/dashboard/(signed-in)/approvals/actions.ts";
import { NavLinks } from "@/components/dashboard/nav-links.tsx";
import { navSections } from "@/components/dashboard/nav-sections.ts";
import { dashboardSystemStatus, requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";

/**
 * The signed-in dashboard's frame: navigation, who is signed in, and the banners every page needs
 * (no model provider, a database to migrate). Every page under it also checks the session itself:
 * a layout is not re-rendered on client-side navigation, so it is never the only guard.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const { user, settings, principal } = await requireDashboardSession();
  const status = await dashboardSystemStatus();
  const sections = navSections(principal.isAdmin);
  const counts = { "/dashboard/approvals": pendingApprovalCount };
  return (
    <div className="min-h-screen md:flex">
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-10 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow dark:focus:bg-slate-900"
      >
        Skip to content
      </a>
      <aside className="border-b border-slate-200 bg-white md:w-56 md:shrink-0 md:border-r md:border-b-0 dark:border-slate-800 dark:bg-slate-900">
        {/* The column runs the page's full height; its contents stay in view while the page scrolls. */}
        <div className="md:sticky md:top-0 md:max-h-screen md:overflow-y-auto">
          <div className="flex items-center justify-between px-4 py-3">
            <a href="/dashboard" className="font-semibold">
              {settings.name}
            </a>
          </div>
          {/* A disclosure on phones (no script needed); always open from md up. */}
          <details className="group px-2 pb-2 md:hidden">
            <summary className="cursor-pointer rounded px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800">Menu</summary>
            <nav aria-label="Dashboard" className="pt-2">
              <NavLinks sections={sections} counts={counts} />
            </nav>
          </details>
          <nav aria-label="Dashboard" className="hidden px-2 pb-4 md:block">
            <NavLinks sections={sections} counts={counts} />
          </nav>
        </div>
      </aside>
      <div id="content" className="min-w-0 flex-1">
        <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
          <div className="flex flex-wrap items-center justify-end gap-3 px-4 py-2 text-sm md:px-6">
            <span data-testid="signed-in-user" className="text-slate-600 dark:text-slate-400">
              {user.email}
              <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300">{user.role}</span>
            </span>
            <form action={signOutAction}>
              <button type="submit" className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800">
                Sign out
              </button>
            </form>
            <form action={signOutEverywhereAction}>
              <button type="submit" title="End this account's sessions in every browser" className="text-slate-500 hover:underline">
                Sign out everywhere
              </button>
            </form>
          </div>
        </header>
        <div className="space-y-2 px-4 pt-4 empty:hidden md:px-6">
          {status.modelProvider.message && (
            <div role="alert" data-testid="banner-model" className="rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
              {status.modelProvider.message}
            </div>
          )}
          {status.database.error && (
            <div role="alert" className="rounded border border-red-400 bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
              {status.database.error}
            </div>
          )}
          {status.database.pendingMigrations.length > 0 && (
            <div role="alert" data-testid="banner-migrate" className="rounded border border-red-400 bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
              The database needs migrating ({status.database.pendingMigrations.join(", ")}):{" "}
              {principal.isAdmin ? (
                <a className="underline" href="/dashboard/admin/database">
                  migrate it from the Database page
                </a>
              ) : (
                "ask an admin to migrate it"
              )}{" "}
              or run <code>npx agentry migrate</code>.
            </div>
          )}
        </div>
        {children}
      </div>
    </div>
  );
}
