import { createServer, type Server } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyJwtPrincipal } from "@/lib/auth/jwt.ts";
import { MISSING_IDENTITY } from "@/lib/auth/principal.ts";
import { getSessionRow, type Db } from "@/lib/db/index.ts";
import { HttpError } from "@/lib/errors/http-error.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { sqliteDialect } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { adminScope } from "../support/scopes.ts";

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
const now = () => Math.floor(Date.now() / 1000);

async function sign(pair: KeyPair, alg: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  return new SignJWT({ scopes: ["agents:read"], ...claims })
    .setProtectedHeader({ alg, ...header })
    .setSubject((claims.sub as string) ?? "alice")
    .setIssuedAt()
    .setExpirationTime((claims.exp as number) ?? now() + 300)
    .sign(pair.privateKey);
}

async function rejection(token: string, settings: ReturnType<typeof testSettings>): Promise<string> {
  const error = await verifyJwtPrincipal(token, settings).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, "expected a 401").toBeInstanceOf(HttpError);
  expect((error as HttpError).status).toBe(401);
  return String((error as HttpError).detail);
}

describe("JWT verification", () => {
  let rsa: KeyPair;
  let rsaOld: KeyPair;
  let ec: KeyPair;
  let ed: KeyPair;
  let rsaPem: string;
  let rsaOldPem: string;

  beforeAll(async () => {
    [rsa, rsaOld, ec, ed] = await Promise.all([
      generateKeyPair("RS256", { extractable: true }),
      generateKeyPair("RS256", { extractable: true }),
      generateKeyPair("ES256", { extractable: true }),
      generateKeyPair("EdDSA", { extractable: true }),
    ]);
    rsaPem = await exportSPKI(rsa.publicKey);
    rsaOldPem = await exportSPKI(rsaOld.publicKey);
  });

  const withKeys = (keys: string[], env: Record<string, string> = {}) => testSettings({ env: { JWT_VERIFICATION_KEYS: JSON.stringify(keys), ...env } });

  it("accepts RS256, ES256, EdDSA and HS256 tokens signed by configured keys", async () => {
    const secret = "an-hmac-secret-that-is-long-enough-to-use";
    const settings = withKeys([rsaPem, await exportSPKI(ec.publicKey), await exportSPKI(ed.publicKey), secret]);
    for (const [pair, alg] of [
      [rsa, "RS256"],
      [ec, "ES256"],
      [ed, "EdDSA"],
    ] as const) {
      const principal = await verifyJwtPrincipal(await sign(pair, alg, { session_id: "s1" }), settings);
      expect(principal).toMatchObject({ userId: "alice", scopes: ["agents:read"], isAdmin: false, authenticatedBy: "jwt", sessionId: "s1", isolated: true });
    }
    const hs = await new SignJWT({ scopes: "agents:read agent_os:admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("root")
      .setExpirationTime(now() + 60)
      .sign(new TextEncoder().encode(secret));
    expect(await verifyJwtPrincipal(hs, settings)).toMatchObject({ userId: "root", isAdmin: true, scopes: ["agents:read", "agent_os:admin"] });
  });

  it("refuses alg none, algorithm confusion, tampering and malformed tokens", async () => {
    const settings = withKeys([rsaPem]);
    const none = new UnsecuredJWT({ scopes: ["agent_os:admin"] }).setSubject("mallory").encode();
    expect(await rejection(none, settings)).toMatch(/algorithm 'none' is not allowed/);
    // HS256 "signed" with the RSA public key as the HMAC secret: the classic confusion attack.
    const confused = await new SignJWT({ scopes: ["agent_os:admin"] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("mallory")
      .setExpirationTime(now() + 60)
      .sign(new TextEncoder().encode(rsaPem));
    expect(await rejection(confused, settings)).toMatch(/Invalid token/);
    const good = await sign(rsa, "RS256");
    const [h, , s] = good.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: "alice", scopes: ["agent_os:admin"], exp: now() + 60 })).toString("base64url")}.${s}`;
    expect(await rejection(forged, settings)).toMatch(/signature verification failed/);
    expect(await rejection("not.a.token", settings)).toMatch(/malformed/);
    expect(await rejection("garbage", settings)).toMatch(/malformed/);
  });

  it("refuses expired and not-yet-valid tokens, with 10 s of leeway", async () => {
    const settings = withKeys([rsaPem]);
    expect(await rejection(await sign(rsa, "RS256", { exp: now() - 60 }), settings)).toBe("Token has expired");
    await expect(verifyJwtPrincipal(await sign(rsa, "RS256", { exp: now() - 5 }), settings)).resolves.toMatchObject({ userId: "alice" });
    const future = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256" })
      .setSubject("alice")
      .setNotBefore(now() + 120)
      .setExpirationTime(now() + 600)
      .sign(rsa.privateKey);
    expect(await rejection(future, settings)).toMatch(/not yet valid/);
  });

  it("checks the audience only when one is configured", async () => {
    const token = await sign(rsa, "RS256", { aud: "someone-else" });
    await expect(verifyJwtPrincipal(token, withKeys([rsaPem]))).resolves.toBeDefined();
    expect(await rejection(token, withKeys([rsaPem], { JWT_AUDIENCE: "agentry" }))).toBe("Invalid token audience - token not valid for this AgentOS instance");
    await expect(verifyJwtPrincipal(await sign(rsa, "RS256", { aud: "agentry" }), withKeys([rsaPem], { JWT_AUDIENCE: "agentry" }))).resolves.toBeDefined();
  });

  it("rotates keys: an old key's tokens work while it is listed and fail once it is removed", async () => {
    const oldToken = await sign(rsaOld, "RS256");
    await expect(verifyJwtPrincipal(oldToken, withKeys([rsaPem, rsaOldPem]))).resolves.toMatchObject({ userId: "alice" });
    expect(await rejection(oldToken, withKeys([rsaPem]))).toMatch(/signature verification failed/);
  });

  it("selects keys by kid from a JWKS file and refuses an unknown kid", async () => {
    const jwk = { ...(await exportJWK(rsa.publicKey)), kid: "k1", alg: "RS256" } as JWK;
    const file = join(mkdtempSync(join(tmpdir(), "jwks-")), "jwks.json");
    writeFileSync(file, JSON.stringify({ keys: [jwk] }));
    const settings = testSettings({ env: { JWT_JWKS_FILE: file } });
    await expect(verifyJwtPrincipal(await sign(rsa, "RS256", {}, { kid: "k1" }), settings)).resolves.toMatchObject({ userId: "alice" });
    expect(await rejection(await sign(rsa, "RS256", {}, { kid: "k9" }), settings)).toMatch(/unknown key id 'k9'/);
  });

  it("refuses a 'sub' that is not a string with a 401 (a number, an object, a list, null)", async () => {
    const settings = withKeys([rsaPem]);
    for (const sub of [42, { id: "alice" }, ["alice"], null, true]) {
      const token = await new SignJWT({ sub, scopes: ["agent_os:admin"] } as Record<string, unknown>)
        .setProtectedHeader({ alg: "RS256" })
        .setExpirationTime(now() + 60)
        .sign(rsa.privateKey);
      expect(await rejection(token, settings), JSON.stringify(sub)).toBe("Invalid token: its 'sub' claim must be a string");
    }
  });

  it("accepts a token without 'sub' as a principal with no user id: admin with the admin scope, a plain user otherwise", async () => {
    const settings = withKeys([rsaPem]);
    const noSub = (scopes: string[], extra: Record<string, unknown> = {}) =>
      new SignJWT({ scopes, ...extra })
        .setProtectedHeader({ alg: "RS256" })
        .setExpirationTime(now() + 60)
        .sign(rsa.privateKey);
    expect(await verifyJwtPrincipal(await noSub(["agent_os:admin"]), settings)).toMatchObject({ kind: "admin", userId: null, isAdmin: true, authenticatedBy: "jwt" });
    expect(await verifyJwtPrincipal(await noSub(["sessions:read"]), settings)).toMatchObject({ kind: "user", userId: null, isAdmin: false, isolated: true });
    // An empty subject names no one either.
    expect(await verifyJwtPrincipal(await noSub(["sessions:read"], { sub: "" }), settings)).toMatchObject({ userId: null, isAdmin: false });
  });

  it("refuses reserved subjects, so no token can pose as a service account or the scheduler", async () => {
    const settings = withKeys([rsaPem]);
    for (const sub of ["sa:deploy-bot", "__scheduler__", "__oauth__:x"]) {
      expect(await rejection(await sign(rsa, "RS256", { sub }), settings)).toBe("Invalid token subject");
    }
  });

  describe("a JWKS URL", () => {
    let server: Server;
    let served: JWK[] = [];
    let fetches = 0;
    let url = "";
    beforeAll(async () => {
      server = createServer((_req, res) => {
        fetches++;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ keys: served }));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks.json`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("is fetched, cached, and refetched for a new kid at most once per 30 s", async () => {
      served = [{ ...(await exportJWK(rsa.publicKey)), kid: "a", alg: "RS256" } as JWK];
      const settings = testSettings({ env: { JWT_JWKS_URL: url } });
      await verifyJwtPrincipal(await sign(rsa, "RS256", {}, { kid: "a" }), settings);
      await verifyJwtPrincipal(await sign(rsa, "RS256", {}, { kid: "a" }), settings);
      expect(fetches).toBe(1);
      // The issuer rotates to a new key: tokens with kid "b" appear.
      served = [...served, { ...(await exportJWK(ec.publicKey)), kid: "b", alg: "ES256" } as JWK];
      const tokenB = await sign(ec, "ES256", {}, { kid: "b" });
      expect(await rejection(tokenB, settings)).toMatch(/Invalid token/);
      expect(fetches).toBe(1); // within the 30 s cooldown: no refetch
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(Date.now() + 31_000);
        await expect(verifyJwtPrincipal(await sign(ec, "ES256", {}, { kid: "b", exp: Math.floor(Date.now() / 1000) + 300 }), settings)).resolves.toMatchObject({ userId: "alice" });
        expect(fetches).toBe(2);
      } finally {
        vi.useRealTimers();
      }
    });
  });
});

