import { columnsOf } from "../introspect.ts";
import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing, addIndexIfMissing } from "./helpers.ts";

export const memoriesSteps: MigrationStep[] = [
  {
    version: "2.3.0",
    description: "memories gain created_at and feedback; JSON columns become JSONB on PostgreSQL",
    async up(ctx) {
      const { db } = ctx;
      await addColumnIfMissing(ctx, "agno_memories", { name: "created_at", type: "bigint" });
      await addColumnIfMissing(ctx, "agno_memories", { name: "feedback", type: "text" });
      // Existing memories were created no later than their last update.
      await db.sql.exec(
        `UPDATE agno_memories SET created_at = COALESCE(updated_at, ?) WHERE created_at IS NULL`,
        [Math.floor(Date.now() / 1000)],
      );
      await addIndexIfMissing(ctx, "agno_memories", { name: "idx_agno_memories_created_at", columns: ["created_at"] });
      if (db.dialect === "postgres") {
        const columns = await columnsOf(db, "agno_memories");
        for (const name of ["memory", "topics"]) {
          if (columns.get(name)?.type === "json") {
            await db.sql.exec(`ALTER TABLE agno_memories ALTER COLUMN "${name}" TYPE JSONB USING "${name}"::jsonb`);
          }
        }
      }
    },
    irreversibleBecause: "created_at and feedback may hold data written since",
  },
];
