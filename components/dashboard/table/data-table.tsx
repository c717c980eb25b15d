"use client";

import { useTable, type ColumnDef, type RowData, type SortingState } from "@tanstack/react-table";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTransition, type ReactNode } from "react";
import type { TablePage, TableSort } from "@/lib/http/dashboard/list-view.ts";
import { dashboardTableFeatures, type DashboardTableFeatures } from "./features.ts";
import { Pager } from "./pager.tsx";
import { hrefWith } from "./url-state.ts";

export interface DataTableProps<T extends RowData> {
  /** Module-scope column definitions; a column whose id is in `sortable` sorts on the server. */
  columns: ColumnDef<DashboardTableFeatures, T, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  rows: T[];
  rowId: (row: T) => string;
  sortable?: readonly string[];
  /** The order the server gave the rows in (its column shows the arrow). */
  sort?: TableSort;
  /** The pager under the table; none when the whole list is on the page. */
  page?: TablePage;
  /** What "no rows" means here, and what to do about it. */
  empty: ReactNode;
  label: string;
  testId?: string;
  /** A row's test id (default `table-row`). */
  rowTestId?: (row: T) => string;
  /** `card`: a list page's framed table; `plain`: a table inside a page section, and no table at all when empty. */
  variant?: "card" | "plain";
}

const sortIcon = { asc: "▲", desc: "▼" } as const;

const styles = {
  card: {
    frame: "relative overflow-x-auto rounded border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900",
    table: "w-full min-w-[40rem] text-left text-sm",
    head: "bg-slate-50 text-slate-600 dark:bg-slate-800/60 dark:text-slate-300",
    th: "px-3 py-2 font-medium whitespace-nowrap",
    body: "divide-y divide-slate-100 dark:divide-slate-800",
    tr: "hover:bg-slate-50 dark:hover:bg-slate-800/40",
    td: "px-3 py-2 align-top",
    empty: "px-4 py-8 text-center text-sm text-slate-500",
  },
  plain: {
    frame: "overflow-x-auto",
    table: "w-full text-left text-sm",
    head: "text-slate-500",
    th: "py-2 pr-4 font-medium",
    body: "divide-y divide-slate-200 dark:divide-slate-800",
    tr: "align-top",
    td: "py-2 pr-4",
    empty: "text-sm text-slate-500",
  },
} as const;

const NO_SORT: TableSort = { field: "", order: "desc" };
const classes = (...names: (string | undefined)[]) => names.filter(Boolean).join(" ");

/**
 * A server-driven table: rows arrive already sorted, filtered and paginated; sorting and paging
 * change the URL (sort/order, after/before cursors or page), so the server renders the next state
 * and links stay shareable. While the next order loads the current one dims.
 */
export function DataTable<T extends RowData>({ columns, rows, rowId, sortable = [], sort = NO_SORT, page, empty, label, testId, rowTestId, variant = "card" }: DataTableProps<T>) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const [pending, startTransition] = useTransition();
  const sorting: SortingState = sort.field ? [{ id: sort.field, desc: sort.order === "desc" }] : [];
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
  const style = styles[variant];
  const bare = variant === "plain" && rows.length === 0;

  return (
    <div data-testid={testId} aria-busy={pending} className={pending ? "opacity-60 transition-opacity" : undefined}>
      {bare ? (
        <div className={style.empty}>{empty}</div>
      ) : (
        <div className={style.frame}>
          <table className={style.table} aria-label={label}>
            <thead className={style.head}>
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {group.headers.map((header) => {
                    const canSort = sortable.includes(header.column.id);
                    const sorted = header.column.getIsSorted();
                    return (
                      <th
                        key={header.id}
                        scope="col"
                        className={classes(style.th, header.column.columnDef.meta?.className)}
                        aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                      >
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
            <tbody className={style.body}>
              {table.getRowModel().rows.map((row) => (
                <tr key={row.id} data-testid={rowTestId ? rowTestId(row.original) : "table-row"} className={style.tr}>
                  {row.getAllCells().map((cell) => (
                    <td key={cell.id} className={classes(style.td, cell.column.columnDef.meta?.className)}>
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <div className={style.empty}>{empty}</div>}
        </div>
      )}
      {page && <Pager page={page} label={label} pending={pending} />}
    </div>
  );
}

/** What a list page hands its table: the rows and the pattern's state (lib/http/dashboard/list-view.ts). */
export interface ListTableProps<T> {
  rows: T[];
  page: TablePage;
  sort: TableSort;
  /** Admins see an owner column. */
  showUser: boolean;
  empty: ReactNode;
}

/**
 * A list's table component: its columns with and without the owner column (for admins), its row
 * id and the columns the server sorts on. Built in client modules, since column definitions hold
 * functions and cannot cross from the server.
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
