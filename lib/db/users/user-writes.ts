import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError } from "../../errors/domain-errors.ts";
import type { Db } from "../open-database.ts";
import { unsafeSystemScope, type DataScope } from "../scope.ts";
import { getUser, normalizeEmail, requireAdminScope, requireSelfOrAdmin, unsafeSessionUser, type DashboardUser, type UserRole } from "./users.ts";

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Some other enabled admin exists (so this one may be demoted or disabled). */
const ANOTHER_ENABLED_ADMIN = "EXISTS (SELECT 1 FROM agentry_users other WHERE other.role = 'admin' AND other.disabled_at IS NULL AND other.id <> ?)";

/**
 * Creates the first admin, only while no user exists; null when one already does. Unscoped: it is
 * the first-run setup, before anyone can sign in. The check and the insert are one statement under
 * a write lock (SQLite's immediate transaction, a table lock on PostgreSQL), so two concurrent
 * setups cannot both create an admin.
 */
export async function unsafeCreateFirstAdmin(db: Db, { email, name, passwordHash }: { email: string; name: string | null; passwordHash: string }): Promise<DashboardUser | null> {
  const id = randomUUID();
  const now = nowSeconds();
  const insert = {
    text: `INSERT INTO agentry_users (id, email, name, password_hash, role, session_version, created_at, updated_at)
           SELECT ?, ?, ?, ?, 'admin', 1, ?, ? WHERE NOT EXISTS (SELECT 1 FROM agentry_users)`,
    params: [id, normalizeEmail(email), name, passwordHash, now, now],
  };
  const statements = db.dialect === "postgres" ? [{ text: "LOCK TABLE agentry_users IN SHARE ROW EXCLUSIVE MODE" }, insert] : [insert];
  const counts = await db.sql.batch(statements);
  if (counts[counts.length - 1] !== 1) return null;
  return unsafeSessionUser(db, id);
}

async function requireExisting(db: Db, userId: string): Promise<DashboardUser> {
  const user = await getUser(db, { scope: unsafeSystemScope("the user an admin-checked write changes"), userId });
  if (!user) throw new NotFoundError(`No user with id '${userId}'`);
  return user;
}

/** Sets a user's role. Admins only; refuses to demote the last enabled admin (ConflictError). */
export async function setUserRole(db: Db, { scope, userId, role }: { scope: DataScope; userId: string; role: UserRole }): Promise<DashboardUser> {
  requireAdminScope(scope);
  const changed = await db.sql.exec(`UPDATE agentry_users SET role = ?, updated_at = ? WHERE id = ? AND (? = 'admin' OR role <> 'admin' OR ${ANOTHER_ENABLED_ADMIN})`, [
    role,
    nowSeconds(),
    userId,
    role,
    userId,
  ]);
  const user = await requireExisting(db, userId);
  if (changed === 0) throw new ConflictError("The last enabled admin cannot be made a member");
  return user;
}

/**
 * Disables or re-enables a user. Admins only. Either way the session version moves on, so every
 * session the user holds ends at once. Refuses to disable the last enabled admin (ConflictError).
 */
export async function setUserDisabled(db: Db, { scope, userId, disabled }: { scope: DataScope; userId: string; disabled: boolean }): Promise<DashboardUser> {
  requireAdminScope(scope);
  const now = nowSeconds();
  const changed = disabled
    ? await db.sql.exec(
        `UPDATE agentry_users SET disabled_at = ?, session_version = session_version + 1, updated_at = ?
         WHERE id = ? AND (role <> 'admin' OR ${ANOTHER_ENABLED_ADMIN})`,
        [now, now, userId, userId],
      )
    : await db.sql.exec(`UPDATE agentry_users SET disabled_at = NULL, session_version = session_version + 1, updated_at = ? WHERE id = ?`, [now, userId]);
  const user = await requireExisting(db, userId);
  if (changed === 0) throw new ConflictError("The last enabled admin cannot be disabled");
  return user;
}

/** Ends every session of a user ("sign out everywhere"). The user itself or an admin. */
export async function bumpSessionVersion(db: Db, { scope, userId }: { scope: DataScope; userId: string }): Promise<void> {
  requireSelfOrAdmin(scope, userId);
  const changed = await db.sql.exec(`UPDATE agentry_users SET session_version = session_version + 1, updated_at = ? WHERE id = ?`, [nowSeconds(), userId]);
  if (changed === 0) throw new NotFoundError(`No user with id '${userId}'`);
}

/** Renames a user. The user itself or an admin. */
export async function updateUserName(db: Db, { scope, userId, name }: { scope: DataScope; userId: string; name: string | null }): Promise<DashboardUser> {
  requireSelfOrAdmin(scope, userId);
  await db.sql.exec(`UPDATE agentry_users SET name = ?, updated_at = ? WHERE id = ?`, [name, nowSeconds(), userId]);
  return requireExisting(db, userId);
}
