import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { StoredSchedule, StoredScheduleRun } from "../db/schedules/schedules.ts";
import { HttpError } from "../errors/http-error.ts";
import { endpointCallerFor } from "./endpoint-port.ts";
import { executeFire } from "./fire.ts";

/**
 * `POST /schedules/{id}/trigger` and the dashboard's "Trigger now": fires the schedule at once, in
 * this request, and returns the schedule run (its last attempt). A disabled schedule is a 409
 * "Schedule is disabled"; with the scheduler turned off (`scheduler: false`) a 503 "Scheduler is
 * not running", as Agno answers without its executor. next_run_at is left as it is.
 */
export async function triggerSchedule(db: Db, settings: Settings, schedule: StoredSchedule, signal?: AbortSignal): Promise<StoredScheduleRun> {
  if (!schedule.enabled) throw new HttpError(409, "Schedule is disabled");
  if (!settings.scheduler.enabled) throw new HttpError(503, "Scheduler is not running");
  const run = await executeFire({ db, settings, schedule, slot: null, caller: endpointCallerFor(settings), signal });
  if (!run) throw new Error(`Schedule ${schedule.id} fired nothing`);
  return run;
}
