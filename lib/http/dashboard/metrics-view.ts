import "server-only";
import type { Principal } from "../../auth/principal.ts";
import { dataScopeFor } from "../../auth/principal.ts";
import { getMetricsRows } from "../../db/metrics/metrics.ts";
import type { Db } from "../../db/open-database.ts";
import { dateToDay, dayToDate } from "../../metrics/daily-rows.ts";
import { summarizeMetrics, topUsers, type MetricsSummary, type TopUsersSort, type UserTotals } from "../../metrics/metrics-summary.ts";
import { readMetrics, refreshIfStale } from "../../metrics/read-metrics.ts";
import type { MetricsRange } from "./metrics-range.ts";

export { DEFAULT_RANGE_DAYS, metricsRange, type MetricsRange } from "./metrics-range.ts";

/**
 * The Metrics page's figures: a member's own; an admin's every user's summed per day, or one
 * user's (`user`). Refreshed first when stale, as the API's reads are.
 */
export async function loadMetricsSummary(db: Db, principal: Principal, { range, user }: { range: MetricsRange; user?: string }): Promise<MetricsSummary> {
  const scope = dataScopeFor(principal, principal.isAdmin ? user : undefined);
  const { metrics } = await readMetrics(db, { scope, startingDate: range.from, endingDate: range.to });
  return summarizeMetrics(metrics, range);
}

/** The signed-in user's own last `days` days (admins included), for the Overview. */
export async function loadOwnRecentMetrics(db: Db, principal: Principal, userId: string, days = 7): Promise<MetricsSummary> {
  const today = dayToDate(Math.floor(Date.now() / 86_400_000));
  const range = { from: dayToDate(dateToDay(today) - days + 1), to: today, days };
  const scope = dataScopeFor(principal, principal.isAdmin ? userId : undefined);
  const { metrics } = await readMetrics(db, { scope, startingDate: range.from, endingDate: range.to });
  return summarizeMetrics(metrics, range);
}

/** Admins: every user's totals over the range, the top `limit` by runs, tokens or cost. */
export async function loadTopUsers(db: Db, principal: Principal, { range, by, limit = 20 }: { range: MetricsRange; by: TopUsersSort; limit?: number }): Promise<UserTotals[]> {
  if (!principal.isAdmin) return [];
  await refreshIfStale(db);
  const rows = await getMetricsRows(db, { scope: dataScopeFor(principal), startingDate: range.from, endingDate: range.to });
  return topUsers(rows, { by, limit });
}
