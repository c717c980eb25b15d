/**
 * Whose data a call may touch. Built from the request's principal by lib/auth, never from a
 * user id the request names on its own.
 * - `user`: a non-admin. Reads see its own rows (plus shared, owner-less rows where the resource
 *   allows); writes are always stamped with its id.
 * - `admin`: may name a user (`userId`) to act on that user's rows, or `null` for the shared
 *   (owner-less) rows; with `userId` undefined it sees everyone's.
 */
export type DataScope =
  | { readonly kind: "user"; readonly userId: string }
  | { readonly kind: "admin"; readonly userId?: string | null };

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
  if (options.actingAs === undefined) return { kind: "admin" };
  if (options.actingAs === null) return { kind: "admin", userId: null };
  return { kind: "user", userId: options.actingAs };
}

/** @deprecated Use `dataScopeFor(principal)` (lib/auth/principal.ts) or `unsafeSystemScope(reason)`. */
export const adminScope = (userId?: string | null): DataScope => ({ kind: "admin", userId });
/** @deprecated Use `dataScopeFor(principal)` or `unsafeSystemScope(reason, { actingAs: userId })`. */
export const userScope = (userId: string): DataScope => ({ kind: "user", userId });

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
  return includeShared
    ? { clause: `(${column} = ? OR ${column} IS NULL)`, params: [scope.userId] }
    : { clause: `${column} = ?`, params: [scope.userId] };
}

/** Whether the scope may change a row owned by `owner` (owner-less rows: admins only). */
export function canWrite(scope: DataScope, owner: string | null): boolean {
  if (scope.kind === "admin") return true;
  return owner !== null && owner === scope.userId;
}
