import { isServedHost, notServedDetail } from "../auth/authenticate.ts";
import type { Settings } from "../config/settings.ts";

const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/**
 * CORS for the configured origins only — never `*`, because credentials are allowed. With auth
 * mode `none`, settings already include Agno's chat UI origin (http://localhost:3000).
 */
export function corsHeaders(request: Request, settings: Settings): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin || !settings.corsOrigins.includes(origin) || !fenced(request, settings)) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    "access-control-expose-headers": "content-type, x-request-id",
    vary: "Origin",
  };
}

/** With no authentication, only a loopback (or the configured) Host is served, preflights included. */
const fenced = (request: Request, settings: Settings) => settings.auth.mode !== "none" || isServedHost(request.headers.get("host"), settings);

/**
 * Answers a preflight: 200 with the allow headers for a known origin, 400 otherwise (as Starlette
 * does); 403 for a Host the loopback fence refuses.
 */
export function preflightResponse(request: Request, settings: Settings): Response {
  if (!fenced(request, settings)) {
    const detail = notServedDetail(request.headers.get("host"));
    return new Response(JSON.stringify({ detail }), { status: 403, headers: { "content-type": "application/json" } });
  }
  const headers = corsHeaders(request, settings);
  if (!headers["access-control-allow-origin"]) {
    return new Response("Disallowed CORS origin", { status: 400, headers: { "content-type": "text/plain", vary: "Origin" } });
  }
  return new Response(null, {
    status: 200,
    headers: {
      ...headers,
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "authorization, content-type",
      "access-control-max-age": "600",
    },
  });
}

/** Adds headers, copying the response when its headers are immutable (e.g. Response.redirect). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Headers(response.headers);
    for (const [name, value] of Object.entries(headers)) copy.set(name, value);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: copy });
  }
}
