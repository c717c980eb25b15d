import { decode, encode } from "next-auth/jwt";

/**
 * The dashboard's session cookie: an Auth.js JWT (encrypted, A256CBC-HS512) carrying the user id
 * (`sub`), the user's session version (`sv`) and the session's own id (`sid`). One fixed name on
 * http and https; the cookie is HttpOnly, SameSite=Lax, and Secure when served over https.
 */
export const SESSION_COOKIE = "agentry.session-token";

/** How long a session lasts after signing in, in seconds. */
export const SESSION_MAX_AGE = 7 * 24 * 60 * 60;

export interface SessionClaims {
  /** The user's id. */
  sub: string;
  /** The user's session_version when the session began. */
  sv: number;
  /** This session's id, fresh at each sign-in: signing out revokes it (and only it). */
  sid: string;
}

/**
 * The session claims of a decoded token, or null when any is missing. A token without `sid` (issued
 * before sessions had ids) could not be revoked by signing out, so it does not count as a session.
 */
export function sessionClaimsOf(payload: Record<string, unknown> | null | undefined): SessionClaims | null {
  if (!payload || typeof payload.sub !== "string" || typeof payload.sv !== "number" || typeof payload.sid !== "string" || payload.sid === "") return null;
  return { sub: payload.sub, sv: payload.sv, sid: payload.sid };
}

/**
 * The session cookie's value from a Cookie header, reassembling Auth.js's chunks
 * (`name.0`, `name.1`, …) when a token was split. Null when there is none.
 */
export function sessionCookieValue(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  const cookies = new Map<string, string>();
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (name === SESSION_COOKIE || name.startsWith(`${SESSION_COOKIE}.`)) cookies.set(name, part.slice(eq + 1).trim());
  }
  if (cookies.has(SESSION_COOKIE)) return cookies.get(SESSION_COOKIE) || null;
  const chunks: string[] = [];
  for (let i = 0; cookies.has(`${SESSION_COOKIE}.${i}`); i++) chunks.push(cookies.get(`${SESSION_COOKIE}.${i}`)!);
  return chunks.length > 0 ? chunks.join("") : null;
}

/** The claims of a session token, or null when it is not one of ours, is tampered with or expired. */
export async function decodeSessionToken(token: string, secret: string): Promise<SessionClaims | null> {
  try {
    return sessionClaimsOf(await decode({ token, secret, salt: SESSION_COOKIE }));
  } catch {
    return null;
  }
}

/** Issues a session token as Auth.js would (used by tests and tools; Auth.js issues the real ones). */
export function encodeSessionToken(claims: SessionClaims, secret: string, maxAge = SESSION_MAX_AGE): Promise<string> {
  return encode({ token: { ...claims }, secret, salt: SESSION_COOKIE, maxAge });
}
