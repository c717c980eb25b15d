import type { Db } from "../db/open-database.ts";
import { settleJobs, type JobSettlementItem } from "../db/jobs/index.ts";
import type { SubjectBinding } from "../db/jobs/job-subject.ts";

/** At most this many attempts settle in one statement. */
const MAX_BATCH = 500;

/**
 * Group commit for one worker's finished attempts: each `settle` joins the batch being gathered,
 * and one batch at a time is written (settleJobs: one statement on PostgreSQL). A lone job waits
 * for nothing but the current write; under load, every job that finishes meanwhile shares the
 * next one, so a commit (and its fsync) is paid per batch, not per job.
 */
export class SettleBatcher {
  private waiting: { item: JobSettlementItem; resolve: (settled: boolean) => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly db: Db,
    private readonly workerId: string,
    /** The subjects (a run job's run) whose final rows settle with their jobs. */
    private readonly subjects: readonly SubjectBinding[],
  ) {}

  /** Resolves true when the attempt was settled, false when its fence no longer held. */
  settle(item: JobSettlementItem): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        // Let the jobs finishing in this turn of the event loop join the first batch too.
        setImmediate(() => void this.write());
      }
    });
  }

  private async write(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      try {
        const settled = await settleJobs(this.db, { workerId: this.workerId, items: batch.map((w) => w.item), subjects: this.subjects });
        for (const w of batch) w.resolve(settled.has(w.item.fence.id));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.writing = false;
  }
}
