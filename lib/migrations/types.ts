import type { Db } from "../db/open-database.ts";
import type { TableSpec } from "./ddl.ts";
import type { LearningsRekeyReport } from "./steps/learnings-rekey.ts";

/** Agno's schema history, oldest first; the last entry is what this code writes. */
export const VERSIONS = ["2.0.0", "2.3.0", "2.5.0", "2.5.6", "3.0.0"] as const;
export const LATEST_VERSION = VERSIONS[VERSIONS.length - 1];

export type Log = (message: string) => void;

/** What one pass over the legacy blobs found and did. */
export interface LegacyRunsRepair {
  /** Sessions whose blob holds a run list. */
  readonly sessions: number;
  /** Legacy runs inserted into agno_runs. */
  readonly copied: number;
  /** Rows given another run_index (runs written since, moved after the legacy runs). */
  readonly moved: number;
  /** Legacy runs that already had their row (the row wins). */
  readonly kept: number;
  /** Legacy runs whose run_id is stored in another session: left in the blob only. */
  readonly skipped: number;
  /** Sessions whose blob holds something other than a run list (left as it is). */
  readonly unreadable: number;
}

export interface MigrationContext {
  readonly db: Db;
  readonly log: Log;
  /**
   * Told what each pass over the legacy runs blobs did: the runs table's step runs its pass with
   * no other way to hand the result back, and `up({ repairRuns: true })` puts it in the runs outcome.
   */
  readonly reportLegacyRuns?: (repair: LegacyRunsRepair) => void;
  /** Told what the learnings step's user entity re-key did; `up()` puts it in the learnings outcome. */
  readonly reportLearningsRekey?: (report: LearningsRekeyReport) => void;
  /** Called after a batch of sessions is planned and before it is written; a test hook to race a write. */
  readonly beforeLegacyRunsWrite?: (sessionIds: readonly string[]) => void | Promise<void>;
}

/** One versioned change to one table. `up` must be idempotent and must not destroy data. */
export interface MigrationStep {
  readonly version: string;
  readonly description: string;
  up(ctx: MigrationContext): Promise<void>;
  /** Absent when the step cannot be reversed; `down()` then refuses with the reason. */
  down?(ctx: MigrationContext): Promise<void>;
  readonly irreversibleBecause?: string;
}

export interface TableMigrations {
  /** Agno's table type name (`sessions`, `memories`, …), used by `up({ tables })`. */
  readonly tableType: string;
  readonly spec: TableSpec;
  readonly steps: readonly MigrationStep[];
  /** Runs right after the table is created from scratch (the runs table fills itself from legacy blobs). */
  afterCreate?(ctx: MigrationContext): Promise<void>;
}

export class MigrationError extends Error {
  override readonly name = "MigrationError";
  constructor(
    message: string,
    readonly table?: string,
    readonly version?: string,
  ) {
    super(message);
  }
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
