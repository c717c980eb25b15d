import { createTableStatements, type TableSpec } from "../ddl.ts";
import type { MigrationStep } from "../types.ts";

/**
 * The 3.0.0 step of a table that is Agentry's own (new in 3.0.0, unknown to Agno): create it with
 * its indexes if missing. Idempotent. `down()` keeps the table: older Agno versions ignore it, and
 * dropping it would throw away the dashboard's users.
 */
export function agentryTableStep(spec: TableSpec): MigrationStep {
  return {
    version: "3.0.0",
    description: `create ${spec.name} (Agentry's own table)`,
    async up(ctx) {
      await ctx.db.sql.batch(createTableStatements(ctx.db.dialect, spec).map((text) => ({ text })));
    },
    async down() {
      // Nothing to undo for an older schema: the table is not Agno's.
    },
  };
}
