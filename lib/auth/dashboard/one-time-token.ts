import { createHash, randomBytes } from "node:crypto";

/** One-time link tokens: 32 random bytes, base64url. Only their SHA-256 is stored. */
export function newOneTimeToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashOneTimeToken(token) };
}

export function hashOneTimeToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A token as it appears in a link: anything else is refused before the database is asked. */
export function looksLikeOneTimeToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

export const INVITE_TTL_SECONDS = 7 * 24 * 60 * 60;
export const PASSWORD_RESET_TTL_SECONDS = 24 * 60 * 60;
