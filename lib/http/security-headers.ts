/**
 * Security headers. next.config.ts sets the static ones (nosniff, no framing, referrer policy, …)
 * on every path, the API's CSP, and HSTS when a proxy in front says the request came over https;
 * proxy.ts sets the dashboard pages' CSP with a fresh nonce per request; /docs sets its own.
 */

export const STATIC_SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  // Same-origin requests keep the full URL; nothing leaves the site (one-time links carry tokens).
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
];

export const HSTS = "max-age=63072000; includeSubDomains";

const join = (directives: (string | false)[]) => directives.filter(Boolean).join("; ");

/**
 * The dashboard pages' policy: scripts only with this request's nonce (Next.js puts it on its own
 * scripts; 'strict-dynamic' lets them load their chunks), styles from the site (Tailwind's file)
 * and inline style attributes, no plugins, no framing, forms only to the site and to the OAuth
 * providers configured.
 */
export function dashboardCsp({ nonce, formActionOrigins = [], https = false, dev = false }: { nonce: string; formActionOrigins?: readonly string[]; https?: boolean; dev?: boolean }): string {
  return join([
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    `form-action 'self'${formActionOrigins.map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
    https && "upgrade-insecure-requests",
  ]);
}

/** The /docs page (Swagger UI): its bundle from the site, its one inline init script by nonce. */
export function docsCsp(nonce: string): string {
  return join([
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]);
}

/** API responses (JSON, event streams): nothing to run, nothing to frame. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
