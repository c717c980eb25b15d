import { NextResponse, type NextRequest } from "next/server";
import { resolveDashboardSettings } from "./lib/config/dashboard-settings.ts";
import { readEnv } from "./lib/config/env.ts";
import { oauthProviderInfo } from "./lib/auth/dashboard/oauth-provider-info.ts";
import { crossSitePostRefusal } from "./lib/auth/dashboard/same-origin.ts";
import { dashboardCsp } from "./lib/http/security-headers.ts";

/**
 * Runs before every dashboard request (not the API: it stays off that hot path) and sets the
 * Content-Security-Policy with a fresh nonce, which Next.js applies to its own scripts. The other
 * security headers come from next.config.ts. Authentication is not decided here: every page and
 * server action checks it itself. A form sent from another site (a POST to a page's server action
 * or to Auth.js's routes) is refused here with a 403 and a `detail`, before anything runs.
 */
let formActionOrigins: string[] | undefined;

function nonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function proxy(request: NextRequest) {
  if (!SAFE_METHODS.has(request.method)) {
    const refusal = crossSitePostRefusal(request);
    if (refusal) return NextResponse.json({ detail: refusal }, { status: 403, headers: { "cache-control": "no-store" } });
  }
  formActionOrigins ??= oauthProviderInfo(resolveDashboardSettings(readEnv())).map((p) => p.origin);
  const csp = dashboardCsp({
    nonce: nonce(),
    formActionOrigins,
    https: request.headers.get("x-forwarded-proto") === "https",
    dev: readEnv().NODE_ENV === "development",
  });
  const requestHeaders = new Headers(request.headers);
  // Next.js reads the nonce from the request's CSP header while rendering.
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: ["/dashboard", "/dashboard/:path*"],
};
