import { ConflictError } from "../../errors/domain-errors.ts";
import { unstorableCharacterIn } from "../../db/storable-text.ts";
import type { Db } from "../../db/open-database.ts";
import { unsafeCreateFirstAdmin } from "../../db/users/user-writes.ts";
import { peekToken, redeemInvite, redeemPasswordReset, type TokenPurpose } from "../../db/users/user-tokens.ts";
import { unsafeHasUsers, type DashboardUser } from "../../db/users/users.ts";
import { hashOneTimeToken, looksLikeOneTimeToken } from "./one-time-token.ts";
import { hashPassword, passwordProblem } from "./password-hash.ts";

/**
 * The ways into the dashboard without being signed in: the first-run setup (only while no user
 * exists), an invite link and a password-reset link. Each returns a result a form can show.
 */
export type AccountResult = { ok: true; user: DashboardUser } | { ok: false; error: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** An address's longest legal length (RFC 5321's path limit). */
const MAX_EMAIL = 254;
const MAX_NAME = 200;

/** Text a person typed that no database stores the same way on both dialects, or is too long. */
function emailProblem(email: string): string | null {
  return EMAIL.test(email.trim()) && email.length <= MAX_EMAIL && unstorableCharacterIn(email) === null ? null : "Enter a valid email address.";
}
function nameProblem(name: string): string | null {
  if (name.length > MAX_NAME) return `A name is at most ${MAX_NAME} characters.`;
  return unstorableCharacterIn(name) === null ? null : "A name cannot hold control characters such as NUL.";
}

/** Whether the first-run setup is open: no user exists yet. */
export async function setupIsOpen(db: Db): Promise<boolean> {
  return !(await unsafeHasUsers(db));
}

/** Creates the first admin. Refused once any user exists (the setup page is then gone). */
export async function setupFirstAdmin(db: Db, { email, name, password }: { email: string; name: string; password: string }): Promise<AccountResult> {
  if (!(await setupIsOpen(db))) return { ok: false, error: "Setup is already complete. Sign in instead." };
  const problem = emailProblem(email) ?? nameProblem(name) ?? passwordProblem(password);
  if (problem) return { ok: false, error: problem };
  const user = await unsafeCreateFirstAdmin(db, { email, name: name.trim() || null, passwordHash: await hashPassword(password) });
  return user ? { ok: true, user } : { ok: false, error: "Setup is already complete. Sign in instead." };
}

/** What a link's token is for, if it is live; for rendering the link's page. */
export async function describeLink(db: Db, { token, purpose }: { token: string; purpose: TokenPurpose }): Promise<{ email: string } | null> {
  if (!looksLikeOneTimeToken(token)) return null;
  const live = await peekToken(db, { tokenHash: hashOneTimeToken(token), purpose });
  return live ? { email: live.email } : null;
}

const DEAD_LINK = "This link is invalid, expired or already used. Ask an admin for a new one.";

/** Accepts an invite: creates the user with the invited email and role, and the chosen password. */
export async function acceptInvite(db: Db, { token, name, password }: { token: string; name: string; password: string }): Promise<AccountResult> {
  const problem = nameProblem(name) ?? passwordProblem(password);
  if (problem) return { ok: false, error: problem };
  if (!looksLikeOneTimeToken(token)) return { ok: false, error: DEAD_LINK };
  try {
    const user = await redeemInvite(db, { tokenHash: hashOneTimeToken(token), name: name.trim() || null, passwordHash: await hashPassword(password) });
    return user ? { ok: true, user } : { ok: false, error: DEAD_LINK };
  } catch (error) {
    if (error instanceof ConflictError) return { ok: false, error: `${error.message}. Sign in instead.` };
    throw error;
  }
}

/** Sets a new password through a reset link; every existing session of the user ends. */
export async function resetPassword(db: Db, { token, password }: { token: string; password: string }): Promise<AccountResult> {
  const problem = passwordProblem(password);
  if (problem) return { ok: false, error: problem };
  if (!looksLikeOneTimeToken(token)) return { ok: false, error: DEAD_LINK };
  const user = await redeemPasswordReset(db, { tokenHash: hashOneTimeToken(token), passwordHash: await hashPassword(password) });
  return user ? { ok: true, user } : { ok: false, error: DEAD_LINK };
}
