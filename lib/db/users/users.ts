import type { Db } from "../open-database.ts";
import { PermissionError } from "../../errors/domain-errors.ts";
import type { DataScope } from "../scope.ts";

export const USER_ROLES = ["admin", "member"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A dashboard user as every caller sees it: never the password hash. */
export interface DashboardUser {
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
  /** Epoch seconds; null while the user may sign in. */
  disabledAt: number | null;
  sessionVersion: number;
  hasPassword: boolean;
  createdAt: number;
  updatedAt: number | null;
}

/** Emails are compared and stored lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const USER_COLUMNS = "id, email, name, role, disabled_at, session_version, created_at, updated_at, (password_hash IS NOT NULL) AS has_password";

export function toDashboardUser(row: Record<string, unknown>): DashboardUser {
  return {
    id: String(row.id),
    email: String(row.email),
    name: (row.name as string | null) ?? null,
    role: row.role === "admin" ? "admin" : "member",
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : Number(row.disabled_at),
    sessionVersion: Number(row.session_version),
    hasPassword: row.has_password === true || Number(row.has_password) === 1,
    createdAt: Number(row.created_at),
    updatedAt: row.updated_at === null || row.updated_at === undefined ? null : Number(row.updated_at),
  };
}

/** Throws unless the scope is an admin's: user management is for admins only. */
export function requireAdminScope(scope: DataScope): void {
  if (scope.kind !== "admin") throw new PermissionError("Only admins manage users");
}

/** Throws unless the scope is the user itself or an admin. */
export function requireSelfOrAdmin(scope: DataScope, userId: string): void {
  if (scope.kind === "admin") return;
  if (scope.userId !== userId) throw new PermissionError("A user may only act on itself");
}

/** Every user, oldest first. Admins only. */
export async function listUsers(db: Db, { scope }: { scope: DataScope }): Promise<DashboardUser[]> {
  requireAdminScope(scope);
  const rows = await db.sql.query(`SELECT ${USER_COLUMNS} FROM agentry_users ORDER BY created_at, email`);
  return rows.map(toDashboardUser);
}

/** One user: an admin may read anyone, a member only itself (anyone else reads as absent). */
export async function getUser(db: Db, { scope, userId }: { scope: DataScope; userId: string }): Promise<DashboardUser | null> {
  if (scope.kind === "user" && scope.userId !== userId) return null;
  const [row] = await db.sql.query(`SELECT ${USER_COLUMNS} FROM agentry_users WHERE id = ?`, [userId]);
  return row ? toDashboardUser(row) : null;
}

/**
 * The user a session names, by primary key. Unscoped because it runs before there is a
 * principal: it is how a session becomes one.
 */
export async function unsafeSessionUser(db: Db, userId: string): Promise<DashboardUser | null> {
  const [row] = await db.sql.query(`SELECT ${USER_COLUMNS} FROM agentry_users WHERE id = ?`, [userId]);
  return row ? toDashboardUser(row) : null;
}

/**
 * The user with this email and its password hash, for checking a sign-in. Unscoped because
 * signing in happens before there is a principal. The hash never leaves lib/auth.
 */
export async function unsafeSignInRecord(db: Db, email: string): Promise<{ user: DashboardUser; passwordHash: string | null } | null> {
  const [row] = await db.sql.query(`SELECT ${USER_COLUMNS}, password_hash FROM agentry_users WHERE email = ?`, [normalizeEmail(email)]);
  return row ? { user: toDashboardUser(row), passwordHash: (row.password_hash as string | null) ?? null } : null;
}

/** Whether any user exists. Unscoped: the first-run setup page asks it before anyone can sign in. */
export async function unsafeHasUsers(db: Db): Promise<boolean> {
  const rows = await db.sql.query(`SELECT 1 AS one FROM agentry_users LIMIT 1`);
  return rows.length > 0;
}
