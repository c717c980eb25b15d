import { randomUUID } from "node:crypto";
import type { Db } from "../open-database.ts";

/**
 * Sign-in attempts, counted in the database so every replica throttles alike. Unscoped by nature:
 * they are recorded before anyone is signed in, and hold no user's data beyond the email tried.
 * Times are epoch milliseconds.
 */

/** Rows older than this are deleted now and then; the throttle windows are far shorter. */
const RETENTION_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY = 50;

export interface RecentFailures {
  /** Failures for the account since `since`, after its last successful sign-in. */
  account: number;
  /** Failures from the client address since `since`, whatever the account (successes do not reset it). */
  clientAddress: number;
}

/**
 * Records an attempt before its password is checked, as a failure until settled, so that
 * concurrent attempts see each other when they count. Returns the attempt's id.
 */
export async function startLoginAttempt(db: Db, { account, clientAddress, at }: { account: string; clientAddress: string; at: number }): Promise<string> {
  const id = randomUUID();
  await db.sql.exec(`INSERT INTO agentry_login_attempts (id, account, client_address, at, success) VALUES (?, ?, ?, ?, ?)`, [
    id,
    account,
    clientAddress,
    at,
    false,
  ]);
  if (Math.floor(Math.random() * PRUNE_EVERY) === 0) {
    await db.sql.exec(`DELETE FROM agentry_login_attempts WHERE at < ?`, [at - RETENTION_MS]);
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

/** Failed attempts since `since` (epoch ms) for the account and for the client address. */
export async function countRecentFailures(
  db: Db,
  { account, clientAddress, since }: { account: string; clientAddress: string; since: number },
): Promise<RecentFailures> {
  const [last] = await db.sql.query<{ at: number | null }>(
    `SELECT MAX(at) AS at FROM agentry_login_attempts WHERE account = ? AND success = ? AND at >= ?`,
    [account, true, since],
  );
  const accountSince = last?.at === null || last?.at === undefined ? since : Number(last.at) + 1;
  const [byAccount] = await db.sql.query<{ n: number }>(
    `SELECT COUNT(*) AS n FROM agentry_login_attempts WHERE account = ? AND success = ? AND at >= ?`,
    [account, false, accountSince],
  );
  const [byAddress] = await db.sql.query<{ n: number }>(
    `SELECT COUNT(*) AS n FROM agentry_login_attempts WHERE client_address = ? AND success = ? AND at >= ?`,
    [clientAddress, false, since],
  );
  return { account: Number(byAccount?.n ?? 0), clientAddress: Number(byAddress?.n ?? 0) };
}
