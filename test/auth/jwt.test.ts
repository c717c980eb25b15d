import { createServer, type Server } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyJwtPrincipal } from "@/lib/auth/jwt.ts";
import { HttpError } from "@/lib/http/errors.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { testSettings } from "../support/settings.ts";

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

  const withKeys = (keys: string[], env: Record<string, string> = {}) =>
    testSettings({ env: { JWT_VERIFICATION_KEYS: JSON.stringify(keys), ...env } });

  it("accepts RS256, ES256, EdDSA and HS256 tokens signed by configured keys", async () => {
    const secret = "an-hmac-secret-that-is-long-enough-to-use";
    const settings = withKeys([rsaPem, await exportSPKI(ec.publicKey), await exportSPKI(ed.publicKey), secret]);
    for (const [pair, alg] of [[rsa, "RS256"], [ec, "ES256"], [ed, "EdDSA"]] as const) {
      const principal = await verifyJwtPrincipal(await sign(pair, alg, { session_id: "s1" }), settings);
      expect(principal).toMatchObject({ userId: "alice", scopes: ["agents:read"], isAdmin: false, authenticatedBy: "jwt", sessionId: "s1", isolated: true });
    }
    const hs = await new SignJWT({ scopes: "agents:read agent_os:admin" }).setProtectedHeader({ alg: "HS256" }).setSubject("root").setExpirationTime(now() + 60).sign(new TextEncoder().encode(secret));
    expect(await verifyJwtPrincipal(hs, settings)).toMatchObject({ userId: "root", isAdmin: true, scopes: ["agents:read", "agent_os:admin"] });
  });

  it("refuses alg none, algorithm confusion, tampering and malformed tokens", async () => {
    const settings = withKeys([rsaPem]);
    const none = new UnsecuredJWT({ scopes: ["agent_os:admin"] }).setSubject("mallory").encode();
    expect(await rejection(none, settings)).toMatch(/algorithm 'none' is not allowed/);
    // HS256 "signed" with the RSA public key as the HMAC secret: the classic confusion attack.
    const confused = await new SignJWT({ scopes: ["agent_os:admin"] }).setProtectedHeader({ alg: "HS256" }).setSubject("mallory").setExpirationTime(now() + 60).sign(new TextEncoder().encode(rsaPem));
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
    const future = await new SignJWT({}).setProtectedHeader({ alg: "RS256" }).setSubject("alice").setNotBefore(now() + 120).setExpirationTime(now() + 600).sign(rsa.privateKey);
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
      file: { agents: [{ id: "a1", name: "A1", model: null }, { id: "a2", name: "A2", model: null }] },
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
