import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { HttpError } from "@/lib/errors/http-error.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { defineRoute, type AnyRoute } from "@/lib/http/route.ts";
import { appState, getDatabase } from "@/lib/server/app-context.ts";
import { testSettings } from "../support/settings.ts";

/**
 * The route factory supplies tenancy: a route declares the data it touches (`data`) and what its
 * path names (`resource`); the dispatcher resolves them, in a fixed order, before the handler.
 * And in development and tests every JSON response is checked against the route's schema.
 */

const dir = mkdtempSync(join(tmpdir(), "agentry-route-data-"));
const dbId = `route-data-${process.pid}`;
const settingsWith = (env: Record<string, string> = {}): Settings => testSettings({ env: { DATABASE_URL: `file:${join(dir, "agentry.db")}`, ...env }, file: { database: { id: dbId } } });
const settings = settingsWith();

afterAll(async () => {
  const db = await appState()
    .databases.get(dbId)
    ?.catch(() => undefined);
  appState().databases.delete(dbId);
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const SCOPES = ["sessions:read"];
const admin: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "none", isAdmin: true };
const member: Principal = { kind: "user", userId: "alice", scopes: SCOPES, authenticatedBy: "jwt", isAdmin: false, isolated: true };
const single: Principal = { ...member, isolated: false };
const noSub: Principal = { kind: "user", userId: null, scopes: SCOPES, authenticatedBy: "jwt", isAdmin: false, isolated: true };

async function call(route: AnyRoute, principal: Principal | undefined, { query = "", json, use = settings }: { query?: string; json?: unknown; use?: Settings } = {}) {
  const request = new Request(`http://127.0.0.1:7777${route.path}${query}`, {
    method: route.method,
    ...(json === undefined ? {} : { body: JSON.stringify(json), headers: { "content-type": "application/json" } }),
  });
  const response = await dispatch(request, route.path, { settings: use, routes: [route], principal });
  return { status: response.status, body: response.status === 204 ? null : ((await response.json()) as Record<string, unknown>) };
}

/** What every test route here declares but its method, path, input and data. */
const TEST_ROUTE = { summary: "test", tags: ["Test"], access: { permission: "sessions:read" } } as const;

const Query = z.object({ user_id: z.string().optional(), db_id: z.string().optional(), table: z.string().optional() });

const whoRoute = defineRoute({
  method: "GET",
  path: "/who",
  ...TEST_ROUTE,
  query: Query,
  data: { db: { selectFrom: "query", tables: ["agno_sessions"] }, userFrom: "query" },
  handler: async ({ scope, ownScope, db, principal }) => ({ scope, ownScope, defaultDb: db === (await getDatabase(settings)), caller: principal.userId }),
});

describe("route data: the scope and the database come from the dispatcher", () => {
  it("gives the handler the caller's scope (an admin acts for the named user_id, anyone else as itself) and the selected database", async () => {
    expect(await call(whoRoute, admin, { query: "?user_id=bob" })).toEqual({
      status: 200,
      body: { scope: { kind: "admin", userId: "bob" }, ownScope: { kind: "admin" }, defaultDb: true, caller: null },
    });
    expect((await call(whoRoute, member, { query: "?user_id=bob" })).body).toMatchObject({ scope: { kind: "user", userId: "alice" }, ownScope: { kind: "user", userId: "alice" } });
    // A single-tenant install (isolation off) lets a user name a user; its own scope stays its own.
    expect((await call(whoRoute, single, { query: "?user_id=bob" })).body).toMatchObject({ scope: { kind: "admin", userId: "bob" }, ownScope: { kind: "admin", userId: "alice" } });
    expect((await call(whoRoute, admin, { query: `?db_id=${dbId}&table=agno_sessions` })).status).toBe(200);
  });

  it("keeps Agno's db_id/table rules (400/404), and refuses a caller with no identity (403) before looking at them", async () => {
    expect(await call(whoRoute, admin, { query: "?table=agno_sessions" })).toEqual({ status: 400, body: { detail: "The db_id query parameter is required when passing a table" } });
    expect(await call(whoRoute, admin, { query: "?db_id=nope" })).toEqual({ status: 404, body: { detail: "No database found with id 'nope'" } });
    expect(await call(whoRoute, admin, { query: `?db_id=${dbId}&table=agno_memories` })).toEqual({
      status: 404,
      body: { detail: `No database with id '${dbId}' has table 'agno_memories'` },
    });
    expect(await call(whoRoute, noSub, { query: "?db_id=nope" })).toEqual({ status: 403, body: { detail: "Authenticated request is missing a user identity" } });
  });

  it("reads the db_id and user_id from the part of the input the route names", async () => {
    const fromBody = defineRoute({
      method: "POST",
      path: "/who-body",
      ...TEST_ROUTE,
      body: Query,
      data: { db: { selectFrom: "body", tables: ["agno_sessions"] }, userFrom: "body" },
      handler: ({ scope }) => ({ scope }),
    });
    expect(await call(fromBody, admin, { json: { user_id: "carol" } })).toEqual({ status: 200, body: { scope: { kind: "admin", userId: "carol" } } });
    expect((await call(fromBody, admin, { json: { db_id: "nope" } })).status).toBe(404);
    // The query's db_id is not the body's.
    expect((await call(fromBody, admin, { query: "?db_id=nope", json: {} })).status).toBe(200);
  });

  it("owner: required — an admin naming nobody writes as itself; with no user at all it is a 400", async () => {
    const write = defineRoute({
      method: "POST",
      path: "/write",
      ...TEST_ROUTE,
      body: Query,
      data: { db: "default", userFrom: "body", owner: "required" },
      handler: ({ scope }) => ({ owner: scope.userId }),
    });
    expect(await call(write, admin, { json: {} })).toEqual({ status: 400, body: { detail: "User ID is required" } });
    expect(await call(write, admin, { json: { user_id: "bob" } })).toEqual({ status: 200, body: { owner: "bob" } });
    expect(await call(write, { ...admin, userId: "root" }, { json: {} })).toEqual({ status: 200, body: { owner: "root" } });
    expect(await call(write, member, { json: { user_id: "bob" } })).toEqual({ status: 200, body: { owner: "alice" } });
  });

  it("isolation: always — a user acts as itself even where isolation is off", async () => {
    const credentials = defineRoute({
      method: "GET",
      path: "/keys",
      ...TEST_ROUTE,
      data: { db: "default", isolation: "always" },
      handler: ({ scope }) => ({ scope }),
    });
    expect((await call(credentials, single)).body).toEqual({ scope: { kind: "user", userId: "alice" } });
    expect((await call(credentials, admin)).body).toEqual({ scope: { kind: "admin" } });
  });

  it("resolves in order — the path's resource (404), what the data requires, the scope (403, adminOnly), the database — and only then runs the handler", async () => {
    const handler = vi.fn(() => ({}));
    const ordered = defineRoute({
      method: "GET",
      path: "/ordered",
      ...TEST_ROUTE,
      query: z.object({ thing: z.string().optional(), feature: z.string().optional(), db_id: z.string().optional() }),
      resource: ({ query }) => {
        if (query.thing === "missing") throw new HttpError(404, "Thing not found");
        return query.thing ?? "thing";
      },
      data: {
        db: { selectFrom: "query", tables: ["agno_sessions"] },
        requires: (s: Settings) => {
          if (s.queue.durable) throw new HttpError(503, "Feature off");
        },
        adminOnly: "Admins only",
      },
      handler,
    });
    const durable = settingsWith({ AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false" });
    expect(await call(ordered, noSub, { query: "?thing=missing&db_id=nope", use: durable })).toEqual({ status: 404, body: { detail: "Thing not found" } });
    expect(await call(ordered, noSub, { query: "?db_id=nope", use: durable })).toEqual({ status: 503, body: { detail: "Feature off" } });
    expect(await call(ordered, noSub, { query: "?db_id=nope" })).toEqual({ status: 403, body: { detail: "Authenticated request is missing a user identity" } });
    expect(await call(ordered, member, { query: "?db_id=nope" })).toEqual({ status: 403, body: { detail: "Admins only" } });
    expect(await call(ordered, admin, { query: "?db_id=nope" })).toEqual({ status: 404, body: { detail: "No database found with id 'nope'" } });
    expect(handler).not.toHaveBeenCalled();
    expect(await call(ordered, admin)).toEqual({ status: 200, body: {} });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]).toMatchObject([{ resource: "thing", scope: { kind: "admin" } }]);
  });

  it("a resource loader reading stored rows gets the route's data from data(): its 404 comes after the scope's 403, and the handler shares the one resolution", async () => {
    const loads: unknown[] = [];
    const row = defineRoute({
      method: "GET",
      path: "/row",
      ...TEST_ROUTE,
      query: Query.extend({ row: z.string().optional() }),
      data: { db: { selectFrom: "query", tables: ["agno_sessions"] }, userFrom: "query" },
      resource: async ({ query }, { data }) => {
        const context = await data();
        loads.push(context);
        if (query.row === "missing") throw new HttpError(404, "Row not found");
        return { owner: context.scope.kind === "user" ? context.scope.userId : null };
      },
      handler: async ({ resource, scope, db }) => ({ resource, sameScope: scope === (loads.at(-1) as { scope: unknown }).scope, defaultDb: db === (await getDatabase(settings)) }),
    });
    expect(await call(row, noSub, { query: "?row=missing" })).toEqual({ status: 403, body: { detail: "Authenticated request is missing a user identity" } });
    expect(loads).toEqual([]);
    expect(await call(row, member, { query: "?row=missing" })).toEqual({ status: 404, body: { detail: "Row not found" } });
    expect(await call(row, member)).toEqual({ status: 200, body: { resource: { owner: "alice" }, sameScope: true, defaultDb: true } });
    expect(await call(row, admin, { query: "?db_id=nope" })).toEqual({ status: 404, body: { detail: "No database found with id 'nope'" } });
  });

  it("gives a route without data neither scope nor database, and a public route no principal", async () => {
    const plain = defineRoute({ method: "GET", path: "/plain", ...TEST_ROUTE, handler: (ctx) => ({ keys: Object.keys(ctx).sort() }) });
    // A caller with no identity may still call a route that touches no rows.
    expect(await call(plain, noSub)).toEqual({ status: 200, body: { keys: ["input", "principal", "request", "settings"] } });
    const open = defineRoute({ method: "GET", path: "/open", summary: "test", tags: ["Test"], access: { public: true }, handler: ({ principal }) => ({ principal }) });
    expect(await call(open, undefined)).toEqual({ status: 200, body: { principal: null } });
  });
});

describe("response checks", () => {
  const Shape = z.object({ name: z.string(), note: z.string().nullable() });
  const shaped = (result: unknown, excludeNone = false) =>
    defineRoute({ method: "GET", path: "/shaped", summary: "test", tags: ["Test"], access: { public: true }, response: Shape, excludeNone, handler: () => result });

  async function quietly<T>(run: () => Promise<T>): Promise<{ result: T; logged: string }> {
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((message: string) => void logged.push(message));
    try {
      return { result: await run(), logged: logged.join("\n") };
    } finally {
      spy.mockRestore();
    }
  }

  it("answers a body its response schema refuses with a 500, logging the route and the zod issues", async () => {
    const { result, logged } = await quietly(() => call(shaped({ name: 42, note: null }), undefined));
    expect(result.status).toBe(500);
    expect(result.body).toMatchObject({ detail: "Internal server error (ResponseValidationError)" });
    expect(logged).toContain("GET /shaped");
    expect(logged).toMatch(/name/);
    expect(logged).toContain(String(result.body?.error_id));
  });

  it("checks the body as sent: after excludeNone leaves null fields out, against the wire schema", async () => {
    expect(await call(shaped({ name: "x", note: null }, true), undefined)).toEqual({ status: 200, body: { name: "x" } });
    expect(await call(shaped({ name: "x", note: null }), undefined)).toEqual({ status: 200, body: { name: "x", note: null } });
    // The check never changes the body: keys the schema does not name are still sent.
    expect((await call(shaped({ name: "x", note: "n", extra: 1 }), undefined)).body).toEqual({ name: "x", note: "n", extra: 1 });
    const { result } = await quietly(() => call(shaped({ name: null, note: null }, true), undefined));
    expect(result.status).toBe(500);
  });

  it("leaves a handler's own Response alone", async () => {
    const own = shaped(new Response(JSON.stringify({ anything: true }), { status: 202, headers: { "content-type": "application/json" } }));
    expect(await call(own, undefined)).toEqual({ status: 202, body: { anything: true } });
  });

  it("is on unless NODE_ENV is production, and AGENTRY_CHECK_RESPONSES says otherwise either way", async () => {
    expect(testSettings().checkResponses).toBe(true);
    expect(testSettings({ env: { NODE_ENV: "development" } }).checkResponses).toBe(true);
    expect(testSettings({ env: { NODE_ENV: "production" } }).checkResponses).toBe(false);
    expect(testSettings({ env: { NODE_ENV: "production", AGENTRY_CHECK_RESPONSES: "true" } }).checkResponses).toBe(true);
    const off = settingsWith({ AGENTRY_CHECK_RESPONSES: "false" });
    expect(await call(shaped({ name: 42 }), undefined, { use: off })).toEqual({ status: 200, body: { name: 42 } });
  });
});
