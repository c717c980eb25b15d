"use server";

import { migrateDatabaseAction, type MigrateState } from "@/lib/http/dashboard/database-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";

// A public POST endpoint: performAction checks the caller's session and admin role every time.

export async function migrateDatabase(_previous: MigrateState, formData: FormData): Promise<MigrateState> {
  // The handler answers with a MigrateState (per-table outcomes); run() is typed by its base.
  return performAction(migrateDatabaseAction, formData) as Promise<MigrateState>;
}
