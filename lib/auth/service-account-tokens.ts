import { createHash, randomBytes } from "node:crypto";

/** Service-account tokens (the hosted API's keys) start with this. */
export const SERVICE_ACCOUNT_TOKEN_PREFIX = "agno_pat_";

/** `agno_pat_` + 32 random bytes in base64url (43 characters, no padding). */
const TOKEN_SHAPE = /^agno_pat_[A-Za-z0-9_-]{43}$/;

/** Characters of the random part kept for display (`agno_pat_ab12`): enough to tell tokens apart. */
const DISPLAY_CHARS = 4;

export interface MintedToken {
  /** The plaintext: returned to the creator once, never stored, never logged. */
  token: string;
  /** SHA-256 hex of the token: what the database keeps and looks tokens up by. */
  hash: string;
  /** A short, non-secret prefix to recognise the token by in listings. */
  prefix: string;
}

export function hashServiceAccountToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function isWellFormedServiceAccountToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

/** A fresh token from the OS's CSPRNG, with its hash and display prefix. */
export function mintServiceAccountToken(): MintedToken {
  const token = SERVICE_ACCOUNT_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  return {
    token,
    hash: hashServiceAccountToken(token),
    prefix: token.slice(0, SERVICE_ACCOUNT_TOKEN_PREFIX.length + DISPLAY_CHARS),
  };
}
