import type { Settings } from "../../config/settings.ts";

/**
 * Whether a request comes from the dashboard's own pages, so its session cookie may act. Browsers
 * that send `Sec-Fetch-Site` are believed (only `same-origin` passes); otherwise the `Origin` must
 * be this server's own: the `Host` the browser addressed (http or https), the request URL's origin,
 * or AUTH_URL's origin. `X-Forwarded-Host` is not trusted here: without a proxy, a caller sets it.
 * A request with neither header is refused: no cross-site form, fetch or navigation gets through.
 */
export function isSameOriginRequest(request: Request, settings: Settings): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  if (!origin || origin === "null") return false;
  const own = new Set<string>();
  const host = request.headers.get("host");
  if (host) {
    own.add(`http://${host}`);
    own.add(`https://${host}`);
  }
  try {
    own.add(new URL(request.url).origin);
  } catch {
    // A relative URL has no origin of its own.
  }
  if (settings.dashboard.publicOrigin) own.add(settings.dashboard.publicOrigin);
  return own.has(origin);
}

/**
 * Why a POST to a dashboard page or to its Auth.js routes (sign-in, setup, sign-out and every
 * other form) must be refused as coming from another site, or null when it may proceed. Refused:
 * a browser saying `Sec-Fetch-Site` is anything but `same-origin`, and an `Origin` (`null`
 * included) whose host is neither the `Host` nor the first `X-Forwarded-Host` — the rule Next.js
 * applies to server actions itself, answering a 500 where this answers 403 first. A request with
 * neither header is not a browser's cross-site request and proceeds (Next.js lets it through too).
 * Trusting `X-Forwarded-Host` here is safe: no cross-site form or fetch can set it.
 */
export function crossSitePostRefusal(request: Request): string | null {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    return `Cross-site request refused: dashboard forms can only be submitted from the dashboard's own pages (Sec-Fetch-Site: ${site.slice(0, 40)})`;
  }
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  let originHost: string | null = null;
  try {
    originHost = origin === "null" ? null : new URL(origin).host;
  } catch {
    originHost = null;
  }
  const host = request.headers.get("host");
  const forwardedHost = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  if (originHost !== null && (originHost === host || originHost === forwardedHost)) return null;
  return (
    `Cross-origin request refused: the form was sent from ${JSON.stringify(origin.slice(0, 200))}, not from this dashboard (${host ?? "no Host header"}). ` +
    "Behind a reverse proxy, pass the Host header through or set X-Forwarded-Host."
  );
}
