import { hasColumn, uniqueKeysOn } from "../introspect.ts";
import { SCHEDULE_AGENTRY_COLUMNS, SCHEDULE_PROVENANCE, SCHEDULE_RUN_SLOT, SCHEDULE_RUN_SLOT_INDEX, SCHEDULE_V3_INDEXES, SCHEDULES } from "../tables/specs.ts";
import { MigrationError, type MigrationContext, type MigrationStep } from "../types.ts";
import { addColumnIfMissing, addIndexIfMissing, dropEmptyColumn, dropIndexIfExists } from "./helpers.ts";
import { rebuildSqliteTable } from "./sqlite-rebuild.ts";

/** Names that more than one schedule of the same owner uses: the v3 unique key would reject them. */
async function duplicateNames(ctx: MigrationContext): Promise<{ owner: string | null; name: string; count: number }[]> {
  const owned = await hasColumn(ctx.db, "agno_schedules", "user_id");
  // PostgreSQL rejects a constant in GROUP BY, so a v2 table (no owner column) groups by name alone.
  return ctx.db.sql.query(
    `SELECT ${owned ? "user_id" : "NULL"} AS owner, name, COUNT(*) AS count FROM agno_schedules
      GROUP BY ${owned ? "user_id, name" : "name"} HAVING COUNT(*) > 1 ORDER BY name`,
  );
}

export const schedulesSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "schedules gain user_id, eight provenance columns, and a unique (user_id, name)",
    async up(ctx) {
      const duplicates = await duplicateNames(ctx);
      if (duplicates.length > 0) {
        const list = duplicates.map((d) => `'${d.name}' ×${d.count}${d.owner ? ` (user ${d.owner})` : ""}`).join(", ");
        throw new MigrationError(
          `agno_schedules has duplicate schedule names, which the v3 unique key (user_id, name) forbids: ${list}. ` + "Rename or delete the duplicates, then run the migration again.",
          "agno_schedules",
          "3.0.0",
        );
      }
      await addColumnIfMissing(ctx, "agno_schedules", { name: "user_id", type: "text" });
      for (const name of SCHEDULE_PROVENANCE) {
        await addColumnIfMissing(ctx, "agno_schedules", { name, type: "text" });
      }
      for (const column of SCHEDULE_AGENTRY_COLUMNS) await addColumnIfMissing(ctx, "agno_schedules", column);
      if (ctx.db.dialect === "postgres") {
        for (const unique of await uniqueKeysOn(ctx.db, "agno_schedules", ["name"])) {
          if (unique.name === "uq_agno_schedules_name_shared") continue;
          await ctx.db.sql.exec(unique.isConstraint ? `ALTER TABLE agno_schedules DROP CONSTRAINT "${unique.name}"` : `DROP INDEX IF EXISTS "${unique.name}"`);
        }
      } else if ((await uniqueKeysOn(ctx.db, "agno_schedules", ["name"])).some((key) => key.isConstraint)) {
        // A v2 table-level UNIQUE(name) lives in an autoindex that only a rebuild removes.
        await rebuildSqliteTable(ctx, SCHEDULES);
      }
      for (const index of SCHEDULE_V3_INDEXES) await addIndexIfMissing(ctx, "agno_schedules", index);
    },
    async down(ctx) {
      for (const index of SCHEDULE_V3_INDEXES) await dropIndexIfExists(ctx, index.name);
      for (const name of [...SCHEDULE_AGENTRY_COLUMNS.map((c) => c.name), ...SCHEDULE_PROVENANCE, "user_id"]) await dropEmptyColumn(ctx, "agno_schedules", name);
    },
  },
];

export const scheduleRunsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "schedule runs gain user_id (per-user isolation) and the slot they fired for",
    async up(ctx) {
      await addColumnIfMissing(ctx, "agno_schedule_runs", { name: "user_id", type: "text" });
      await addIndexIfMissing(ctx, "agno_schedule_runs", { name: "idx_agno_schedule_runs_user_id", columns: ["user_id"] });
      await addColumnIfMissing(ctx, "agno_schedule_runs", SCHEDULE_RUN_SLOT);
      await addIndexIfMissing(ctx, "agno_schedule_runs", SCHEDULE_RUN_SLOT_INDEX);
    },
    async down(ctx) {
      await dropIndexIfExists(ctx, SCHEDULE_RUN_SLOT_INDEX.name);
      await dropIndexIfExists(ctx, "idx_agno_schedule_runs_user_id");
      await dropEmptyColumn(ctx, "agno_schedule_runs", SCHEDULE_RUN_SLOT.name);
      await dropEmptyColumn(ctx, "agno_schedule_runs", "user_id");
    },
  },
];