describe("JWT mode through the request path", () => {
  let pair: KeyPair;
  let settings: ReturnType<typeof testSettings>;
  beforeAll(async () => {
    pair = await generateKeyPair("RS256", { extractable: true });
    settings = testSettings({
      env: { JWT_VERIFICATION_KEY: await exportSPKI(pair.publicKey) },
      file: {
        agents: [
          { id: "a1", name: "A1", model: null },
          { id: "a2", name: "A2", model: null },
        ],
      },
    });
  });
  const call = (path: string, token?: string) =>
    dispatch(new Request(`http://127.0.0.1${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }), path, {
      settings,
      routes: ROUTES.filter((r) => r.path === path),
    });

  it("answers 401 without a token and 403 naming the scope without permission", async () => {
    const missing = await call("/config");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ detail: "Authorization header required" });
    const forbidden = await call("/config", await sign(pair, "RS256", { scopes: ["agents:read"] }));
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ detail: "Insufficient permissions. Required scope(s): config:read" });
    expect((await call("/config", await sign(pair, "RS256", { scopes: ["config:read"] }))).status).toBe(200);
    expect((await call("/config", await sign(pair, "RS256", { scopes: ["system:read"] }))).status).toBe(200);
    expect((await call("/config", await sign(pair, "RS256", { scopes: ["agent_os:admin"] }))).status).toBe(200);
  });

  it("filters /agents by per-resource scopes and refuses a caller with no agent scope", async () => {
    const only = async (scopes: string[]) => {
      const response = await call("/agents", await sign(pair, "RS256", { scopes }));
      return response.status === 200 ? ((await response.json()) as { id: string }[]).map((a) => a.id) : response.status;
    };
    expect(await only(["agents:read"])).toEqual(["a1", "a2"]);
    expect(await only(["agents:a2:read"])).toEqual(["a2"]);
    expect(await only(["agents:*:read"])).toEqual(["a1", "a2"]);
    expect(await only(["sessions:read"])).toBe(403);
  });
});

describe("tokens without a user identity, over a real database", () => {
  const SECRET = "jwt-identity-tests-secret-of-sufficient-length";
  const FULL = ["agents:read", "agents:run", "sessions:read", "sessions:write", "sessions:delete", "memories:read", "memories:write", "config:read", "service_accounts:write", "service_accounts:read"];
  const token = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(now() + 300)
      .sign(new TextEncoder().encode(SECRET));
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  async function jwtApp(env: Record<string, string> = {}) {
    const app = await startTestApp({ dialect: sqliteDialect, agents: [{ id: "a1", name: "A1", model: null }], env: { JWT_VERIFICATION_KEY: SECRET, ...env } });
    apps.push(app);
    return app;
  }
  async function call(app: TestApp, bearer: string, method: string, path: string, init: { json?: unknown; form?: Record<string, string> } = {}) {
    const response = await app.call(method, path, { ...init, headers: { authorization: `Bearer ${bearer}` } });
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
    return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
  }
  async function aliceSession(db: Db) {
    return seedSession(db, { scope: adminScope("alice"), session: { userId: "alice" }, runs: [agnoRun({ sessionId: "", agentId: "a1", runId: uid("run") })] });
  }

  for (const isolation of ["true", "false"]) {
    it(`a non-admin token without 'sub' gets Agno's 403 wherever data is touched (isolation ${isolation === "true" ? "on" : "off"}), and reads nothing`, async () => {
      const app = await jwtApp({ AGENTRY_USER_ISOLATION: isolation });
      const db = await app.db();
      const alice = await aliceSession(db);
      const runId = String((await call(app, await token({ sub: "alice", scopes: FULL }), "GET", `/sessions/${alice.session_id}/runs`)).body[0].run_id);
      const anonymous = await token({ scopes: FULL });
      const forbidden = { status: 403, body: { detail: MISSING_IDENTITY } };
      for (const [method, path, init] of [
        ["GET", "/sessions", {}],
        ["GET", `/sessions?user_id=alice`, {}],
        ["GET", `/sessions/${alice.session_id}`, {}],
        ["GET", `/sessions/${alice.session_id}/runs`, {}],
        ["POST", "/sessions", { json: {} }],
        ["PATCH", `/sessions/${alice.session_id}`, { json: { session_name: "hijacked" } }],
        ["DELETE", `/sessions/${alice.session_id}`, {}],
        ["GET", "/memories", {}],
        ["POST", "/memories", { json: { memory: "planted", user_id: "alice" } }],
        ["GET", "/memory_topics", {}],
        ["POST", "/agents/a1/runs", { form: { message: "hi", stream: "false" } }],
        ["GET", `/agents/a1/runs?session_id=${alice.session_id}`, {}],
        ["GET", `/agents/a1/runs/${runId}?session_id=${alice.session_id}`, {}],
        ["POST", `/agents/a1/runs/${runId}/cancel?session_id=${alice.session_id}`, {}],
        ["POST", `/agents/a1/runs/${runId}/cancel`, {}],
        ["POST", `/agents/a1/runs/${runId}/resume`, { form: { session_id: alice.session_id } }],
        ["POST", `/agents/a1/runs/${runId}/continue`, { form: { session_id: alice.session_id, stream: "false" } }],
        ["POST", "/service-accounts", { json: { name: uid("bot"), scopes: [{ scope: "agents:read", effect: "allow" }] } }],
        ["GET", "/service-accounts", {}],
      ] as const) {
        expect(await call(app, anonymous, method, path, init), `${method} ${path}`).toEqual(forbidden);
      }
      // Routes that touch no owned data answer it, as Agno does.
      expect((await call(app, anonymous, "GET", "/agents")).status).toBe(200);
      expect((await call(app, anonymous, "GET", "/config")).status).toBe(200);
      // Nothing was written: alice's session is intact and no owner-less session appeared.
      expect(await getSessionRow(db, { scope: adminScope("alice"), sessionId: alice.session_id })).toMatchObject({ session_id: alice.session_id });
      const everyone = await call(app, await token({ scopes: ["agent_os:admin"] }), "GET", "/sessions");
      expect(everyone.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([alice.session_id]);
    });
  }

  it("an admin token without 'sub' is an admin of no identity: it sees everyone's rows and writes owner-less ones unless it names a user", async () => {
    const app = await jwtApp();
    const db = await app.db();
    const alice = await aliceSession(db);
    const admin = await token({ scopes: ["agent_os:admin"] });

    const listed = await call(app, admin, "GET", "/sessions");
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { session_id: string }) => s.session_id)).toContain(alice.session_id);
    expect((await call(app, admin, "GET", `/sessions/${alice.session_id}`)).body).toMatchObject({ user_id: "alice" });

    const shared = await call(app, admin, "POST", "/sessions", { json: { session_name: "shared" } });
    expect(shared.status).toBe(201);
    expect(shared.body).not.toHaveProperty("user_id");
    expect(await getSessionRow(db, { scope: adminScope(null), sessionId: shared.body.session_id })).toMatchObject({ user_id: null });
    const forBob = await call(app, admin, "POST", "/sessions", { json: { user_id: "bob" } });
    expect(await getSessionRow(db, { scope: adminScope("bob"), sessionId: forBob.body.session_id })).toMatchObject({ user_id: "bob" });
    // The owner-less session is the admins': alice neither sees nor changes it.
    const aliceToken = await token({ sub: "alice", scopes: FULL });
    expect((await call(app, aliceToken, "GET", `/sessions/${shared.body.session_id}`)).status).toBe(404);
    expect((await call(app, aliceToken, "PATCH", `/sessions/${shared.body.session_id}`, { json: { session_name: "mine now" } })).status).toBe(404);

    // A memory is always someone's: without a user to write it for, Agno's 400.
    expect(await call(app, admin, "POST", "/memories", { json: { memory: "orphan" } })).toEqual({ status: 400, body: { detail: "User ID is required" } });
    expect((await call(app, admin, "POST", "/memories", { json: { memory: "for bob", user_id: "bob" } })).body).toMatchObject({ user_id: "bob" });

    const account = await call(app, admin, "POST", "/service-accounts", { json: { name: uid("ops"), scopes: [{ scope: "agents:read", effect: "allow" }] } });
    expect(account.status).toBe(201);
    expect(account.body).toMatchObject({ user_id: null, created_by: "admin:jwt" });
  });

  it("answers a 'sub' that is not a string with a 401 through the request path, never a 500", async () => {
    const app = await jwtApp();
    for (const sub of [7, { id: "alice" }]) {
      expect(await call(app, await token({ sub, scopes: FULL }), "GET", "/sessions")).toEqual({ status: 401, body: { detail: "Invalid token: its 'sub' claim must be a string" } });
    }
  });
});
