import type { TableSpec } from "../ddl.ts";
import { hasColumn, indexExists, uniqueKeysOn } from "../introspect.ts";
import { METRICS } from "../tables/specs.ts";
import type { MigrationStep } from "../types.ts";
import { rebuildSqliteTable } from "./sqlite-rebuild.ts";

const V3_UNIQUE = "agno_metrics_uq_metrics_user_date_period";
const V2_UNIQUE = "agno_metrics_uq_metrics_date_period";

/** The v2 metrics table: one row per (date, aggregation_period). */
export const METRICS_V2: TableSpec = {
  name: "agno_metrics",
  columns: METRICS.columns.filter((c) => c.name !== "user_id"),
  uniques: [{ name: V2_UNIQUE, columns: ["date", "aggregation_period"] }],
  indexes: [{ name: "idx_agno_metrics_date", columns: ["date"] }],
};

export const metricsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "metrics aggregate per user: user_id ('' = shared) and unique (user_id, date, aggregation_period)",
    async up(ctx) {
      const { db } = ctx;
      if (db.dialect === "sqlite") {
        if ((await hasColumn(db, "agno_metrics", "user_id")) && (await uniqueKeysOn(db, "agno_metrics", ["user_id", "date", "aggregation_period"])).length > 0) return;
        const expressions: Record<string, string> = (await hasColumn(db, "agno_metrics", "user_id")) ? { user_id: `COALESCE("user_id", '')` } : {};
        await rebuildSqliteTable(ctx, METRICS, expressions);
        return;
      }
      const statements = [];
      if (!(await hasColumn(db, "agno_metrics", "user_id"))) {
        statements.push({ text: `ALTER TABLE agno_metrics ADD COLUMN user_id VARCHAR NOT NULL DEFAULT ''` });
      }
      for (const unique of await uniqueKeysOn(db, "agno_metrics", ["date", "aggregation_period"])) {
        statements.push({
          text: unique.isConstraint ? `ALTER TABLE agno_metrics DROP CONSTRAINT "${unique.name}"` : `DROP INDEX IF EXISTS "${unique.name}"`,
        });
      }
      if ((await uniqueKeysOn(db, "agno_metrics", ["user_id", "date", "aggregation_period"])).length === 0) {
        statements.push({
          text: `ALTER TABLE agno_metrics ADD CONSTRAINT "${V3_UNIQUE}" UNIQUE (user_id, date, aggregation_period)`,
        });
      }
      if (!(await indexExists(db, "idx_agno_metrics_user_id"))) {
        statements.push({ text: `CREATE INDEX IF NOT EXISTS idx_agno_metrics_user_id ON agno_metrics (user_id)` });
      }
      if (statements.length > 0) {
        await db.sql.batch(statements);
        ctx.log("agno_metrics: re-keyed to (user_id, date, aggregation_period)");
      }
    },
    async down(ctx) {
      const { db } = ctx;
      const [owned] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_metrics WHERE user_id <> ''`);
      if (Number(owned?.n) > 0) {
        throw new Error(`cannot re-key metrics back to one row per day: ${owned?.n} rows belong to users`);
      }
      if (db.dialect === "sqlite") {
        await rebuildSqliteTable(ctx, METRICS_V2);
        return;
      }
      await db.sql.batch([
        { text: `ALTER TABLE agno_metrics DROP CONSTRAINT IF EXISTS "${V3_UNIQUE}"` },
        { text: `DROP INDEX IF EXISTS idx_agno_metrics_user_id` },
        { text: `ALTER TABLE agno_metrics DROP COLUMN IF EXISTS user_id` },
        { text: `ALTER TABLE agno_metrics ADD CONSTRAINT "${V2_UNIQUE}" UNIQUE (date, aggregation_period)` },
      ]);
    },
  },
];
