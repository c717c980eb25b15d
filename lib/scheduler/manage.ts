import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import {
  createSchedule,
  getSchedule,
  getScheduleByName,
  updateSchedule,
  duplicateName,
  ScheduleLimitError,
  type MisfirePolicy,
  type NewSchedule,
  type ScheduleUpdate,
  type StoredSchedule,
} from "../db/schedules/schedules.ts";
import { HttpError } from "../errors/http-error.ts";
import { cronProblem, isValidTimezone, nextRunAt } from "./cron.ts";
import { endpointProblem, parseScheduleEndpoint, type RunTarget } from "./endpoint.ts";

/**
 * What the API, the dashboard and the agents' schedules toolkit do to a schedule, in one place:
 * the cron and time-zone checks (422 with Agno's details), the endpoint's one meaning (422,
 * endpoint.ts), the owner's unique names (409), the per-user cap on schedules (422), `next_run_at`
 * computed from the expression, "Schedule not found" (404) for anything outside the caller's
 * scope. Who may target which endpoint is the caller's check (lib/http/schedule-access.ts), made
 * before these run.
 */

/**
 * The component a run endpoint (`POST /agents|teams|workflows/{id}/runs`) runs, read from the
 * endpoint as a fire parses it (endpoint.ts); null for any other endpoint and for one a fire
 * refuses.
 */
export function runEndpointTarget(endpoint: string, method: string): RunTarget | null {
  const parsed = parseScheduleEndpoint(endpoint, method);
  return parsed.ok ? parsed.run : null;
}

/** The 422 for an endpoint a fire would not read as written (endpoint.ts says why). */
export const invalidEndpoint = (problem: string) => new HttpError(422, problem);

/** 422 unless the endpoint means what its text says (endpoint.ts). */
export function assertScheduleEndpoint(endpoint: string): void {
  const problem = endpointProblem(endpoint);
  if (problem !== null) throw invalidEndpoint(problem);
}

/** The 422 for an owner at the per-user cap (`scheduler.maxSchedulesPerUser`). */
function scheduleLimitReached({ count, limit }: ScheduleLimitError): HttpError {
  if (count <= limit) return new HttpError(422, `You have ${limit} schedules, the most one user may have (scheduler.maxSchedulesPerUser); delete one first`);
  return new HttpError(422, `You have ${count} schedules and one user may have at most ${limit} (scheduler.maxSchedulesPerUser); delete ${count - limit + 1} first`);
}

/** The canonical run endpoint of a component (`/agents/<id>/runs`). */
export const runEndpointOf = (type: "agent" | "team" | "workflow", id: string) => `/${type}s/${id}/runs`;

export const scheduleNotFound = () => new HttpError(404, "Schedule not found");

/** 422s with Agno's texts for an expression or a time zone that cannot be a schedule's. */
export function assertCronAndTimezone(cronExpr: string, timezone: string): void {
  const problem = cronProblem(cronExpr, isValidTimezone(timezone) ? timezone : "UTC");
  if (problem) throw new HttpError(422, `Invalid cron expression: ${cronExpr} (${problem})`);
  if (!isValidTimezone(timezone)) throw new HttpError(422, `Invalid timezone: ${timezone}`);
}

export interface ScheduleDefinition {
  name: string;
  cron_expr: string;
  endpoint: string;
  method: string;
  description?: string | null;
  payload?: Record<string, unknown> | null;
  timezone: string;
  timeout_seconds: number;
  max_retries: number;
  retry_delay_seconds: number;
  misfire_policy?: MisfirePolicy | null;
  catch_up_limit?: number | null;
  allow_overlap?: boolean | null;
  jitter_seconds?: number | null;
}

/**
 * Creates a schedule owned by `owner` (the scope decides for a non-admin: itself), enabled, with
 * its next fire time computed. `provenance` is for the agents' toolkit (managed_by, the target,
 * the run and session that created it). With `maxSchedulesPerOwner` (a number: the caller is
 * capped; null or absent: it is not, as for admins) an owner who already has that many schedules
 * gets a 422 naming the limit; the count and the insert are one guarded write (lib/db), so
 * concurrent creates cannot pass the cap together.
 */
