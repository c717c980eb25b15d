// Firing a schedule calls its endpoint inside this process through the caller internal-call.ts
// registers on import: the dashboard's module graph needs it as much as the API's does.
import "../internal-call.ts";
import { z } from "zod";
import { isReservedSubject } from "../../auth/jwt.ts";
import { hasScope, type Principal } from "../../auth/principal.ts";
import { DEFAULT_CATCH_UP_LIMIT, MISFIRE_POLICIES, deleteSchedule, type ScheduleUpdate, type StoredSchedule } from "../../db/schedules/schedules.ts";
import { PermissionError } from "../../errors/domain-errors.ts";
import { HttpError } from "../../errors/http-error.ts";
import { cronProblem, isValidTimezone } from "../../scheduler/cron.ts";
import { createScheduleFor, disableScheduleFor, enableScheduleFor, scheduleOr404, updateScheduleFor, type ScheduleDefinition } from "../../scheduler/manage.ts";
import { wakeScheduler } from "../../scheduler/scheduler.ts";
import { triggerSchedule } from "../../scheduler/trigger.ts";
import { refuseUnrunnableTarget, requireEndpointPermission, scheduleLimitFor } from "../schedule-access.ts";
import { ScheduleCreateBody } from "../schemas/schedules.ts";
import { defineDashboardAction, type ActionContext, type ActionState } from "./action.ts";

/**
 * The Schedules pages' actions, open to every signed-in user. Each reads and writes through the
 * caller's scope (never a user id from the form, except an admin's "for user" on create), so a
 * member sees and changes only its own schedules; another user's is "Schedule not found", exactly
 * like one that does not exist. The definition is checked by the API's own schema
 * (ScheduleCreateBody) and lib/scheduler's cron rules; pointing a schedule at an endpoint needs the
 * caller's permission for it (lib/http/schedule-access.ts) at create, at an edit that re-points
 * it, at enable and at trigger — as the API does; a member's create is refused past
 * `scheduler.maxSchedulesPerUser`, by the same check as the API's (createScheduleFor).
 */
const SCHEDULES_PAGE = "/dashboard/schedules";

/** The form's defaults: Agno's for the definition, Agentry's for the policy fields. */
export const SCHEDULE_FORM_DEFAULTS = {
  timezone: "UTC",
  timeout_seconds: 3600,
  max_retries: 0,
  retry_delay_seconds: 60,
  misfire_policy: "fire_once",
  catch_up_limit: DEFAULT_CATCH_UP_LIMIT,
  jitter_seconds: 0,
} as const;

const text = z.string().optional();

/** The form as posted: every field text (checkboxes "on" or absent). */
const ScheduleFormFields = z.object({
  name: text,
  description: text,
  cron_expr: text,
  timezone: text,
  /** `agent`: run agent_id with `message`; `endpoint`: the raw method, endpoint and JSON payload. */
  target: z.enum(["agent", "endpoint"], { error: "say what the schedule runs: an agent or an endpoint" }).default("agent"),
  agent_id: text,
  message: text,
  method: text,
  endpoint: text,
  payload: text,
  timeout_seconds: text,
  max_retries: text,
  retry_delay_seconds: text,
  misfire_policy: text,
  catch_up_limit: text,
  allow_overlap: text,
  jitter_seconds: text,
});

/** What a schedule form describes: the definition, and which agent it runs when it runs one. */
export interface ScheduleFormInput {
  definition: ScheduleDefinition;
  /** Set in `agent` mode: checked against the configured agents by the handler. */
  agentId: string | null;
}

/** A field the form got wrong: becomes the form's 422 naming it. */
class FormIssue extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A whole number field: blank is the default, anything else must be an integer in [min, max]. */
function wholeNumber(raw: string | undefined, field: string, { label, min, max, fallback }: { label: string; min: number; max: number; fallback: number }): number {
  const value = (raw ?? "").trim();
  if (value === "") return fallback;
  const n = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new FormIssue(field, `${label} must be a whole number from ${min} to ${max}, got "${value.slice(0, 40)}"`);
  return n;
}

