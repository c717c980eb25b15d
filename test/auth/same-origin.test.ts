import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { crossSitePostRefusal, isSameOriginRequest } from "@/lib/auth/dashboard/same-origin.ts";
import { proxy } from "@/proxy.ts";
import { testSettings } from "../support/settings.ts";

const at = (headers: Record<string, string>, url = "http://127.0.0.1:7777/sessions") => new Request(url, { method: "POST", headers });

describe("isSameOriginRequest", () => {
  const settings = testSettings();

  it("believes Sec-Fetch-Site: only same-origin passes", () => {
    expect(isSameOriginRequest(at({ "sec-fetch-site": "same-origin" }), settings)).toBe(true);
    for (const site of ["same-site", "cross-site", "none"]) expect(isSameOriginRequest(at({ "sec-fetch-site": site }), settings)).toBe(false);
  });

  it("without it, the Origin must be the Host the browser addressed, the request URL's origin, or AUTH_URL's", () => {
    expect(isSameOriginRequest(at({ host: "localhost:7777", origin: "http://localhost:7777" }), settings)).toBe(true);
    expect(isSameOriginRequest(at({ host: "agentry.internal", origin: "https://agentry.internal" }), settings)).toBe(true);
    expect(isSameOriginRequest(at({ origin: "http://127.0.0.1:7777" }), settings)).toBe(true);
    expect(isSameOriginRequest(at({ host: "localhost:7777", origin: "http://localhost:7778" }), settings)).toBe(false);
    expect(isSameOriginRequest(at({ host: "localhost:7777", origin: "null" }), settings)).toBe(false);
    expect(isSameOriginRequest(at({ host: "localhost:7777" }), settings)).toBe(false);
    const behindProxy = testSettings({ env: { AUTH_URL: "https://agentry.example.com" } });
    expect(isSameOriginRequest(at({ host: "10.0.0.5:7777", origin: "https://agentry.example.com" }), behindProxy)).toBe(true);
  });

  it("does not trust X-Forwarded-Host (a caller without a proxy in front sets it)", () => {
    expect(isSameOriginRequest(at({ host: "localhost:7777", "x-forwarded-host": "evil.example", origin: "http://evil.example" }), settings)).toBe(false);
  });
});

describe("crossSitePostRefusal: a dashboard form sent from another site", () => {
  const post = (headers: Record<string, string>) => new Request("http://127.0.0.1:7777/dashboard/sign-in", { method: "POST", headers });

  it("is refused when the browser says Sec-Fetch-Site is anything but same-origin", () => {
    for (const site of ["same-site", "cross-site", "none"]) {
      expect(crossSitePostRefusal(post({ "sec-fetch-site": site, origin: "http://127.0.0.1:7777", host: "127.0.0.1:7777" }))).toContain(`Sec-Fetch-Site: ${site}`);
    }
    expect(crossSitePostRefusal(post({ "sec-fetch-site": "same-origin", origin: "http://127.0.0.1:7777", host: "127.0.0.1:7777" }))).toBeNull();
  });

  it("is refused when the Origin's host is neither the Host nor X-Forwarded-Host, or is opaque", () => {
    expect(crossSitePostRefusal(post({ origin: "http://127.0.0.1:7800", host: "127.0.0.1:7777" }))).toMatch(
      /^Cross-origin request refused: the form was sent from "http:\/\/127\.0\.0\.1:7800", not from this dashboard \(127\.0\.0\.1:7777\)/,
    );
    expect(crossSitePostRefusal(post({ origin: "null", host: "127.0.0.1:7777" }))).toContain('"null"');
    expect(crossSitePostRefusal(post({ origin: "not a url", host: "127.0.0.1:7777" }))).toContain("Cross-origin request refused");
    // Behind a proxy that says which host the browser addressed.
    expect(crossSitePostRefusal(post({ origin: "https://agentry.example.com", host: "10.0.0.5:7777", "x-forwarded-host": "agentry.example.com" }))).toBeNull();
    expect(crossSitePostRefusal(post({ origin: "https://agentry.example.com", host: "10.0.0.5:7777" }))).toContain("X-Forwarded-Host");
  });

  it("lets a request with neither header through (no browser sends a cross-site form without them)", () => {
    expect(crossSitePostRefusal(post({ host: "127.0.0.1:7777" }))).toBeNull();
  });
});

describe("the dashboard proxy", () => {
  const at = (method: string, headers: Record<string, string>, path = "/dashboard/setup") =>
    proxy(new NextRequest(`http://127.0.0.1:7777${path}`, { method, headers: { host: "127.0.0.1:7777", ...headers } }));

  it("answers a foreign-origin POST to sign-in, setup or sign-out with 403 and a detail, naming no internal class", async () => {
    for (const path of ["/dashboard/sign-in", "/dashboard/setup", "/dashboard", "/dashboard/auth/signout", "/dashboard/auth/callback/credentials"]) {
      const response = at("POST", { origin: "http://evil.example", "sec-fetch-site": "cross-site", "next-action": "0123abcd" }, path);
      expect(response.status, path).toBe(403);
      expect(response.headers.get("content-type")).toContain("application/json");
      const body = (await response.json()) as { detail: string };
      expect(body.detail).toContain("Cross-site request refused");
      expect(body.detail).not.toMatch(/Error|Invalid Server Actions/);
    }
  });

  it("passes same-origin POSTs and every GET on to the page, with a CSP", () => {
    const own = at("POST", { origin: "http://127.0.0.1:7777", "sec-fetch-site": "same-origin" });
    expect(own.status).toBe(200);
    expect(own.headers.get("x-middleware-next")).toBe("1");
    const get = at("GET", { "sec-fetch-site": "cross-site" });
    expect(get.headers.get("x-middleware-next")).toBe("1");
    expect(get.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
