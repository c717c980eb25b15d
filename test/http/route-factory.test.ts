import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pageWindow } from "@/lib/db/index.ts";
import { PaginationError } from "@/lib/errors/domain-errors.ts";
import { dispatch, notFound } from "@/lib/http/dispatch.ts";
import { ROUTES, templateForPath } from "@/lib/http/route-table.ts";
import { defineRoute, type AnyRoute } from "@/lib/http/route.ts";
import { nullsOmittedSchema } from "@/lib/http/omit-nulls.ts";
import { ConfigSchema, HealthSchema, InfoSchema, LandingSchema } from "@/lib/http/schemas/core.ts";
import { testSettings } from "../support/settings.ts";

const BASE = "http://127.0.0.1:7777";
/** /config leaves null fields out (excludeNone). */
const WireConfigSchema = nullsOmittedSchema(ConfigSchema);
const none = testSettings({ file: { agents: [{ id: "assistant", name: "Assistant", model: null }] } });
const keyed = testSettings({ env: { OS_SECURITY_KEY: "s3cret" } });

function call(path: string, init: RequestInit = {}, settings = none, template = path, routes: AnyRoute[] = ROUTES.filter((r) => r.path === template)) {
  return dispatch(new Request(`${BASE}${path}`, init), template, { settings, routes });
}

describe("route table", () => {
  it("declares a permission or an explicit public flag on every route", () => {
    const undeclared = ROUTES.filter((r) => !("public" in r.access && r.access.public === true) && !("permission" in r.access && r.access.permission));
    expect(undeclared.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    const publicRoutes = ROUTES.filter((r) => "public" in r.access)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(publicRoutes).toEqual(["GET /", "GET /docs", "GET /docs/{asset}", "GET /health", "GET /info", "GET /openapi.json"]);
    for (const route of ROUTES) {
      if ("permission" in route.access) expect(route.access.permission).toMatch(/^[a-z_]+:(\*:)?[a-z_]+$/);
    }
  });

  it("has exactly one app route file per path template, and no file without a route", () => {
    const appDir = join(process.cwd(), "app");
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (entry === "route.ts") files.push(relative(appDir, dir));
      }
    };
    walk(appDir);
    // The route files outside the API: Auth.js's endpoints for dashboard sign-in (OAuth
    // callbacks, CSRF), which authenticate people rather than serve the AgentOS API, and the
    // queue page's live feed (it checks the dashboard session itself).
    const dashboard = files.filter((f) => f.startsWith(`dashboard${sep}`)).sort();
    expect(dashboard).toEqual([join("dashboard", "auth", "[...nextauth]"), join("dashboard", "queue-events")]);
    // The MCP endpoint (lib/mcp-server): MCP over Streamable HTTP, not a route of the table.
    const mcp = join("(api)", "mcp");
    expect(files).toContain(mcp);
    const templates = files
      .filter((f) => !f.startsWith("[...") && !dashboard.includes(f) && f !== mcp)
      .map(
        (f) =>
          `/${f
            .split(sep)
            .filter((s) => !/^\(.*\)$/.test(s))
            .map((s) => s.replace(/^\[\[\.\.\.(.+)\]\]$/, "{$1*}").replace(/^\[(.+)\]$/, "{$1}"))
            .join("/")}`,
      )
      .map((t) => (t === "/" ? t : t.replace(/\/$/, "")))
      .sort();
    expect(templates).toEqual([...new Set(ROUTES.map((r) => r.path))].sort());
  });
});