/** A JSON object, or null when blank. */
function payloadObject(raw: string | undefined): Record<string, unknown> | null {
  const value = (raw ?? "").trim();
  if (value === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new FormIssue("payload", `the payload is not valid JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new FormIssue("payload", 'the payload must be a JSON object, like {"message": "Good morning"}');
  return parsed as Record<string, unknown>;
}

/** The run endpoint of an agent, its id escaped as a path segment. */
const agentEndpoint = (agentId: string) => `/agents/${encodeURIComponent(agentId)}/runs`;

/**
 * The posted form as a schedule definition, every field checked with a message naming it: the
 * required ones, the time zone and cron expression (lib/scheduler/cron.ts, as the scheduler reads
 * them), the numbers, the payload; then the whole definition by the API's ScheduleCreateBody.
 */
function scheduleInputOf(form: z.output<typeof ScheduleFormFields>): ScheduleFormInput {
  const name = (form.name ?? "").trim();
  if (name === "") throw new FormIssue("name", "give the schedule a name, e.g. daily-report");
  const cronExpr = (form.cron_expr ?? "").trim().split(/\s+/).filter(Boolean).join(" ");
  if (cronExpr === "") throw new FormIssue("cron_expr", "write a cron expression, e.g. 0 9 * * 1-5 (09:00 on weekdays)");
  const timezone = (form.timezone ?? "").trim() || SCHEDULE_FORM_DEFAULTS.timezone;
  if (!isValidTimezone(timezone)) throw new FormIssue("timezone", `Invalid timezone: ${timezone.slice(0, 80)} (use an IANA name such as Europe/Paris or UTC)`);
  const problem = cronProblem(cronExpr, timezone);
  if (problem) throw new FormIssue("cron_expr", `Invalid cron expression: ${cronExpr.slice(0, 128)} (${problem})`);

  let method = "POST";
  let endpoint: string;
  let payload: Record<string, unknown> | null;
  let agentId: string | null = null;
  if (form.target === "agent") {
    agentId = (form.agent_id ?? "").trim();
    if (agentId === "") throw new FormIssue("agent_id", "choose the agent to run");
    const message = (form.message ?? "").trim();
    if (message === "") throw new FormIssue("message", "write the message the agent gets at each fire");
    endpoint = agentEndpoint(agentId);
    payload = { message };
  } else {
    method = (form.method ?? "").trim().toUpperCase() || "POST";
    endpoint = (form.endpoint ?? "").trim();
    if (endpoint === "") throw new FormIssue("endpoint", "write the endpoint to call, e.g. /agents/assistant/runs");
    payload = payloadObject(form.payload);
  }

  const misfire = (form.misfire_policy ?? "").trim() || SCHEDULE_FORM_DEFAULTS.misfire_policy;
  if (!(MISFIRE_POLICIES as readonly string[]).includes(misfire)) throw new FormIssue("misfire_policy", `missed fires must be one of ${MISFIRE_POLICIES.join(", ")}, got "${misfire.slice(0, 40)}"`);
  const candidate = {
    name,
    description: (form.description ?? "").trim() || null,
    cron_expr: cronExpr,
    timezone,
    method,
    endpoint,
    payload,
    timeout_seconds: wholeNumber(form.timeout_seconds, "timeout_seconds", { label: "the timeout (seconds)", min: 1, max: 86_400, fallback: SCHEDULE_FORM_DEFAULTS.timeout_seconds }),
    max_retries: wholeNumber(form.max_retries, "max_retries", { label: "retries", min: 0, max: 10, fallback: SCHEDULE_FORM_DEFAULTS.max_retries }),
    retry_delay_seconds: wholeNumber(form.retry_delay_seconds, "retry_delay_seconds", { label: "the retry delay (seconds)", min: 1, max: 3600, fallback: SCHEDULE_FORM_DEFAULTS.retry_delay_seconds }),
    misfire_policy: misfire,
    catch_up_limit: wholeNumber(form.catch_up_limit, "catch_up_limit", { label: "the catch-up limit", min: 1, max: 1000, fallback: SCHEDULE_FORM_DEFAULTS.catch_up_limit }),
    allow_overlap: form.allow_overlap === "on" || form.allow_overlap === "true",
    jitter_seconds: wholeNumber(form.jitter_seconds, "jitter_seconds", { label: "the jitter (seconds)", min: 0, max: 300, fallback: SCHEDULE_FORM_DEFAULTS.jitter_seconds }),
  };
  // The API's own field rules (name pattern and length, endpoint form, method, ranges) decide last.
  const checked = ScheduleCreateBody.safeParse(candidate);
  if (!checked.success) {
    const [first] = checked.error.issues;
    throw new FormIssue(String(first?.path[0] ?? "form"), first?.message ?? "invalid schedule");
  }
  return { definition: checked.data, agentId };
}

/** A schedule form with `extra` fields of its own (the schedule's id, the owner), as one zod schema. */
function scheduleForm<E extends z.ZodRawShape>(extra: E) {
  return ScheduleFormFields.extend(extra).transform((form, ctx) => {
    try {
      return { ...form, ...scheduleInputOf(form as z.output<typeof ScheduleFormFields>) };
    } catch (error) {
      if (!(error instanceof FormIssue)) throw error;
      ctx.addIssue({ code: "custom", path: [error.field], message: error.message });
      return z.NEVER;
    }
  });
}

const ScheduleId = z.string({ error: "say which schedule" }).trim().min(1, "say which schedule");

function requireScope(principal: Principal, scope: string): void {
  if (!hasScope(principal, scope)) throw new PermissionError(`Insufficient permissions. Required scope(s): ${scope}`);
}

/**
 * The agent a form names, or a 422 naming the field when this server has no such agent — or when
 * it is an external agent (defineExternalAgent), which the form does not offer: its runs are never
 * background jobs (lib/http/routes/external-agent-runs.ts).
 */
function unknownAgent(ctx: ActionContext<unknown>, agentId: string | null): ActionState | null {
  if (agentId === null || ctx.settings.agents.some((agent) => agent.id === agentId)) return null;
  const external = ctx.settings.externalAgents.find((agent) => agent.id === agentId);
  if (external) return { ok: false, status: 422, error: `agent_id: '${agentId}' is an external agent (${external.framework}); schedules run agents defined with defineAgent` };
  return { ok: false, status: 422, error: `agent_id: there is no agent '${agentId}' on this server` };
}

/** Runs a handler, answering the HttpErrors lib/scheduler and schedule-access throw (422/403/404/409/503) as form errors. */
async function answering(run: () => Promise<ActionState>): Promise<ActionState> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { ok: false, status: error.status, error: typeof error.detail === "string" ? error.detail : JSON.stringify(error.detail) };
  }
}

export const createScheduleAction = defineDashboardAction({
  name: "createSchedule",
  access: "signed-in",
  input: scheduleForm({ userId: z.string().trim().optional() }),
  revalidate: SCHEDULES_PAGE,
  // An admin may make a schedule for another user (else its own); a member's is always its own.
  actFor: (input, principal) => input.userId || principal.userId,
  handler: (ctx) =>
    answering(async () => {
      const { input, principal, scope, db, settings } = ctx;
      requireScope(principal, "schedules:write");
      const owner = scope.kind === "user" ? scope.userId : (scope.userId ?? null);
      // Agentry's own subjects (service accounts, the scheduler) never own a schedule: a fire would act with their reach.
      if (owner !== null && isReservedSubject(owner)) return { ok: false, status: 422, error: `userId: '${owner}' is reserved and cannot own a schedule` };
      const refused = unknownAgent(ctx, input.agentId);
      if (refused) return refused;
      requireEndpointPermission(principal, input.definition.endpoint, input.definition.method);
      await refuseUnrunnableTarget(settings, db, principal, { endpoint: input.definition.endpoint, method: input.definition.method, name: input.definition.name });
      const created = await createScheduleFor(db, { scope, owner, definition: input.definition, maxSchedulesPerOwner: scheduleLimitFor(principal, settings) });
      wakeScheduler(settings);
      return { ok: true, message: `Schedule "${created.name}" created.` };
    }),
});

/** The fields of `next` that differ from the stored schedule (payload by its JSON). */
function changesFrom(existing: StoredSchedule, next: ScheduleDefinition): ScheduleUpdate {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next) as [keyof ScheduleDefinition, unknown][]) {
    const before = existing[key as keyof StoredSchedule] ?? null;
    const same = key === "payload" ? JSON.stringify(before) === JSON.stringify(value ?? null) : before === (value ?? null);
    if (!same) changes[key] = value ?? null;
  }
  return changes as ScheduleUpdate;
}

export const updateScheduleAction = defineDashboardAction({
  name: "updateSchedule",
  access: "signed-in",
  input: scheduleForm({ scheduleId: ScheduleId }),
  revalidate: SCHEDULES_PAGE,
  handler: (ctx) =>
    answering(async () => {
      const { input, principal, scope, db, settings } = ctx;
      requireScope(principal, "schedules:write");
      const existing = await scheduleOr404(db, scope, input.scheduleId);
      const updates = changesFrom(existing, input.definition);
      if (Object.keys(updates).length === 0) return { ok: true, message: "Nothing changed." };
      // Re-pointing a schedule needs the same permission as creating it.
      if (updates.endpoint !== undefined || updates.method !== undefined) {
        const refused = unknownAgent(ctx, input.agentId);
        if (refused) return refused;
        requireEndpointPermission(principal, input.definition.endpoint, input.definition.method);
        await refuseUnrunnableTarget(settings, db, principal, { endpoint: input.definition.endpoint, method: input.definition.method, name: existing.name, repoint: true });
      }
      const updated = await updateScheduleFor(db, { scope, existing, updates });
      wakeScheduler(settings);
      return { ok: true, message: `Schedule "${updated.name}" saved.` };
    }),
});

/**
 * An action on one existing schedule the form names (`scheduleId`): the caller needs
 * `permission`, and the schedule must be one its scope sees (else "Schedule not found").
 */
function scheduleAction(name: string, permission: string, act: (ctx: ActionContext<unknown> & { existing: StoredSchedule }) => Promise<ActionState>) {
  return defineDashboardAction({
    name,
    access: "signed-in",
    input: z.object({ scheduleId: ScheduleId }),
    revalidate: SCHEDULES_PAGE,
    handler: (ctx) =>
      answering(async () => {
        requireScope(ctx.principal, permission);
        return act({ ...ctx, existing: await scheduleOr404(ctx.db, ctx.scope, ctx.input.scheduleId) });
      }),
  });
}

export const enableScheduleAction = scheduleAction("enableSchedule", "schedules:write", async ({ existing, principal, scope, db, settings }) => {
  // Re-arming puts the endpoint back on the scheduler: the same permission as creating it.
  requireEndpointPermission(principal, existing.endpoint, existing.method);
  await refuseUnrunnableTarget(settings, db, principal, { endpoint: existing.endpoint, method: existing.method, name: existing.name });
  await enableScheduleFor(db, { scope, existing });
  wakeScheduler(settings);
  return { ok: true, message: `Schedule "${existing.name}" enabled.` };
});

export const disableScheduleAction = scheduleAction("disableSchedule", "schedules:write", async ({ existing, scope, db }) => {
  await disableScheduleFor(db, { scope, existing });
  return { ok: true, message: `Schedule "${existing.name}" disabled.` };
});

/**
 * Fires the schedule now and waits for the fire to end (as `POST /schedules/{id}/trigger`); the
 * outcome is in the message, and the run it recorded is in the history. A fire that failed is
 * still a trigger that happened, so the state is ok and names the failure.
 */
export const triggerScheduleAction = scheduleAction("triggerSchedule", "schedules:write", async ({ existing, principal, db, settings }) => {
  if (!existing.enabled) return { ok: false, status: 409, error: "Schedule is disabled: enable it to trigger it" };
  requireEndpointPermission(principal, existing.endpoint, existing.method);
  const run = await triggerSchedule(db, settings, existing);
  return { ok: true, message: run.status === "success" ? "Triggered: the fire succeeded." : `Triggered: the fire ended ${run.status}${run.error ? ` (${run.error})` : ""}.` };
});

export const deleteScheduleAction = scheduleAction("deleteSchedule", "schedules:delete", async ({ existing, scope, db }) => {
  if (!(await deleteSchedule(db, { scope, id: existing.id }))) throw new HttpError(404, "Schedule not found");
  return { ok: true, message: `Schedule "${existing.name}" deleted.` };
});
