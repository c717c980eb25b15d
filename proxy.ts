import { NextResponse, type NextRequest } from "next/server";
import { resolveDashboardSettings } from "./lib/config/dashboard-settings.ts";
import { readEnv } from "./lib/config/env.ts";
import { oauthProviderInfo } from "./lib/auth/dashboard/oauth-provider-info.ts";
import { crossSitePostRefusal } from "./lib/auth/dashboard/same-origin.ts";
import { dashboardCsp } from "./lib/http/security-headers.ts";
import { announcedTooLarge, BODY_TOO_LARGE_DETAIL, mayBeServerAction } from "./lib/server/server-action-body.mjs";

/**
 * Runs before every dashboard request (not the API: it stays off that hot path) and sets the
 * Content-Security-Policy with a fresh nonce, which Next.js applies to its own scripts. The other
 * security headers come from next.config.ts. Authentication is not decided here: every page and
 * server action checks it itself. A form sent from another site (a POST to a page's server action
 * or to Auth.js's routes) is refused here with a 403 and a `detail`, before anything runs; so is a
 * server action request whose `content-length` passes Next.js's server actions body limit (413,
 * where Next answers 500). `agentry start` screens server action bodies before Next.js reads them
 * (lib/server/server-action-body.mjs: the limit counted on bodies sent without `content-length`
 * too, and a body Next could not decode a 400); this check is the one `next start` keeps.
 */
let formActionOrigins: string[] | undefined;

function nonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const refuse = (status: number, detail: string) => NextResponse.json({ detail }, { status, headers: { "cache-control": "no-store" } });

/** The dashboard's proxy: cross-site and oversized POSTs refused, every other request passed on with its CSP. */
export function proxy(request: NextRequest): NextResponse {
  if (!SAFE_METHODS.has(request.method)) {
    const refusal = crossSitePostRefusal(request);
    if (refusal) return refuse(403, refusal);
    const action = {
      method: request.method,
      path: request.nextUrl.pathname,
      contentType: request.headers.get("content-type") ?? "",
      hasActionHeader: request.headers.has("next-action"),
    };
    // Answered before Next.js decodes the body (it still receives the body to its end first).
    if (mayBeServerAction(action) && announcedTooLarge(request.headers.get("content-length"))) return refuse(413, BODY_TOO_LARGE_DETAIL);
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
