import Link from "next/link";
import type { LearningsTab } from "@/lib/http/dashboard/learnings-view.ts";

/**
 * The page's two views: what agents know about a person (`about`) and the shared learnings no
 * user owns. Switching keeps the kind filter and the admin's user.
 */
export function LearningsTabs({ tab, aboutLabel, kept }: { tab: LearningsTab; aboutLabel: string; kept: Record<string, string | undefined> }) {
  const hrefOf = (to: LearningsTab) => {
    const query = new URLSearchParams(Object.entries(kept).filter((entry): entry is [string, string] => !!entry[1]));
    if (to === "shared") query.set("tab", "shared");
    return query.size > 0 ? `/dashboard/learnings?${query}` : "/dashboard/learnings";
  };
  const tabs: [LearningsTab, string][] = [
    ["about", aboutLabel],
    ["shared", "Shared"],
  ];
  return (
    <nav aria-label="What agents know: views" className="mb-3 flex gap-1 border-b border-slate-200 text-sm dark:border-slate-800">
      {tabs.map(([to, label]) => {
        const current = to === tab;
        return (
          <Link
            key={to}
            href={hrefOf(to)}
            aria-current={current ? "page" : undefined}
            className={
              current
                ? "-mb-px border-b-2 border-slate-900 px-3 py-1.5 font-medium dark:border-slate-100"
                : "-mb-px border-b-2 border-transparent px-3 py-1.5 text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
            }
          >
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
