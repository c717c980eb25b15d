import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import { unsafeSessionUser, type DashboardUser } from "../../db/users/users.ts";
import { authSecret } from "./auth-secret.ts";
import { decodeSessionToken, sessionCookieValue, type SessionClaims } from "./session-token.ts";

/**
 * The user a session's claims name, if the session still holds: the user exists, is not disabled,
 * and its session version is the one the session began with. One primary-key read, on every
 * request, so disabling a user, a password reset or "sign out everywhere" ends sessions at once,
 * and a role change applies to the next request.
 */
export async function activeSessionUser(db: Db, claims: SessionClaims): Promise<DashboardUser | null> {
  const user = await unsafeSessionUser(db, claims.sub);
  if (!user || user.disabledAt !== null || user.sessionVersion !== claims.sv) return null;
  return user;
}

/** The signed-in user of a Cookie header, or null (no cookie, a bad or expired token, an ended session). */
export async function sessionUserFromCookies({
  cookieHeader,
  settings,
  db,
}: {
  cookieHeader: string | null;
  settings: Settings;
  db: Db;
}): Promise<DashboardUser | null> {
  const token = sessionCookieValue(cookieHeader);
  if (!token) return null;
  const claims = await decodeSessionToken(token, await authSecret(settings, db));
  return claims ? activeSessionUser(db, claims) : null;
}
