import type { Db } from "../db/open-database.ts";
import { getRunStatuses } from "../db/runs/runs.ts";
import { unsafeSystemScope } from "../db/scope.ts";
import { log } from "../log.ts";

/**
 * Waits for runs to end, for every fire of a process at once: one statement reads the status of
 * every run being waited for (`getRunStatuses`), every WATCH_INTERVAL_MS while any is. A fire
 * that followed its run by its own requests would cost a request and a query per fire per look;
 * with a hundred fires in flight that is what slows the runs they wait for. The ids come from
 * submits made in their owners' scopes; the caller reads the ended run back in that scope.
 *
 * A run is stored before its submit is answered, so a run id the statement no longer finds has
 * been deleted (with its session, say): its waiters hear `gone` at once instead of waiting out
 * their deadline. Two looks in a row must miss it.
 */

const WATCH_INTERVAL_MS = 50;
const TERMINAL = new Set(["COMPLETED", "CANCELLED", "ERROR", "PAUSED"]);
/** Looks in a row that must miss a run before its waiters hear it is gone. */
const MISSING_LOOKS = 2;

/** How a wait ended: the run ended, its row is gone, or the deadline passed first. */
export type RunWaitOutcome = "ended" | "gone" | "timeout";

interface Waiter {
  resolve(outcome: "ended" | "gone"): void;
}

class RunWatch {
  private readonly waiting = new Map<string, Set<Waiter>>();
  /** Looks in a row that did not find each waited-for run. */
  private readonly misses = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Resolves `ended` once the run has ended, `gone` once its row is no longer there, `timeout` at
   * `deadlineMs` (Date.now() scale); rejects when `signal` aborts.
   */
  until(runId: string, deadlineMs: number, signal?: AbortSignal): Promise<RunWaitOutcome> {
    return new Promise<RunWaitOutcome>((resolve, reject) => {
      let waiters = this.waiting.get(runId);
      if (!waiters) this.waiting.set(runId, (waiters = new Set()));
      const done = (value: RunWaitOutcome | Error) => {
        clearTimeout(deadline);
        signal?.removeEventListener("abort", onAbort);
        waiters!.delete(waiter);
        if (waiters!.size === 0 && this.waiting.get(runId) === waiters) {
          this.waiting.delete(runId);
          this.misses.delete(runId);
        }
        if (value instanceof Error) reject(value);
        else resolve(value);
      };
      const waiter: Waiter = { resolve: (outcome) => done(outcome) };
      const onAbort = () => done(signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason ?? "aborted")));
      const deadline = setTimeout(() => done("timeout"), Math.max(0, deadlineMs - Date.now()));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      waiters.add(waiter);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.waiting.size === 0) return;
    this.timer = setTimeout(() => void this.look(), WATCH_INTERVAL_MS);
    this.timer.unref?.();
  }

  private async look(): Promise<void> {
    try {
      const ids = [...this.waiting.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const batch = ids.slice(i, i + 500);
        const statuses = await getRunStatuses(this.db, { scope: unsafeSystemScope("the run ids came from submits in their owners' scopes"), runIds: batch });
        for (const runId of batch) {
          if (!this.waiting.has(runId)) continue;
          const status = statuses.get(runId);
          const missed = status === undefined ? (this.misses.get(runId) ?? 0) + 1 : 0;
          if (missed > 0) this.misses.set(runId, missed);
          else this.misses.delete(runId);
          const outcome = status !== undefined && TERMINAL.has(status) ? "ended" : missed >= MISSING_LOOKS ? "gone" : null;
          if (outcome === null) continue;
          for (const waiter of [...(this.waiting.get(runId) ?? [])]) waiter.resolve(outcome);
        }
      }
    } catch (error) {
      log.warn(`[scheduler] reading the status of followed runs: ${(error as Error).message}`);
    } finally {
      this.timer = null;
      this.schedule();
    }
  }
}

const watches = new WeakMap<Db, RunWatch>();

/** The process's watch over this database's runs. */
export function runWatch(db: Db): RunWatch {
  let watch = watches.get(db);
  if (!watch) watches.set(db, (watch = new RunWatch(db)));
  return watch;
}
