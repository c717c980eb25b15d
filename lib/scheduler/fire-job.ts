import { z } from "zod";
import { unsafeScheduleById } from "../db/schedules/schedules.ts";
import { NotFoundError } from "../errors/domain-errors.ts";
import { defineJobKind, PermanentJobError } from "../queue/catalog.ts";
import { endpointCallerFor } from "./endpoint-port.ts";
import { executeFire } from "./fire.ts";

/** agno_jobs.job_type of a schedule's fire; component_type "schedule", component_id the schedule's id. */
export const SCHEDULE_FIRE_JOB_TYPE = "schedule_fire";

export const ScheduleFirePayload = z.object({
  schedule_id: z.string().min(1),
  /** The cron slot it fires (epoch seconds). */
  slot: z.number().int().nonnegative(),
});
export type ScheduleFirePayload = z.infer<typeof ScheduleFirePayload>;

/** Longest a fire can take: 11 attempts of the longest timeout, with the longest delays between them. */
const LONGEST_FIRE_SECONDS = 11 * 86_400 + 10 * 3_600 + 300;

/**
 * One fire of one slot, as a job of the catalog: the scheduler's tick enqueues it (idempotency key
 * `schedule:<id>:<slot>`, so a slot is enqueued once however many schedulers saw it due), any
 * worker runs it, and a worker that dies mid-fire loses its lease and another takes the fire over
 * (lib/scheduler/fire.ts resumes where the slot's records say). Fires have their own slots
 * (`scheduler.maxConcurrentFires` per worker): a fire waits on the run it submitted, which needs a
 * run slot. The definition and the enabled flag are read again when the fire starts.
 */
export const SCHEDULE_FIRE_JOB_KIND = defineJobKind<ScheduleFirePayload>({
  jobType: SCHEDULE_FIRE_JOB_TYPE,
  payload: ScheduleFirePayload,
  // Infrastructure failures (the database away) retry; the fire's own retries are max_retries.
  maxAttempts: () => 3,
  retryDelaySeconds: () => 5,
  timeoutSeconds: () => LONGEST_FIRE_SECONDS,
  concurrency: (_queue, settings) => settings?.scheduler.maxConcurrentFires ?? 100,
  executor:
    ({ db, settings }) =>
    async ({ payload, signal, fence }) => {
      if (!settings) throw new PermanentJobError("A schedule fire needs the OS settings: this worker was built without them");
      const schedule = await unsafeScheduleById(db, payload.schedule_id);
      // Deleted or disabled since the slot was enqueued: nothing fires.
      if (!schedule || !schedule.enabled) return;
      try {
        await executeFire({ db, settings, schedule, slot: payload.slot, caller: endpointCallerFor(settings), signal, fence });
      } catch (error) {
        // Deleted while it fired: nothing more to record.
        if (error instanceof NotFoundError) return;
        throw error;
      }
    },
});