export async function createScheduleFor(
  db: Db,
  {
    scope,
    owner,
    definition,
    provenance,
    maxSchedulesPerOwner,
    now,
  }: {
    scope: DataScope;
    owner: string | null;
    definition: ScheduleDefinition;
    provenance?: Pick<NewSchedule, "managed_by" | "target_type" | "target_id" | "created_by_run_id" | "created_by_session_id">;
    maxSchedulesPerOwner?: number | null;
    now?: number;
  },
): Promise<StoredSchedule> {
  assertCronAndTimezone(definition.cron_expr, definition.timezone);
  assertScheduleEndpoint(definition.endpoint);
  const effectiveOwner = scope.kind === "user" ? scope.userId : owner;
  if (await getScheduleByName(db, { scope, name: definition.name, owner: effectiveOwner })) throw duplicateName(definition.name);
  try {
    return await createSchedule(db, {
      scope,
      owner: effectiveOwner,
      schedule: { ...definition, ...provenance, enabled: true, next_run_at: nextRunAt(definition.cron_expr, definition.timezone, now) },
      maxPerOwner: maxSchedulesPerOwner ?? null,
    });
  } catch (error) {
    if (error instanceof ScheduleLimitError) throw scheduleLimitReached(error);
    throw error;
  }
}

/** Loads the scope's schedule or answers 404. */
export async function scheduleOr404(db: Db, scope: DataScope, id: string): Promise<StoredSchedule> {
  const schedule = await getSchedule(db, { scope, id });
  if (!schedule) throw scheduleNotFound();
  return schedule;
}

/**
 * Applies a partial update (Agno's PATCH): an empty one changes nothing; a new cron expression or
 * time zone is checked and, while the schedule is enabled, re-arms next_run_at; a rename onto a
 * name the owner uses is a 409.
 */
export async function updateScheduleFor(
  db: Db,
  { scope, existing, updates, by, now }: { scope: DataScope; existing: StoredSchedule; updates: ScheduleUpdate; by?: { runId?: string | null; sessionId?: string | null }; now?: number },
): Promise<StoredSchedule> {
  const changes: ScheduleUpdate = Object.fromEntries(Object.entries(updates).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length === 0) return existing;
  // Re-pointing (a new endpoint or method) must leave an endpoint a fire reads as written.
  if (changes.endpoint !== undefined || changes.method !== undefined) assertScheduleEndpoint(changes.endpoint ?? existing.endpoint);
  if (changes.cron_expr !== undefined || changes.timezone !== undefined) {
    const cron = changes.cron_expr ?? existing.cron_expr;
    const timezone = changes.timezone ?? existing.timezone;
    assertCronAndTimezone(cron, timezone);
    if (existing.enabled) changes.next_run_at = nextRunAt(cron, timezone, now);
  }
  if (changes.name !== undefined && changes.name !== existing.name && (await getScheduleByName(db, { scope, name: changes.name, owner: existing.user_id }))) {
    throw duplicateName(changes.name);
  }
  const updated = await updateSchedule(db, { scope, id: existing.id, updates: changes, by });
  if (!updated) throw scheduleNotFound();
  return updated;
}

/**
 * Enables a schedule, re-arming it from now (an expression that stopped parsing, or an endpoint a
 * fire would refuse, is a 422).
 */
export async function enableScheduleFor(
  db: Db,
  { scope, existing, by, now }: { scope: DataScope; existing: StoredSchedule; by?: { runId?: string | null; sessionId?: string | null }; now?: number },
): Promise<StoredSchedule> {
  assertCronAndTimezone(existing.cron_expr, existing.timezone);
  assertScheduleEndpoint(existing.endpoint);
  const updated = await updateSchedule(db, { scope, id: existing.id, updates: { enabled: true, next_run_at: nextRunAt(existing.cron_expr, existing.timezone, now) }, by });
  if (!updated) throw scheduleNotFound();
  return updated;
}

export async function disableScheduleFor(
  db: Db,
  { scope, existing, by }: { scope: DataScope; existing: StoredSchedule; by?: { runId?: string | null; sessionId?: string | null } },
): Promise<StoredSchedule> {
  const updated = await updateSchedule(db, { scope, id: existing.id, updates: { enabled: false }, by });
  if (!updated) throw scheduleNotFound();
  return updated;
}
