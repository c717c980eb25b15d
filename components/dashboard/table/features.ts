import { metaHelper, rowSortingFeature, tableFeatures } from "@tanstack/react-table";

/** What a column may say about its cells: classes for its header and cells (say, `hidden md:table-cell`). */
export interface DashboardColumnMeta {
  className?: string;
}

/**
 * The table features every dashboard table registers: sorting only, and it is manual — the server
 * sorts, filters and paginates (keyset), the URL holds the state.
 */
export const dashboardTableFeatures = tableFeatures({ rowSortingFeature, columnMeta: metaHelper<DashboardColumnMeta>() });
export type DashboardTableFeatures = typeof dashboardTableFeatures;
