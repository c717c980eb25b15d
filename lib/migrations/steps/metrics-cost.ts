import { METRICS_COST_COLUMN } from "../tables/specs.ts";
import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing, dropEmptyColumn } from "./helpers.ts";

/**
 * Agentry's cost figures on the metrics rows: one nullable JSON column, `cost_metrics`, so Agno
 * can still write rows (its upsert names only its own columns and leaves this one as it is) and
 * its readers, which select their own columns, never see it. Part of the 3.0.0 shape: a table an
 * earlier build stamped 3.0.0 without it runs this step again (MigrationManager's spec check).
 */
export const metricsCostStep: MigrationStep = {
  version: "3.0.0",
  description: "metrics rows gain cost_metrics (Agentry's runs, tokens and cost by the runs' own day; nullable)",
  async up(ctx) {
    await addColumnIfMissing(ctx, "agno_metrics", METRICS_COST_COLUMN);
  },
  async down(ctx) {
    await dropEmptyColumn(ctx, "agno_metrics", METRICS_COST_COLUMN.name);
  },
};
