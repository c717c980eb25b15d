import { describe, expect, it } from "vitest";
import { isSameOriginRequest } from "@/lib/auth/dashboard/same-origin.ts";
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
