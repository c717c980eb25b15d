import { columnsOf } from "../introspect.ts";
import { MEMORIES } from "../tables/specs.ts";
import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing, addIndexIfMissing, convertJsonToJsonb } from "./helpers.ts";
import { rebuildSqliteTable } from "./sqlite-rebuild.ts";

export const memoriesSteps: MigrationStep[] = [
  {
    version: "2.3.0",
    description: "memories gain created_at (NOT NULL) and feedback; JSON columns become JSONB on PostgreSQL",
    async up(ctx) {
      const { db } = ctx;
      await addColumnIfMissing(ctx, "agno_memories", { name: "created_at", type: "bigint" });
      await addColumnIfMissing(ctx, "agno_memories", { name: "feedback", type: "text" });
      // Existing memories were created no later than their last update.
      await db.sql.exec(`UPDATE agno_memories SET created_at = COALESCE(updated_at, ?) WHERE created_at IS NULL`, [Math.floor(Date.now() / 1000)]);
      await addIndexIfMissing(ctx, "agno_memories", { name: "idx_agno_memories_created_at", columns: ["created_at"] });
      const columns = await columnsOf(db, "agno_memories");
      // Like Agno's 2.3.0 step, created_at ends up NOT NULL once every row has one.
      if (!columns.get("created_at")?.notNull) {
        if (db.dialect === "postgres") {
          await db.sql.exec(`ALTER TABLE agno_memories ALTER COLUMN created_at SET NOT NULL`);
        } else if ([...columns.keys()].every((name) => MEMORIES.columns.some((c) => c.name === name))) {
          // SQLite cannot add NOT NULL in place; rebuild (only when no column would be lost).
          await rebuildSqliteTable(ctx, MEMORIES);
        } else {
          ctx.log("agno_memories: has columns this code does not know; created_at left nullable (every row has one)");
        }
      }
      await convertJsonToJsonb(ctx, "agno_memories", ["memory", "topics"], "memory_id");
    },
    irreversibleBecause: "created_at and feedback may hold data written since",
  },
];
