import { createTableStatements, type TableSpec } from "../ddl.ts";
import type { MigrationStep } from "../types.ts";

/**
 * The 3.0.0 step of Agno's trace tables (`agno_traces`, `agno_spans`). A database without them
 * gets them created at their current shape by the manager; one where Agno 2.x (or Agno 3) made
 * them keeps them, rows and all, and this step only adds any index of the spec it lacks (Agno
 * makes the same columns and indexes since traces first shipped, so there is nothing else to
 * change). Idempotent; `down()` keeps everything, as an older Agno reads the same tables.
 */
export function traceTableStep(spec: TableSpec): MigrationStep {
  return {
    version: "3.0.0",
    description: `${spec.name}: create the table and any missing index`,
    async up(ctx) {
      await ctx.db.sql.batch(createTableStatements(ctx.db.dialect, spec).map((text) => ({ text })));
    },
    async down() {
      // The same tables serve Agno 2.x: nothing to undo.
    },
  };
}
