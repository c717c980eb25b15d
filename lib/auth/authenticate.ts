import { timingSafeEqual, createHash } from "node:crypto";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../http/errors.ts";
import { dashboardPrincipal } from "./dashboard-session.ts";
import { verifyJwtPrincipal } from "./jwt.ts";
import { ADMIN_SCOPE, type Principal } from "./principal.ts";
import { authenticateServiceAccount, SERVICE_ACCOUNT_TOKEN_PREFIX } from "./service-accounts.ts";

/** The trusted caller of auth mode `none`: admin, as in Agno, acting for whatever user_id it names. */
export const TRUSTED_ADMIN: Principal = Object.freeze({
  kind: "admin",
  userId: null,
  scopes: [ADMIN_SCOPE],
  authenticatedBy: "none",
  isAdmin: true,
});

const SECURITY_KEY_ADMIN: Principal = Object.freeze({ ...TRUSTED_ADMIN, authenticatedBy: "security_key" });

/** The bearer token, "" for a malformed Authorization header, null when there is none. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1].trim() : "";
}

/** Constant-time comparison of two secrets (hashed first so lengths never leak). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Builds the request's principal, or throws 401. A service-account token (`agno_pat_…`) is always
 * checked as one, whatever the mode; a same-origin request with no bearer token may carry a
 * signed-in dashboard session. Otherwise the auth mode decides: `none` (trusted admin),
 * `security_key` (OS_SECURITY_KEY bearer, admin) or `jwt` (JWT beats the key when both are set).
 */
export async function authenticate(request: Request, settings: Settings): Promise<Principal> {
  const token = bearerToken(request);
  if (token?.startsWith(SERVICE_ACCOUNT_TOKEN_PREFIX)) return authenticateServiceAccount(token, settings);
  if (token === null) {
    const dashboard = await dashboardPrincipal(request, settings);
    if (dashboard) return dashboard;
  }
  switch (settings.auth.mode) {
    case "none":
      return TRUSTED_ADMIN;
    case "security_key": {
      if (token === null) throw new HttpError(401, "Authorization header required");
      if (!token || !sameSecret(token, settings.auth.securityKey!)) throw new HttpError(401, "Invalid authentication token");
      return SECURITY_KEY_ADMIN;
    }
    case "jwt": {
      if (token === null) throw new HttpError(401, "Authorization header required");
      return verifyJwtPrincipal(token, settings);
    }
  }
}
