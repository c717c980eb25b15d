import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError } from "../../errors/domain-errors.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";
import { normalizeEmail, requireAdminScope, unsafeSessionUser, type DashboardUser, type UserRole } from "./users.ts";

export type TokenPurpose = "invite" | "password_reset";

/** An outstanding invite, as the admin console lists it (never the token: only its hash is kept). */
export interface PendingInvite {
  id: string;
  email: string;
  role: UserRole;
  createdBy: string | null;
  createdAt: number;
  expiresAt: number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Records an invite for an email that has no user yet. Admins only. */
export async function createInviteToken(
  db: Db,
  { scope, email, role, tokenHash, expiresAt, createdBy }: { scope: DataScope; email: string; role: UserRole; tokenHash: string; expiresAt: number; createdBy: string | null },
): Promise<PendingInvite> {
  requireAdminScope(scope);
  const normalized = normalizeEmail(email);
  const existing = await db.sql.query(`SELECT 1 AS one FROM agentry_users WHERE email = ?`, [normalized]);
  if (existing.length > 0) throw new ConflictError(`A user with the email ${normalized} already exists`);
  const id = randomUUID();
  const now = nowSeconds();
  await db.sql.exec(
    `INSERT INTO agentry_user_tokens (id, token_hash, purpose, user_id, email, role, created_by, created_at, expires_at)
     VALUES (?, ?, 'invite', NULL, ?, ?, ?, ?, ?)`,
    [id, tokenHash, normalized, role, createdBy, now, expiresAt],
  );
  return { id, email: normalized, role, createdBy, createdAt: now, expiresAt };
}

/**
 * Records a password-reset link for a user. Admins only. Any earlier unused reset link of that
 * user stops working in the same transaction, so only the newest link is live.
 */
export async function createPasswordResetToken(
  db: Db,
  { scope, userId, tokenHash, expiresAt, createdBy }: { scope: DataScope; userId: string; tokenHash: string; expiresAt: number; createdBy: string | null },
): Promise<void> {
  requireAdminScope(scope);
  const user = await unsafeSessionUser(db, userId);
  if (!user) throw new NotFoundError(`No user with id '${userId}'`);
  const now = nowSeconds();
  await db.sql.batch([
    { text: `UPDATE agentry_user_tokens SET used_at = ? WHERE user_id = ? AND purpose = 'password_reset' AND used_at IS NULL`, params: [now, userId] },
    {
      text: `INSERT INTO agentry_user_tokens (id, token_hash, purpose, user_id, email, role, created_by, created_at, expires_at)
             VALUES (?, ?, 'password_reset', ?, ?, NULL, ?, ?, ?)`,
      params: [randomUUID(), tokenHash, userId, user.email, createdBy, now, expiresAt],
    },
  ]);
}

/** Invites not yet used and not expired, newest first. Admins only. */
export async function listPendingInvites(db: Db, { scope }: { scope: DataScope }): Promise<PendingInvite[]> {
  requireAdminScope(scope);
  const rows = await db.sql.query(
    `SELECT id, email, role, created_by, created_at, expires_at FROM agentry_user_tokens
     WHERE purpose = 'invite' AND used_at IS NULL AND expires_at > ? ORDER BY created_at DESC`,
    [nowSeconds()],
  );
  return rows.map((row) => ({
    id: String(row.id),
    email: String(row.email),
    role: row.role === "admin" ? "admin" : "member",
    createdBy: (row.created_by as string | null) ?? null,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  }));
}

/** Withdraws an unused invite. Admins only. */
export async function revokeInvite(db: Db, { scope, inviteId }: { scope: DataScope; inviteId: string }): Promise<void> {
  requireAdminScope(scope);
  const changed = await db.sql.exec(`UPDATE agentry_user_tokens SET used_at = ? WHERE id = ? AND purpose = 'invite' AND used_at IS NULL`, [nowSeconds(), inviteId]);
  if (changed === 0) throw new NotFoundError(`No pending invite with id '${inviteId}'`);
}

/**
 * What a live (unused, unexpired) token is for, to render its page. The token itself is the
 * capability here, so this is scoped by knowledge of the token rather than by a principal.
 */
export async function peekToken(db: Db, { tokenHash, purpose }: { tokenHash: string; purpose: TokenPurpose }): Promise<{ email: string; role: UserRole | null } | null> {
  const [row] = await db.sql.query(`SELECT email, role FROM agentry_user_tokens WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?`, [tokenHash, purpose, nowSeconds()]);
  if (!row) return null;
  return { email: String(row.email), role: row.role === "admin" ? "admin" : row.role === "member" ? "member" : null };
}

/** Marks a live token used and returns its row; null when it is unknown, used or expired. One statement, so a token redeems once. */
async function claimToken(db: Db, tokenHash: string, purpose: TokenPurpose): Promise<{ email: string; role: string | null; user_id: string | null } | null> {
  const now = nowSeconds();
  const [row] = await db.sql.query<{ email: string; role: string | null; user_id: string | null }>(
    `UPDATE agentry_user_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
     RETURNING email, role, user_id`,
    [now, tokenHash, purpose, now],
  );
  return row ?? null;
}

/**
 * Redeems an invite: the token is used up and the user created with the invite's email and role.
 * Null when the link is unknown, used or expired; ConflictError when the email got a user meanwhile.
 */
export async function redeemInvite(db: Db, { tokenHash, name, passwordHash }: { tokenHash: string; name: string | null; passwordHash: string }): Promise<DashboardUser | null> {
  const token = await claimToken(db, tokenHash, "invite");
  if (!token) return null;
  const id = randomUUID();
  const now = nowSeconds();
  const role = token.role === "admin" ? "admin" : "member";
  const inserted = await db.sql.exec(
    `INSERT INTO agentry_users (id, email, name, password_hash, role, session_version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (email) DO NOTHING`,
    [id, token.email, name, passwordHash, role, now, now],
  );
  if (inserted === 0) throw new ConflictError(`A user with the email ${token.email} already exists`);
  return unsafeSessionUser(db, id);
}

/**
 * Redeems a password-reset link: sets the new password hash and moves the session version on, so
 * every existing session of the user ends. Null when the link is unknown, used or expired.
 */
export async function redeemPasswordReset(db: Db, { tokenHash, passwordHash }: { tokenHash: string; passwordHash: string }): Promise<DashboardUser | null> {
  const token = await claimToken(db, tokenHash, "password_reset");
  if (!token?.user_id) return null;
  await db.sql.exec(`UPDATE agentry_users SET password_hash = ?, session_version = session_version + 1, updated_at = ? WHERE id = ?`, [passwordHash, nowSeconds(), token.user_id]);
  return unsafeSessionUser(db, token.user_id);
}
