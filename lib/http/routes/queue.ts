import { z } from "zod";
import type { Settings } from "../../config/settings.ts";
import { FRESH_FAILURE_SECONDS, FreshFailureError, getJob, JOB_STATUSES, JobNotRequeueableError, listJobs, queueStats, type JobKindFilter, type JobStatus, type StoredJob } from "../../db/index.ts";
import { NotFoundError } from "../../errors/domain-errors.ts";
import { requeueQueueJob } from "../../queue/requeue.ts";
import { RUN_COMPONENT_TYPES } from "../../runs/jobs/run-job.ts";
import { zodToValidation } from "../errors.ts";
import { HttpError } from "../../errors/http-error.ts";
import { pythonStringRepr, pythonTupleRepr } from "../python-repr.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { pageOf } from "../schemas/list-query.ts";
import { JobListSchema, JobParams, JobSchema, ListJobsQuery, QueueStatsQuery, QueueStatsSchema, RequeueJobQuery } from "../schemas/queue.ts";
import { featureDisabled, QUEUE_FEATURE } from "./disabled-features.ts";

/**
 * The durable queue's operations API (Agno v3's `/queue`): the dead-letter list, one job, requeue
 * and queue-health stats over agno_jobs in the default database. An operator surface — job rows hold
 * payloads (verbatim user input) of every user — so every route needs `agent_os:admin` and an
 * admin principal. While `queue.durable` is off every route answers Agno's 503 stub message, before
 * its input is even validated (the /queue catch-all in disabled-features.ts covers other paths).
 */

/**
 * What every queue route declares: `agent_os:admin`, and the queue's rows in the default database
 * — 503 while the durable queue is off; 403 for anyone but an admin (a service account granted
 * agent_os:admin stays self-scoped, so it is refused too: the queue is not a per-user view).
 */
const QUEUE_ROUTE = {
  tags: ["Queue"],
  access: { permission: "agent_os:admin" },
  data: {
    db: "default",
    requires: (settings: Settings) => {
      if (!settings.queue.durable) throw featureDisabled(QUEUE_FEATURE.tag, QUEUE_FEATURE.enableWith);
    },
    adminOnly: "Job queue operations require an admin scope",
  },
} as const;

// The dispatcher validates the query before the handler runs; these schemas defer a failure to
// the handler instead, so a disabled queue answers 503 rather than 422 for a malformed query.
const INVALID = Symbol("invalid query");
type Deferred = { [INVALID]?: { error: z.ZodError; input: unknown } };

function deferValidation<S extends z.ZodType<Record<string, unknown>>>(schema: S) {
  return schema.catch((ctx) => ({ [INVALID]: { error: new z.ZodError(ctx.error.issues), input: ctx.input } }) as unknown as z.output<S>);
}

/** The validated query, or the 422 the dispatcher would have answered. */
function validQuery<T>(query: T): T {
  const invalid = (query as Deferred)[INVALID];
  if (invalid) throw zodToValidation(invalid.error, "query", invalid.input);
  return query;
}

export function toJobView(job: StoredJob): z.infer<typeof JobSchema> {
  return {
    id: job.id,
    component_type: job.component_type,
    job_type: job.job_type,
    deployment_id: job.deployment_id,
    component_id: job.component_id,
    session_id: job.session_id,
    user_id: job.user_id,
    payload: job.payload,
    status: job.status,
    attempt: job.attempt,
    lease_losses: job.lease_losses,
    max_attempts: job.max_attempts,
    cancel_requested_at: job.cancel_requested_at,
    idempotency_key: job.idempotency_key,
    available_at: job.available_at,
    locked_by: job.locked_by,
    locked_at: job.locked_at,
    error: job.error,
    created_at: job.created_at,
    updated_at: job.updated_at,
    completed_at: job.completed_at,
  };
}

/** The job the path names; 404 in Agno's words otherwise. */
async function pathJob({ params }: { params: { job_id: string } }, { data }: DataLoaderContext): Promise<StoredJob> {
  const { db, scope } = await data();
  const job = await getJob(db, { scope, id: params.job_id });
  if (!job) throw new HttpError(404, `Job queue job ${params.job_id} not found`);
  return job;
}

