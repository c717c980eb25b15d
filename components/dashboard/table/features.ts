import { rowSortingFeature, tableFeatures } from "@tanstack/react-table";

/**
 * The table features every dashboard table registers: sorting only, and it is manual — the server
 * sorts, filters and paginates (keyset), the URL holds the state.
 */
export const dashboardTableFeatures = tableFeatures({ rowSortingFeature });
export type DashboardTableFeatures = typeof dashboardTableFeatures;
