import type { MigrationStep } from "../types.ts";
import { addIndexIfMissing } from "./helpers.ts";
import { repairLegacyRuns } from "./legacy-runs-repair.ts";

/** The indexes the runs lists (newest first) seek on: a member's own, and everyone's by status. */
const USER_CREATED_INDEX = { name: "idx_agno_runs_user_id_created_at", columns: ["user_id", "created_at"] };
const STATUS_CREATED_INDEX = { name: "idx_agno_runs_status_created_at", columns: ["status", "created_at"] };

export const runsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "one row per run in agno_runs, filled from the legacy session blobs; the (user_id, created_at) and (status, created_at) indexes for run lists",
    async up(ctx) {
      // Every run of every legacy agno_sessions.runs blob (single- or double-encoded) becomes a
      // row: run_index its position in the blob, user_id the session's owner; a team run's
      // member_responses stay nested in its run_data. Reruns skip what is there and move rows
      // written since after the legacy runs; the blob column stays as the backup.
      await repairLegacyRuns(ctx);
      await addIndexIfMissing(ctx, "agno_runs", USER_CREATED_INDEX);
      await addIndexIfMissing(ctx, "agno_runs", STATUS_CREATED_INDEX);
    },
    irreversibleBecause: "runs written since the migration live only in agno_runs; keep the table (the legacy blob column is still there as the pre-v3 backup)",
  },
];
