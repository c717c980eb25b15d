import { randomInt, randomUUID } from "node:crypto";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { plainJobsInsert } from "../db/jobs/enqueue-job.ts";
import { createScheduleRun, unsafeClaimDueSchedules, unsafeReleaseSchedules, type ScheduleRelease, type StoredSchedule } from "../db/schedules/schedules.ts";
import { log } from "../log.ts";
import { CronError, slotAfter, slotsBetween } from "./cron.ts";
import { SCHEDULE_FIRE_JOB_TYPE } from "./fire-job.ts";
import { fireScope } from "./fire.ts";

/** A slot more than this late counts as missed (the scheduler was down, or every worker busy). */
export const MISFIRE_GRACE_SECONDS = 60;
/** Schedules one tick claims per statement. */
export const TICK_BATCH = 200;
/** Missed slots looked at, at most, for one schedule (a per-minute schedule down for a week has 10,080). */
const MISSED_SCAN_LIMIT = 100_000;

/**
 * Which of a due schedule's slots fire now, by its misfire policy. `next_run_at` is its first
 * unfired slot; every slot up to now is due. On time (one slot, at most MISFIRE_GRACE_SECONDS
 * late) it fires whatever the policy. Missed slots:
 * - `fire_once` (the default, as Agno): one fire, for the latest of them;
 * - `skip`: none (recorded as one skipped run), the next future slot is armed;
 * - `catch_up`: each of the latest `catch_up_limit` of them, oldest first.
 */
export function slotsToFire(schedule: StoredSchedule, now: number): { fire: number[]; skipped: number[] } {
  const first = schedule.next_run_at!;
  const due = [first, ...slotsBetween(schedule.cron_expr, schedule.timezone, first, now, MISSED_SCAN_LIMIT)];
  const onTime = due.length === 1 && now - first <= MISFIRE_GRACE_SECONDS;
  if (onTime) return { fire: due, skipped: [] };
  if (schedule.misfire_policy === "skip") return { fire: [], skipped: due };
  if (schedule.misfire_policy === "catch_up") {
    const fire = due.slice(-Math.max(1, schedule.catch_up_limit));
    return { fire, skipped: due.slice(0, due.length - fire.length) };
  }
  return { fire: [due[due.length - 1]!], skipped: due.slice(0, -1) };
}

/**
 * One tick: claims due schedules (unsafeClaimDueSchedules: a due slot is claimed by one scheduler
 * however many run), decides their slots (slotsToFire), and in one transaction per batch
 * enqueues one fire job per slot (deduplicated by `schedule:<id>:<slot>`) and re-arms each schedule
 * at its next slot after now — or disables it with `disabled_reason` when its expression no longer
 * parses. Returns how many schedules it claimed (a full batch: call again).
 */
export async function dispatchDueSchedules(
  db: Db,
  settings: Settings,
  { workerId, now = Math.floor(Date.now() / 1000), limit = TICK_BATCH }: { workerId: string; now?: number; limit?: number },
): Promise<{ claimed: number; fires: number }> {
  const claimed = await unsafeClaimDueSchedules(db, { workerId, now, limit, lockGraceSeconds: settings.scheduler.lockGraceSeconds });
  if (claimed.length === 0) return { claimed: 0, fires: 0 };
  const releases: ScheduleRelease[] = [];
  const fireJobs: Parameters<typeof plainJobsInsert>[0][number][] = [];
  const skippedRecords: { schedule: StoredSchedule; slots: number[] }[] = [];
  for (const schedule of claimed) {
    try {
      const { fire, skipped } = slotsToFire(schedule, now);
      const nextRunAt = slotAfter(schedule.cron_expr, schedule.timezone, Math.max(now, fire[fire.length - 1] ?? now));
      for (const slot of fire) {
        fireJobs.push({
          id: randomUUID(),
          jobType: SCHEDULE_FIRE_JOB_TYPE,
          componentType: "schedule",
          componentId: schedule.id,
          deploymentId: settings.queue.deploymentId ?? null,
          payload: { schedule_id: schedule.id, slot },
          maxAttempts: 3,
          idempotencyKey: `schedule:${schedule.id}:${slot}`,
          availableAt: slot + (schedule.jitter_seconds > 0 ? randomInt(schedule.jitter_seconds + 1) : 0),
          owner: schedule.user_id,
        });
      }
      if (skipped.length > 0 && schedule.misfire_policy === "skip") skippedRecords.push({ schedule, slots: skipped });
      releases.push({ id: schedule.id, nextRunAt });
    } catch (error) {
      const reason = error instanceof CronError ? `invalid_cron: ${error.message}` : `cannot_schedule: ${(error as Error).message}`;
      log.warn(`[scheduler] schedule ${schedule.id} disabled: ${reason}`);
      releases.push({ id: schedule.id, nextRunAt: null, disabledReason: reason });
    }
  }
  const fires = fireJobs.length;
  // One transaction: the fire jobs (one multi-row INSERT per kind of owner) and the re-armed schedules (one UPDATE).
  await unsafeReleaseSchedules(db, { workerId, releases, statements: plainJobsInsert(fireJobs, { now }), now });
  for (const { schedule, slots } of skippedRecords) {
    await createScheduleRun(db, {
      scope: fireScope(schedule),
      run: {
        scheduleId: schedule.id,
        attempt: 1,
        scheduledFor: slots[slots.length - 1]!,
        status: "skipped",
        completedAt: now,
        error: `Skipped ${slots.length} missed slot${slots.length === 1 ? "" : "s"} (misfire_policy skip), the first due at ${new Date(slots[0]! * 1000).toISOString()}`,
      },
    }).catch((error: Error) => log.warn(`[scheduler] recording skipped slots of ${schedule.id}: ${error.message}`));
  }
  return { claimed: claimed.length, fires };
}
