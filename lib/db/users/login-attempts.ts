import { randomUUID } from "node:crypto";
import type { Db } from "../open-database.ts";

/**
 * Sign-in attempts, counted in the database so every replica throttles alike. Unscoped by nature:
 * they are recorded before anyone is signed in, and hold no user's data beyond the email tried.
 * Times are epoch milliseconds.
 */

/** Rows older than this are deleted now and then; the throttle looks back no further. */
export const LOGIN_ATTEMPT_RETENTION_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY = 50;

export interface RecentFailures {
  /**
   * Earlier failures from this client address on this account since `pairSince`, after the
   * pair's last success (this attempt left out; concurrent ones still unsettled count), and when
   * the latest was (epoch ms, null when none).
   */
  pair: { count: number; lastAt: number | null };
  /** Failures from this client address on any account since `addressSince` (this attempt included; successes do not reset it), and when the earliest was. */
  address: { count: number; firstAt: number | null };
}

/**
 * Records an attempt before its password is checked, as a failure until settled, so that
 * concurrent attempts see each other when they count. Returns the attempt's id.
 */
export async function startLoginAttempt(db: Db, { account, clientAddress, at }: { account: string; clientAddress: string; at: number }): Promise<string> {
  const id = randomUUID();
  await db.sql.exec(`INSERT INTO agentry_login_attempts (id, account, client_address, at, success) VALUES (?, ?, ?, ?, ?)`, [id, account, clientAddress, at, false]);
  if (Math.floor(Math.random() * PRUNE_EVERY) === 0) {
    await db.sql.exec(`DELETE FROM agentry_login_attempts WHERE at < ?`, [at - LOGIN_ATTEMPT_RETENTION_MS]);
  }
  return id;
}

/** Marks an attempt as a success (it was recorded as a failure). */
export async function markLoginAttemptSucceeded(db: Db, attemptId: string): Promise<void> {
  await db.sql.exec(`UPDATE agentry_login_attempts SET success = ? WHERE id = ?`, [true, attemptId]);
}

/** Forgets an attempt that was refused before its password was checked. */
export async function discardLoginAttempt(db: Db, attemptId: string): Promise<void> {
  await db.sql.exec(`DELETE FROM agentry_login_attempts WHERE id = ?`, [attemptId]);
}

/** The failures the throttle weighs for one attempt: its (account, address) pair's and its address's. */
export async function recentFailures(
  db: Db,
  { account, clientAddress, attemptId, pairSince, addressSince }: { account: string; clientAddress: string; attemptId: string; pairSince: number; addressSince: number },
): Promise<RecentFailures> {
  const [pair] = await db.sql.query<{ n: number; last_at: number | null }>(
    `SELECT COUNT(*) AS n, MAX(at) AS last_at FROM agentry_login_attempts
      WHERE account = ? AND client_address = ? AND success = ? AND id <> ? AND at >= ?
        AND at > COALESCE((SELECT MAX(at) FROM agentry_login_attempts WHERE account = ? AND client_address = ? AND success = ? AND at >= ?), -1)`,
    [account, clientAddress, false, attemptId, pairSince, account, clientAddress, true, pairSince],
  );
  const [address] = await db.sql.query<{ n: number; first_at: number | null }>(
    `SELECT COUNT(*) AS n, MIN(at) AS first_at FROM agentry_login_attempts WHERE client_address = ? AND success = ? AND at >= ?`,
    [clientAddress, false, addressSince],
  );
  const time = (value: number | null | undefined) => (value === null || value === undefined ? null : Number(value));
  return {
    pair: { count: Number(pair?.n ?? 0), lastAt: time(pair?.last_at) },
    address: { count: Number(address?.n ?? 0), firstAt: time(address?.first_at) },
  };
}
