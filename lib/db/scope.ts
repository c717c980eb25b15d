/** The two shapes of a scope (see DataScope). */
export type ScopeShape = { readonly kind: "user"; readonly userId: string } | { readonly kind: "admin"; readonly userId?: string | null };

declare const madeBy: unique symbol;

/**
 * Whose data a call may touch. Built from the request's principal by lib/auth, never from a
 * user id the request names on its own.
 * - `user`: a non-admin. Reads see its own rows (plus shared, owner-less rows where the resource
 *   allows); writes are always stamped with its id.
 * - `admin`: may name a user (`userId`) to act on that user's rows, or `null` for the shared
 *   (owner-less) rows; with `userId` undefined it sees everyone's.
 * Only two functions make one: `dataScopeFor(principal, …)` (lib/auth/principal.ts) and
 * `unsafeSystemScope(reason, …)` below, for code with no principal. The type carries a brand no
 * other module can name, so an object literal is not a DataScope; `as DataScope` appears in those
 * two files only (test/auth/scope-construction.test.ts checks).
 */
export type DataScope = ScopeShape & { readonly [madeBy]: "dataScopeFor or unsafeSystemScope" };

/**
 * The escape hatch for code that runs with no principal (the worker, the scheduler, migrations,
 * the CLI): a scope not derived from a caller. `reason` says why none exists (it is not used at
 * run time; it is there for the reader and for grep). Requests never use it: they get
 * `dataScopeFor(principal)` from lib/auth.
 * - no `actingAs`: every row (an unfiltered admin scope);
 * - `actingAs: "<user id>"`: as that user (its rows, writes stamped with its id), e.g. a worker
 *   running a job for the run's owner;
 * - `actingAs: null`: the shared, owner-less rows only.
 */
export function unsafeSystemScope(reason: string, options: { actingAs?: string | null } = {}): DataScope {
  void reason;
  const shape: ScopeShape = options.actingAs === undefined ? { kind: "admin" } : options.actingAs === null ? { kind: "admin", userId: null } : { kind: "user", userId: options.actingAs };
  return shape as DataScope;
}

export class ScopeError extends Error {
  override readonly name = "ScopeError";
}

/** The owner to stamp on a row the scope writes. */
export function ownerForWrite(scope: DataScope, requested?: string | null): string | null {
  if (scope.kind === "user") return scope.userId;
  return requested !== undefined ? requested : (scope.userId ?? null);
}

/**
 * The Prisma `where` fragment on `user_id` for a read. `includeShared` lets non-admins also see
 * rows with no owner (shared data) where the resource allows it.
 */
export function ownerWhere(scope: DataScope, { includeShared = false } = {}): { user_id?: string | null } | { OR: object[] } {
  if (scope.kind === "admin") return scope.userId === undefined ? {} : { user_id: scope.userId };
  return includeShared ? { OR: [{ user_id: scope.userId }, { user_id: null }] } : { user_id: scope.userId };
}

/** The same filter as raw SQL: a clause and its parameters (`1=1` when unfiltered). */
export function ownerSql(scope: DataScope, column = "user_id", { includeShared = false } = {}): { clause: string; params: unknown[] } {
  if (scope.kind === "admin") {
    if (scope.userId === undefined) return { clause: "1=1", params: [] };
    if (scope.userId === null) return { clause: `${column} IS NULL`, params: [] };
    return { clause: `${column} = ?`, params: [scope.userId] };
  }
  return includeShared ? { clause: `(${column} = ? OR ${column} IS NULL)`, params: [scope.userId] } : { clause: `${column} = ?`, params: [scope.userId] };
}

/** Whether the scope may change a row owned by `owner` (owner-less rows: admins only). */
export function canWrite(scope: DataScope, owner: string | null): boolean {
  if (scope.kind === "admin") return true;
  return owner !== null && owner === scope.userId;
}
