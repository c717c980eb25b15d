import { z } from "zod";
import { log } from "../../log.ts";
import { MigrationManager, type TableOutcome } from "../../migrations/migration-manager.ts";
import { forgetSystemStatus } from "../../status/system-status.ts";
import { MigrationError } from "../../migrations/types.ts";
import { defineDashboardAction, type ActionState } from "./action.ts";

/** The migrate action's state: what happened to each table, in migration order. */
export interface MigrateState extends ActionState {
  outcomes?: TableOutcome[];
}

/**
 * Migrates the dashboard's database to this code's schema, as `npx agentry migrate` and
 * POST /databases/{db_id}/migrate do (admins only). Tables are stamped one by one, so after a
 * failure the earlier ones stay migrated and the message says where it stopped.
 */
export const migrateDatabaseAction = defineDashboardAction({
  name: "migrateDatabase",
  access: "admin",
  input: z.object({}),
  revalidate: "/dashboard/admin/database",
  async handler({ db }) {
    try {
      const outcomes = await new MigrationManager(db, { log: (m) => log.info(`[migrate] ${m}`) }).up();
      forgetSystemStatus();
      const changed = outcomes.filter((o) => o.action !== "unchanged").length;
      const state: MigrateState = {
        ok: true,
        message: changed === 0 ? `The database is up to date: ${outcomes.length} tables unchanged.` : `Migrated: ${changed} of ${outcomes.length} tables changed.`,
        outcomes,
      };
      return state;
    } catch (error) {
      forgetSystemStatus(); // the tables before the failing one are migrated
      // A failed step's message names the table, the version and what to do; it is the answer.
      if (!(error instanceof MigrationError)) throw error;
      log.error(`[migrate] ${error.message}`);
      return { ok: false, status: 500, error: error.message };
    }
  },
});
