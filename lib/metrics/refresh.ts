import type { Db } from "../db/open-database.ts";
import { unsafeMetricsRowsBetween, unsafeUpsertDailyMetricsRows, type DailyMetrics } from "../db/metrics/metrics.ts";
import {
  unsafeFirstSessionAt,
  unsafeLegacyBlobSessions,
  unsafeMetricsResumePoint,
  unsafeRunCostAggregates,
  unsafeSessionDayAggregates,
  unsafeSessionRunAggregates,
} from "../db/metrics/metrics-aggregates.ts";
import { dailyRows, dateToDay, dayToDate, type RefreshAggregates } from "./daily-rows.ts";

/**
 * Which days a refresh recomputes:
 * - `incremental` — Agno's calculate_metrics: from the earliest incomplete day after the newest
 *   completed one (else the day after that one; else the first session's day) through today;
 * - `recent` — the same, and at least yesterday and today, whether or not yesterday was
 *   completed already (the daily refresh: the last runs of yesterday land in its row).
 */
export type RefreshMode = "incremental" | "recent";

const DAY_MS = 86_400_000;

/** When each database was last refreshed in this process (epoch ms): the read path refreshes at most once a minute. */
const refreshedKey = Symbol.for("agentry.metrics.refreshedAt");
type Holder = { [refreshedKey]?: WeakMap<Db, number> };
export const lastRefreshAt = (): WeakMap<Db, number> => ((globalThis as Holder)[refreshedKey] ??= new WeakMap());

/** The first day (a day number) an incremental refresh recomputes, or null when there is nothing to compute. */
async function resumeDay(db: Db, today: number): Promise<number | null> {
  const { latestCompleted, earliestIncomplete } = await unsafeMetricsResumePoint(db);
  const resume = earliestIncomplete !== null ? dateToDay(earliestIncomplete) : latestCompleted !== null ? dateToDay(latestCompleted) + 1 : null;
  // A row dated in the future would put the resume point past today for good: capped, as Agno does.
  if (resume !== null) return Math.min(resume, today);
  const first = await unsafeFirstSessionAt(db);
  return first === null ? null : Math.floor(first / 86_400);
}

/**
 * Recomputes the daily metrics rows of the mode's days from the sessions and runs, upserts them
 * (one row per user and day; see daily-rows.ts for what each figure is), and returns the rows it
 * wrote, as stored. Idempotent: the same data gives the same rows, however often it runs. Reads
 * every user's data (deliberately unscoped, like every metrics aggregation); callers scope what
 * they show.
 */
export async function refreshMetrics(db: Db, { mode = "incremental", now = Date.now() }: { mode?: RefreshMode; now?: number } = {}): Promise<DailyMetrics[]> {
  lastRefreshAt().set(db, now);
  const today = Math.floor(now / DAY_MS);
  let start = await resumeDay(db, today);
  if (mode === "recent") start = Math.min(start ?? today - 1, today - 1);
  if (start === null || start > today) return [];
  const aggregates: RefreshAggregates = { sessions: [], sessionRuns: [], legacySessions: [], runCosts: [] };
  // Every figure belongs to one day, so days can be read apart and their aggregates joined. SQLite
  // reads synchronously in this process: a day at a time, letting other work in between.
  const step = db.dialect === "sqlite" ? 1 : today + 1 - start;
  for (let first = start; first <= today; first += step) {
    const window = { from: first * 86_400, to: Math.min(first + step, today + 1) * 86_400 };
    const [sessions, sessionRuns, legacySessions, runCosts] = await Promise.all([
      unsafeSessionDayAggregates(db, window),
      unsafeSessionRunAggregates(db, window),
      unsafeLegacyBlobSessions(db, window),
      unsafeRunCostAggregates(db, window),
    ]);
    aggregates.sessions.push(...sessions);
    aggregates.sessionRuns.push(...sessionRuns);
    aggregates.legacySessions.push(...legacySessions);
    aggregates.runCosts.push(...runCosts);
    if (step === 1) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const rows = dailyRows(aggregates, { today });
  if (rows.length === 0) return [];
  await unsafeUpsertDailyMetricsRows(db, rows, Math.floor(now / 1000));
  const written = new Set(rows.map((r) => `${r.date}|${r.user_id ?? ""}`));
  const stored = await unsafeMetricsRowsBetween(db, { fromDate: rows[0].date, toDate: dayToDate(today) });
  return stored.filter((r) => written.has(`${r.date}|${r.user_id ?? ""}`));
}
