import { createTableStatements, type TableSpec } from "../ddl.ts";
import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing } from "./helpers.ts";

/**
 * The 3.0.0 step of Agno v3's component tables (`agno_components`, `agno_component_configs`,
 * `agno_component_links`). A database without them gets them created at their current shape by
 * the manager; one where Agno 3 made them keeps them, rows and all, and this step adds what the
 * spec has and the table lacks: a column (Agno's SQLite config table has no `deleted_at`) or an
 * index. Idempotent; `down()` keeps everything, as Agno 3 reads the same tables and Agno 2.x
 * ignores them.
 */
export function componentTableStep(spec: TableSpec): MigrationStep {
  return {
    version: "3.0.0",
    description: `${spec.name}: create the table, and any missing column or index`,
    async up(ctx) {
      const [create, ...indexes] = createTableStatements(ctx.db.dialect, spec);
      await ctx.db.sql.exec(create!);
      for (const column of spec.columns) await addColumnIfMissing(ctx, spec.name, column);
      await ctx.db.sql.batch(indexes.map((text) => ({ text })));
    },
    async down() {
      // Agno 3 reads the same tables and older versions ignore them: nothing to undo.
    },
  };
}
