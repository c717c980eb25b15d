import type { Db } from "../../db/open-database.ts";
import {
  countRecentFailures,
  discardLoginAttempt,
  markLoginAttemptSucceeded,
  startLoginAttempt,
} from "../../db/users/login-attempts.ts";
import { normalizeEmail, unsafeSignInRecord, type DashboardUser } from "../../db/users/users.ts";
import { unknownAccountHash, verifyPassword } from "./password-hash.ts";

/** Sign-in throttling: failures per account and per client address within one window. */
export const SIGN_IN_THROTTLE = Object.freeze({
  windowMs: 15 * 60 * 1000,
  maxAccountFailures: 5,
  maxAddressFailures: 50,
});

export type SignInCheck =
  | { ok: true; user: DashboardUser }
  /** `invalid` covers an unknown email, a wrong password and a disabled user alike: no enumeration. */
  | { ok: false; reason: "invalid" | "throttled" };

/**
 * Checks an email and password. The attempt is recorded first (as a failure until it succeeds),
 * then counted: past 5 failures for the account or 50 for the client address within 15 minutes it
 * is refused without looking at the password (and forgotten, so refusals do not extend the lock).
 * An unknown email is verified against a dummy hash, so it costs the same as a real one.
 */
export async function checkCredentials(
  db: Db,
  { email, password, clientAddress, now = Date.now() }: { email: string; password: string; clientAddress: string; now?: number },
): Promise<SignInCheck> {
  const account = normalizeEmail(email);
  const attemptId = await startLoginAttempt(db, { account, clientAddress, at: now });
  const failures = await countRecentFailures(db, { account, clientAddress, since: now - SIGN_IN_THROTTLE.windowMs });
  if (failures.account > SIGN_IN_THROTTLE.maxAccountFailures || failures.clientAddress > SIGN_IN_THROTTLE.maxAddressFailures) {
    await discardLoginAttempt(db, attemptId);
    return { ok: false, reason: "throttled" };
  }
  const record = account ? await unsafeSignInRecord(db, account) : null;
  const matches = await verifyPassword(password, record?.passwordHash ?? (await unknownAccountHash()));
  if (!record || !record.passwordHash || !matches || record.user.disabledAt !== null) return { ok: false, reason: "invalid" };
  await markLoginAttemptSucceeded(db, attemptId);
  return { ok: true, user: record.user };
}

/**
 * The client address sign-in throttling counts against: the last `X-Forwarded-For` entry, which
 * Next.js fills from the socket when no proxy set it, and which a reverse proxy appends.
 */
export function clientAddressOf(headers: Headers): string {
  const forwarded = headers.get("x-forwarded-for");
  const last = forwarded?.split(",").map((s) => s.trim()).filter(Boolean).pop();
  return last || headers.get("x-real-ip") || "unknown";
}
