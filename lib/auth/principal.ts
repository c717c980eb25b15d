import { adminScope, userScope, type DataScope } from "../db/scope.ts";

export type AuthMode = "none" | "security_key" | "jwt";

/**
 * Who is calling. Built only by lib/auth. Admins (auth mode `none`, the shared security key,
 * `agent_os:admin` holders) may act for any user; everyone else acts as itself.
 */
export interface Principal {
  readonly kind: "admin" | "user";
  /** The caller's own user id; null for a trusted admin caller with no identity of its own. */
  readonly userId: string | null;
  /** Agno scope strings the caller holds (`agents:read`, `agents:<id>:run`, `agent_os:admin`, …). */
  readonly scopes: readonly string[];
  readonly authenticatedBy: "none" | "security_key" | "jwt" | "service_account" | "dashboard";
  readonly isAdmin: boolean;
}

export const ADMIN_SCOPE = "agent_os:admin";

/**
 * The data scope a principal acts in. A non-admin always gets its own id, whatever `user_id` the
 * request names; an admin may name a user (or none, to see everyone's rows).
 */
export function dataScopeFor(principal: Principal, requestedUserId?: string | null): DataScope {
  if (principal.isAdmin) return adminScope(requestedUserId === undefined || requestedUserId === "" ? undefined : requestedUserId);
  if (!principal.userId) throw new Error("a non-admin principal without a user id cannot touch data");
  return userScope(principal.userId);
}

/** Whether the principal holds `required` (admins hold everything; `x:*:y` matches any id). */
export function hasScope(principal: Principal, required: string): boolean {
  if (principal.isAdmin || principal.scopes.includes(ADMIN_SCOPE)) return true;
  if (principal.scopes.includes(required)) return true;
  const [resource, idOrAction, action] = required.split(":");
  if (action !== undefined) {
    return principal.scopes.includes(`${resource}:*:${action}`) || principal.scopes.includes(`${resource}:${action}`);
  }
  return principal.scopes.includes(`${resource}:*:${idOrAction}`);
}
