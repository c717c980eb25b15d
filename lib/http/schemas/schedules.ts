import { z } from "zod";
import { MISFIRE_POLICIES } from "../../db/schedules/schedules.ts";
import { endpointProblem } from "../../scheduler/endpoint.ts";
import { JsonObject, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Schedules API (`/schedules`), with Agentry's optional policy fields. */

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
const NAME_MESSAGE = "Name must start with alphanumeric and contain only alphanumeric, '.', '_', '-'";
export const SCHEDULE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const name = z.string().max(255).regex(NAME, NAME_MESSAGE);
const cronExpr = z.string().max(128);
/** A path a fire reads as written (lib/scheduler/endpoint.ts: no `\\`, `?`, `#`, dot segments, encoded separators or control characters). */
const endpoint = z
  .string()
  .max(512)
  .superRefine((v, ctx) => {
    const problem = endpointProblem(v);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });
const method = z
  .string()
  .max(10)
  .transform((v) => v.toUpperCase())
  .refine((v): v is (typeof SCHEDULE_METHODS)[number] => (SCHEDULE_METHODS as readonly string[]).includes(v), "Method must be GET, POST, PUT, PATCH, or DELETE");
const timezone = z.string().max(64);
const timeoutSeconds = z.number().int().min(1).max(86_400);
const maxRetries = z.number().int().min(0).max(10);
const retryDelaySeconds = z.number().int().min(1).max(3600);

/** Agentry's own (optional; null = the default): what to do with missed slots, overlap, jitter. */
const policyFields = {
  misfire_policy: z.enum(MISFIRE_POLICIES).nullish(),
  catch_up_limit: z.number().int().min(1).max(1000).nullish(),
  allow_overlap: z.boolean().nullish(),
  jitter_seconds: z.number().int().min(0).max(300).nullish(),
};

/** Agno's ScheduleCreate (unknown keys are ignored, as pydantic does). */
export const ScheduleCreateBody = z.object({
  name,
  cron_expr: cronExpr,
  endpoint,
  method: method.default("POST"),
  description: z.string().max(1024).nullish(),
  payload: JsonObject.nullish(),
  timezone: timezone.default("UTC"),
  timeout_seconds: timeoutSeconds.default(3600),
  max_retries: maxRetries.default(0),
  retry_delay_seconds: retryDelaySeconds.default(60),
  ...policyFields,
});

/** Fields a PATCH may not set to null (Agno's ScheduleUpdate refuses them). */
const NON_NULLABLE = ["name", "cron_expr", "endpoint", "method", "timezone", "timeout_seconds", "max_retries", "retry_delay_seconds"] as const;

/** Agno's ScheduleUpdate: every field optional; unknown keys ignored; an empty body changes nothing. */
export const ScheduleUpdateBody = z
  .object({
    name: name.nullish(),
    cron_expr: cronExpr.nullish(),
    endpoint: endpoint.nullish(),
    method: method.nullish(),
    description: z.string().max(1024).nullish(),
    payload: JsonObject.nullish(),
    timezone: timezone.nullish(),
    timeout_seconds: timeoutSeconds.nullish(),
    max_retries: maxRetries.nullish(),
    retry_delay_seconds: retryDelaySeconds.nullish(),
    ...policyFields,
  })
  .superRefine((body, ctx) => {
    for (const field of NON_NULLABLE) {
      if (body[field] === null) ctx.addIssue({ code: "custom", path: [field], message: `'${field}' cannot be set to null` });
    }
  });

export const ScheduleParams = z.object({ schedule_id: z.string().min(1) });
export const ScheduleRunParams = z.object({ schedule_id: z.string().min(1), run_id: z.string().min(1) });

const boolQuery = z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"]).transform((v) => ["true", "1", "yes", "on"].includes(v));

/** `limit` 1..1000 (default 100) and `page` ≥ 1 (default 1), as Agno's schedule lists. */
const schedulePage = {
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).default(1),
};

export const ListSchedulesQuery = z.object({
  enabled: boolQuery.optional(),
  ...schedulePage,
  /** An admin's view of one user's schedules (a member always sees its own). */
  user_id: z.string().min(1).optional(),
});

export const ListScheduleRunsQuery = z.object({ ...schedulePage, user_id: z.string().min(1).optional() });
export const ScheduleUserQuery = z.object({ user_id: z.string().min(1).optional() });

// ── responses ───────────────────────────────────────────────────────────────────────────────

/** Agno's ScheduleResponse ([v3] with user_id), plus Agentry's policy fields and why it was disabled. */
export const ScheduleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  method: z.string(),
  endpoint: z.string(),
  payload: JsonObject.nullable(),
  cron_expr: z.string(),
  timezone: z.string(),
  timeout_seconds: z.number().int(),
  max_retries: z.number().int(),
  retry_delay_seconds: z.number().int(),
  enabled: z.boolean(),
  next_run_at: z.number().int().nullable(),
  created_at: z.number().int().nullable(),
  updated_at: z.number().int().nullable(),
  user_id: z.string().nullable(),
  misfire_policy: z.enum(MISFIRE_POLICIES),
  catch_up_limit: z.number().int(),
  allow_overlap: z.boolean(),
  jitter_seconds: z.number().int(),
  disabled_reason: z.string().nullable(),
  /** Which plane manages the schedule (`agent` for one an agent's tool made), null for the API's. */
  managed_by: z.string().nullable(),
  /** The component a managed schedule runs: `agent`, `team` or `workflow` (null when unmanaged, as in Agno). */
  target_type: z.string().nullable(),
  /** That component's id (null when unmanaged). */
  target_id: z.string().nullable(),
});

/** Agno's ScheduleStateResponse (enable/disable). */
export const ScheduleStateSchema = z.object({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  next_run_at: z.number().int().nullable(),
  updated_at: z.number().int().nullable(),
});

/** Agno's ScheduleRunResponse ([v3] with user_id), plus the slot it fired for. */
export const ScheduleRunSchema = z.object({
  id: z.string(),
  schedule_id: z.string(),
  attempt: z.number().int(),
  triggered_at: z.number().int().nullable(),
  completed_at: z.number().int().nullable(),
  status: z.string(),
  status_code: z.number().int().nullable(),
  run_id: z.string().nullable(),
  session_id: z.string().nullable(),
  error: z.string().nullable(),
  input: JsonObject.nullable(),
  output: JsonObject.nullable(),
  requirements: z.array(JsonObject).nullable(),
  created_at: z.number().int().nullable(),
  user_id: z.string().nullable(),
  scheduled_for: z.number().int().nullable(),
});

export const ScheduleListSchema = paginated(ScheduleSchema);
export const ScheduleRunListSchema = paginated(ScheduleRunSchema);
