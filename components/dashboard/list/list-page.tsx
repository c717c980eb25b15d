import Link from "next/link";
import type { ComponentType, ReactNode } from "react";
import type { ListView } from "@/lib/http/dashboard/list-view.ts";
import { LiveRefresh } from "../live-refresh.tsx";
import type { ListTableProps } from "../table/data-table.tsx";
import { FilterBar, ListProblems } from "./filter-bar.tsx";

export interface ListHeaderProps {
  title: string;
  /** Something on the page is still moving: re-render every `liveIntervalMs` (and say "live"). */
  live?: boolean;
  liveIntervalMs?: number;
  /** A short note beside the title. */
  note?: ReactNode;
  /** The page's "New …" link, at the end of the header. */
  action?: { href: string; label: string };
  /** A line under the title: whose rows these are, what they are for. */
  description?: ReactNode;
}

/** A list page's title line and, when given, the line under it. */
export function ListHeader({ title, live, liveIntervalMs, note, action, description }: ListHeaderProps) {
  return (
    <>
      <header className={`${description ? "mb-1" : "mb-4"} flex flex-wrap items-center gap-3`}>
        <h1 className="text-2xl font-semibold">{title}</h1>
        {live !== undefined && <LiveRefresh active={live} intervalMs={liveIntervalMs} />}
        {note && <span className="text-sm text-slate-500">{note}</span>}
        {action && (
          <Link href={action.href} className="ml-auto rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
            {action.label}
          </Link>
        )}
      </header>
      {description && <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">{description}</p>}
    </>
  );
}

/** A list page: its header, then what the page puts in it (above all, a `ListBody`). */
export function ListPage({ children, ...header }: ListHeaderProps & { children: ReactNode }) {
  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <ListHeader {...header} />
      {children}
    </main>
  );
}

/** What a list shows with no rows: `none` when no filter is on, else `filtered`. */
export interface EmptyText {
  none: ReactNode;
  filtered: ReactNode;
}

export type ListBodyProps<Row, P extends object> = {
  /** The loaded list (lib/http/dashboard/list-page.ts: loadListPage). */
  list: ListView;
  /** The page's table: its columns (a client module's `listTable`, or a component around one). */
  table: ComponentType<ListTableProps<Row> & P>;
  rows: Row[];
  empty: EmptyText;
  /** Fields the filter form carries along unchanged. */
  hidden?: Record<string, string>;
  /** What the table takes besides the list's state (its server actions). */
  tableProps?: P;
};

/**
 * The list pattern: what was wrong with the URL, the filter bar (with the admin's user filter),
 * then the table with its sort, keyset pager and empty state.
 */
export function ListBody<Row, P extends object = object>({ list, table: Table, rows, empty, hidden, tableProps }: ListBodyProps<Row, P>) {
  return (
    <>
      <ListProblems problems={list.problems} />
      <FilterBar bar={list.bar} hidden={hidden} />
      <Table {...(tableProps as P)} rows={rows} page={list.page} sort={list.sort} showUser={list.showUser} empty={list.filtered ? empty.filtered : empty.none} />
    </>
  );
}
