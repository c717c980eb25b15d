import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import { unsafeRevokeSession, unsafeSessionHolder } from "../../db/users/revoked-sessions.ts";
import type { DashboardUser } from "../../db/users/users.ts";
import { authSecret } from "./auth-secret.ts";
import { SESSION_MAX_AGE, decodeSessionToken, sessionCookieValue, type SessionClaims } from "./session-token.ts";

/**
 * The user a session's claims name, if the session still holds: the user exists, is not disabled,
 * its session version is the one the session began with, and the session was not signed out. One
 * primary-key read, on every request, so disabling a user, a password reset, "sign out everywhere"
 * or signing out ends sessions at once on every replica, and a role change applies to the next
 * request.
 */
export async function activeSessionUser(db: Db, claims: SessionClaims): Promise<DashboardUser | null> {
  const holder = await unsafeSessionHolder(db, { userId: claims.sub, sessionId: claims.sid });
  if (!holder || holder.revoked || holder.user.disabledAt !== null || holder.user.sessionVersion !== claims.sv) return null;
  return holder.user;
}

/**
 * Ends one session server-side (signing out): its cookie, and any copy of it, stops working at
 * once. The record is kept as long as the cookie could otherwise still be valid.
 */
export async function endSession(db: Db, claims: SessionClaims, now = Math.floor(Date.now() / 1000)): Promise<void> {
  await unsafeRevokeSession(db, { sessionId: claims.sid, userId: claims.sub, expiresAt: now + SESSION_MAX_AGE, now });
}

type CookieSource = { cookieHeader: string | null; settings: Settings; db: Db };

/** The session claims of a Cookie header's session cookie, or null (none, a bad or expired token). */
async function sessionClaimsFromCookies({ cookieHeader, settings, db }: CookieSource): Promise<SessionClaims | null> {
  const token = sessionCookieValue(cookieHeader);
  return token ? decodeSessionToken(token, await authSecret(settings, db)) : null;
}

/** Ends the session a Cookie header carries, if it carries one of ours (signing out). */
export async function endSessionFromCookies(source: CookieSource): Promise<void> {
  const claims = await sessionClaimsFromCookies(source);
  if (claims) await endSession(source.db, claims);
}

/** The signed-in user of a Cookie header, or null (no cookie, a bad or expired token, an ended session). */
export async function sessionUserFromCookies(source: CookieSource): Promise<DashboardUser | null> {
  const claims = await sessionClaimsFromCookies(source);
  return claims ? activeSessionUser(source.db, claims) : null;
}