/** The requested ticket statuses; the first unknown one is Agno's 400, word for word (Python's reprs of it and of the statuses' tuple). */
function knownStatuses(values: string[] | undefined): JobStatus[] | undefined {
  const unknown = values?.find((value) => !(JOB_STATUSES as readonly string[]).includes(value));
  if (unknown !== undefined) throw new HttpError(400, `Invalid status ${pythonStringRepr(unknown)}; expected one of ${pythonTupleRepr(JOB_STATUSES)}`);
  return values as JobStatus[] | undefined;
}

/**
 * A refused requeue as Agno answers it: 409 for a failure within the lock grace sent without
 * `force` (its worker may still be executing); 400 for an unknown job, one neither failed nor
 * cancelled, or one that changed meanwhile.
 */
function requeueRefusal(error: unknown, id: string): unknown {
  if (error instanceof FreshFailureError) {
    return new HttpError(
      409,
      `Job ${id} failed within the last ${FRESH_FAILURE_SECONDS}s and its worker may still be executing (a sweep proves lost heartbeats, not stopped execution). Retry after the lock grace elapses, or pass force=true to override.`,
    );
  }
  if (error instanceof NotFoundError || error instanceof JobNotRequeueableError) return new HttpError(400, `Job ${id} not found or not in a requeueable state`);
  return error;
}

/** The kinds a list or count covers: the named job types, or — as Agno's queue holds only them — run jobs. */
const kindsOf = (jobTypes: string[] | undefined): JobKindFilter => (jobTypes?.length ? { jobTypes } : { componentTypes: RUN_COMPONENT_TYPES });

export const listJobsRoute = defineRoute({
  method: "GET",
  path: "/queue/jobs",
  summary: "List queue jobs (filter by status, e.g. status=failed for the dead-letter list; paginated and sorted)",
  ...QUEUE_ROUTE,
  query: deferValidation(ListJobsQuery),
  response: JobListSchema,
  handler: async ({ input, scope, db }) => {
    const query = validQuery(input.query);
    const statuses = knownStatuses(query.status);
    const started = performance.now();
    const { jobs, totalCount } = await listJobs(db, {
      scope,
      kinds: kindsOf(query.job_type),
      statuses,
      page: query.page,
      limit: query.limit,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    return pageOf(jobs.map(toJobView), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const getJobRoute = defineRoute({
  method: "GET",
  path: "/queue/jobs/{job_id}",
  summary: "One queue job",
  ...QUEUE_ROUTE,
  params: JobParams,
  response: JobSchema,
  resource: pathJob,
  handler: ({ resource: job }) => toJobView(job),
});

export const requeueJobRoute = defineRoute({
  method: "POST",
  path: "/queue/jobs/{job_id}/requeue",
  summary: "Requeue a failed or cancelled job, its run back to PENDING (a fresh failure needs force; a cancelled job keeps its cancel, applied again when it starts, unless clear_cancellation)",
  ...QUEUE_ROUTE,
  params: JobParams,
  query: deferValidation(RequeueJobQuery),
  response: JobSchema,
  handler: async ({ input, scope, db }) => {
    const query = validQuery(input.query);
    const id = input.params.job_id;
    const job = await requeueQueueJob(db, { scope, id, force: query.force, clearCancellation: query.clear_cancellation }).catch((error: unknown) => {
      throw requeueRefusal(error, id);
    });
    return toJobView(job);
  },
});

export const queueStatsRoute = defineRoute({
  method: "GET",
  path: "/queue/stats",
  summary: "Job counts by status and the age of the oldest queued job",
  ...QUEUE_ROUTE,
  query: deferValidation(QueueStatsQuery),
  response: QueueStatsSchema,
  handler: async ({ input, scope, db }) => {
    const query = validQuery(input.query);
    return queueStats(db, { scope, kinds: kindsOf(query.job_type) });
  },
});

export const QUEUE_ROUTES = [listJobsRoute, getJobRoute, requeueJobRoute, queueStatsRoute];
