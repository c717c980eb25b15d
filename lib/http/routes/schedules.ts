import type { z } from "zod";
import { isReservedSubject } from "../../auth/jwt.ts";
import type { Principal } from "../../auth/principal.ts";
import { deleteSchedule, getScheduleRun, listScheduleRuns, listSchedules, type StoredSchedule, type StoredScheduleRun } from "../../db/schedules/schedules.ts";
import { HttpError } from "../../errors/http-error.ts";
import { createScheduleFor, disableScheduleFor, enableScheduleFor, scheduleOr404, updateScheduleFor } from "../../scheduler/manage.ts";
import { wakeScheduler } from "../../scheduler/scheduler.ts";
import { triggerSchedule } from "../../scheduler/trigger.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { refuseUnrunnableTarget, requireEndpointPermission, scheduleLimitFor } from "../schedule-access.ts";
import { pageOf } from "../schemas/list-query.ts";
import {
  ListScheduleRunsQuery,
  ListSchedulesQuery,
  ScheduleCreateBody,
  ScheduleListSchema,
  ScheduleParams,
  ScheduleRunListSchema,
  ScheduleRunParams,
  ScheduleRunSchema,
  ScheduleSchema,
  ScheduleStateSchema,
  ScheduleUpdateBody,
  ScheduleUserQuery,
} from "../schemas/schedules.ts";

/**
 * Agno's Schedules API (schedules:read / :write / :delete; enable, disable and trigger are
 * writes). Schedules live in the default database and belong to their creator: a member sees and
 * changes only its own; an admin everyone's, or one user's with `user_id=`. Pointing a schedule at
 * an endpoint needs the caller's own permission for it (lib/http/schedule-access.ts), checked at
 * create, at a patch that changes the target, at enable and at trigger; the endpoint must mean
 * what its text says (lib/scheduler/endpoint.ts, a 422 naming `endpoint`). A member may own at most
 * `scheduler.maxSchedulesPerUser` schedules (422 at create); admins are not capped.
 */

const TAGS = ["Schedules"];
const DATA = { db: "default", userFrom: "query" } as const;

export function toScheduleView(s: StoredSchedule): z.infer<typeof ScheduleSchema> {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    method: s.method,
    endpoint: s.endpoint,
    payload: s.payload,
    cron_expr: s.cron_expr,
    timezone: s.timezone,
    timeout_seconds: s.timeout_seconds,
    max_retries: s.max_retries,
    retry_delay_seconds: s.retry_delay_seconds,
    enabled: s.enabled,
    next_run_at: s.next_run_at,
    created_at: s.created_at,
    updated_at: s.updated_at,
    user_id: s.user_id,
    misfire_policy: s.misfire_policy,
    catch_up_limit: s.catch_up_limit,
    allow_overlap: s.allow_overlap,
    jitter_seconds: s.jitter_seconds,
    disabled_reason: s.disabled_reason,
    managed_by: s.managed_by,
    target_type: s.target_type,
    target_id: s.target_id,
  };
}

export function toScheduleRunView(r: StoredScheduleRun): z.infer<typeof ScheduleRunSchema> {
  return {
    id: r.id,
    schedule_id: r.schedule_id,
    attempt: r.attempt,
    triggered_at: r.triggered_at,
    completed_at: r.completed_at,
    status: r.status,
    status_code: r.status_code,
    run_id: r.run_id,
    session_id: r.session_id,
    error: r.error,
    input: r.input,
    output: r.output,
    requirements: r.requirements,
    created_at: r.created_at,
    user_id: r.user_id,
    scheduled_for: r.scheduled_for,
  };
}

/** The schedule the path names, in the caller's scope (an admin's: `user_id=`'s or everyone's); 404 otherwise. */
async function pathSchedule({ params }: { params: { schedule_id: string } }, { data }: DataLoaderContext): Promise<StoredSchedule> {
  const { db, scope } = await data();
  return scheduleOr404(db, scope, params.schedule_id);
}

/** The path's schedule, once the caller may point a schedule at its endpoint (enable: re-arming is like creating it). */
async function permittedPathSchedule(input: { params: { schedule_id: string } }, context: DataLoaderContext & { principal: Principal }): Promise<StoredSchedule> {
  const existing = await pathSchedule(input, context);
  requireEndpointPermission(context.principal, existing.endpoint, existing.method);
  return existing;
}

