import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing, addIndexIfMissing, dropEmptyColumn, dropIndexIfExists } from "./helpers.ts";

/**
 * The v3.0.0 `user_id` owner column (NULL = shared) for a table that had none, with its index.
 * `down()` drops it only while no row has an owner.
 */
export function ownerColumnStep(table: string, indexColumns: string[] = ["user_id"]): MigrationStep {
  const index = { name: `idx_${table}_${indexColumns.join("_")}`, columns: indexColumns };
  return {
    version: "3.0.0",
    description: `${table} gains user_id (per-user isolation)`,
    async up(ctx) {
      await addColumnIfMissing(ctx, table, { name: "user_id", type: "text" });
      await addIndexIfMissing(ctx, table, index);
    },
    async down(ctx) {
      await dropIndexIfExists(ctx, index.name);
      await dropEmptyColumn(ctx, table, "user_id");
    },
  };
}
