import type { z } from "zod";
import type { QueueSettings, Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { isJobTypeName, type JobSubject, type SubjectBinding, type SubjectValue } from "../db/jobs/job-subject.ts";
import type { ClaimedJob, JobFence, JobSettlement } from "../db/jobs/index.ts";
import type { RedisCoordination } from "../coordination/redis-coordination.ts";

/**
 * The job catalog: every kind of job the durable queue runs, each declared once by its
 * `job_type` — its payload schema, its executor, its attempts, backoff and timeout, and the
 * subject row its claim and settlement write besides the job row (a run job's agno_runs row; a
 * kind without one writes only its job). The worker (./worker.ts) claims only the kinds of its
 * catalog, parses each payload before anything runs (a payload that fails its schema fails the
 * job at once, never retried), and hands the job to its kind's executor. Recurring work (a
 * scheduler's tick, metrics refreshes, retention) is a kind like any other, enqueued by whoever
 * keeps its schedule.
 */

/** What an executor gets for one claimed job. */
export interface JobContext<P = unknown> {
  readonly job: ClaimedJob;
  /** The job's payload, parsed by its kind's schema. */
  readonly payload: P;
  readonly fence: JobFence;
  /**
   * Aborted with the reason the work must stop: LeaseLostError (another claim owns the job; write
   * nothing), RunTimeoutSignal (the kind's timeout), JobCancelledError (a cancel, for a kind
   * without its own `onCancel`).
   */
  readonly signal: AbortSignal;
  /**
   * Whether this worker has seen a cancel recorded for the job (at the claim, or since through its
   * poll, heartbeat or a Redis signal): current whenever it is read. The database stays the truth.
   */
  readonly cancelRequested: boolean;
  readonly coordination: RedisCoordination | null;
  /**
   * Whether the lease is surely still this worker's: renewed less than lockGraceSeconds ago (by
   * its clock, less a margin). Checked before anything the database does not fence (Redis events),
   * so a worker that froze past its lease does nothing visible when it wakes.
   */
  holdsLease(): boolean;
  /**
   * Records the attempt's end: the job's settlement, and its subject's final row for a kind that
   * has one, in one statement with every other attempt of this worker that ends meanwhile (group
   * commit). True when the fence held. From this call on the job no longer counts as executing.
   * While a cancel is recorded only a "cancelled" end applies (false otherwise).
   */
  settle(settlement: JobSettlement, subject?: SubjectValue): Promise<boolean>;
  /** The kind's base retry delay (seconds) and the job's attempts, for executors that settle themselves. */
  readonly retry: { baseDelaySeconds: number; maxAttempts: number };
}

/**
 * Executes one claimed job. A kind with a subject settles through `ctx.settle` itself (its
 * subject's final row goes with it); for a kind without, returning settles the job completed,
 * throwing fails the attempt (queued again with backoff while attempts remain, unless the error is
 * a PermanentJobError), and a cancel seen meanwhile settles it cancelled.
 */
export type JobExecutor<P = unknown> = (ctx: JobContext<P>) => Promise<void>;

/** What a kind's executor is built from, once per worker. */
export interface ExecutorDeps {
  db: Db;
  queue: QueueSettings;
  /** The OS settings (agents and the rest); absent for a worker built without them (tests, benchmarks). */
  settings?: Settings;
}

/** One kind of job. */
export interface JobKind<P = unknown> {
  /** agno_jobs.job_type: lowercase letters, digits and underscores. */
  readonly jobType: string;
  /** What this kind's jobs carry in agno_jobs.payload, checked when a worker takes the job. */
  readonly payload: z.ZodType<P>;
  /** The row claiming and settling write besides the job row, if any (lib/db/jobs/job-subject.ts). */
  readonly subject?: JobSubject;
  /** Attempts a new job of this kind gets (agno_jobs.max_attempts); default queue.maxAttempts. */
  maxAttempts?(queue: QueueSettings): number;
  /** Base delay before a retry, doubled per spent attempt (capped, jittered); default queue.retryDelaySeconds. */
  retryDelaySeconds?(queue: QueueSettings): number;
  /** Seconds an attempt may take before it is aborted (and given up a grace period later); default queue.timeoutSeconds. */
  timeoutSeconds?(queue: QueueSettings): number;
  /**
   * A pool of slots of its own: at most this many of its jobs execute at once per worker, beside
   * (never counted against) queue.maxConcurrency. For kinds whose jobs mostly wait on other jobs
   * (a schedule fire follows the run it submitted): in the shared slots, waiting jobs could take
   * every slot and starve the jobs they wait for. Absent: the shared slots.
   */
  concurrency?(queue: QueueSettings, settings?: Settings): number;
  /** Hands a cancel seen for a running job to its work (called at every sighting: idempotent); default: the context's signal is aborted. */
  onCancel?(jobId: string): void;
  executor(deps: ExecutorDeps): JobExecutor<P>;
}

/** A failure no retry can fix: the job fails at once, whatever attempts it has left. */
export class PermanentJobError extends Error {
  override readonly name = "PermanentJobError";
}

/** The reason a job's signal is aborted with when a cancel is seen for a kind without its own `onCancel`. */
export class JobCancelledError extends Error {
  override readonly name = "JobCancelledError";
  constructor(readonly jobId: string) {
    super(`Job ${jobId} was cancelled`);
  }
}

export const defineJobKind = <P>(kind: JobKind<P>): JobKind<P> => kind;

function checkJobType(kind: JobKind<unknown>): void {
  if (!isJobTypeName(kind.jobType)) throw new Error(`Job type ${JSON.stringify(kind.jobType)} must be lowercase letters, digits and underscores`);
}

/** The kinds a worker runs, by job type. */
export class JobCatalog {
  private readonly kinds = new Map<string, JobKind<unknown>>();

  // biome-ignore lint/suspicious/noExplicitAny: each kind has its own payload type
  constructor(kinds: readonly JobKind<any>[]) {
    for (const kind of kinds as readonly JobKind<unknown>[]) {
      checkJobType(kind);
      if (this.kinds.has(kind.jobType)) throw new Error(`Job type ${kind.jobType} is declared twice`);
      this.kinds.set(kind.jobType, kind);
    }
  }

  get(jobType: string): JobKind<unknown> | undefined {
    return this.kinds.get(jobType);
  }

  /** Every job type of the catalog: what its workers claim. */
  get jobTypes(): string[] {
    return [...this.kinds.keys()];
  }

  /** The subjects of the catalog's kinds, for the statements that move jobs. */
  get subjects(): SubjectBinding[] {
    return [...this.kinds.values()].filter((k) => k.subject).map((k) => ({ jobTypes: [k.jobType], subject: k.subject! }));
  }
}

/** The catalog's slot pools: the shared one (kinds without `concurrency`) and one per kind with its own. */
export function slotPools(catalog: JobCatalog, queue: QueueSettings, settings?: Settings): { jobTypes: string[]; capacity: number }[] {
  const shared: string[] = [];
  const own: { jobTypes: string[]; capacity: number }[] = [];
  for (const jobType of catalog.jobTypes) {
    const kind = catalog.get(jobType)!;
    if (kind.concurrency) own.push({ jobTypes: [jobType], capacity: Math.max(1, kind.concurrency(queue, settings)) });
    else shared.push(jobType);
  }
  return [...(shared.length > 0 ? [{ jobTypes: shared, capacity: queue.maxConcurrency }] : []), ...own];
}

/** `{ jobTypes, subjects }` of a catalog, as the data layer's claim and sweep take them. */
export const claimScope = (catalog: JobCatalog) => ({ jobTypes: catalog.jobTypes, subjects: catalog.subjects });

const registryKey = Symbol.for("agentry.jobKinds");
type RegistryHolder = { [registryKey]?: { kinds: Map<string, JobKind<unknown>>; catalog: JobCatalog | null } };

function kindRegistry() {
  const holder = globalThis as RegistryHolder;
  holder[registryKey] ??= { kinds: new Map(), catalog: null };
  return holder[registryKey];
}

/**
 * Adds kinds to the process's catalog: what every worker of this process claims and runs. Each
 * feature declares its kinds next to its code; the composition root (lib/server/features.ts)
 * registers them before the first request and in the worker entry. Process-wide (on `globalThis`:
 * Next bundles several module graphs, and a kind registered from any of them is the process's);
 * a job type already registered keeps its first kind.
 */
// biome-ignore lint/suspicious/noExplicitAny: each kind has its own payload type
export function registerJobKinds(kinds: readonly JobKind<any>[]): void {
  const registry = kindRegistry();
  let added = false;
  for (const kind of kinds as readonly JobKind<unknown>[]) {
    if (registry.kinds.has(kind.jobType)) continue;
    checkJobType(kind);
    registry.kinds.set(kind.jobType, kind);
    added = true;
  }
  if (added) registry.catalog = null;
}

/** The process's catalog (registerJobKinds); an error when nothing registered a kind yet, which is a wiring mistake. */
export function jobCatalog(): JobCatalog {
  const registry = kindRegistry();
  if (registry.kinds.size === 0) throw new Error("No job kinds are registered in this process: the composition root (lib/server/features.ts installFeatures) registers them before the queue is used");
  registry.catalog ??= new JobCatalog([...registry.kinds.values()]);
  return registry.catalog;
}
