import type { ScopeEntry } from "../db/service-accounts/service-accounts.ts";
import { HttpError, validationError } from "../errors/http-error.ts";
import { ADMIN_SCOPE, hasScope, type Principal } from "./principal.ts";
import { scopeGrants, scopeOverlaps } from "./scope-match.ts";

/**
 * What a service account may be granted, and what its grants add up to. As in Agno's
 * `POST /service-accounts`, entries are `{scope, effect: allow|deny}`; a deny wins over an allow,
 * wildcards included.
 */

/** `resource:action`, `resource:<id>:action`, `resource:*:action` or `resource:*`. */
export const SCOPE_PATTERN = /^[a-z][a-z_]*(:(\*|[A-Za-z0-9][A-Za-z0-9_.-]*))?:(\*|[a-z][a-z_]*)$/;

const legacy = (scope: string) => scope.replace(/^system:/, "config:");

/**
 * Scopes that hand out control of the whole OS or of credentials: `agent_os:admin`, anything on
 * `service_accounts` (minting tokens), and `config:write`. Wildcards reaching them count too.
 */
export function isPrivilegedScope(scope: string): boolean {
  const s = legacy(scope);
  return scopeOverlaps(s, ADMIN_SCOPE) || s.startsWith("service_accounts:") || scopeOverlaps(s, "config:write");
}

/** Allowed minus denied: allows a deny fully covers are dropped; the denies stay to be checked first. */
export function effectiveScopes(entries: readonly ScopeEntry[]): { scopes: string[]; deniedScopes: string[] } {
  const deniedScopes = [...new Set(entries.filter((e) => e.effect === "deny").map((e) => e.scope))];
  const allowed = [...new Set(entries.filter((e) => e.effect === "allow").map((e) => e.scope))];
  return { scopes: allowed.filter((a) => !deniedScopes.some((d) => scopeGrants(legacy(d), legacy(a)))), deniedScopes };
}

/** Admins (or holders of an undenied agent_os:admin) may grant anything but need the flag for privileged scopes. */
export function isAdminCaller(caller: Principal): boolean {
  return hasScope(caller, ADMIN_SCOPE);
}

/**
 * Whether a non-admin may grant `scope`: it must hold it itself, and every deny it is under that
 * touches the scope must be repeated in the new account's denies (no escalation).
 */
function mayGrant(caller: Principal, scope: string, requestDenies: readonly string[]): boolean {
  if (!hasScope({ ...caller, deniedScopes: undefined }, scope)) return false;
  const callerDenies = (caller.deniedScopes ?? []).filter((d) => scopeOverlaps(legacy(d), legacy(scope)));
  return callerDenies.every((d) => requestDenies.some((r) => scopeGrants(legacy(r), legacy(d))));
}

/**
 * Refuses a grant the caller may not make: a privileged allow without `allow_privileged_scopes`
 * from an admin → 422 naming the entry; an allow a non-admin does not hold itself → 403 naming
 * the scope. Denies never widen anything and are always accepted.
 */
export function assertMayGrant({ caller, entries, allowPrivileged }: { caller: Principal; entries: readonly ScopeEntry[]; allowPrivileged: boolean }): void {
  const admin = isAdminCaller(caller);
  const requestDenies = entries.filter((e) => e.effect === "deny").map((e) => e.scope);
  entries.forEach((entry, index) => {
    if (entry.effect !== "allow" || !isPrivilegedScope(entry.scope) || (allowPrivileged && admin)) return;
    const why = admin ? "set allow_privileged_scopes to grant it" : "only an admin can grant it, with allow_privileged_scopes";
    throw validationError([{ type: "value_error", loc: ["body", "scopes", index, "scope"], msg: `scopes.${index}.scope: '${entry.scope}' is a privileged scope: ${why}`, input: entry.scope }]);
  });
  if (admin) return;
  for (const entry of entries) {
    if (entry.effect === "allow" && !mayGrant(caller, entry.scope, requestDenies)) {
      throw new HttpError(403, `Insufficient permissions to grant scope '${entry.scope}': you do not hold it`);
    }
  }
}
