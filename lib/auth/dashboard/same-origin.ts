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
