import { Cron } from "croner";
import cronstrue from "cronstrue";

/**
 * Cron expressions as schedules use them: exactly five fields (minute hour day-of-month month
 * day-of-week; a six- or seven-field expression is refused, since a leading seconds field would
 * be read differently by other cron readers), IANA time zones, evaluated by croner. Day-of-month
 * and day-of-week combine with OR when both are restricted, as Vixie cron does. Across a DST
 * change a daily slot fires once: a time skipped by spring-forward fires at the first valid
 * minute after it, a time repeated by fall-back fires at its first occurrence.
 * The scheduler, the API's validation and the dashboard's preview all use these functions.
 */

export const CRON_FIELDS = 5;

export function isValidTimezone(timezone: string): boolean {
  if (timezone.length === 0 || timezone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Why the expression cannot be a schedule's, or null when it can. */
export function cronProblem(expression: string, timezone = "UTC"): string | null {
  const fields = expression.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== CRON_FIELDS) return `expected ${CRON_FIELDS} fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  try {
    const cron = new Cron(fields.join(" "), { timezone: isValidTimezone(timezone) ? timezone : "UTC", paused: true });
    if (cron.nextRun(new Date()) === null) return "it never fires";
    return null;
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern: /, "");
  }
}

/** Parsed expressions, by expression and time zone: the scheduler evaluates the same few many times. */
const parsed = new Map<string, Cron>();
const PARSED_CAP = 10_000;

function cronOf(expression: string, timezone: string): Cron {
  const key = `${timezone}\n${expression}`;
  const cached = parsed.get(key);
  if (cached) return cached;
  const fields = expression.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== CRON_FIELDS) throw new CronError(`Invalid cron expression '${expression}': expected ${CRON_FIELDS} fields (minute hour day-of-month month day-of-week), got ${fields.length}`);
  if (!isValidTimezone(timezone)) throw new CronError(`Invalid timezone: ${timezone}`);
  let cron: Cron;
  try {
    cron = new Cron(fields.join(" "), { timezone, paused: true });
  } catch (error) {
    throw new CronError(`Invalid cron expression '${expression}': ${(error as Error).message.replace(/^CronPattern: /, "")}`);
  }
  if (parsed.size >= PARSED_CAP) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, cron);
  return cron;
}

export class CronError extends Error {
  override readonly name = "CronError";
}

/**
 * The first slot strictly after `afterSeconds` (epoch seconds), as epoch seconds; null if none.
 * Throws CronError for an expression or time zone that no longer parses.
 */
export function slotAfter(expression: string, timezone: string, afterSeconds: number): number | null {
  const next = cronOf(expression, timezone).nextRun(new Date(afterSeconds * 1000));
  return next ? Math.floor(next.getTime() / 1000) : null;
}

/**
 * The schedule's next fire time from `now` (epoch seconds): never in the past, and never sooner
 * than one second from now (a slot due in the current second is the next one's).
 */
export function nextRunAt(expression: string, timezone: string, now = Math.floor(Date.now() / 1000)): number | null {
  return slotAfter(expression, timezone, now);
}

/** The slots in (afterSeconds, untilSeconds], oldest first, at most `limit`. */
export function slotsBetween(expression: string, timezone: string, afterSeconds: number, untilSeconds: number, limit: number): number[] {
  const cron = cronOf(expression, timezone);
  const slots: number[] = [];
  let from = afterSeconds;
  while (slots.length < limit) {
    const next = cron.nextRun(new Date(from * 1000));
    if (!next) break;
    const at = Math.floor(next.getTime() / 1000);
    if (at > untilSeconds) break;
    slots.push(at);
    from = at;
  }
  return slots;
}

/** The next `count` fire times from now, for previews. */
export function nextRuns(expression: string, timezone: string, count: number, now = Math.floor(Date.now() / 1000)): number[] {
  return cronOf(expression, timezone)
    .nextRuns(count, new Date(now * 1000))
    .map((d) => Math.floor(d.getTime() / 1000));
}

/** The expression in words ("At 02:30 AM, Monday through Friday"); the expression itself if it cannot be described. */
export function describeCron(expression: string): string {
  try {
    return cronstrue.toString(expression.trim(), { verbose: false, use24HourTimeFormat: true });
  } catch {
    return expression;
  }
}
