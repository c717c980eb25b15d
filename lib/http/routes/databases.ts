import { MigrationError } from "../../migrations/types.ts";
import { databaseIds, migrateDatabase } from "../../server/app-context.ts";
import { HttpError } from "../../errors/http-error.ts";
import type { Settings } from "../../config/settings.ts";
import { defineRoute } from "../route.ts";
import { MigrateParams, MigrateQuery, MigrateResponse } from "../schemas/core.ts";

export const migrateAll = defineRoute({
  method: "POST",
  path: "/databases/all/migrate",
  summary: "Migrate every database to the latest (or the given) schema version",
  tags: ["Databases"],
  access: { permission: "config:write" },
  query: MigrateQuery,
  response: MigrateResponse,
  handler: async ({ input, settings }) => {
    const failed: Record<string, string> = {};
    const ids = databaseIds(settings);
    for (const id of ids) {
      try {
        await migrateDatabase(settings, id, input.query.target_version);
      } catch (error) {
        if (error instanceof MigrationError && !error.table) throw new HttpError(422, error.message);
        failed[id] = (error as Error).message;
      }
    }
    const target = input.query.target_version ?? "the latest version";
    if (Object.keys(failed).length > 0) {
      return new Response(JSON.stringify({ message: `Migrated ${ids.length - Object.keys(failed).length} of ${ids.length} database(s) to ${target}`, failed }), {
        status: 207,
        headers: { "content-type": "application/json" },
      });
    }
    return { message: `All databases migrated to ${target}` };
  },
});

export const migrateOne = defineRoute({
  method: "POST",
  path: "/databases/{db_id}/migrate",
  summary: "Migrate one database to the latest (or the given) schema version",
  tags: ["Databases"],
  access: { permission: "config:write" },
  params: MigrateParams,
  query: MigrateQuery,
  response: MigrateResponse,
  // The database the path names: one of this OS's.
  resource: ({ params }: { params: { db_id: string } }, { settings }: { settings: Settings }) => {
    if (!databaseIds(settings).includes(params.db_id)) throw new HttpError(404, `No database found with id '${params.db_id}'`);
    return params.db_id;
  },
  handler: async ({ input, settings }) => {
    try {
      await migrateDatabase(settings, input.params.db_id, input.query.target_version);
    } catch (error) {
      if (error instanceof MigrationError && !error.table) throw new HttpError(422, error.message);
      throw new HttpError(500, `Migration of '${input.params.db_id}' failed: ${(error as Error).message}`);
    }
    return { message: `Database '${input.params.db_id}' migrated to ${input.query.target_version ?? "the latest version"}` };
  },
});
