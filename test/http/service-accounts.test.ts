import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { CreatedServiceAccountSchema, ServiceAccountListSchema } from "@/lib/http/schemas/service-accounts.ts";
import { uid } from "../support/agno-runs.ts";
import { sqliteDialect } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

const AGENTS = [
  { id: "assistant", name: "Assistant", model: null },
  { id: "secret", name: "Secret", model: null },
];
const SA_ADMIN = ["service_accounts:read", "service_accounts:write", "service_accounts:delete"];

type Entry = { scope: string; effect: "allow" | "deny" };
const allow = (...scopes: string[]): Entry[] => scopes.map((scope) => ({ scope, effect: "allow" }));
const deny = (...scopes: string[]): Entry[] => scopes.map((scope) => ({ scope, effect: "deny" }));
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const now = () => Math.floor(Date.now() / 1000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ dialect: sqliteDialect, agents: AGENTS });
});
afterAll(() => app.close());

/** Calls the API: as a principal (tests only), with a bearer token, or as the trusted admin (mode none). */
// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the zod schemas
async function api(method: string, path: string, init: { json?: unknown; as?: Principal; token?: string } = {}): Promise<{ status: number; body: any }> {
  const response = await app.call(method, path, {
    json: init.json,
    principal: init.as,
    headers: init.token ? { authorization: `Bearer ${init.token}` } : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Creates an account (as the trusted admin unless `as` is given) and returns the 201 body. */
async function mint(scopes: Entry[], extra: Record<string, unknown> = {}, as?: Principal) {
  const res = await api("POST", "/service-accounts", { json: { name: uid("sa"), scopes, ...extra }, as });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return CreatedServiceAccountSchema.parse(res.body);
}

async function storedRow(id: string): Promise<Record<string, unknown>> {
  const db = await app.db();
  const [row] = await db.sql.query("SELECT * FROM agno_service_accounts WHERE id = ?", [id]);
  return row;
}

describe("permissions (Agno's default scope map)", () => {
  it("declares service_accounts:* scopes on every service-account route", () => {
    const declared = Object.fromEntries(ROUTES.filter((r) => r.path.startsWith("/service-accounts")).map((r) => [`${r.method} ${r.path}`, "permission" in r.access ? r.access.permission : "public"]));
    expect(declared).toEqual({
      "POST /service-accounts": "service_accounts:write",
      "GET /service-accounts": "service_accounts:read",
      "DELETE /service-accounts/{service_account_id}": "service_accounts:delete",
    });
  });
});

describe("POST /service-accounts", () => {
  it("returns the token once and stores only its SHA-256 hash and a short prefix", async () => {
    const created = await mint(allow("sessions:read"));
    expect(created.token).toMatch(/^agno_pat_[A-Za-z0-9_-]{43}$/);
    expect(created.token_prefix).toBe(created.token.slice(0, 13));
    expect(created).toMatchObject({ user_id: null, created_by: "admin:none", revoked_at: null, last_used_at: null, active: true, scopes: allow("sessions:read") });

    const row = await storedRow(created.id);
    expect(row.token_hash).toBe(sha256(created.token));
    expect(Object.values(row).some((v) => typeof v === "string" && v.includes(created.token))).toBe(false);

    const list = await api("GET", "/service-accounts?limit=100");
    expect(list.status).toBe(200);
    ServiceAccountListSchema.parse(list.body);
    expect(list.body.data.find((a: { id: string }) => a.id === created.id)).toBeTruthy();
    expect(JSON.stringify(list.body)).not.toContain(created.token);
    expect(JSON.stringify(list.body)).not.toContain(String(row.token_hash));
  });

  it("expires in 90 days by default, in expires_in_days when given, never with never_expires", async () => {
    const byDefault = await mint(allow("sessions:read"));
    expect(Date.parse(byDefault.expires_at!) / 1000 - Date.parse(byDefault.created_at) / 1000).toBe(90 * 86_400);
    const week = await mint(allow("sessions:read"), { expires_in_days: 7 });
    expect(Date.parse(week.expires_at!) / 1000 - Date.parse(week.created_at) / 1000).toBe(7 * 86_400);
    const forever = await mint(allow("sessions:read"), { never_expires: true });
    expect(forever.expires_at).toBeNull();
  });

  it("422s name the bad field: a malformed scope, an unknown effect, conflicting expiry, no scopes", async () => {
    const bad = async (json: unknown) => {
      const res = await api("POST", "/service-accounts", { json });
      expect(res.status).toBe(422);
      return res.body.detail.map((d: { loc: unknown[] }) => d.loc.join("."));
    };
    expect(await bad({ name: "x", scopes: [{ scope: "not a scope", effect: "allow" }] })).toEqual(["body.scopes.0.scope"]);
    expect(await bad({ name: "x", scopes: [{ scope: "sessions:read", effect: "maybe" }] })).toEqual(["body.scopes.0.effect"]);
    expect(await bad({ name: "x", scopes: allow("sessions:read"), never_expires: true, expires_in_days: 3 })).toEqual(["body.expires_in_days"]);
    expect(await bad({ name: "x", scopes: [] })).toEqual(["body.scopes"]);
    expect(await bad({ name: " ", scopes: allow("sessions:read") })).toEqual(["body.name"]);
  });

  it("409s on a second active account with the same name, and frees the name once revoked", async () => {
    const name = uid("dup");
    const first = await api("POST", "/service-accounts", { json: { name, scopes: allow("sessions:read") } });
    expect(first.status).toBe(201);
    const again = await api("POST", "/service-accounts", { json: { name, scopes: allow("sessions:read") } });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain(name);
    expect((await api("DELETE", `/service-accounts/${first.body.id}`)).status).toBe(204);
    expect((await api("POST", "/service-accounts", { json: { name, scopes: allow("sessions:read") } })).status).toBe(201);
  });

  it("refuses privileged scopes without allow_privileged_scopes from an admin (422)", async () => {
    const p = mintPrincipals();
    const a = { ...p.a, scopes: [...SA_ADMIN, "config:write"] };
    for (const scope of ["agent_os:admin", "service_accounts:read", "service_accounts:*", "config:write", "config:*", "system:write"]) {
      const asAdmin = await api("POST", "/service-accounts", { json: { name: uid("p"), scopes: allow(scope) } });
      expect(asAdmin.status, scope).toBe(422);
      expect(asAdmin.body.detail[0].loc).toEqual(["body", "scopes", 0, "scope"]);
      expect(asAdmin.body.detail[0].msg).toContain("privileged");
      const asUser = await api("POST", "/service-accounts", { json: { name: uid("p"), scopes: allow(scope), allow_privileged_scopes: true }, as: a });
      expect(asUser.status, scope).toBe(422);
    }
    const granted = await mint(allow("agent_os:admin", "service_accounts:write"), { allow_privileged_scopes: true });
    expect(granted.scopes).toEqual(allow("agent_os:admin", "service_accounts:write"));
    // Denying a privileged scope never widens anything: accepted without the flag.
    expect((await api("POST", "/service-accounts", { json: { name: uid("d"), scopes: [...allow("sessions:read"), ...deny("config:write")] } })).status).toBe(201);
  });

  it("lets a non-admin grant only scopes it holds itself (403 naming the scope)", async () => {
    const p = mintPrincipals();
    const a = { ...p.a, scopes: ["service_accounts:write", "sessions:read", "agents:*:run"] };
    const escalate = await api("POST", "/service-accounts", { json: { name: uid("e"), scopes: allow("sessions:read", "sessions:write") }, as: a });
    expect(escalate.status).toBe(403);
    expect(escalate.body.detail).toContain("'sessions:write'");
    expect((await api("POST", "/service-accounts", { json: { name: uid("e"), scopes: allow("sessions:*") }, as: a })).status).toBe(403);
    const ok = await mint(allow("sessions:read", "agents:run", "agents:assistant:run"), {}, a);
    expect(ok).toMatchObject({ user_id: p.userA, created_by: p.userA });
  });

  it("makes a token that holds a deny repeat it in any account it creates", async () => {
    const parent = await mint([...allow("service_accounts:write", "sessions:*"), ...deny("sessions:delete")], { allow_privileged_scopes: true });
    const asParent = (scopes: Entry[]) => api("POST", "/service-accounts", { json: { name: uid("c"), scopes }, token: parent.token });
    expect((await asParent(allow("sessions:delete"))).status).toBe(403);
    expect((await asParent(allow("sessions:*"))).status).toBe(403);
    const child = await asParent([...allow("sessions:*"), ...deny("sessions:delete")]);
    expect(child.status).toBe(201);
    expect(child.body.user_id).toBe(`sa:${parent.id}`);
  });
});

describe("service-account tokens authenticate real requests", () => {
  it("grants exactly the token's scopes, even though auth mode none trusts everyone else as admin", async () => {
    const reader = await mint(allow("sessions:read"));
    expect((await api("GET", "/sessions", { token: reader.token })).status).toBe(200);
    const write = await api("POST", "/sessions", { json: {}, token: reader.token });
    expect(write.status).toBe(403);
    expect(write.body.detail).toBe("Insufficient permissions. Required scope(s): sessions:write");

    const other = await mint(allow("memories:read"));
    const denied = await api("GET", "/sessions", { token: other.token });
    expect(denied).toEqual({ status: 403, body: { detail: "Insufficient permissions. Required scope(s): sessions:read" } });
  });

  it("lets a deny win over an allow wildcard, per action and per resource id", async () => {
    const token = (await mint([...allow("sessions:*", "agents:*:read"), ...deny("sessions:delete", "agents:secret:read")])).token;
    expect((await api("GET", "/sessions", { token })).status).toBe(200);
    const del = await api("DELETE", `/sessions/${uid("s")}`, { token });
    expect(del).toEqual({ status: 403, body: { detail: "Insufficient permissions. Required scope(s): sessions:delete" } });
    expect((await api("GET", "/agents/assistant", { token })).status).toBe(200);
    expect((await api("GET", "/agents/secret", { token })).status).toBe(403);
    const granted = await mint(allow("agent_os:admin"), { allow_privileged_scopes: true });
    const adminButDenied = await mint([...allow("agent_os:admin"), ...deny("sessions:read")], { allow_privileged_scopes: true });
    expect((await api("GET", "/sessions", { token: granted.token })).status).toBe(200);
    expect((await api("GET", "/sessions", { token: adminButDenied.token })).status).toBe(403);
  });

  it("self-scopes a token's data: its sessions are invisible to users and theirs to it", async () => {
    const p = mintPrincipals();
    const reader = { ...p.a, scopes: ["sessions:read", "sessions:write"] };
    const sa = await mint(allow("sessions:read", "sessions:write"));
    const mine = await api("POST", "/sessions", { json: { session_name: "through the token", user_id: p.userA }, token: sa.token });
    expect(mine.status).toBe(201);
    expect(mine.body.user_id).toBe(`sa:${sa.id}`);
    const theirs = await api("POST", "/sessions", { json: { session_name: "user a's" }, as: reader });
    expect(theirs.body.user_id).toBe(p.userA);

    expect((await api("GET", `/sessions/${mine.body.session_id}`, { as: reader })).status).toBe(404);
    expect((await api("GET", `/sessions/${theirs.body.session_id}`, { token: sa.token })).status).toBe(404);
    const listed = await api("GET", `/sessions?user_id=${p.userA}`, { token: sa.token });
    expect(listed.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([mine.body.session_id]);
    // Even an admin-granted token stays self-scoped.
    const admin = await mint(allow("agent_os:admin"), { allow_privileged_scopes: true });
    expect((await api("GET", `/sessions/${theirs.body.session_id}`, { token: admin.token })).status).toBe(404);
  });

  it("401s an unknown, malformed, revoked or expired token with its own message", async () => {
    const invalid = { status: 401, body: { detail: "Invalid authentication token" } };
    expect(await api("GET", "/sessions", { token: `agno_pat_${"A".repeat(43)}` })).toEqual(invalid);
    expect(await api("GET", "/sessions", { token: "agno_pat_short" })).toEqual(invalid);

    const revoked = await mint(allow("sessions:read"));
    expect((await api("DELETE", `/service-accounts/${revoked.id}`)).status).toBe(204);
    expect(await api("GET", "/sessions", { token: revoked.token })).toEqual({ status: 401, body: { detail: "Service account token has been revoked" } });

    const expired = await mint(allow("sessions:read"), { expires_in_days: 1 });
    expect((await api("GET", "/sessions", { token: expired.token })).status).toBe(200);
    await (await app.db()).sql.exec("UPDATE agno_service_accounts SET expires_at = ? WHERE id = ?", [now() - 1, expired.id]);
    expect(await api("GET", "/sessions", { token: expired.token })).toEqual({ status: 401, body: { detail: "Service account token has expired" } });
  });

  it("records last_used_at at most once a minute", async () => {
    const sa = await mint(allow("sessions:read"));
    const db = await app.db();
    const lastUsed = async () => Number((await storedRow(sa.id)).last_used_at);
    await api("GET", "/sessions", { token: sa.token });
    expect(Math.abs((await lastUsed()) - now())).toBeLessThanOrEqual(2);
    await db.sql.exec("UPDATE agno_service_accounts SET last_used_at = ? WHERE id = ?", [now() - 30, sa.id]);
    await api("GET", "/sessions", { token: sa.token });
    expect(now() - (await lastUsed())).toBeGreaterThanOrEqual(29);
    await db.sql.exec("UPDATE agno_service_accounts SET last_used_at = ? WHERE id = ?", [now() - 120, sa.id]);
    await api("GET", "/sessions", { token: sa.token });
    expect(now() - (await lastUsed())).toBeLessThanOrEqual(2);
  });
});

describe("GET and DELETE /service-accounts: each user manages only its own", () => {
  it("lists and revokes only the caller's accounts (404 for another user's); admins see all", async () => {
    const p = mintPrincipals();
    const a = { ...p.a, scopes: [...SA_ADMIN, "sessions:read"] };
    const b = { ...p.b, scopes: [...SA_ADMIN, "sessions:read"] };
    const ofA = await mint(allow("sessions:read"), {}, a);
    const ofB = await mint(allow("sessions:read"), {}, b);
    const ids = (body: { data: { id: string }[] }) => body.data.map((x) => x.id);

    const listA = await api("GET", "/service-accounts", { as: a });
    expect(ids(listA.body)).toEqual([ofA.id]);
    expect(listA.body.data[0]).toMatchObject({ user_id: p.userA, created_by: p.userA, name: ofA.name });
    expect(ids((await api("GET", "/service-accounts", { as: b })).body)).toEqual([ofB.id]);
    const all = ids((await api("GET", "/service-accounts?limit=1000")).body);
    expect(all).toEqual(expect.arrayContaining([ofA.id, ofB.id]));

    expect(await api("DELETE", `/service-accounts/${ofB.id}`, { as: a })).toEqual({ status: 404, body: { detail: `Service account with ID ${ofB.id} not found` } });
    expect((await api("GET", "/sessions", { token: ofB.token })).status).toBe(200);
    expect((await api("DELETE", `/service-accounts/${ofA.id}`, { as: a })).status).toBe(204);
    expect((await api("DELETE", `/service-accounts/${ofA.id}`, { as: a })).status).toBe(204);
    expect((await api("DELETE", `/service-accounts/${uid("missing")}`, { as: a })).status).toBe(404);

    expect(ids((await api("GET", "/service-accounts", { as: a })).body)).toEqual([]);
    const history = await api("GET", "/service-accounts?include_revoked=true", { as: a });
    expect(history.body.data).toHaveLength(1);
    expect(history.body.data[0]).toMatchObject({ id: ofA.id, active: false });
    expect(history.body.data[0].revoked_at).not.toBeNull();
    expect(ids((await api("GET", "/service-accounts?include_revoked=true", { as: b })).body)).toEqual([ofB.id]);
  });

  it("pages and sorts like the other list routes", async () => {
    const p = mintPrincipals();
    const a = { ...p.a, scopes: [...SA_ADMIN, "sessions:read"] };
    const names = ["b-two", "a-one", "c-three"].map((n) => `${n}-${p.userA}`);
    for (const name of names) expect((await api("POST", "/service-accounts", { json: { name, scopes: allow("sessions:read") }, as: a })).status).toBe(201);
    const page = await api("GET", "/service-accounts?sort_by=name&sort_order=asc&limit=2&page=2", { as: a });
    expect(page.status).toBe(200);
    expect(page.body.data.map((x: { name: string }) => x.name)).toEqual([names[2]]);
    expect(page.body.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 3 });
    expect((await api("GET", "/service-accounts?sort_order=sideways", { as: a })).status).toBe(422);
    expect((await api("GET", "/service-accounts?include_revoked=perhaps", { as: a })).status).toBe(422);
  });

  it("403s a caller without the route's scope", async () => {
    const p = mintPrincipals();
    const reader = { ...p.a, scopes: ["service_accounts:read"] };
    expect((await api("POST", "/service-accounts", { json: { name: uid("x"), scopes: allow("sessions:read") }, as: reader })).body.detail).toBe(
      "Insufficient permissions. Required scope(s): service_accounts:write",
    );
    expect((await api("DELETE", `/service-accounts/${uid("x")}`, { as: reader })).status).toBe(403);
    expect((await api("GET", "/service-accounts", { as: { ...p.a, scopes: [] } })).status).toBe(403);
  });
});

describe.each([
  ["security_key", { OS_SECURITY_KEY: "k3y-for-tests" }],
  ["jwt", { JWT_VERIFICATION_KEY: "a-shared-hs256-secret-for-tests-only-000000" }],
])("a service-account token in auth mode %s", (mode, env) => {
  let keyed: TestApp;
  beforeAll(async () => {
    keyed = await startTestApp({ dialect: sqliteDialect, agents: AGENTS, env });
  });
  afterAll(() => keyed?.close());

  it("authenticates on its own, with its scopes enforced", async () => {
    expect(keyed.settings.auth.mode).toBe(mode);
    const db = await keyed.db();
    const admin = mintPrincipals().admin;
    const created = await keyed.call("POST", "/service-accounts", { json: { name: uid("k"), scopes: allow("sessions:read") }, principal: admin });
    expect(created.status).toBe(201);
    const { token, id } = (await created.json()) as { token: string; id: string };
    expect((await db.sql.query("SELECT id FROM agno_service_accounts WHERE token_hash = ?", [sha256(token)])).map((r) => r.id)).toEqual([id]);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await keyed.call("GET", "/sessions", { headers: bearer })).status).toBe(200);
    expect((await keyed.call("POST", "/sessions", { json: {}, headers: bearer })).status).toBe(403);
    expect((await keyed.call("GET", "/sessions")).status).toBe(401);
    expect((await keyed.call("GET", "/sessions", { headers: { authorization: `Bearer agno_pat_${"x".repeat(43)}` } })).status).toBe(401);
  });
});
