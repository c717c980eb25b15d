"use client";

import { useTable, type ColumnDef, type RowData, type SortingState } from "@tanstack/react-table";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTransition, type ReactNode } from "react";
import { dashboardTableFeatures, type DashboardTableFeatures } from "./features.ts";
import { hrefWith } from "./url-state.ts";

export interface TablePage {
  next: string | null;
  prev: string | null;
  total: { count: number; capped: boolean };
  page: number;
}

export interface DataTableProps<T extends RowData> {
  /** Module-scope column definitions; a column whose id is in `sortable` sorts on the server. */
  columns: ColumnDef<DashboardTableFeatures, T, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  rows: T[];
  rowId: (row: T) => string;
  sortable: readonly string[];
  sort: { field: string; order: "asc" | "desc" };
  page: TablePage;
  /** What "no rows" means here, and what to do about it. */
  empty: ReactNode;
  label: string;
  testId?: string;
}

const sortIcon = { asc: "▲", desc: "▼" } as const;

/**
 * A server-driven table: rows arrive already sorted, filtered and paginated; sorting and paging
 * change the URL (sort/order, after/before cursors), so the server renders the next state and
 * links stay shareable. While the next page loads the current one dims.
 */
export function DataTable<T extends RowData>({ columns, rows, rowId, sortable, sort, page, empty, label, testId }: DataTableProps<T>) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const [pending, startTransition] = useTransition();
  const sorting: SortingState = [{ id: sort.field, desc: sort.order === "desc" }];
  const table = useTable({
    features: dashboardTableFeatures,
    columns,
    data: rows,
    getRowId: rowId,
    manualSorting: true,
    enableSortingRemoval: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const [next] = typeof updater === "function" ? updater(sorting) : updater;
      if (!next) return;
      // A new order starts again from the first page: the cursors belong to the old one.
      const href = hrefWith(pathname, search, { sort: next.id, order: next.desc ? "desc" : "asc", after: undefined, before: undefined, page: undefined });
      startTransition(() => router.push(href));
    },
  });
  const pageHref = (cursor: { after?: string; before?: string }, number: number) => hrefWith(pathname, search, { after: cursor.after, before: cursor.before, page: number > 1 ? number : undefined });
  const total = page.total.capped ? `${page.total.count.toLocaleString("en")}+` : page.total.count.toLocaleString("en");

  return (
    <div data-testid={testId} aria-busy={pending} className={pending ? "opacity-60 transition-opacity" : undefined}>
      <div className="relative overflow-x-auto rounded border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <table className="w-full min-w-[40rem] text-left text-sm" aria-label={label}>
          <thead className="bg-slate-50 text-slate-600 dark:bg-slate-800/60 dark:text-slate-300">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const canSort = sortable.includes(header.column.id);
                  const sorted = header.column.getIsSorted();
                  return (
                    <th key={header.id} scope="col" className="px-3 py-2 font-medium whitespace-nowrap" aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}>
                      {header.isPlaceholder ? null : canSort ? (
                        <button type="button" className="inline-flex items-center gap-1 hover:underline" onClick={header.column.getToggleSortingHandler()}>
                          <table.FlexRender header={header} />
                          <span aria-hidden className="text-xs text-slate-400">
                            {sorted ? sortIcon[sorted] : "↕"}
                          </span>
                        </button>
                      ) : (
                        <table.FlexRender header={header} />
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id} data-testid="table-row" className="hover:bg-slate-50 dark:hover:bg-slate-800/40">
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className="px-3 py-2 align-top">
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <div className="px-4 py-8 text-center text-sm text-slate-500">{empty}</div>}
      </div>
      <nav aria-label={`${label} pages`} className="mt-3 flex items-center justify-between text-sm">
        <span className="text-slate-500">
          {total} in all{pending && " · loading…"}
        </span>
        <span className="flex items-center gap-3">
          {page.prev ? (
            <Link className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800" href={pageHref({ before: page.prev }, page.page - 1)}>
              ← Previous
            </Link>
          ) : (
            <span className="rounded border border-slate-200 px-2 py-1 text-slate-400 dark:border-slate-800">← Previous</span>
          )}
          <span data-testid="page-number">Page {page.page}</span>
          {page.next ? (
            <Link className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800" href={pageHref({ after: page.next }, page.page + 1)}>
              Next →
            </Link>
          ) : (
            <span className="rounded border border-slate-200 px-2 py-1 text-slate-400 dark:border-slate-800">Next →</span>
          )}
        </span>
      </nav>
    </div>
  );
}

export interface ListTableProps<T> {
  rows: T[];
  page: TablePage;
  sort: { field: string; order: "asc" | "desc" };
  /** Admins see an owner column. */
  showUser: boolean;
  empty: string;
}

/**
 * A workspace list's table component: its columns with and without the owner column (for
 * admins), its row id and the columns the server sorts on. Built in client modules, since column
 * definitions hold functions and cannot cross from the server.
 */
export function listTable<T extends RowData>(config: {
  label: string;
  testId: string;
  memberColumns: DataTableProps<T>["columns"];
  adminColumns: DataTableProps<T>["columns"];
  rowId: (row: T) => string;
  sortable: readonly string[];
}) {
  // biome-ignore lint/correctness/noComponentHookFactories: the factory runs once per table module at import, never during a render
  return function ListTable({ rows, page, sort, showUser, empty }: ListTableProps<T>) {
    return (
      <DataTable
        label={config.label}
        testId={config.testId}
        columns={showUser ? config.adminColumns : config.memberColumns}
        rows={rows}
        rowId={config.rowId}
        sortable={config.sortable}
        sort={sort}
        page={page}
        empty={empty}
      />
    );
  };
}
