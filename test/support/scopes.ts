import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import type { DataScope } from "@/lib/db/scope.ts";

/**
 * Data scopes for tests that call lib/db directly, made as production makes them: from a
 * principal, through dataScopeFor (lib/ has no other constructor but unsafeSystemScope).
 */
const ADMIN: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "none", isAdmin: true };

/** An admin's scope: everyone's rows (no argument), one user's (a user id), or only the shared ones (null). */
export function adminScope(userId?: string | null): DataScope {
  return dataScopeFor(ADMIN, userId);
}

/** A user acting as itself (isolation on): its own rows, plus shared ones where a resource allows. */
export function userScope(userId: string): DataScope {
  return dataScopeFor({ kind: "user", userId, scopes: [], authenticatedBy: "jwt", isAdmin: false, isolated: true });
}
