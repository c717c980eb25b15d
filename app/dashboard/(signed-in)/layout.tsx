import type { ReactNode } from "react";
import { signOutAction, signOutEverywhereAction } from "@/app/dashboard/_actions/auth.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";

/**
 * The signed-in dashboard's frame. Every page under it also checks the session itself: a layout
 * is not re-rendered on client-side navigation, so it is never the only guard.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const { user, settings } = await requireDashboardSession();
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-6 gap-y-2 px-6 py-3">
          <a href="/dashboard" className="font-semibold">
            {settings.name}
          </a>
          <nav aria-label="Dashboard" className="flex gap-4 text-sm">
            <a className="hover:underline" href="/dashboard">
              Overview
            </a>
            {user.role === "admin" && (
              <a className="hover:underline" href="/dashboard/admin/users">
                Users
              </a>
            )}
          </nav>
          <div className="ml-auto flex items-center gap-3 text-sm">
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
        </div>
      </header>
      {children}
    </div>
  );
}
