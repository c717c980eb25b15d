import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { unsafeNextDueAt } from "../db/schedules/schedules.ts";
import { log } from "../log.ts";
import { JobCatalog } from "../queue/catalog.ts";
import { wakeWorkers } from "../queue/embedded-worker.ts";
import { QueueWorker } from "../queue/worker.ts";
import { SCHEDULE_FIRE_JOB_KIND } from "./fire-job.ts";
import { dispatchDueSchedules } from "./tick.ts";

/**
 * The scheduler of one process: a loop that sleeps until the next due time (never longer than
 * `scheduler.pollIntervalMs`, and woken at once by a local change), then dispatches every due
 * schedule (./tick.ts) — each slot becomes a `schedule_fire` job. Any number of processes may run
 * one over the same database: the claim gives each due schedule to one of them.
 *
 * The fires are jobs of the catalog. With the durable queue on, the process's queue workers (the
 * embedded one, `npm run worker`) run them with everything else; with it off, the scheduler runs
 * its own worker, in this process, for fire jobs only.
 */
export interface SystemTask {
  /** Called on every loop of the scheduler (cheap when there is nothing to do; deduplicated by the task itself). */
  run(now: number): Promise<void>;
}

export class Scheduler {
  readonly workerId = `scheduler-${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  /** Fire jobs' worker when the durable queue is off (this process only). */
  private fireWorker: QueueWorker | null = null;

  constructor(
    private readonly settings: Settings,
    private readonly db: Db,
    private readonly systemTasks: readonly SystemTask[] = [],
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    if (!this.settings.queue.durable) {
      this.fireWorker = new QueueWorker({ db: this.db, queue: this.settings.queue, catalog: new JobCatalog([SCHEDULE_FIRE_JOB_KIND]), settings: this.settings });
      this.fireWorker.start();
    }
    this.done = this.loop();
  }

  /** Something changed (a schedule was created, re-armed or enabled here): look now. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private wakeFireWorkers(): void {
    if (this.fireWorker) this.fireWorker.wake();
    else wakeWorkers(this.settings);
  }

  private async loop(): Promise<void> {
    const { pollIntervalMs, lockGraceSeconds } = this.settings.scheduler;
    while (this.running) {
      this.woken = false;
      let sleepMs = pollIntervalMs;
      try {
        for (;;) {
          const { claimed, fires } = await dispatchDueSchedules(this.db, this.settings, { workerId: this.workerId });
          if (fires > 0) this.wakeFireWorkers();
          if (claimed === 0 || !this.running) break;
        }
        const now = Date.now();
        for (const task of this.systemTasks) await task.run(Math.floor(now / 1000)).catch((error: Error) => log.warn(`[scheduler] system task: ${error.message}`));
        const next = await unsafeNextDueAt(this.db, { lockGraceSeconds });
        // Wake at the due second itself; a due schedule another claimer is releasing: shortly.
        if (next !== null) sleepMs = Math.min(pollIntervalMs, Math.max(next * 1000 - Date.now(), next * 1000 <= now ? 50 : 0));
      } catch (error) {
        log.warn(`[scheduler ${this.workerId}] tick failed: ${(error as Error).message}`);
      }
      if (this.woken || !this.running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs);
        timer.unref?.();
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.done;
    await this.fireWorker?.stop({ timeoutSeconds: 0 });
  }
}

interface SchedulerState {
  schedulers: Map<string, Scheduler>;
}
const key = Symbol.for("agentry.schedulers");
type Holder = { [key]?: SchedulerState };
const state = (): SchedulerState => ((globalThis as Holder)[key] ??= { schedulers: new Map() });

/**
 * Starts this process's scheduler for the database (scheduler.enabled, the default); idempotent.
 * Kept on globalThis: Next bundles module graphs separately.
 */
export function ensureScheduler(settings: Settings, db: Db, systemTasks: readonly SystemTask[] = []): Scheduler | null {
  if (!settings.scheduler.enabled) return null;
  const { schedulers } = state();
  let scheduler = schedulers.get(settings.database.id);
  if (!scheduler) {
    scheduler = new Scheduler(settings, db, systemTasks);
    schedulers.set(settings.database.id, scheduler);
    scheduler.start();
    log.info(`[scheduler] ${scheduler.workerId} started (looks at least every ${settings.scheduler.pollIntervalMs} ms, and at each next due time)`);
  }
  return scheduler;
}

/** A schedule changed in this process: its scheduler looks again now instead of at its planned time. */
export function wakeScheduler(settings: Settings): void {
  state().schedulers.get(settings.database.id)?.wake();
}

export async function stopSchedulers(databaseId?: string): Promise<void> {
  const { schedulers } = state();
  await Promise.all(
    [...schedulers]
      .filter(([id]) => databaseId === undefined || id === databaseId)
      .map(async ([id, scheduler]) => {
        schedulers.delete(id);
        await scheduler.stop();
      }),
  );
}