describe("core routes", () => {
  it("GET / lands API clients on links and sends browsers to the dashboard", async () => {
    const api = await call("/");
    expect(api.status).toBe(200);
    expect(LandingSchema.parse(await api.json())).toEqual({ name: "Agentry", health: "/health", info: "/info", docs: "/docs" });
    const browser = await call("/", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(browser.status).toBe(307);
    expect(browser.headers.get("location")).toBe("/dashboard");
  });

  it("GET /health is stable across calls", async () => {
    const first = HealthSchema.parse(await (await call("/health")).json());
    const second = HealthSchema.parse(await (await call("/health")).json());
    expect(first.status).toBe("ok");
    expect(second.instantiated_at).toBe(first.instantiated_at);
  });

  it("GET /info is public and uses Agno's field names", async () => {
    const body = InfoSchema.parse(await (await call("/info", {}, keyed)).json());
    expect(body).toMatchObject({ os_id: "agentry", agent_count: 0, auth_mode: "security_key", mcp: { enabled: false } });
  });

  it("GET /config lists agents and says plainly that no model provider is configured", async () => {
    const body = WireConfigSchema.parse(await (await call("/config")).json());
    expect(body.agents.map((a) => a.id)).toEqual(["assistant"]);
    expect(body.available_models).toEqual([]);
    expect(body.model_provider_status.configured).toBe(false);
    expect(body.model_provider_status.message).toMatch(/OPENAI_API_KEY/);
    expect(body.databases).toEqual(["agentry-db"]);
  });

  it("lists models from configured agents in available_models", async () => {
    const settings = testSettings({
      file: {
        agents: [
          { id: "a", name: "A", model: { provider: "openai", id: "gpt-4.1-mini" } },
          { id: "b", name: "B", model: { provider: "openai", id: "gpt-4.1-mini" } },
        ],
      },
    });
    const body = WireConfigSchema.parse(await (await call("/config", {}, settings)).json());
    expect(body.available_models).toEqual([{ id: "gpt-4.1-mini", provider: "openai" }]);
  });

  it("answers an unknown path with 404 and a wrong method with 405, both as {detail}", async () => {
    const missing = notFound(new Request(`${BASE}/models`), none);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Not Found" });
    const wrong = await call("/health", { method: "POST" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    expect(await wrong.json()).toEqual({ detail: "Method Not Allowed" });
  });

  it("answers a disabled feature with 503 and Agno's message on every method and sub-path", async () => {
    expect(none.queue.durable).toBe(false);
    for (const [method, path] of [
      ["GET", "/queue/jobs"],
      ["POST", "/queue/jobs/abc/requeue"],
      ["GET", "/queue/stats"],
      ["GET", "/queue"],
      ["PUT", "/queue/x/y"],
    ] as const) {
      const response = await call(path, { method }, none, templateForPath(path)!);
      expect(response.status, `${method} ${path}`).toBe(503);
      expect(await response.json()).toEqual({
        detail: "Queue not available: pass a `queue: { durable: true }` to AgentOS to enable this feature.",
      });
    }
    expect((await call("/queue/stats", {}, keyed, "/queue/stats")).status).toBe(401);
  });

  it("serves OpenAPI 3.1 generated from the route table", async () => {
    const doc = (await (await call("/openapi.json")).json()) as { openapi: string; paths: Record<string, Record<string, { security?: unknown }>> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/health", "/info", "/config", "/databases/{db_id}/migrate"]));
    expect(doc.paths["/"]).toBeUndefined();
    expect(doc.paths["/config"].get.security).toEqual([{ bearer: [] }]);
    const html = await call("/docs");
    expect(html.headers.get("content-type")).toMatch(/text\/html/);
    expect(await html.text()).toContain("/openapi.json");
    const asset = await call("/docs/swagger-ui.css", {}, none, "/docs/{asset}");
    expect(asset.status).toBe(200);
    expect((await call("/docs/package.json", {}, none, "/docs/{asset}")).status).toBe(404);
    // Names of Object.prototype's own properties are no assets either (they were a 500).
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect((await call(`/docs/${name}`, {}, none, "/docs/{asset}")).status, name).toBe(404);
    }
  });
});

describe("security key mode", () => {
  it("requires the bearer key on protected routes, with Agno's messages", async () => {
    const missing = await call("/config", {}, keyed);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ detail: "Authorization header required" });
    const wrong = await call("/config", { headers: { authorization: "Bearer nope" } }, keyed);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ detail: "Invalid authentication token" });
    const right = await call("/config", { headers: { authorization: "Bearer s3cret" } }, keyed);
    expect(right.status).toBe(200);
    expect((await call("/health", {}, keyed)).status).toBe(200);
  });
});

