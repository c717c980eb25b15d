import { PermissionError } from "../errors/domain-errors.ts";
import type { DataScope, ScopeShape } from "../db/scope.ts";
import { scopeGrants, scopeOverlaps } from "./scope-match.ts";

/**
 * Who is calling. Built only by lib/auth. Admins (auth mode `none`, the shared security key,
 * `agent_os:admin` holders) may act for any user; everyone else acts as itself.
 */
export interface Principal {
  readonly kind: "admin" | "user" | "service_account";
  /** The caller's own user id; null for a trusted admin caller with no identity of its own. */
  readonly userId: string | null;
  /** Agno scope strings the caller holds (`agents:read`, `agents:<id>:run`, `agent_os:admin`, …). */
  readonly scopes: readonly string[];
  readonly authenticatedBy: "none" | "security_key" | "jwt" | "service_account" | "dashboard" | "scheduler";
  readonly isAdmin: boolean;
  /** A JWT's `session_id` claim, when it carries one. */
  readonly sessionId?: string;
  /**
   * Whether reads and writes are confined to the principal's own rows. On for every non-admin
   * unless an install turned user isolation off (`auth.userIsolation: false`, single-tenant only).
   */
  readonly isolated?: boolean;
  /**
   * Scopes taken away (a service account's `deny` entries). Checked before anything is granted,
   * admin included: a deny wins over any allow, wildcards too.
   */
  readonly deniedScopes?: readonly string[];
}

export const ADMIN_SCOPE = "agent_os:admin";

/** The 403 detail for a non-admin whose credentials name no user (a JWT without `sub`). */
export const MISSING_IDENTITY = "Authenticated request is missing a user identity";

export interface DataScopeOptions {
  /**
   * `"always"`: a non-admin acts only as itself even where the install turned user isolation off
   * (credentials and user management: nobody lists or revokes another user's keys).
   */
  readonly isolation?: "always";
}

/**
 * The data scope a principal acts in — with `unsafeSystemScope` (lib/db/scope.ts, for code with no
 * principal) the only way a DataScope is made. A non-admin always gets its own id, whatever
 * `user_id` the request names; an admin may name a user (or none, to see everyone's rows). An
 * admin without a user id of its own writes owner-less (shared) rows unless it names a user.
 * A non-admin without a user id owns nothing and may touch no data: PermissionError (403), with
 * isolation on or off — it never falls back to an unfiltered scope.
 */
export function dataScopeFor(principal: Principal, requestedUserId?: string | null, options: DataScopeOptions = {}): DataScope {
  const requested = requestedUserId === undefined || requestedUserId === "" ? undefined : requestedUserId;
  if (principal.isAdmin) return made({ kind: "admin", userId: requested });
  if (!principal.userId) throw new PermissionError(MISSING_IDENTITY);
  // Isolation is the default; a single-tenant install may turn it off and let users name a user.
  if (principal.isolated === false && options.isolation !== "always") return made({ kind: "admin", userId: requested ?? principal.userId });
  return made({ kind: "user", userId: principal.userId });
}

/** A scope dataScopeFor decided on (the brand of DataScope says who may make one). */
const made = (shape: ScopeShape): DataScope => shape as DataScope;

/**
 * Whether the principal holds `required` (admins hold everything). `x:*:y` grants `x:<id>:y`;
 * a family scope `x:y` grants every `x:<id>:y`; `x:*` grants every action of x; Agno's legacy
 * `system:*` means `config:*`. A `deniedScopes` entry overlapping `required` refuses it first.
 * Fails closed: anything not granted is refused.
 */
export function hasScope(principal: Principal, required: string): boolean {
  const legacy = (s: string) => s.replace(/^system:/, "config:");
  if (principal.deniedScopes?.some((d) => scopeOverlaps(legacy(d), required))) return false;
  if (principal.isAdmin || principal.scopes.includes(ADMIN_SCOPE)) return true;
  // scopeGrants: exact, `x:*:y`, family `x:y`, and `x:*` (every action of x).
  return principal.scopes.some((s) => scopeGrants(legacy(s), required));
}
