import type { TableSpec } from "../ddl.ts";
import type { MigrationStep } from "../types.ts";
import { convertJsonToJsonb } from "./helpers.ts";

/** PostgreSQL: the table's JSON columns (as its spec declares them, plus the legacy runs blob) become JSONB. */
export function jsonbStep(spec: TableSpec): MigrationStep {
  const columns = spec.columns.filter((c) => c.type === "json").map((c) => c.name);
  if (spec.name === "agno_sessions") columns.push("runs");
  return {
    version: "3.0.0",
    description: `${spec.name}: JSON columns become JSONB on PostgreSQL`,
    async up(ctx) {
      await convertJsonToJsonb(ctx, spec.name, columns, spec.columns.find((c) => c.primaryKey)?.name);
    },
    // JSONB holds the same values; there is nothing to undo.
    async down() {},
  };
}
