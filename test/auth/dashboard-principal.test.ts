import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "@/lib/auth/authenticate.ts";
import { dashboardPrincipal } from "@/lib/auth/dashboard-session.ts";
import { SESSION_COOKIE, encodeSessionToken } from "@/lib/auth/dashboard/session-token.ts";
import { changeRole, endSessions, setEnabled } from "@/lib/auth/dashboard/user-admin.ts";
import { MEMBER_SCOPES } from "@/lib/auth/dashboard/member-scopes.ts";
import { HttpError } from "@/lib/errors/http-error.ts";
import { DIALECTS } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { SYSTEM_ADMIN, createUser, sessionCookie } from "./dashboard-support.ts";

const HOST = "127.0.0.1:7777";
const SAME_ORIGIN = { "sec-fetch-site": "same-origin", origin: `http://${HOST}` };
const CROSS_SITE = { "sec-fetch-site": "cross-site", origin: "https://evil.example" };

function request(cookie: string | null, headers: Record<string, string> = {}, method = "GET", path = "/sessions"): Request {
  return new Request(`http://${HOST}${path}`, { method, headers: { host: HOST, ...(cookie ? { cookie } : {}), ...headers } });
}

describe.each(DIALECTS)("dashboard sessions as API principals on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({
        dialect,
        agents: [{ id: "assistant", name: "Assistant", model: null }],
        env: { OS_SECURITY_KEY: "a-shared-security-key-for-tests" },
      });
    });
    afterAll(async () => app?.close());

    it("a member's same-origin request is the member: a non-admin user with the member scopes", async () => {
      const db = await app.db();
      const member = await createUser(db);
      const cookie = await sessionCookie(app.settings, db, member);
      const principal = await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db());
      expect(principal).toMatchObject({ kind: "user", userId: member.id, isAdmin: false, authenticatedBy: "dashboard", isolated: true });
      expect(principal!.scopes).toEqual(MEMBER_SCOPES);
      expect(principal!.scopes).toEqual(expect.arrayContaining(["agents:read", "agents:run", "sessions:read", "sessions:write", "memories:delete"]));
      expect(principal!.scopes).not.toContain("agent_os:admin");
      // Origin alone (a browser without Sec-Fetch-Site) is enough when it is this server's own.
      expect(await dashboardPrincipal(request(cookie, { origin: `http://${HOST}` }), app.settings, () => app.db())).toMatchObject({ userId: member.id });
    });

    it("an admin's session is an admin principal holding agent_os:admin", async () => {
      const db = await app.db();
      const admin = await createUser(db, { role: "admin" });
      const principal = await dashboardPrincipal(request(await sessionCookie(app.settings, db, admin), SAME_ORIGIN), app.settings, () => app.db());
      expect(principal).toMatchObject({ kind: "admin", userId: admin.id, isAdmin: true, scopes: ["agent_os:admin"], authenticatedBy: "dashboard" });
    });

    it("refuses a cross-origin request that carries a valid cookie", async () => {
      const db = await app.db();
      const member = await createUser(db);
      const cookie = await sessionCookie(app.settings, db, member);
      for (const headers of <Record<string, string>[]>[
        CROSS_SITE,
        { "sec-fetch-site": "same-site", origin: "http://127.0.0.1:9999" }, // another port: same site, not same origin
        { origin: "https://evil.example" },
        { origin: "http://127.0.0.1:9999" },
        { origin: "null" },
        { "sec-fetch-site": "none" },
        {}, // neither header: no proof of origin
        { "sec-fetch-site": "cross-site", origin: `http://${HOST}` },
      ]) {
        expect(await dashboardPrincipal(request(cookie, headers, "POST"), app.settings, () => app.db()), JSON.stringify(headers)).toBeNull();
      }
      // The same cookie from the dashboard's own page works.
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN, "POST"), app.settings, () => app.db())).not.toBeNull();
    });

    it("refuses a tampered token, one sealed with another secret, and an absent cookie", async () => {
      const db = await app.db();
      const member = await createUser(db);
      const cookie = await sessionCookie(app.settings, db, member);
      const tampered = cookie.slice(0, -4) + (cookie.endsWith("AAAA") ? "BBBB" : "AAAA");
      const foreign = `${SESSION_COOKIE}=${await encodeSessionToken({ sub: member.id, sv: member.sessionVersion, sid: "a-session" }, "another-secret-another-secret-xx")}`;
      for (const value of [tampered, foreign, `${SESSION_COOKIE}=`, "other=1"]) {
        expect(await dashboardPrincipal(request(value, SAME_ORIGIN), app.settings, () => app.db())).toBeNull();
      }
      expect(await dashboardPrincipal(request(null, SAME_ORIGIN), app.settings, () => app.db())).toBeNull();
    });

    it("disabling a user refuses its session at once; re-enabling does not revive the old session", async () => {
      const db = await app.db();
      const member = await createUser(db);
      const cookie = await sessionCookie(app.settings, db, member);
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db())).not.toBeNull();
      await setEnabled(db, { principal: SYSTEM_ADMIN, userId: member.id, enabled: false });
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db())).toBeNull();
      const reenabled = await setEnabled(db, { principal: SYSTEM_ADMIN, userId: member.id, enabled: true });
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db())).toBeNull();
      expect(await dashboardPrincipal(request(await sessionCookie(app.settings, db, reenabled), SAME_ORIGIN), app.settings, () => app.db())).not.toBeNull();
    });

    it("sign out everywhere ends every session; a role change applies to the next request", async () => {
      const db = await app.db();
      const member = await createUser(db);
      const cookie = await sessionCookie(app.settings, db, member);
      await changeRole(db, { principal: SYSTEM_ADMIN, userId: member.id, role: "admin" });
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db())).toMatchObject({ isAdmin: true });
      await changeRole(db, { principal: SYSTEM_ADMIN, userId: member.id, role: "member" });
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db())).toMatchObject({ isAdmin: false });
      await endSessions(db, { principal: { kind: "user", userId: member.id, scopes: [], authenticatedBy: "dashboard", isAdmin: false } });
      expect(await dashboardPrincipal(request(cookie, SAME_ORIGIN), app.settings, () => app.db())).toBeNull();
    });

    it("through the API (security-key mode): same-origin with the cookie is served, cross-origin with the cookie is 401 and starts no run", async () => {
      const db = await app.db();
      const member = await createUser(db);
      const cookie = await sessionCookie(app.settings, db, member);

      const mine = await app.call("GET", "/sessions", { headers: { host: HOST, cookie, ...SAME_ORIGIN } });
      expect(mine.status).toBe(200);

      const form = { message: "hello", stream: "false" };
      const crossRun = await app.call("POST", "/agents/assistant/runs", { form, headers: { host: HOST, cookie, ...CROSS_SITE } });
      expect(crossRun.status).toBe(401);
      const crossList = await app.call("GET", "/sessions", { headers: { host: HOST, cookie, ...CROSS_SITE } });
      expect(crossList.status).toBe(401);
      const sessions = await (await app.call("GET", "/sessions?type=agent", { headers: { authorization: "Bearer a-shared-security-key-for-tests" } })).json();
      expect(sessions.data).toEqual([]);

      await expect(authenticate(request(cookie, CROSS_SITE, "POST"), app.settings, () => app.db())).rejects.toBeInstanceOf(HttpError);
      await expect(authenticate(request(cookie, SAME_ORIGIN, "POST"), app.settings, () => app.db())).resolves.toMatchObject({ userId: member.id });
    });
  });
});
