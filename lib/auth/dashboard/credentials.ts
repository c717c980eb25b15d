import type { Db } from "../../db/open-database.ts";
import { LOGIN_ATTEMPT_RETENTION_MS, discardLoginAttempt, markLoginAttemptSucceeded, recentFailures, startLoginAttempt } from "../../db/users/login-attempts.ts";
import { throttleSubject } from "./client-address.ts";
import { normalizeEmail, unsafeSignInRecord, type DashboardUser } from "../../db/users/users.ts";
import { unknownAccountHash, verifyPassword } from "./password-hash.ts";

/**
 * Sign-in throttling. Per (account, client address): the first failures are free, then each
 * further attempt from that address on that account waits twice as long as the one before, up to
 * a cap, until a success from there (or a day without failures) starts it over. Per client
 * address: a limit on failures across all accounts. Nothing is counted per account alone, so
 * failures from one address never keep the account's owner out from another.
 */
export const SIGN_IN_THROTTLE = Object.freeze({
  /** Failures from one address on one account before backoff starts. */
  freeFailures: 5,
  /** The wait after the first failure beyond the free ones; each further failure doubles it. */
  baseDelayMs: 30_000,
  maxDelayMs: 15 * 60_000,
  /** How long a failure counts toward a pair's backoff. */
  pairMemoryMs: LOGIN_ATTEMPT_RETENTION_MS,
  /** Failures from one address across all accounts within `addressWindowMs` before it is refused. */
  maxAddressFailures: 50,
  addressWindowMs: 15 * 60_000,
});

/** How long after its latest failure a pair with this many earlier failures must wait (0: not at all). */
export function backoffDelayMs(failures: number): number {
  const { freeFailures, baseDelayMs, maxDelayMs } = SIGN_IN_THROTTLE;
  if (failures < freeFailures) return 0;
  return Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(failures - freeFailures, 20));
}

export type SignInCheck =
  | { ok: true; user: DashboardUser }
  /** `invalid` covers an unknown email, a wrong password and a disabled user alike: no enumeration. */
  | { ok: false; reason: "invalid" }
  /** Refused without looking at the password; `retryAfterSeconds` says when this address may try this account again. */
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/**
 * Checks an email and password from a client address. The attempt is recorded first (as a failure
 * until it succeeds), so concurrent attempts see each other when they count; then, while the
 * (account, address) pair is backing off or the address is over its limit, it is refused without
 * looking at the password (and forgotten, so refusals do not lengthen the wait). An unknown email
 * is throttled and verified (against a dummy hash) exactly like a real one.
 */
export async function checkCredentials(db: Db, { email, password, clientAddress, now = Date.now() }: { email: string; password: string; clientAddress: string; now?: number }): Promise<SignInCheck> {
  const account = normalizeEmail(email);
  // Attempts are kept and counted per throttle subject: an IPv6 client is its /64.
  const subject = throttleSubject(clientAddress);
  const attemptId = await startLoginAttempt(db, { account, clientAddress: subject, at: now });
  const { pair, address } = await recentFailures(db, {
    account,
    clientAddress: subject,
    attemptId,
    pairSince: now - SIGN_IN_THROTTLE.pairMemoryMs,
    addressSince: now - SIGN_IN_THROTTLE.addressWindowMs,
  });
  const delay = backoffDelayMs(pair.count);
  const pairFreeAt = delay === 0 || pair.lastAt === null ? 0 : pair.lastAt + delay;
  const addressFreeAt = address.count > SIGN_IN_THROTTLE.maxAddressFailures && address.firstAt !== null ? address.firstAt + SIGN_IN_THROTTLE.addressWindowMs : 0;
  const freeAt = Math.max(pairFreeAt, addressFreeAt);
  if (freeAt > now) {
    await discardLoginAttempt(db, attemptId);
    return { ok: false, reason: "throttled", retryAfterSeconds: Math.ceil((freeAt - now) / 1000) };
  }
  const record = account ? await unsafeSignInRecord(db, account) : null;
  const matches = await verifyPassword(password, record?.passwordHash ?? (await unknownAccountHash()));
  if (!record?.passwordHash || !matches || record.user.disabledAt !== null) return { ok: false, reason: "invalid" };
  await markLoginAttemptSucceeded(db, attemptId);
  return { ok: true, user: record.user };
}
