"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export interface NavSection {
  title?: string;
  /** `also`: other path prefixes the item stands for (a team's playground is under Agents, teams and workflows). */
  items: { href: string; label: string; also?: string[] }[];
}

/** The dashboard's navigation; the current page's link is marked for screen readers and the eye. */
export function NavLinks({ sections }: { sections: NavSection[] }) {
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
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </>
  );
}
