import Link from "next/link";

export type TraceListView = "run" | "session";

const TABS: { view: TraceListView; label: string }[] = [
  { view: "run", label: "By run" },
  { view: "session", label: "By session" },
];

/**
 * The Traces page's two views as tabs. Switching keeps what both views filter on (`kept`: the
 * component, the time, the admin's user) and starts from the first page.
 */
export function TraceViewTabs({ view, kept }: { view: TraceListView; kept: Record<string, string> }) {
  const href = (to: TraceListView) => {
    const query = new URLSearchParams(kept);
    if (to === "session") query.set("view", "session");
    const text = query.toString();
    return `/dashboard/traces${text ? `?${text}` : ""}`;
  };
  return (
    <nav aria-label="Traces views" className="mb-3 flex gap-1 border-b border-slate-200 text-sm dark:border-slate-800">
      {TABS.map((tab) => (
        <Link
          key={tab.view}
          href={href(tab.view)}
          aria-current={tab.view === view ? "page" : undefined}
          className={`-mb-px border-b-2 px-3 py-1.5 ${tab.view === view ? "border-slate-900 font-medium dark:border-slate-100" : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"}`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
