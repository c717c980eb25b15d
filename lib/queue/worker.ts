import { z } from "zod";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { QueueSettings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { claimJobs, heartbeatJobs, cancelRequestedJobs, releaseJob, abandonJob, unsafeDeleteFinishedJobs, unsafeSweepExpiredLeases, type ClaimedJob, type JobFence } from "../db/jobs/index.ts";
import { epochSeconds } from "../db/jobs/job-row.ts";
import { heldJobCancelRequested, retryDelaySeconds, spentAttempts, type JobSettlement } from "../db/jobs/index.ts";
import type { SubjectBinding, SubjectValue } from "../db/jobs/job-subject.ts";
import { log } from "../log.ts";
import type { RedisCoordination } from "../coordination/redis-coordination.ts";
import type { Settings } from "../config/settings.ts";
import { RunTimeoutSignal } from "../live-runs/run-registry.ts";
import { LeaseLostError } from "../runtime/run-writer.ts";
import { claimScope, JobCancelledError, PermanentJobError, slotPools, type JobCatalog, type JobExecutor, type JobKind } from "./catalog.ts";
import { SettleBatcher } from "./settle-batcher.ts";

export type { JobContext, JobExecutor } from "./catalog.ts";

/** What a worker has done lately (epoch milliseconds), for its /health. */
export interface WorkerProgress {
  workerId: string;
  running: number;
  capacity: number;
  lastClaimAt: number | null;
  lastCompletionAt: number | null;
  stopping: boolean;
}

export interface WorkerOptions {
  db: Db;
  queue: QueueSettings;
  /** The kinds of job this worker claims and runs (./catalog.ts). */
  catalog: JobCatalog;
  /** What the kinds' executors are built with besides the database and queue settings. */
  settings?: Settings;
  /**
   * Called whenever a cancel is seen for a job this worker executes — again at every sighting, so
   * it must be idempotent — besides the delivery to the job's work (the kind's `onCancel`, else
   * its signal is aborted).
   */
  onCancel?: (jobId: string) => void;
  coordination?: RedisCoordination | null;
  workerId?: string;
}

interface Active {
  job: ClaimedJob;
  kind: JobKind<unknown>;
  fence: JobFence;
  /** The attempt's end is being written: the job is leaving the worker (it no longer counts as executing). */
  settling: boolean;
  controller: AbortController;
  timeout: ReturnType<typeof setTimeout>;
  cancelRequested: boolean;
  /** Date.now() of the claim or of the last heartbeat that renewed this lease. */
  renewedAt: number;
  /** The lease is gone (aborted with LeaseLostError): nothing renews or settles it any more. */
  lost: boolean;
  /** Set once the run was told to stop (timeout, cancel): it is given up if it has not ended a grace period later. */
  giveUp?: ReturnType<typeof setTimeout>;
  done: Promise<void>;
}

/** How much sooner than the database this worker considers one of its leases gone. */
const LEASE_MARGIN_MS = 250;
/** After releasing its jobs on stop, how long a worker waits for their executors to wind down. */
const STOP_DRAIN_MS = 5_000;

export function newWorkerId(): string {
  return `worker-${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/**
 * The durable queue's worker loop, the same in the web server (embedded) and in `npm run worker`.
 * Claims ready jobs in batches up to queue.maxConcurrency, renews every lease it holds in one
 * statement every lockGraceSeconds/4 (a lease it lost aborts that job, whose writes are fenced
 * out anyway), sweeps expired leases of dead workers, deletes finished jobs after
 * retentionSeconds. A local submit or a Redis wake-up claims at once; otherwise it polls.
 * stop(): claims nothing more, lets running jobs finish for stopTimeoutSeconds, then releases the
 * rest at once (no attempt spent) so another worker takes them.
 */
export class QueueWorker {
  readonly workerId: string;
  private readonly active = new Map<string, Active>();
  private running = false;
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private timers: ReturnType<typeof setInterval>[] = [];
  private unsubscribers: (() => void)[] = [];
  private progress = { lastClaimAt: null as number | null, lastCompletionAt: null as number | null };

  /** Finished attempts are written in batches (one commit for all that finish together). */
  private readonly settler: SettleBatcher;
  private readonly executors = new Map<string, JobExecutor<unknown>>();
  /** The job types this worker claims and the subjects that move with their jobs. */
  private readonly scope: ReturnType<typeof claimScope>;

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? newWorkerId();
    this.scope = claimScope(options.catalog);
    this.settler = new SettleBatcher(options.db, this.workerId, this.scope.subjects);
  }

  /** The job types this worker claims. */
  get jobTypes(): readonly string[] {
    return this.scope.jobTypes;
  }

  /** The subjects its catalog's kinds move along with their jobs (lib/db/jobs/job-subject.ts). */
  get subjects(): readonly SubjectBinding[] {
    return this.scope.subjects;
  }

  private executorOf(kind: JobKind<unknown>): JobExecutor<unknown> {
    let executor = this.executors.get(kind.jobType);
    if (!executor) {
      executor = kind.executor({ db: this.options.db, queue: this.options.queue, settings: this.options.settings });
      this.executors.set(kind.jobType, executor);
    }
    return executor;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const { queue, coordination } = this.options;
    const heartbeatMs = Math.max(50, (queue.lockGraceSeconds * 1000) / 4);
    this.timers.push(setInterval(() => void this.heartbeat(), heartbeatMs));
    this.timers.push(setInterval(() => void this.pollCancels(), queue.pollIntervalMs));
    this.timers.push(setInterval(() => void this.sweep(), Math.max(100, (queue.lockGraceSeconds * 1000) / 2)));
    this.timers.push(setInterval(() => void this.retention(), Math.min(60_000, Math.max(1000, queue.retentionSeconds * 1000))));
    for (const timer of this.timers) timer.unref?.();
    if (coordination) {
      this.unsubscribers.push(coordination.onWake(() => this.wake()));
      this.unsubscribers.push(coordination.onCancel((runId) => this.cancel(runId)));
    }
    void this.sweep();
    this.loopDone = this.loop();
  }

  /** Jobs of these types executing: a job whose end is being written no longer counts. */
  private executing(jobTypes: readonly string[]): number {
    let n = 0;
    for (const entry of this.active.values()) if (!entry.settling && jobTypes.includes(entry.job.job_type)) n++;
    return n;
  }

  /** A job may be ready: claim now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  get size(): number {
    return this.active.size;
  }

  report(): WorkerProgress {
    return { workerId: this.workerId, running: this.active.size, capacity: this.options.queue.maxConcurrency, stopping: this.stopping, ...this.progress };
  }

  private async loop(): Promise<void> {
    const { db, queue } = this.options;
    // Each pool of slots (the shared one, and each kind with its own) claims for itself.
    const pools = slotPools(this.options.catalog, queue, this.options.settings);
    while (this.running && !this.stopping) {
      this.woken = false;
      let full = false;
      for (const pool of pools) {
        const capacity = pool.capacity - this.executing(pool.jobTypes);
        if (capacity <= 0) continue;
        let claimed: ClaimedJob[] = [];
        try {
          claimed = await claimJobs(db, {
            workerId: this.workerId,
            limit: capacity,
            now: epochSeconds(),
            leaseSeconds: queue.lockGraceSeconds,
            deploymentId: queue.deploymentId ?? null,
            jobTypes: pool.jobTypes,
            subjects: this.scope.subjects,
          });
        } catch (error) {
          log.warn(`[worker ${this.workerId}] claim failed: ${(error as Error).message}`);
        }
        if (claimed.length > 0) {
          this.progress.lastClaimAt = Date.now();
          for (const job of claimed) this.begin(job);
          // The batch was full: more may be ready.
          if (claimed.length === capacity) full = true;
        }
      }
      if (full || this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, queue.pollIntervalMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  private begin(job: ClaimedJob): void {
    const { queue } = this.options;
    const kind = this.options.catalog.get(job.job_type)!;
    const fence: JobFence = { id: job.id, attempt: job.attempt, workerId: this.workerId };
    const controller = new AbortController();
    // At the kind's timeout the work is aborted (a run ends ERROR, or CANCELLED with a cancel
    // recorded); work that has still not ended a grace period later is given up (abandon).
    const timeoutSeconds = kind.timeoutSeconds?.(queue) ?? queue.timeoutSeconds;
    const timeout = setTimeout(() => {
      controller.abort(new RunTimeoutSignal(timeoutSeconds));
      this.giveUpLater(entry);
    }, timeoutSeconds * 1000);
    timeout.unref?.();
    const entry: Active = {
      job,
      kind,
      fence,
      settling: false,
      controller,
      timeout,
      cancelRequested: job.cancel_requested_at !== null,
      renewedAt: Date.now(),
      lost: false,
      done: Promise.resolve(),
    };
    const settle = (settlement: JobSettlement, subject?: SubjectValue): Promise<boolean> => {
      if (!entry.settling) {
        entry.settling = true;
        // Its work has ended: the next job may start while the batch with its end is written.
        this.wake();
      }
      return this.settler.settle({ fence, jobType: job.job_type, settlement, subject });
    };
    const retry = { baseDelaySeconds: kind.retryDelaySeconds?.(queue) ?? queue.retryDelaySeconds, maxAttempts: job.max_attempts };
    // This worker claimed the job again (its own sweeper took it back, e.g. after an outage longer
    // than the lease): the older attempt lost its lease and stops.
    const previous = this.active.get(job.id);
    if (previous) this.lose(previous);
    this.active.set(job.id, entry);
    // A cancel recorded before the claim reaches a kind that takes it by its signal at once (a run
    // job's executor reads the recorded intent itself once its run is registered).
    if (entry.cancelRequested && !kind.onCancel) controller.abort(new JobCancelledError(job.id));
    entry.done = (async () => {
      let failure: { error: unknown } | null = null;
      try {
        const parsed = kind.payload.safeParse(job.payload ?? {});
        if (!parsed.success) {
          await this.failInvalidPayload(entry, parsed.error);
          return;
        }
        await this.executorOf(kind)({
          job,
          payload: parsed.data,
          fence,
          signal: controller.signal,
          get cancelRequested() {
            return entry.cancelRequested;
          },
          coordination: this.options.coordination ?? null,
          holdsLease: () => this.holdsLease(entry),
          settle,
          retry,
        });
      } catch (error) {
        failure = { error };
        // A kind without a subject ends an attempt by throwing (settled below); anything else thrown is unexpected.
        if (error instanceof LeaseLostError) {
          // Another claim owns the job: nothing to say.
        } else if (kind.subject) log.error(`[worker ${this.workerId}] job ${job.id} failed: ${(error as Error)?.stack ?? error}`);
        else log.warn(`[worker ${this.workerId}] job ${job.id} (${job.job_type}) attempt ${job.attempt} failed: ${(error as Error)?.message ?? error}`);
      } finally {
        clearTimeout(timeout);
        clearTimeout(entry.giveUp);
        // A kind without a subject is settled here by how its executor ended; one with a subject
        // settles itself (a job it leaves running is taken back by the sweeper after its lease).
        if (!kind.subject && !entry.settling && !entry.lost) await this.settleByOutcome(entry, failure, settle, retry);
        if (this.active.get(job.id) === entry) this.active.delete(job.id);
        this.progress.lastCompletionAt = Date.now();
        if (!this.stopping) this.wake();
      }
    })();
  }

  /**
   * The end of a job whose kind has no subject, from how its executor ended: completed when it
   * returned; when it threw, cancelled if a cancel was seen, failed at once for a
   * PermanentJobError, else queued again after the backoff while attempts remain. A cancel
   * recorded meanwhile makes any end a cancelled one.
   */
  private async settleByOutcome(
    entry: Active,
    failure: { error: unknown } | null,
    settle: (settlement: JobSettlement) => Promise<boolean>,
    retry: { baseDelaySeconds: number; maxAttempts: number },
  ): Promise<void> {
    const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
    // Told to stop at its timeout: a failure whatever the executor made of the abort.
    const reason = entry.controller.signal.aborted ? entry.controller.signal.reason : undefined;
    if (reason instanceof RunTimeoutSignal) failure = { error: reason };
    let settlement: JobSettlement;
    if (!failure) settlement = { status: "completed" };
    else if (entry.cancelRequested || failure.error instanceof JobCancelledError) settlement = { status: "cancelled", error: "Job cancelled by request" };
    else {
      const spent = spentAttempts(entry.job);
      const retryable = !(failure.error instanceof PermanentJobError) && !(failure.error instanceof RunTimeoutSignal) && spent < retry.maxAttempts;
      settlement = retryable
        ? { status: "queued", error: message(failure.error), availableAt: epochSeconds() + retryDelaySeconds({ baseSeconds: retry.baseDelaySeconds, spentAttempts: spent }) }
        : { status: "failed", error: message(failure.error) };
    }
    try {
      if (await settle(settlement)) {
        log.debug(`[worker ${this.workerId}] job ${entry.job.id} ${settlement.status} (attempt ${entry.job.attempt})`);
        return;
      }
      if (settlement.status !== "cancelled" && (await heldJobCancelRequested(this.options.db, entry.fence)) === true) {
        await settle({ status: "cancelled", error: "Job cancelled by request" });
      }
    } catch (error) {
      // The database is away: the lease runs out and the sweeper takes the job back.
      log.warn(`[worker ${this.workerId}] could not settle job ${entry.job.id}: ${message(error)}`);
    }
  }

  /** A payload its kind's schema refuses: the job fails at once (and its subject with it), never retried. */
  private async failInvalidPayload(entry: Active, error: z.ZodError): Promise<void> {
    const reason = `Invalid payload for job type ${entry.job.job_type}: ${z.prettifyError(error).replace(/\n/g, "; ")}`;
    log.warn(`[worker ${this.workerId}] job ${entry.job.id}: ${reason}`);
    entry.settling = true;
    try {
      await abandonJob(this.options.db, { ...entry.fence, reason, errorType: "invalid_job_payload", jobType: entry.job.job_type, subjects: this.scope.subjects });
    } catch (failure) {
      log.warn(`[worker ${this.workerId}] could not fail job ${entry.job.id}: ${(failure as Error).message}`);
    }
  }

  /**
   * The sweeper takes a lease back only once its locked_at (whole seconds) is more than
   * lockGraceSeconds old, which is never sooner than lockGraceSeconds after the renewal was sent:
   * until then (less a margin for clock reads) the lease is surely this worker's.
   */
  /** The attempt lost its lease: it stops, and writes nothing more (its writes are fenced out anyway). */
  private lose(entry: Active): void {
    entry.lost = true;
    entry.controller.abort(new LeaseLostError(entry.job.id));
  }

  private holdsLease(entry: Active): boolean {
    return Date.now() - entry.renewedAt < this.options.queue.lockGraceSeconds * 1000 - LEASE_MARGIN_MS;
  }

  /**
   * A run told to stop (its timeout, a cancel) that has not ended a grace period later ignores
   * its abort (a stuck tool): it is given up then, once.
   */
  private giveUpLater(entry: Active): void {
    if (entry.giveUp) return;
    const grace = Math.max(5_000, this.options.queue.lockGraceSeconds * 1000);
    entry.giveUp = setTimeout(() => void this.abandon(entry), grace);
    entry.giveUp.unref?.();
  }

  /**
   * Gives up an attempt that would not stop: under its fence the job is cancelled with its run
   * when a cancel is recorded (the cancel was accepted), and failed with its run ERROR otherwise;
   * its slot and lease are freed.
   */
  private async abandon(entry: Active): Promise<void> {
    if (this.active.get(entry.job.id) !== entry || entry.settling) return;
    const grace = Math.max(5, this.options.queue.lockGraceSeconds);
    // Named as its kind's subject is ("Run …" for a run job), else "Job".
    const noun = entry.kind.subject ? entry.kind.subject.name.charAt(0).toUpperCase() + entry.kind.subject.name.slice(1) : "Job";
    const reason = entry.cancelRequested
      ? `${noun} cancelled; it did not stop within ${grace} s and was given up`
      : `${noun} timed out after ${entry.kind.timeoutSeconds?.(this.options.queue) ?? this.options.queue.timeoutSeconds} s and did not stop; the job was given up`;
    log.warn(`[worker ${this.workerId}] job ${entry.job.id}: ${reason}`);
    // Given up: whatever its executor does later settles nothing more.
    entry.settling = true;
    try {
      await abandonJob(this.options.db, { ...entry.fence, reason, errorType: "run_timeout_error", jobType: entry.job.job_type, subjects: this.scope.subjects });
    } catch (error) {
      // The database is away: the lease runs out and the sweeper takes the job back.
      log.warn(`[worker ${this.workerId}] could not give up job ${entry.job.id}: ${(error as Error).message}`);
    }
    if (this.active.get(entry.job.id) === entry) this.active.delete(entry.job.id);
    this.wake();
  }

  /** Stops every attempt whose lease has run out by this worker's clock (another worker may own it by now). */
  private abortExpired(): void {
    for (const entry of this.active.values()) {
      if (entry.settling || entry.lost || this.holdsLease(entry)) continue;
      log.warn(`[worker ${this.workerId}] the lease on job ${entry.job.id} ran out without a renewal; stopping it`);
      this.lose(entry);
    }
  }

  private async heartbeat(): Promise<void> {
    // Woken from a freeze, or the database was away for longer than the lease: those attempts stop first.
    this.abortExpired();
    // A job whose final write has begun is leaving: that write settles it, fenced like any other.
    // One aborted for its timeout or a cancel keeps its lease while it winds down.
    const leases = [...this.active.values()].filter((a) => !a.settling && !a.lost).map((a) => a.fence);
    if (leases.length === 0) return;
    const sentAt = Date.now();
    let held: Map<string, { cancelRequested: boolean }>;
    try {
      held = await heartbeatJobs(this.options.db, { workerId: this.workerId, leases });
    } catch (error) {
      // The database is unreachable: keep working until the lease runs out (abortExpired).
      log.warn(`[worker ${this.workerId}] heartbeat failed: ${(error as Error).message}`);
      return;
    }
    for (const lease of leases) {
      const entry = this.active.get(lease.id);
      if (!entry || entry.fence.attempt !== lease.attempt || entry.settling || entry.lost) continue;
      const state = held.get(lease.id);
      if (!state) {
        log.warn(`[worker ${this.workerId}] lost the lease on job ${lease.id}; stopping it`);
        this.lose(entry);
        continue;
      }
      entry.renewedAt = sentAt;
      if (state.cancelRequested) this.cancel(lease.id);
    }
  }

  /**
   * Cancels recorded in the database for jobs running here (the truth; Redis only makes it
   * faster). Every running job is asked about, whether or not a cancel was seen for it before:
   * what this worker saw is no proof that the run got it.
   */
  private async pollCancels(): Promise<void> {
    const running = [...this.active.values()].filter((a) => !a.settling && !a.lost);
    if (running.length === 0) return;
    try {
      const ids = await cancelRequestedJobs(this.options.db, { workerId: this.workerId, ids: running.map((a) => a.job.id) });
      for (const id of ids) this.cancel(id);
    } catch {
      // The heartbeat reports cancels too; a missed poll only delays one.
    }
  }

  /** A cancel was seen for the job: handed on each time (onCancel is idempotent), never skipped as already known. */
  private cancel(runId: string): void {
    const entry = this.active.get(runId);
    if (!entry || entry.lost) return;
    entry.cancelRequested = true;
    // The kind takes the cancel its way (a run through the run registry), else by the signal; a
    // worker-level observer hears it too.
    if (entry.kind.onCancel) entry.kind.onCancel(runId);
    else if (!entry.controller.signal.aborted) entry.controller.abort(new JobCancelledError(runId));
    this.options.onCancel?.(runId);
    // A run stops within moments of its abort; one that does not is given up CANCELLED.
    if (!entry.settling) this.giveUpLater(entry);
  }

  private async sweep(): Promise<void> {
    try {
      const result = await unsafeSweepExpiredLeases(this.options.db, { now: epochSeconds(), leaseSeconds: this.options.queue.lockGraceSeconds, ...this.scope });
      if (result.requeued.length > 0) {
        log.info(`[worker ${this.workerId}] took back ${result.requeued.length} job(s) whose worker stopped renewing its lease`);
        this.wake();
      }
      if (result.failed.length > 0) log.warn(`[worker ${this.workerId}] failed ${result.failed.length} job(s) that lost their worker too often`);
      if (result.cancelled) log.info(`[worker ${this.workerId}] cancelled ${result.cancelled.length} job(s) that lost their worker with a cancel recorded`);
    } catch (error) {
      log.warn(`[worker ${this.workerId}] lease sweep failed: ${(error as Error).message}`);
    }
  }

  private async retention(): Promise<void> {
    try {
      await unsafeDeleteFinishedJobs(this.options.db, { now: epochSeconds(), retentionSeconds: this.options.queue.retentionSeconds, shouldStop: () => this.stopping });
    } catch (error) {
      log.warn(`[worker ${this.workerId}] retention failed: ${(error as Error).message}`);
    }
  }

  /**
   * Graceful stop: no more claims; running jobs get `stopTimeoutSeconds` to finish, then the rest
   * are released (queued again at once, no attempt spent) and their executors aborted.
   */
  async stop({ timeoutSeconds = this.options.queue.stopTimeoutSeconds }: { timeoutSeconds?: number } = {}): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.wakeUp?.();
    await this.loopDone;
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    const all = () => Promise.all([...this.active.values()].map((a) => a.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutSeconds * 1000)))]);
    clearTimeout(timer);
    for (const entry of [...this.active.values()]) {
      // A job whose end is being written is finishing: let that write land rather than hand it back.
      if (entry.settling) continue;
      try {
        await releaseJob(this.options.db, { ...entry.fence, subjects: this.scope.subjects });
      } catch (error) {
        log.warn(`[worker ${this.workerId}] could not release job ${entry.job.id}: ${(error as Error).message}`);
      }
      this.lose(entry);
    }
    // Bounded: an executor that ignores its abort (a stuck tool) must not keep the process up;
    // its job was released, so whatever it writes later is fenced out.
    await Promise.race([all(), new Promise((resolve) => setTimeout(resolve, STOP_DRAIN_MS).unref?.())]);
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.running = false;
  }
}
