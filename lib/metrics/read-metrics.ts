import { getMetricsRows, isLegacyMetricsRow, latestMetricsUpdate, reaggregateByDay, type DailyMetrics } from "../db/metrics/metrics.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { log } from "../log.ts";
import { lastRefreshAt, refreshMetrics } from "./refresh.ts";
import { isRefreshingHere } from "./refresh-status.ts";

/** Reads refresh the metrics first when this process has not refreshed them for this long (Agno's get_metrics). */
export const READ_REFRESH_INTERVAL_MS = 60_000;

/**
 * Agno v3's lazy refresh: a read recomputes the owed days (incrementally: usually today alone)
 * when this process last refreshed the database a minute ago or more, so figures stay current
 * where nothing calls the refresh endpoint. A failure is logged, and the stored rows are read.
 */
export async function refreshIfStale(db: Db, now = Date.now()): Promise<void> {
  const last = lastRefreshAt().get(db);
  if ((last !== undefined && now - last < READ_REFRESH_INTERVAL_MS) || isRefreshingHere(db)) return;
  try {
    await refreshMetrics(db, { now });
  } catch (error) {
    log.warn(`[metrics] could not refresh metrics before reading them: ${(error as Error).message}`);
  }
}

/** The user bucket a read names: a member its own, an admin the user it names ('' for the shared bucket); undefined for every bucket. */
export function bucketOfScope(scope: DataScope): string | undefined {
  if (scope.kind === "user") return scope.userId;
  return scope.userId === undefined ? undefined : (scope.userId ?? "");
}

/**
 * The rows as `GET /metrics` answers them, from stored rows of one read: one user's rows keep
 * their owner, with ids `<date>_<user>_<period>` (the shared bucket's without the pre-v3 rows that
 * hold every user's traffic); a read naming nobody gets one row per day, id `<date>_<period>`.
 */
export function metricsView(rows: DailyMetrics[], bucket: string | undefined): DailyMetrics[] {
  if (bucket === undefined) return reaggregateByDay(rows).map((row) => ({ ...row, id: `${row.date}_${row.aggregation_period}` }));
  return rows.filter((row) => bucket !== "" || !isLegacyMetricsRow(row)).map((row) => ({ ...row, id: `${row.date}_${bucket}_${row.aggregation_period}` }));
}

/**
 * `GET /metrics`: the scope's metrics in a date range (inclusive, YYYY-MM-DD), refreshed first when
 * stale (refreshIfStale), with the newest update time of the scope's rows (null when none is in range).
 */
export async function readMetrics(
  db: Db,
  { scope, startingDate, endingDate, refresh = true }: { scope: DataScope; startingDate?: string; endingDate?: string; refresh?: boolean },
): Promise<{ metrics: DailyMetrics[]; updatedAt: number | null }> {
  if (refresh) await refreshIfStale(db);
  const rows = await getMetricsRows(db, { scope, startingDate, endingDate });
  const metrics = metricsView(rows, bucketOfScope(scope));
  return { metrics, updatedAt: rows.length === 0 ? null : await latestMetricsUpdate(db, { scope }) };
}
