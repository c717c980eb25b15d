"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";

export interface NavSection {
  title?: string;
  /** `also`: other path prefixes the item stands for (a team's playground is under Agents, teams and workflows). */
  items: { href: string; label: string; also?: string[] }[];
}

/** How often a live count in the navigation is asked again. */
const COUNT_POLL_MS = 5000;

/**
 * A number next to a link (pending approvals), asked of `read` (a server action) on mount and
 * every few seconds while the page is open; nothing while it is zero or unknown.
 */
function LiveCount({ read, label }: { read: () => Promise<number | null>; label: string }) {
  const [count, setCount] = useState<number | null>(null);
  useEffect(() => {
    let alive = true;
    const ask = () =>
      read().then(
        (n) => alive && setCount(n),
        () => undefined,
      );
    void ask();
    const timer = setInterval(ask, COUNT_POLL_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [read]);
  if (!count) return null;
  return (
    <span data-testid="nav-count" className="ml-2 rounded-full bg-amber-500 px-1.5 text-xs font-semibold text-white">
      {count}
      <span className="sr-only"> {label}</span>
    </span>
  );
}

/**
 * The dashboard's navigation; the current page's link is marked for screen readers and the eye.
 * `counts`: live counts shown next to links, by href.
 */
export function NavLinks({ sections, counts = {} }: { sections: NavSection[]; counts?: Record<string, () => Promise<number | null>> }) {
  const pathname = usePathname();
  // The longest matching prefix wins, so /dashboard/admin/runs does not also light up /dashboard.
  const active = sections
    .flatMap((s) => s.items)
    .filter((item) => [item.href, ...(item.also ?? [])].some((href) => pathname === href || pathname.startsWith(`${href}/`)))
    .sort((a, b) => b.href.length - a.href.length)[0]?.href;
  return (
    <>
      {sections.map((section, i) => (
        <div key={section.title ?? i} className="mb-4">
          {section.title && <p className="mb-1 px-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">{section.title}</p>}
          <ul className="space-y-0.5">
            {section.items.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  aria-current={item.href === active ? "page" : undefined}
                  className={`block rounded px-2 py-1.5 text-sm ${
                    item.href === active ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
                  }`}
                >
                  {item.label}
                  {counts[item.href] && <LiveCount read={counts[item.href]!} label="pending" />}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </>
  );
}
