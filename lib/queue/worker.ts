import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { QueueSettings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import {
  claimJobs,
  heartbeatJobs,
  cancelRequestedJobs,
  releaseJob,
  abandonJob,
  unsafeDeleteFinishedJobs,
  unsafeSweepExpiredLeases,
  type ClaimedJob,
  type JobFence,
} from "../db/jobs/index.ts";
import { epochSeconds } from "../db/jobs/job-row.ts";
import { log } from "../log.ts";
import type { RedisCoordination } from "../coordination/redis-coordination.ts";
import { RunTimeoutSignal } from "../runtime/run-registry.ts";
import { fencedRunWriter, LeaseLostError, type RunWriter } from "./run-writer.ts";
import { SettleBatcher } from "./settle-batcher.ts";

/** What an executor gets for one claimed job. */
export interface JobContext {
  readonly job: ClaimedJob;
  readonly fence: JobFence;
  /** Writes the job's run under the claim's fence, and its end together with the job's. */
  readonly writer: RunWriter;
  /**
   * Aborted with the reason the work must stop: LeaseLostError (another claim owns the job;
   * write nothing), RunTimeoutSignal (queue.timeoutSeconds). Cancellation goes through the run
   * registry (requestCancel), as for any run.
   */
  readonly signal: AbortSignal;
  /**
   * Whether this worker has seen a cancel recorded for the run (at the claim, or since through its
   * poll, heartbeat or a Redis signal): current whenever it is read. Each sighting is also handed
   * to `onCancel`. The database stays the truth (heldJobCancelRequested reads it).
   */
  readonly cancelRequested: boolean;
  readonly coordination: RedisCoordination | null;
  /**
   * Whether the lease is surely still this worker's: renewed less than lockGraceSeconds ago (by
   * its clock, less a margin). Checked before anything that is not fenced by the database (Redis events), so
   * a worker that froze past its lease publishes nothing when it wakes, before any heartbeat says so.
   */
  holdsLease(): boolean;
}

/**
 * Executes one claimed job to its end. It settles the job through `ctx.writer.finish` (the run's
 * final write); a job it leaves running is failed by the worker.
 */
export type JobExecutor = (ctx: JobContext) => Promise<void>;

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
  execute: JobExecutor;
  /**
   * Called whenever a cancel is seen for a run this worker executes — again at every sighting, so
   * it must be idempotent (requestCancel is): a delivery that came before the run could take it
   * is made again.
   */
  onCancel?: (runId: string) => void;
  coordination?: RedisCoordination | null;
  workerId?: string;
}

