import type { Settings } from "../../config/settings.ts";
import { queueStats, type QueueStats } from "../../db/jobs/list-jobs.ts";
import { jobsFingerprint } from "../../db/jobs/job-list-page.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { backgroundRuns, type BackgroundRun } from "../../runs/background.ts";

/** What the queue page shows live: the durable queue's counts, or this replica's background runs. */
export type QueueSnapshot = { durable: true; stats: QueueStats; fingerprint: string } | { durable: false; runs: BackgroundRun[]; maxConcurrency: number };

/**
 * The queue as `scope` may see it. Durable: job counts per status, the oldest queued age, and a
 * fingerprint that changes with any job. Otherwise the runs this replica holds in memory — a
 * member's own only (an admin's scope may name a user).
 */
export async function queueSnapshot(db: Db, settings: Settings, scope: DataScope): Promise<QueueSnapshot> {
  if (settings.queue.durable) {
    const [stats, fingerprint] = await Promise.all([queueStats(db, { scope }), jobsFingerprint(db, { scope })]);
    return { durable: true, stats, fingerprint };
  }
  const owner = scope.userId;
  return { durable: false, runs: backgroundRuns(owner === undefined ? {} : { userId: owner }), maxConcurrency: settings.queue.maxConcurrency };
}
