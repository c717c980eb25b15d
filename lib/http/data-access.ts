import { dataScopeFor, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import type { InputPart, RouteData } from "./route.ts";
import { databaseIds, getDatabase } from "../server/app-context.ts";
import { HttpError } from "../errors/http-error.ts";

/**
 * Resolves Agno's `db_id`/`table` query parameters to an open database, with Agno's answers:
 * `table` without `db_id` → 400; unknown `db_id` → 404; several databases and no `db_id` → 400;
 * a `table` this resource does not keep in that database → 404.
 */
export function selectDatabase(settings: Settings, { db_id: dbId, table }: { db_id?: string; table?: string }, tables: readonly string[]): Promise<Db> {
  if (table && !dbId) throw new HttpError(400, "The db_id query parameter is required when passing a table");
  const ids = databaseIds(settings);
  if (dbId && !ids.includes(dbId)) throw new HttpError(404, `No database found with id '${dbId}'`);
  if (!dbId && ids.length > 1) throw new HttpError(400, "The db_id query parameter is required when using multiple databases");
  if (table && !tables.includes(table)) throw new HttpError(404, `No database with id '${dbId}' has table '${table}'`);
  return getDatabase(settings, dbId ?? ids[0]);
}

/** The `user_id` a part of the input names (a string, or null for the shared rows), if any. */
function namedUser(part: unknown): string | null | undefined {
  const value = part && typeof part === "object" ? (part as { user_id?: unknown }).user_id : undefined;
  return typeof value === "string" || value === null ? value : undefined;
}

/**
 * The data scope a route declares (`RouteData`), always through dataScopeFor: a non-admin acts as
 * itself whatever `user_id` it names. `owner: "required"`: an admin naming nobody acts as itself,
 * and a scope naming no user is a 400 "User ID is required" (as in Agno).
 */
export function routeScope(principal: Principal, data: RouteData, input: Partial<Record<InputPart, unknown>>): DataScope {
  const named = data.userFrom ? namedUser(input[data.userFrom]) : undefined;
  const options = { isolation: data.isolation };
  if (data.owner !== "required") return dataScopeFor(principal, named, options);
  const scope = dataScopeFor(principal, named || principal.userId || undefined, options);
  if (!scope.userId) throw new HttpError(400, "User ID is required");
  return scope;
}

/** The database a route declares: the configured one, or Agno's `db_id`/`table` selection from its input. */
export function routeDatabase(settings: Settings, data: RouteData, input: Partial<Record<InputPart, unknown>>): Promise<Db> {
  if (data.db === "default") return getDatabase(settings);
  const part = (input[data.db.selectFrom] ?? {}) as { db_id?: unknown; table?: unknown };
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return selectDatabase(settings, { db_id: text(part.db_id), table: text(part.table) }, data.db.tables);
}

/**
 * What the dispatcher hands a route declaring `data`, in this order: what it requires (a feature
 * that is on), the scope (403 before anything is opened; `adminOnly` refuses all but an admin
 * scope), then the database (400/404).
 */
export async function resolveRouteData(
  principal: Principal,
  data: RouteData,
  input: Partial<Record<InputPart, unknown>>,
  settings: Settings,
): Promise<{ scope: DataScope; ownScope: DataScope; db: Db }> {
  data.requires?.(settings);
  const scope = routeScope(principal, data, input);
  if (data.adminOnly !== undefined && (!principal.isAdmin || scope.kind !== "admin")) throw new HttpError(403, data.adminOnly);
  const ownScope = dataScopeFor(principal, undefined, { isolation: data.isolation });
  return { scope, ownScope, db: await routeDatabase(settings, data, input) };
}

/** Milliseconds since `start` (from performance.now()), for `meta.search_time_ms`. */
export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100;
}
