import { describe, expect, it } from "vitest";
import { oauthProviderInfo } from "@/lib/auth/dashboard/oauth-provider-info.ts";
import { ConfigError } from "@/lib/config/define.ts";
import { API_CSP, docsCsp, dashboardCsp, STATIC_SECURITY_HEADERS } from "@/lib/http/security-headers.ts";
import { testSettings } from "../support/settings.ts";

describe("dashboard settings", () => {
  it("need nothing set: no secret (one is generated and stored), no OAuth providers", () => {
    const { dashboard } = testSettings();
    expect(dashboard).toEqual({ authSecret: undefined, publicOrigin: undefined, oauth: { github: undefined, google: undefined, oidc: undefined } });
    expect(oauthProviderInfo(dashboard)).toEqual([]);
  });

  it("enable each OAuth provider only when both its variables are set", () => {
    const { dashboard } = testSettings({
      env: {
        AUTH_GITHUB_ID: "gh",
        AUTH_GITHUB_SECRET: "gh-secret",
        AUTH_OIDC_ISSUER: "https://sso.example.com/realms/x",
        AUTH_OIDC_ID: "agentry",
        AUTH_OIDC_SECRET: "s",
        AUTH_URL: "https://agentry.example.com/some/path",
      },
    });
    expect(oauthProviderInfo(dashboard).map((p) => [p.id, p.origin])).toEqual([
      ["github", "https://github.com"],
      ["oidc", "https://sso.example.com"],
    ]);
    expect(dashboard.publicOrigin).toBe("https://agentry.example.com");
  });

  it("fail at start naming the variables when they are half set or malformed", () => {
    for (const [env, message] of [
      [{ AUTH_GITHUB_ID: "gh" }, /AUTH_GITHUB_ID and AUTH_GITHUB_SECRET/],
      [{ AUTH_GOOGLE_SECRET: "x" }, /AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET/],
      [{ AUTH_OIDC_ID: "a", AUTH_OIDC_SECRET: "b" }, /AUTH_OIDC_ISSUER/],
      [{ AUTH_SECRET: "too-short" }, /AUTH_SECRET must be at least 32/],
      [{ AUTH_URL: "not a url" }, /AUTH_URL/],
    ] as const) {
      expect(() => testSettings({ env: { ...env } }), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => testSettings({ env: { ...env } })).toThrow(message);
    }
  });
});

describe("security headers", () => {
  it("every response: nosniff, no framing, a same-origin referrer policy", () => {
    const headers = Object.fromEntries(STATIC_SECURITY_HEADERS.map((h) => [h.key, h.value]));
    expect(headers).toMatchObject({ "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin" });
  });

  it("dashboard pages: scripts by nonce only, no framing, forms to the site and configured providers only", () => {
    const csp = dashboardCsp({ nonce: "abc123", formActionOrigins: ["https://github.com"] });
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("form-action 'self' https://github.com");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(dashboardCsp({ nonce: "n", https: true })).toContain("upgrade-insecure-requests");
  });

  it("/docs allows its own inline script by nonce, and API responses allow nothing", () => {
    expect(docsCsp("n0nce")).toContain("script-src 'self' 'nonce-n0nce'");
    expect(docsCsp("n0nce")).toContain("frame-ancestors 'none'");
    expect(API_CSP).toContain("default-src 'none'");
  });
});
