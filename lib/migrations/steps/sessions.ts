import { postgresHasPrimaryKey, uniqueKeysOn } from "../introspect.ts";
import type { MigrationStep } from "../types.ts";
import { addIndexIfMissing, dropIndexIfExists } from "./helpers.ts";
import { decodeStringSessionColumns } from "./session-json.ts";

/** The index per-user session lists (newest first) use; tables created at 3.0.0 have it from the spec. */
const USER_UPDATED_INDEX = { name: "idx_agno_sessions_user_id_updated_at", columns: ["user_id", "updated_at"] };
/** The index the dashboard's everyone's-sessions list (an admin's, newest first) seeks on. */
const UPDATED_INDEX = { name: "idx_agno_sessions_updated_at", columns: ["updated_at"] };

export const sessionsSteps: MigrationStep[] = [
  {
    version: "2.5.0",
    description: "session_id becomes the primary key (replacing uq_session_id)",
    async up({ db, log }) {
      if (db.dialect === "postgres") {
        if (!(await postgresHasPrimaryKey(db, "agno_sessions"))) {
          await db.sql.exec(`ALTER TABLE agno_sessions ADD PRIMARY KEY (session_id)`);
          log("agno_sessions: session_id is now the primary key");
        }
        for (const unique of await uniqueKeysOn(db, "agno_sessions", ["session_id"])) {
          await db.sql.exec(unique.isConstraint ? `ALTER TABLE agno_sessions DROP CONSTRAINT "${unique.name}"` : `DROP INDEX IF EXISTS "${unique.name}"`);
        }
        return;
      }
      // SQLite cannot add a primary key in place; a unique index gives the same guarantee
      // (and lets agno_runs reference session_id).
      const [column] = await db.sql.query<{ pk: number }>("SELECT pk FROM pragma_table_info('agno_sessions') WHERE name = 'session_id'");
      const isPrimaryKey = Number(column?.pk) > 0;
      if (!isPrimaryKey && (await uniqueKeysOn(db, "agno_sessions", ["session_id"])).length === 0) {
        await db.sql.exec(`CREATE UNIQUE INDEX IF NOT EXISTS uq_agno_sessions_session_id ON agno_sessions (session_id)`);
        log("agno_sessions: unique index on session_id (this SQLite table has no primary key)");
      }
    },
    irreversibleBecause: "dropping the session_id key would let duplicate sessions in",
  },
  {
    version: "3.0.0",
    description: "sessions gain the (user_id, updated_at) and (updated_at) indexes for session lists; a missing updated_at becomes created_at; on PostgreSQL, double-encoded JSON values are decoded",
    async up(ctx) {
      await decodeStringSessionColumns(ctx);
      // Lists sort and seek on updated_at; a NULL there would hide the session from them.
      const filled = await ctx.db.sql.exec("UPDATE agno_sessions SET updated_at = created_at WHERE updated_at IS NULL");
      if (filled > 0) ctx.log(`agno_sessions: ${filled} sessions without updated_at given their created_at`);
      await addIndexIfMissing(ctx, "agno_sessions", USER_UPDATED_INDEX);
      await addIndexIfMissing(ctx, "agno_sessions", UPDATED_INDEX);
    },
    async down(ctx) {
      await dropIndexIfExists(ctx, USER_UPDATED_INDEX.name);
      await dropIndexIfExists(ctx, UPDATED_INDEX.name);
    },
  },
];
