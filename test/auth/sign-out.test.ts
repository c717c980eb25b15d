import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthConfig } from "@/lib/auth/dashboard/auth-config.ts";
import { authSecret } from "@/lib/auth/dashboard/auth-secret.ts";
import { endSessionFromCookies, sessionUserFromCookies } from "@/lib/auth/dashboard/session.ts";
import { SESSION_COOKIE, SESSION_MAX_AGE, encodeSessionToken } from "@/lib/auth/dashboard/session-token.ts";
import { endSessions } from "@/lib/auth/dashboard/user-admin.ts";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { openDatabase } from "@/lib/db/open-database.ts";
import { unsafeRevokeSession } from "@/lib/db/users/revoked-sessions.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { cookiesOf, postToAuthJs } from "./auth-js-support.ts";
import { createUser, sessionCookie } from "./dashboard-support.ts";

const settings = testSettings({ env: { AUTH_SECRET: "a-test-auth-secret-that-is-long-enough-000" } });

describe.each(DIALECTS)("signing out on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openMigrated(dialect);
    });
    afterAll(async () => db?.destroy());
    const userOf = (cookieHeader: string) => sessionUserFromCookies({ cookieHeader, settings, db });

    it("revokes that session server-side: its cookie, and any copy of it, stops working at once", async () => {
      const user = await createUser(db);
      const cookie = await sessionCookie(settings, db, user);
      expect((await userOf(cookie))?.id).toBe(user.id);
      await endSessionFromCookies({ cookieHeader: cookie, settings, db });
      expect(await userOf(cookie)).toBeNull();
      // Signing out twice (a second tab, a retried request) is fine.
      await endSessionFromCookies({ cookieHeader: cookie, settings, db });
      expect(await userOf(cookie)).toBeNull();
    });

    it("ends only that session: the user's other browsers stay signed in", async () => {
      const user = await createUser(db);
      const laptop = await sessionCookie(settings, db, user);
      const phone = await sessionCookie(settings, db, user);
      await endSessionFromCookies({ cookieHeader: laptop, settings, db });
      expect(await userOf(laptop)).toBeNull();
      expect((await userOf(phone))?.id).toBe(user.id);
    });

    it("is seen by another replica (another connection to the same database) at once", async () => {
      const user = await createUser(db);
      const cookie = await sessionCookie(settings, db, user);
      const replica = await openDatabase({ url: db.location, schema: db.schema ?? undefined });
      try {
        expect((await sessionUserFromCookies({ cookieHeader: cookie, settings, db: replica }))?.id).toBe(user.id);
        await endSessionFromCookies({ cookieHeader: cookie, settings, db });
        expect(await sessionUserFromCookies({ cookieHeader: cookie, settings, db: replica })).toBeNull();
      } finally {
        await replica.close();
      }
    });

    it("through Auth.js's own sign-out route too: the cookie is cleared and the session revoked", async () => {
      const user = await createUser(db);
      const cookie = await sessionCookie(settings, db, user);
      const config = buildAuthConfig({ settings, db, secret: await authSecret(settings, db), secure: false });
      const response = await postToAuthJs(config, "signout", { cookie, form: { callbackUrl: "http://127.0.0.1:7777/dashboard/sign-in" } });
      expect(response.status).toBe(302);
      expect(cookiesOf(response)).toContain(`${SESSION_COOKIE}=`);
      expect(await userOf(cookie)).toBeNull();
    });

    it("'sign out everywhere' still ends every session of the user, and a new sign-in works", async () => {
      const user = await createUser(db);
      const one = await sessionCookie(settings, db, user);
      const two = await sessionCookie(settings, db, user);
      await endSessions(db, { principal: principalForUser(user, settings) });
      expect(await userOf(one)).toBeNull();
      expect(await userOf(two)).toBeNull();
      const [after] = await db.sql.query<{ session_version: number }>("SELECT session_version FROM agentry_users WHERE id = ?", [user.id]);
      const fresh = await sessionCookie(settings, db, { ...user, sessionVersion: Number(after.session_version) });
      expect((await userOf(fresh))?.id).toBe(user.id);
    });

    it("refuses a cookie without a session id (issued before sessions had one): it could never be signed out", async () => {
      const user = await createUser(db);
      const token = await encodeSessionToken({ sub: user.id, sv: user.sessionVersion } as never, await authSecret(settings, db));
      expect(await userOf(`${SESSION_COOKIE}=${token}`)).toBeNull();
    });

    it("keeps a revocation as long as the cookie could be valid, then prunes it", async () => {
      const user = await createUser(db);
      const now = Math.floor(Date.now() / 1000);
      await unsafeRevokeSession(db, { sessionId: `old-${user.id}`, userId: user.id, expiresAt: now + SESSION_MAX_AGE, now });
      const rows = () => db.sql.query("SELECT session_id FROM agentry_revoked_sessions WHERE user_id = ?", [user.id]);
      expect(await rows()).toHaveLength(1);
      // The next sign-out after the old cookie's expiry removes the old record.
      const later = now + SESSION_MAX_AGE + 1;
      await unsafeRevokeSession(db, { sessionId: `new-${user.id}`, userId: user.id, expiresAt: later + SESSION_MAX_AGE, now: later });
      expect((await rows()).map((r) => r.session_id)).toEqual([`new-${user.id}`]);
    });

    it("reads nothing from the database for a request without a session cookie", async () => {
      const closed = await openDatabase({ url: db.location, schema: db.schema ?? undefined });
      await closed.close();
      // Any query on a closed database throws: these return without making one.
      expect(await sessionUserFromCookies({ cookieHeader: null, settings, db: closed })).toBeNull();
      expect(await sessionUserFromCookies({ cookieHeader: "theme=dark; other=1", settings, db: closed })).toBeNull();
      await endSessionFromCookies({ cookieHeader: "theme=dark", settings, db: closed });
    });
  });
});
