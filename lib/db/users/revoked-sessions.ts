import type { Db } from "../open-database.ts";
import { USER_COLUMNS, toDashboardUser, type DashboardUser } from "./users.ts";

/**
 * Dashboard sessions ended by signing out, by the session id their cookie carries. In the
 * database, not in a process, so the cookie stops working on every replica at once. Times are
 * epoch seconds.
 */

/**
 * Ends one session: later reads of a cookie carrying `sessionId` find it revoked. Idempotent.
 * `expiresAt` is when the cookie would have expired anyway; rows past theirs are pruned here.
 * Unscoped because the caller proves the session is its own by holding its cookie.
 */
export async function unsafeRevokeSession(
  db: Db,
  { sessionId, userId, expiresAt, now = Math.floor(Date.now() / 1000) }: { sessionId: string; userId: string; expiresAt: number; now?: number },
): Promise<void> {
  await db.sql.exec(`INSERT INTO agentry_revoked_sessions (session_id, user_id, revoked_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`, [sessionId, userId, now, expiresAt]);
  await db.sql.exec(`DELETE FROM agentry_revoked_sessions WHERE expires_at < ?`, [now]);
}

/**
 * The user a session names and whether that session was signed out, in one primary-key read (the
 * one every signed-in request already makes). Unscoped: it is how a session becomes a principal.
 */
export async function unsafeSessionHolder(db: Db, { userId, sessionId }: { userId: string; sessionId: string }): Promise<{ user: DashboardUser; revoked: boolean } | null> {
  const [row] = await db.sql.query(`SELECT ${USER_COLUMNS}, EXISTS (SELECT 1 FROM agentry_revoked_sessions r WHERE r.session_id = ?) AS revoked FROM agentry_users WHERE id = ?`, [sessionId, userId]);
  return row ? { user: toDashboardUser(row), revoked: row.revoked === true || Number(row.revoked) === 1 } : null;
}