interface Active {
  job: ClaimedJob;
  fence: JobFence;
  writer: ReturnType<typeof fencedRunWriter>;
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

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? newWorkerId();
    this.settler = new SettleBatcher(options.db, this.workerId);
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
      this.unsubscribers.push(
        coordination.onCancel((runId) => this.cancel(runId)),
      );
    }
    void this.sweep();
    this.loopDone = this.loop();
  }

  /** Jobs whose runs are executing: a job whose end is being written no longer counts. */
  private executing(): number {
    let n = 0;
    for (const entry of this.active.values()) if (!entry.writer.settling) n++;
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
    while (this.running && !this.stopping) {
      const capacity = queue.maxConcurrency - this.executing();
      let claimed: ClaimedJob[] = [];
      this.woken = false;
      if (capacity > 0) {
        try {
          claimed = await claimJobs(db, {
            workerId: this.workerId,
            limit: capacity,
            now: epochSeconds(),
            leaseSeconds: queue.lockGraceSeconds,
            deploymentId: queue.deploymentId ?? null,
          });
        } catch (error) {
          log.warn(`[worker ${this.workerId}] claim failed: ${(error as Error).message}`);
        }
      }
      if (claimed.length > 0) {
        this.progress.lastClaimAt = Date.now();
        for (const job of claimed) this.begin(job);
        // The batch was full: more may be ready.
        if (claimed.length === capacity) continue;
      }
      if (this.woken) continue;
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
    const { db, queue } = this.options;
    const fence: JobFence = { id: job.id, attempt: job.attempt, workerId: this.workerId };
    const controller = new AbortController();
    // At timeoutSeconds the run is aborted (it ends ERROR, or CANCELLED with a cancel recorded);
    // one that has still not ended a grace period later is given up (abandon).
    const timeout = setTimeout(() => {
      controller.abort(new RunTimeoutSignal(queue.timeoutSeconds));
      this.giveUpLater(entry);
    }, queue.timeoutSeconds * 1000);
    timeout.unref?.();
    const writer = fencedRunWriter(db, {
      fence,
      leaseLosses: job.lease_losses,
      maxAttempts: job.max_attempts,
      retryDelaySeconds: queue.retryDelaySeconds,
      settle: (item) => this.settler.settle(item),
      // Its run has ended: the next job may start while the batch with its end is written.
      onSettling: () => this.wake(),
    });
    const entry: Active = { job, fence, writer, controller, timeout, cancelRequested: job.cancel_requested_at !== null, renewedAt: Date.now(), lost: false, done: Promise.resolve() };
    // This worker claimed the job again (its own sweeper took it back, e.g. after an outage longer
    // than the lease): the older attempt lost its lease and stops.
    const previous = this.active.get(job.id);
    if (previous) this.lose(previous);
    this.active.set(job.id, entry);
    entry.done = (async () => {
      try {
        await this.options.execute({
          job,
          fence,
          writer,
          signal: controller.signal,
          get cancelRequested() {
            return entry.cancelRequested;
          },
          coordination: this.options.coordination ?? null,
          holdsLease: () => this.holdsLease(entry),
        });
      } catch (error) {
        if (!(error instanceof LeaseLostError)) log.error(`[worker ${this.workerId}] job ${job.id} failed: ${(error as Error)?.stack ?? error}`);
      } finally {
        clearTimeout(timeout);
        clearTimeout(entry.giveUp);
        if (this.active.get(job.id) === entry) this.active.delete(job.id);
        this.progress.lastCompletionAt = Date.now();
        if (!this.stopping) this.wake();
      }
    })();
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
    if (this.active.get(entry.job.id) !== entry || entry.writer.settling) return;
    const grace = Math.max(5, this.options.queue.lockGraceSeconds);
    const reason = entry.cancelRequested
      ? `Run cancelled; it did not stop within ${grace} s and was given up`
      : `Run timed out after ${this.options.queue.timeoutSeconds} s and did not stop; the job was given up`;
    log.warn(`[worker ${this.workerId}] job ${entry.job.id}: ${reason}`);
    try {
      await abandonJob(this.options.db, { ...entry.fence, reason, errorType: "run_timeout_error" });
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
      if (entry.writer.settling || entry.lost || this.holdsLease(entry)) continue;
      log.warn(`[worker ${this.workerId}] the lease on job ${entry.job.id} ran out without a renewal; stopping it`);
      this.lose(entry);
    }
  }

  private async heartbeat(): Promise<void> {
    // Woken from a freeze, or the database was away for longer than the lease: those attempts stop first.
    this.abortExpired();
    // A job whose final write has begun is leaving: that write settles it, fenced like any other.
    // One aborted for its timeout or a cancel keeps its lease while it winds down.
    const leases = [...this.active.values()].filter((a) => !a.writer.settling && !a.lost).map((a) => a.fence);
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
      if (!entry || entry.fence.attempt !== lease.attempt || entry.writer.settling || entry.lost) continue;
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
    const running = [...this.active.values()].filter((a) => !a.writer.settling && !a.lost);
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
    this.options.onCancel?.(runId);
    // A run stops within moments of its abort; one that does not is given up CANCELLED.
    if (!entry.writer.settling) this.giveUpLater(entry);
  }

  private async sweep(): Promise<void> {
    try {
      const result = await unsafeSweepExpiredLeases(this.options.db, { now: epochSeconds(), leaseSeconds: this.options.queue.lockGraceSeconds });
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
      await unsafeDeleteFinishedJobs(this.options.db, { now: epochSeconds(), retentionSeconds: this.options.queue.retentionSeconds });
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
      if (entry.writer.settling) continue;
      try {
        await releaseJob(this.options.db, entry.fence);
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
