import { EVAL_RUN_STATE_COLUMNS } from "../tables/specs.ts";
import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing, dropEmptyColumn } from "./helpers.ts";

/**
 * Agentry's state of an eval run on `agno_eval_runs`: `run_status` and `run_details`, both
 * nullable, so Agno still writes rows (its insert names only its own columns) and its readers,
 * which select their own columns, never see them. Part of the 3.0.0 shape: a table an earlier
 * build stamped 3.0.0 without them runs this step again (MigrationManager's spec check).
 */
export const evalRunStateStep: MigrationStep = {
  version: "3.0.0",
  description: "eval runs gain run_status and run_details (Agentry's progress, agent runs and errors; nullable)",
  async up(ctx) {
    for (const column of EVAL_RUN_STATE_COLUMNS) await addColumnIfMissing(ctx, "agno_eval_runs", column);
  },
  async down(ctx) {
    for (const column of [...EVAL_RUN_STATE_COLUMNS].reverse()) await dropEmptyColumn(ctx, "agno_eval_runs", column.name);
  },
};