/** One run of the path's schedule; 404 "Schedule run not found" for another schedule's run too. */
async function pathScheduleRun({ params }: { params: { schedule_id: string; run_id: string } }, { data }: DataLoaderContext): Promise<StoredScheduleRun> {
  const { db, scope } = await data();
  const run = await getScheduleRun(db, { scope, id: params.run_id });
  if (!run || run.schedule_id !== params.schedule_id) throw new HttpError(404, "Schedule run not found");
  return run;
}

const stateView = (s: StoredSchedule): z.infer<typeof ScheduleStateSchema> => ({ id: s.id, name: s.name, enabled: s.enabled, next_run_at: s.next_run_at, updated_at: s.updated_at });

/**
 * Whose a new schedule is: the caller (an admin with no identity of its own makes a shared one).
 * The scheduler's own principal and reserved subjects may not own one: a fire would act with the
 * executor's reach.
 */
function ownerOf(principal: Principal): string | null {
  if (principal.authenticatedBy === "scheduler" || (principal.userId !== null && isReservedSubject(principal.userId))) {
    throw new HttpError(403, "The scheduler executor may not own a schedule");
  }
  return principal.userId;
}

export const listSchedulesRoute = defineRoute({
  method: "GET",
  path: "/schedules",
  summary: "List schedules (your own; an admin sees all, or one user's with user_id)",
  tags: TAGS,
  access: { permission: "schedules:read" },
  query: ListSchedulesQuery,
  response: ScheduleListSchema,
  data: DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { schedules, totalCount } = await listSchedules(db, { scope, enabled: query.enabled, page: query.page, limit: query.limit });
    return pageOf(schedules.map(toScheduleView), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const createScheduleRoute = defineRoute({
  method: "POST",
  path: "/schedules",
  summary: "Create a schedule (201, with next_run_at computed); 409 when you already use the name; 422 past scheduler.maxSchedulesPerUser",
  tags: TAGS,
  access: { permission: "schedules:write" },
  body: ScheduleCreateBody,
  response: ScheduleSchema,
  status: 201,
  data: { db: "default" },
  handler: async ({ input: { body }, principal, scope, db, settings }) => {
    const owner = ownerOf(principal);
    requireEndpointPermission(principal, body.endpoint, body.method);
    await refuseUnrunnableTarget(settings, db, principal, { endpoint: body.endpoint, method: body.method, name: body.name });
    const created = await createScheduleFor(db, { scope, owner, definition: body, maxSchedulesPerOwner: scheduleLimitFor(principal, settings) });
    wakeScheduler(settings);
    return toScheduleView(created);
  },
});

export const getScheduleRoute = defineRoute({
  method: "GET",
  path: "/schedules/{schedule_id}",
  summary: "Get a schedule",
  tags: TAGS,
  access: { permission: "schedules:read" },
  params: ScheduleParams,
  query: ScheduleUserQuery,
  response: ScheduleSchema,
  data: DATA,
  resource: pathSchedule,
  handler: ({ resource: schedule }) => toScheduleView(schedule),
});

export const updateScheduleRoute = defineRoute({
  method: "PATCH",
  path: "/schedules/{schedule_id}",
  summary: "Update a schedule (partial; a new cron expression or time zone re-arms next_run_at)",
  tags: TAGS,
  access: { permission: "schedules:write" },
  params: ScheduleParams,
  query: ScheduleUserQuery,
  body: ScheduleUpdateBody,
  response: ScheduleSchema,
  data: DATA,
  resource: pathSchedule,
  handler: async ({ input: { body }, resource: existing, principal, scope, db, settings }) => {
    const updates = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Parameters<typeof updateScheduleFor>[1]["updates"];
    // Re-pointing a schedule needs the same permission as creating it.
    if (updates.endpoint !== undefined || updates.method !== undefined) {
      requireEndpointPermission(principal, updates.endpoint ?? existing.endpoint, updates.method ?? existing.method);
    }
    if (updates.endpoint !== undefined) {
      await refuseUnrunnableTarget(settings, db, principal, { endpoint: updates.endpoint, method: updates.method ?? existing.method, name: existing.name || existing.id, repoint: true });
    }
    const updated = await updateScheduleFor(db, { scope, existing, updates });
    wakeScheduler(settings);
    return toScheduleView(updated);
  },
});

export const deleteScheduleRoute = defineRoute({
  method: "DELETE",
  path: "/schedules/{schedule_id}",
  summary: "Delete a schedule and its runs",
  tags: TAGS,
  access: { permission: "schedules:delete" },
  params: ScheduleParams,
  query: ScheduleUserQuery,
  status: 204,
  data: DATA,
  resource: pathSchedule,
  handler: async ({ input: { params }, scope, db }) => {
    if (!(await deleteSchedule(db, { scope, id: params.schedule_id }))) throw new HttpError(404, "Schedule not found");
  },
});

export const enableScheduleRoute = defineRoute({
  method: "POST",
  path: "/schedules/{schedule_id}/enable",
  summary: "Enable a schedule (re-armed from now)",
  tags: TAGS,
  access: { permission: "schedules:write" },
  params: ScheduleParams,
  query: ScheduleUserQuery,
  response: ScheduleStateSchema,
  data: DATA,
  // Re-arming puts the endpoint back on the scheduler: the same permission as creating it.
  resource: permittedPathSchedule,
  handler: async ({ resource: existing, principal, scope, db, settings }) => {
    await refuseUnrunnableTarget(settings, db, principal, { endpoint: existing.endpoint, method: existing.method, name: existing.name });
    const enabled = await enableScheduleFor(db, { scope, existing });
    wakeScheduler(settings);
    return stateView(enabled);
  },
});

export const disableScheduleRoute = defineRoute({
  method: "POST",
  path: "/schedules/{schedule_id}/disable",
  summary: "Disable a schedule",
  tags: TAGS,
  access: { permission: "schedules:write" },
  params: ScheduleParams,
  query: ScheduleUserQuery,
  response: ScheduleStateSchema,
  data: DATA,
  resource: pathSchedule,
  handler: async ({ resource: existing, scope, db }) => stateView(await disableScheduleFor(db, { scope, existing })),
});

export const triggerScheduleRoute = defineRoute({
  method: "POST",
  path: "/schedules/{schedule_id}/trigger",
  summary: "Fire a schedule now and wait for it (409 when disabled, 503 when the scheduler is off)",
  tags: TAGS,
  access: { permission: "schedules:write" },
  params: ScheduleParams,
  query: ScheduleUserQuery,
  response: ScheduleRunSchema,
  data: DATA,
  resource: pathSchedule,
  handler: async ({ resource: existing, principal, db, settings }) => {
    if (!existing.enabled) throw new HttpError(409, "Schedule is disabled");
    requireEndpointPermission(principal, existing.endpoint, existing.method);
    // The fire goes on if the caller hangs up: its record says how it ended.
    return toScheduleRunView(await triggerSchedule(db, settings, existing));
  },
});

export const listScheduleRunsRoute = defineRoute({
  method: "GET",
  path: "/schedules/{schedule_id}/runs",
  summary: "List a schedule's runs, newest first",
  tags: TAGS,
  access: { permission: "schedules:read" },
  params: ScheduleParams,
  query: ListScheduleRunsQuery,
  response: ScheduleRunListSchema,
  data: DATA,
  resource: pathSchedule,
  handler: async ({ input: { params, query }, scope, db }) => {
    const started = performance.now();
    const { runs, totalCount } = await listScheduleRuns(db, { scope, scheduleId: params.schedule_id, page: query.page, limit: query.limit });
    return pageOf(runs.map(toScheduleRunView), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const getScheduleRunRoute = defineRoute({
  method: "GET",
  path: "/schedules/{schedule_id}/runs/{run_id}",
  summary: "Get one run of a schedule",
  tags: TAGS,
  access: { permission: "schedules:read" },
  params: ScheduleRunParams,
  query: ScheduleUserQuery,
  response: ScheduleRunSchema,
  data: DATA,
  resource: pathScheduleRun,
  handler: ({ resource: run }) => toScheduleRunView(run),
});

export const SCHEDULE_ROUTES = [
  listSchedulesRoute,
  createScheduleRoute,
  getScheduleRoute,
  updateScheduleRoute,
  deleteScheduleRoute,
  enableScheduleRoute,
  disableScheduleRoute,
  triggerScheduleRoute,
  listScheduleRunsRoute,
  getScheduleRunRoute,
];
