// Pure (no server imports): the Metrics pages' date range from the URL.
import { dateToDay, dayToDate } from "../../metrics/daily-rows.ts";
import { MAX_RANGE_DAYS } from "../../metrics/metrics-summary.ts";
import { firstParam, type SearchParams } from "./search-params.ts";

/** The range a page shows by default: the last 30 days, today included. */
export const DEFAULT_RANGE_DAYS = 30;

export interface MetricsRange {
  from: string;
  to: string;
  /** Days in the range. */
  days: number;
}

const today = () => dayToDate(Math.floor(Date.now() / 86_400_000));

function dateParam(params: SearchParams, name: string, problems: string[]): string | undefined {
  const raw = firstParam(params, name);
  if (!raw) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw) || dayToDate(dateToDay(raw)) !== raw) {
    problems.push(`${name} must be a date like 2026-12-01, got "${raw}"`);
    return undefined;
  }
  return raw;
}

/**
 * The date range in the URL: `?from=YYYY-MM-DD&to=YYYY-MM-DD` (UTC days, both included), or
 * `?days=N` ending today; the last 30 days by default. A range that is not one (a bad date, from
 * after to, longer than a year) is reported in `problems` and the default is shown.
 */
export function metricsRange(params: SearchParams, problems: string[]): MetricsRange {
  const end = today();
  const fallback = (days: number) => ({ from: dayToDate(dateToDay(end) - days + 1), to: end, days });
  const from = dateParam(params, "from", problems);
  const to = dateParam(params, "to", problems);
  if (from || to) {
    const last = to ?? end;
    const first = from ?? dayToDate(dateToDay(last) - DEFAULT_RANGE_DAYS + 1);
    const days = dateToDay(last) - dateToDay(first) + 1;
    if (days < 1) problems.push(`from (${first}) must not be after to (${last})`);
    else if (days > MAX_RANGE_DAYS) problems.push(`a range of at most ${MAX_RANGE_DAYS} days, got ${days}`);
    else return { from: first, to: last, days };
    return fallback(DEFAULT_RANGE_DAYS);
  }
  const raw = firstParam(params, "days");
  if (raw !== undefined) {
    const days = Number(raw);
    if (Number.isInteger(days) && days >= 1 && days <= MAX_RANGE_DAYS) return fallback(days);
    problems.push(`days must be a whole number from 1 to ${MAX_RANGE_DAYS}, got "${raw}"`);
  }
  return fallback(DEFAULT_RANGE_DAYS);
}
