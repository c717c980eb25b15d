import { z } from "zod";
import { JOB_STATUSES } from "../../db/jobs/job-row.ts";
import { formBool } from "./form-fields.ts";
import { PageQuery, SortOrder, paginated } from "./list-query.ts";

/**
 * Request and response shapes of the durable queue's operations API (Agno v3's `/queue` routes).
 * A job's `status` is its ticket status (queued, running, …), not the run's API status.
 */

// ── requests ────────────────────────────────────────────────────────────────────────────────

/**
 * `status=failed&status=cancelled`: any of them; absent means every status. The values are
 * strings here: an unknown status is Agno's 400 naming it (routes/queue.ts), not a 422; `meta`
 * documents the accepted values in /openapi.json.
 */
const StatusesQuery = z
  .union([z.string(), z.array(z.string())])
  .meta({
    anyOf: [
      { type: "string", enum: [...JOB_STATUSES] },
      { type: "array", items: { type: "string", enum: [...JOB_STATUSES] } },
    ],
  })
  .optional()
  .transform((value) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]));

/** `job_type=eval&job_type=knowledge`: jobs of these kinds; absent, run jobs only (agent, team, workflow), as Agno lists. */
const JobTypesQuery = z
  .union([z.string().min(1).max(64), z.array(z.string().min(1).max(64))])
  .optional()
  .transform((value) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]))
  .describe("Repeatable; jobs of these job types (e.g. run, or a background kind); absent: run jobs (agent, team, workflow) only");

export const JOB_SORT_FIELDS = ["created_at", "available_at", "updated_at", "completed_at", "status"] as const;

export const ListJobsQuery = z.object({
  status: StatusesQuery.describe("Repeatable; any of these ticket statuses"),
  job_type: JobTypesQuery,
  ...PageQuery,
  sort_by: z.enum(JOB_SORT_FIELDS).default("created_at"),
  sort_order: SortOrder,
});

export const QueueStatsQuery = z.object({ job_type: JobTypesQuery });

export const JobParams = z.object({ job_id: z.string().min(1) });

export const RequeueJobQuery = z.object({
  /** Required to requeue a cancelled job: overrides the cancellation and forgets its intent. */
  clear_cancellation: formBool(false).describe("Requeue a cancelled job, dropping its recorded cancel intent"),
  /** Requeue a job that failed moments ago (otherwise 409). */
  force: formBool(false).describe("Requeue a fresh failure anyway"),
});

// ── responses ───────────────────────────────────────────────────────────────────────────────

/** One agno_jobs row. Times are epoch seconds, as stored. */
export const JobSchema = z.object({
  /** The run id: one job per durable background run. */
  id: z.string(),
  component_type: z.string(),
  job_type: z.string(),
  deployment_id: z.string().nullable(),
  component_id: z.string(),
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()).nullable(),
  status: z.enum(JOB_STATUSES),
  /** Claims so far, lost leases included. */
  attempt: z.number().int(),
  /** Claims whose lease was lost (worker died or shut down); they spend no attempt. */
  lease_losses: z.number().int(),
  max_attempts: z.number().int(),
  /** When a cancel was requested, or null. */
  cancel_requested_at: z.number().nullable(),
  idempotency_key: z.string().nullable(),
  available_at: z.number(),
  locked_by: z.string().nullable(),
  locked_at: z.number().nullable(),
  error: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number().nullable(),
  completed_at: z.number().nullable(),
});

export const JobListSchema = paginated(JobSchema);

export const QueueStatsSchema = z.object({
  /** Every status, zero included. */
  counts: z.record(z.enum(JOB_STATUSES), z.number().int()),
  /** Seconds since the oldest queued job was submitted; null when none is queued. */
  oldest_queued_age_seconds: z.number().nullable(),
});