describe("auth mode none: the loopback fence", () => {
  it("refuses a foreign Host (DNS rebinding) and cross-site writes, and serves local callers", async () => {
    const rebound = await call("/config", { headers: { host: "attacker.example:7777" } });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { detail: string }).detail).toMatch(/DNS rebinding/);
    expect((await call("/config", { headers: { host: "127.0.0.1:7777" } })).status).toBe(200);
    expect((await call("/config", { headers: { host: "localhost:7777" } })).status).toBe(200);
    const crossSite = await call("/databases/all/migrate", { method: "POST", headers: { host: "127.0.0.1:7777", origin: "https://evil.example" } }, none, "/databases/all/migrate");
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { detail: string }).detail).toMatch(/Cross-site request refused/);
    const formPost = await call("/databases/all/migrate", { method: "POST", headers: { host: "127.0.0.1:7777", "sec-fetch-site": "cross-site" } }, none, "/databases/all/migrate");
    expect(formPost.status).toBe(403);
    const chatUi = await call("/databases/all/migrate?target_version=bad", { method: "POST", headers: { host: "localhost:7777", origin: "http://localhost:3000" } }, none, "/databases/all/migrate");
    expect(chatUi.status).toBe(422); // got past the fence (Agno's chat UI origin is allowed) to validation
  });

  /** DNS names an attacker's page can rebind to 127.0.0.1, and address forms a browser never sends. */
  const REBOUND = ["127.0.0.1.evil.example", "127.attacker.example", "localhost.evil.example", "0x7f.0.0.1", "[::1].evil", "127.1", "0177.0.0.1", "127.0.0.01", "localhost..", "[::1]:7777x"];

  it("serves only loopback IP literals, [::1] and exactly localhost / localhost. (the rebinding names are 403 on every path)", async () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "127.255.255.255", "localhost", "localhost.", "LOCALHOST", "[::1]"]) {
      for (const withPort of [host, `${host}:7777`]) expect((await call("/sessions", { headers: { host: withPort } })).status, withPort).toBe(200);
    }
    for (const host of REBOUND) {
      for (const withPort of [host, `${host}:7777`]) {
        const read = await call("/sessions", { headers: { host: withPort } });
        expect(read.status, withPort).toBe(403);
        expect(((await read.json()) as { detail: string }).detail).toMatch(/DNS rebinding/);
        // Minting an admin token with the rebound Host and its own Origin (what the attacker's page sends).
        const mint = await call(
          "/service-accounts",
          { method: "POST", headers: { host: withPort, origin: `http://${withPort}`, "content-type": "application/json" }, body: JSON.stringify({ name: "pwn", scopes: ["agent_os:admin"] }) },
          none,
        );
        expect(mint.status, withPort).toBe(403);
        // CORS: no allow headers and a refused preflight for such a Host, even from an allowed origin.
        const preflight = await call("/sessions", { method: "OPTIONS", headers: { host: withPort, origin: "http://localhost:3000", "access-control-request-method": "GET" } });
        expect(preflight.status, withPort).toBe(403);
        const simple = await call("/health", { headers: { host: withPort, origin: "http://localhost:3000" } });
        expect(simple.headers.get("access-control-allow-origin"), withPort).toBeNull();
      }
    }
  });

  it("with authentication configured, the Host is not fenced", async () => {
    const read = await call("/health", { headers: { host: "127.0.0.1.evil.example" } }, keyed);
    expect(read.status).toBe(200);
  });
});

