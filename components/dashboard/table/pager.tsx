"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import type { TablePage } from "@/lib/http/dashboard/list-view.ts";
import { hrefWith } from "./url-state.ts";

const link = "rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800";
const off = "rounded border border-slate-200 px-2 py-1 text-slate-400 dark:border-slate-800";

/**
 * A list's pager under its table: the total, Previous / Page n / Next. Keyset pages move by
 * cursor (`after`, `before`; the page number only labels them), numbered ones by `page`; both keep
 * the URL's filters and order.
 */
export function Pager({ page, label, pending }: { page: TablePage; label: string; pending: boolean }) {
  const pathname = usePathname();
  const search = useSearchParams();
  const href = (cursor: { after?: string; before?: string }, number: number) =>
    hrefWith(pathname, search, { after: page.numbered ? undefined : cursor.after, before: page.numbered ? undefined : cursor.before, page: number > 1 ? number : undefined });
  const total = page.total.capped ? `${page.total.count.toLocaleString("en")}+` : page.total.count.toLocaleString("en");
  return (
    <nav aria-label={`${label} pages`} className="mt-3 flex items-center justify-between text-sm">
      <span className="text-slate-500">
        {total} in all{pending && " · loading…"}
      </span>
      <span className="flex items-center gap-3">
        {page.prev ? (
          <Link className={link} href={href({ before: page.prev }, page.page - 1)}>
            ← Previous
          </Link>
        ) : (
          <span className={off}>← Previous</span>
        )}
        <span data-testid="page-number">Page {page.page}</span>
        {page.next ? (
          <Link className={link} href={href({ after: page.next }, page.page + 1)}>
            Next →
          </Link>
        ) : (
          <span className={off}>Next →</span>
        )}
      </span>
    </nav>
  );
}
