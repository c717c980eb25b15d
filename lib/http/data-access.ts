import { dataScopeFor, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { databaseIds, getDatabase } from "../server/app-context.ts";
import { HttpError } from "../errors/http-error.ts";

/**
 * Resolves Agno's `db_id`/`table` query parameters to an open database (reference §1):
 * `table` without `db_id` → 400; unknown `db_id` → 404; several databases and no `db_id` → 400;
 * a `table` this resource does not keep in that database → 404.
 */
export function selectDatabase(
  settings: Settings,
  { db_id: dbId, table }: { db_id?: string; table?: string },
  tables: readonly string[],
): Promise<Db> {
  if (table && !dbId) throw new HttpError(400, "The db_id query parameter is required when passing a table");
  const ids = databaseIds(settings);
  if (dbId && !ids.includes(dbId)) throw new HttpError(404, `No database found with id '${dbId}'`);
  if (!dbId && ids.length > 1) throw new HttpError(400, "The db_id query parameter is required when using multiple databases");
  if (table && !tables.includes(table)) throw new HttpError(404, `No database with id '${dbId}' has table '${table}'`);
  return getDatabase(settings, dbId ?? ids[0]);
}

/**
 * The data scope of a request: always through dataScopeFor, so a non-admin acts as itself
 * whatever `user_id` it names. A route without a principal never gets an unfiltered scope.
 */
export function requestScope(principal: Principal | null, requestedUserId?: string | null): DataScope {
  if (!principal) throw new HttpError(401, "Authentication required");
  return dataScopeFor(principal, requestedUserId);
}

/** Milliseconds since `start` (from performance.now()), for `meta.search_time_ms`. */
export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100;
}