describe("CORS", () => {
  const preflight = (origin: string, settings = none) => call("/config", { method: "OPTIONS", headers: { origin, "access-control-request-method": "GET" } }, settings);

  it("allows Agno's chat UI origin while auth is off, never with a wildcard", async () => {
    const ok = await preflight("http://localhost:3000");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    expect(ok.headers.get("access-control-allow-credentials")).toBe("true");
    const evil = await preflight("https://evil.example");
    expect(evil.status).toBe(400);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const simple = await call("/health", { headers: { origin: "http://localhost:3000" } });
    expect(simple.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
  });

  it("with auth on, allows only configured origins", async () => {
    expect((await preflight("http://localhost:3000", keyed)).status).toBe(400);
    const configured = testSettings({ env: { OS_SECURITY_KEY: "k", AGENTRY_CORS_ORIGINS: "https://app.example.com" } });
    expect((await preflight("https://app.example.com", configured)).headers.get("access-control-allow-origin")).toBe("https://app.example.com");
  });
});

describe("request parsing and error mapping", () => {
  const echoJson = defineRoute({
    method: "POST",
    path: "/echo",
    summary: "test",
    tags: ["Test"],
    access: { permission: "config:write" },
    query: z.object({ page: z.coerce.number().int().min(1).optional(), limit: z.coerce.number().int().min(1).optional() }),
    body: z.object({ name: z.string().min(1), count: z.number().int() }),
    handler: ({ input }) => ({ ...input.body, window: pageWindow({ page: input.query.page, limit: input.query.limit }) }),
  });
  const echoForm = defineRoute({
    method: "POST",
    path: "/form",
    summary: "test",
    tags: ["Test"],
    access: { permission: "agents:run", resourceParam: "agent_id" },
    form: z.object({ message: z.string().min(1), stream: z.enum(["true", "false"]).default("true") }),
    handler: ({ input }) => ({ ...input.form, files: Object.fromEntries(Object.entries(input.files).map(([k, v]) => [k, v.map((f) => f.name)])) }),
  });
  const boom = defineRoute({
    method: "GET",
    path: "/boom",
    summary: "test",
    tags: ["Test"],
    access: { permission: "config:read" },
    handler: () => {
      throw new TypeError("secret internal detail");
    },
  });
  const json = (body: string, extra: Record<string, string> = {}) => ({ method: "POST", body, headers: { "content-type": "application/json", ...extra } });

  it("validates JSON bodies and names the bad field in a 422", async () => {
    const ok = await call("/echo", json(JSON.stringify({ name: "x", count: 1 })), none, "/echo", [echoJson]);
    expect(ok.status).toBe(200);
    const bad = await call("/echo", json(JSON.stringify({ name: "", count: "one" })), none, "/echo", [echoJson]);
    expect(bad.status).toBe(422);
    const detail = ((await bad.json()) as { detail: { loc: string[] }[] }).detail;
    expect(detail.map((d) => d.loc.join("."))).toEqual(["body.name", "body.count"]);
  });

  it("rejects malformed JSON (422), a wrong content type (415) and an oversize body (413)", async () => {
    expect((await call("/echo", json("{nope"), none, "/echo", [echoJson])).status).toBe(422);
    expect((await call("/echo", { method: "POST", body: "a=1", headers: { "content-type": "text/plain" } }, none, "/echo", [echoJson])).status).toBe(415);
    const huge = JSON.stringify({ name: "x".repeat(1024 * 1024), count: 1 });
    const tooBig = await call("/echo", json(huge), none, "/echo", [echoJson]);
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { detail: string }).detail).toMatch(/larger than the limit of 1048576 bytes/);
  });

  it("maps page 0, bad limits and page-without-limit to a 422 naming the parameter", async () => {
    const body = json(JSON.stringify({ name: "x", count: 1 }));
    for (const [query, field] of [
      ["?page=0&limit=5", "page"],
      ["?limit=0", "limit"],
      ["?page=abc&limit=2", "page"],
      ["?page=2", "page"],
    ] as const) {
      const response = await call(`/echo${query}`, body, none, "/echo", [echoJson]);
      expect(response.status, query).toBe(422);
      const detail = ((await response.json()) as { detail: { loc: string[] }[] }).detail;
      expect(detail[0].loc, query).toEqual(["query", field]);
    }
    expect(() => pageWindow({ page: 3 })).toThrow(PaginationError);
  });

  it("parses urlencoded and multipart forms as Agno clients send them", async () => {
    const urlencoded = await call("/form", { method: "POST", body: "message=hi&stream=false", headers: { "content-type": "application/x-www-form-urlencoded" } }, none, "/form", [echoForm]);
    expect(await urlencoded.json()).toEqual({ message: "hi", stream: "false", files: {} });
    const form = new FormData();
    form.set("message", "hello");
    form.append("files", new File(["abc"], "notes.txt", { type: "text/plain" }));
    const multipart = await call("/form", { method: "POST", body: form }, none, "/form", [echoForm]);
    expect(await multipart.json()).toEqual({ message: "hello", stream: "true", files: { files: ["notes.txt"] } });
    const missing = await call("/form", { method: "POST", body: "stream=true", headers: { "content-type": "application/x-www-form-urlencoded" } }, none, "/form", [echoForm]);
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { detail: { loc: string[] }[] }).detail[0].loc).toEqual(["body", "message"]);
  });

  it("rejects malformed multipart (400) and uploads past the limit (413)", async () => {
    const malformed = await call("/form", { method: "POST", body: "garbage", headers: { "content-type": "multipart/form-data; boundary=xyz" } }, none, "/form", [echoForm]);
    expect(malformed.status).toBe(400);
    const small = testSettings({ env: { AGENTRY_MAX_UPLOAD_BYTES: "1000" } });
    const form = new FormData();
    form.set("message", "hello");
    form.append("files", new File(["x".repeat(5000)], "big.bin"));
    expect((await call("/form", { method: "POST", body: form }, small, "/form", [echoForm])).status).toBe(413);
  });

  it("turns an unexpected error into a 500 with an error_id and no internals", async () => {
    const logged: string[] = [];
    const original = console.error;
    console.error = (m: string) => logged.push(m);
    try {
      const response = await call("/boom", {}, none, "/boom", [boom]);
      expect(response.status).toBe(500);
      const body = (await response.json()) as { detail: string; error_id: string };
      expect(body.detail).toBe("Internal server error (TypeError)");
      expect(body.error_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(body)).not.toContain("secret internal detail");
      expect(logged.join("\n")).toContain(body.error_id);
    } finally {
      console.error = original;
    }
  });
});
