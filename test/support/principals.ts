import type { DataScope } from "@/lib/db/scope.ts";
import type { Principal } from "@/lib/auth/principal.ts";
import { adminScope, userScope } from "./scopes.ts";

/**
 * Principals for isolation tests: an admin, and two users who must never see each other's data.
 * Each call makes fresh user ids, so tests never share rows by accident.
 */
export function mintPrincipals(tag = Math.random().toString(36).slice(2, 8)) {
  const userA = `user-a-${tag}`;
  const userB = `user-b-${tag}`;
  const admin: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "none", isAdmin: true };
  const a: Principal = { kind: "user", userId: userA, scopes: [], authenticatedBy: "jwt", isAdmin: false };
  const b: Principal = { kind: "user", userId: userB, scopes: [], authenticatedBy: "jwt", isAdmin: false };
  const scopes: { admin: DataScope; a: DataScope; b: DataScope } = {
    admin: adminScope(),
    a: userScope(userA),
    b: userScope(userB),
  };
  return { admin, a, b, userA, userB, scopes };
}
