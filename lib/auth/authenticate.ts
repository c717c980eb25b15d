import { timingSafeEqual, createHash } from "node:crypto";
import { isLoopback, type Settings } from "../config/settings.ts";
import { HttpError } from "../errors/http-error.ts";
import { dashboardPrincipal } from "./dashboard-session.ts";
import { verifyJwtPrincipal } from "./jwt.ts";
import { ADMIN_SCOPE, type Principal } from "./principal.ts";
import { authenticateServiceAccount, SERVICE_ACCOUNT_TOKEN_PREFIX } from "./service-accounts.ts";
import type { Db } from "../db/open-database.ts";

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

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The name in a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`), or null when it is not one. */
function hostnameOf(host: string): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(host.toLowerCase());
  return match ? match[1] : null;
}

/** The `detail` of a request the loopback fence refuses for its Host. */
export const notServedDetail = (host: string | null) => `Host '${host}' is not served: with no authentication configured only loopback hosts are (DNS rebinding protection)`;

/**
 * Whether a request's Host header names this server while no authentication is configured: a
 * loopback host (`isLoopback`; without allowPublicBind the bind host is one too, settings.ts).
 * A missing Host (HTTP/1.0, in-process calls) is this server; a malformed one is not.
 */
export function isServedHost(host: string | null, settings: Settings): boolean {
  if (!host || settings.server.allowPublicBind) return true;
  const name = hostnameOf(host);
  return name !== null && isLoopback(name);
}

/**
 * With no authentication every caller is admin, so the loopback bind is the only fence — and a
 * browser can cross it: DNS rebinding (a foreign Host resolving to 127.0.0.1) and cross-site form
 * posts (no preflight). Both are refused: the Host must be loopback or the configured host, and a
 * state-changing request from a browser must come from this origin or an allowed one.
 */
export function assertLocalRequest(request: Request, settings: Settings): void {
  const host = request.headers.get("host");
  if (!isServedHost(host, settings)) {
    throw new HttpError(403, notServedDetail(host));
  }
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const origin = request.headers.get("origin");
  const own = host ? [`http://${host}`, `https://${host}`] : [];
  const crossSite = origin ? !settings.corsOrigins.includes(origin) && !own.includes(origin) : request.headers.get("sec-fetch-site") === "cross-site";
  if (crossSite) {
    throw new HttpError(
      403,
      `Cross-site request refused: with no authentication configured, only this origin${settings.corsOrigins.length ? ` and ${settings.corsOrigins.join(", ")}` : ""} may change data`,
    );
  }
}

/**
 * Builds the request's principal, or throws 401. A service-account token (`agno_pat_…`) is always
 * checked as one, whatever the mode; a same-origin request with no bearer token may carry a
 * signed-in dashboard session. Otherwise the auth mode decides: `none` (trusted admin),
 * `security_key` (OS_SECURITY_KEY bearer, admin) or `jwt` (JWT beats the key when both are set).
 */
export async function authenticate(request: Request, settings: Settings, database: () => Promise<Db>): Promise<Principal> {
  const token = bearerToken(request);
  if (token?.startsWith(SERVICE_ACCOUNT_TOKEN_PREFIX)) return authenticateServiceAccount(token, settings, database);
  if (token === null) {
    const dashboard = await dashboardPrincipal(request, settings, database);
    if (dashboard) return dashboard;
  }
  switch (settings.auth.mode) {
    case "none":
      assertLocalRequest(request, settings);
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
