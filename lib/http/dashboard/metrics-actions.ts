import { z } from "zod";
import { refreshNow } from "../../metrics/start-refresh.ts";
import { defineDashboardAction } from "./action.ts";

/**
 * Recomputes the metrics now (admins: a refresh computes every user's rows, as the API's
 * `POST /metrics/refresh`, which needs metrics:write, does).
 */
export const refreshMetricsAction = defineDashboardAction({
  name: "refreshMetrics",
  access: "admin",
  input: z.object({}),
  revalidate: "/dashboard/metrics",
  async handler({ db, settings }) {
    const refreshed = await refreshNow(db, settings);
    if (refreshed.alreadyRunning) return { ok: false, status: 409, error: "A metrics refresh is already in progress; try again in a moment." };
    const days = new Set(refreshed.rows.map((row) => row.date)).size;
    return { ok: true, message: days === 0 ? "Refreshed: nothing new to count." : `Refreshed ${days} day${days === 1 ? "" : "s"}.` };
  },
});
