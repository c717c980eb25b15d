import { timingSafeEqual, createHash } from "node:crypto";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../http/errors.ts";
import { ADMIN_SCOPE, type Principal } from "./principal.ts";

/** The trusted caller of auth mode `none`: admin, as in Agno, acting for whatever user_id it names. */
export const TRUSTED_ADMIN: Principal = Object.freeze({
  kind: "admin",
  userId: null,
  scopes: [ADMIN_SCOPE],
  authenticatedBy: "none",
  isAdmin: true,
});

const SECURITY_KEY_ADMIN: Principal = Object.freeze({ ...TRUSTED_ADMIN, authenticatedBy: "security_key" });

function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1].trim() : "";
}

/** Constant-time comparison of two secrets (hashed first so lengths never leak). */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Builds the request's principal, or throws 401. Modes: `none` (trusted admin), `security_key`
 * (OS_SECURITY_KEY bearer, admin). JWT, service accounts and dashboard sessions — the non-admin
 * principals — come with the identity work; until then a JWT-configured server refuses to guess.
 */
export function authenticate(request: Request, settings: Settings): Principal {
  switch (settings.auth.mode) {
    case "none":
      return TRUSTED_ADMIN;
    case "security_key": {
      const token = bearerToken(request);
      if (token === null) throw new HttpError(401, "Authorization header required");
      if (!token || !sameSecret(token, settings.auth.securityKey!)) throw new HttpError(401, "Invalid authentication token");
      return SECURITY_KEY_ADMIN;
    }
    case "jwt":
      throw new HttpError(501, "JWT authentication is configured but not available in this build yet");
  }
}
