import type { Db } from "../../db/open-database.ts";
import { PermissionError } from "../../errors/domain-errors.ts";
import type { DataScope } from "../../db/scope.ts";
import { bumpSessionVersion, setUserDisabled, setUserRole } from "../../db/users/user-writes.ts";
import { createInviteToken, createPasswordResetToken, listPendingInvites, revokeInvite, type PendingInvite } from "../../db/users/user-tokens.ts";
import { listUsers, type DashboardUser, type UserRole } from "../../db/users/users.ts";
import { dataScopeFor, type Principal } from "../principal.ts";
import { INVITE_TTL_SECONDS, PASSWORD_RESET_TTL_SECONDS, newOneTimeToken } from "./one-time-token.ts";

/**
 * User management for the admin console. Every function takes the caller's principal and refuses
 * anyone but an admin (PermissionError), whatever calls it: a route, a server action or a test.
 */

/**
 * The management scope of a principal: admins act as admins, anyone else only as itself, whatever
 * the isolation switch says.
 */
function scopeOf(principal: Principal): DataScope {
  if (!principal.isAdmin && !principal.userId) throw new PermissionError("Only admins manage users");
  return dataScopeFor(principal, undefined, { isolation: "always" });
}

function requireAdmin(principal: Principal): DataScope {
  if (!principal.isAdmin) throw new PermissionError("Only admins manage users");
  return scopeOf(principal);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function listUsersFor(db: Db, principal: Principal): Promise<{ users: DashboardUser[]; invites: PendingInvite[] }> {
  const scope = requireAdmin(principal);
  return { users: await listUsers(db, { scope }), invites: await listPendingInvites(db, { scope }) };
}

/**
 * Invites someone by a one-time link (the admin copies it; nothing is mailed). Returns the link,
 * shown once: only the token's hash is stored.
 */
export async function inviteUser(
  db: Db,
  { principal, email, role, origin }: { principal: Principal; email: string; role: UserRole; origin: string },
): Promise<{ invite: PendingInvite; link: string }> {
  const scope = requireAdmin(principal);
  const { token, tokenHash } = newOneTimeToken();
  const invite = await createInviteToken(db, { scope, email, role, tokenHash, expiresAt: nowSeconds() + INVITE_TTL_SECONDS, createdBy: principal.userId });
  return { invite, link: `${origin}/dashboard/invite/${token}` };
}

/** A one-time password-reset link for a user (earlier ones stop working). */
export async function passwordResetLink(db: Db, { principal, userId, origin }: { principal: Principal; userId: string; origin: string }): Promise<{ link: string }> {
  const scope = requireAdmin(principal);
  const { token, tokenHash } = newOneTimeToken();
  await createPasswordResetToken(db, { scope, userId, tokenHash, expiresAt: nowSeconds() + PASSWORD_RESET_TTL_SECONDS, createdBy: principal.userId });
  return { link: `${origin}/dashboard/reset-password/${token}` };
}

export async function changeRole(db: Db, { principal, userId, role }: { principal: Principal; userId: string; role: UserRole }): Promise<DashboardUser> {
  return setUserRole(db, { scope: requireAdmin(principal), userId, role });
}

/** Disables (every session ends at once) or re-enables a user. */
export async function setEnabled(db: Db, { principal, userId, enabled }: { principal: Principal; userId: string; enabled: boolean }): Promise<DashboardUser> {
  return setUserDisabled(db, { scope: requireAdmin(principal), userId, disabled: !enabled });
}

export async function withdrawInvite(db: Db, { principal, inviteId }: { principal: Principal; inviteId: string }): Promise<void> {
  await revokeInvite(db, { scope: requireAdmin(principal), inviteId });
}

/** Ends every session of the caller ("sign out everywhere"); an admin may name another user. */
export async function endSessions(db: Db, { principal, userId }: { principal: Principal; userId?: string }): Promise<void> {
  const target = userId ?? principal.userId;
  if (!target) throw new PermissionError("This caller has no dashboard sessions");
  await bumpSessionVersion(db, { scope: scopeOf(principal), userId: target });
}
