import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_THROTTLE, checkCredentials, clientAddressOf } from "@/lib/auth/dashboard/credentials.ts";
import { setEnabled } from "@/lib/auth/dashboard/user-admin.ts";
import { openDatabase } from "@/lib/db/open-database.ts";
import { countRecentFailures, startLoginAttempt } from "@/lib/db/users/login-attempts.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { PASSWORD, SYSTEM_ADMIN, createUser, uniqueEmail } from "./dashboard-support.ts";

let address = 0;
const newAddress = () => `10.9.${Math.floor(++address / 250)}.${address % 250}`;

describe.each(DIALECTS)("sign-in checks and throttling on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openMigrated(dialect);
    });
    afterAll(async () => db?.destroy());

    it("accepts the right password (email case-insensitive) and refuses a wrong one or an unknown email alike", async () => {
      const user = await createUser(db);
      const clientAddress = newAddress();
      expect(await checkCredentials(db, { email: user.email.toUpperCase(), password: PASSWORD, clientAddress })).toMatchObject({ ok: true, user: { id: user.id } });
      expect(await checkCredentials(db, { email: user.email, password: "wrong password!", clientAddress })).toEqual({ ok: false, reason: "invalid" });
      expect(await checkCredentials(db, { email: uniqueEmail("nobody"), password: PASSWORD, clientAddress })).toEqual({ ok: false, reason: "invalid" });
    });

    it("refuses a disabled user with the same generic answer, even with the right password", async () => {
      const user = await createUser(db);
      await setEnabled(db, { principal: SYSTEM_ADMIN, userId: user.id, enabled: false });
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: newAddress() })).toEqual({ ok: false, reason: "invalid" });
    });

    it("allows 5 failures per account in 15 minutes; the 6th attempt is refused without checking the password", async () => {
      const user = await createUser(db);
      for (let i = 0; i < SIGN_IN_THROTTLE.maxAccountFailures; i++) {
        // Each from another address: the account counter, not the address one, must trip.
        expect(await checkCredentials(db, { email: user.email, password: `wrong-${i}-password`, clientAddress: newAddress() })).toEqual({ ok: false, reason: "invalid" });
      }
      expect(await checkCredentials(db, { email: user.email, password: "wrong-6-password", clientAddress: newAddress() })).toEqual({ ok: false, reason: "throttled" });
      // The right password does not get through either while the account is locked.
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: newAddress() })).toEqual({ ok: false, reason: "throttled" });
      // 15 minutes later, it does.
      const later = Date.now() + SIGN_IN_THROTTLE.windowMs + 1000;
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: newAddress(), now: later })).toMatchObject({ ok: true });
    });

    it("throttles an unknown email exactly like a real one (no enumeration through the lock)", async () => {
      const email = uniqueEmail("ghost");
      for (let i = 0; i < SIGN_IN_THROTTLE.maxAccountFailures; i++) {
        expect((await checkCredentials(db, { email, password: "whatever-password", clientAddress: newAddress() })).ok).toBe(false);
      }
      expect(await checkCredentials(db, { email, password: "whatever-password", clientAddress: newAddress() })).toEqual({ ok: false, reason: "throttled" });
    });

    it("a successful sign-in resets the account's count", async () => {
      const user = await createUser(db);
      const clientAddress = newAddress();
      for (let i = 0; i < 4; i++) await checkCredentials(db, { email: user.email, password: "wrong password!", clientAddress });
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress })).toMatchObject({ ok: true });
      for (let i = 0; i < 4; i++) {
        expect(await checkCredentials(db, { email: user.email, password: "wrong password!", clientAddress })).toEqual({ ok: false, reason: "invalid" });
      }
    });

    it("allows 50 failures per client address across accounts; the 51st is refused, other addresses are not", async () => {
      const clientAddress = newAddress();
      const now = Date.now();
      // 50 failures on 50 different accounts from one address (recorded as the sign-in path records them).
      for (let i = 0; i < SIGN_IN_THROTTLE.maxAddressFailures; i++) {
        await startLoginAttempt(db, { account: uniqueEmail(`spray-${i}`), clientAddress, at: now - 1000 });
      }
      expect((await countRecentFailures(db, { account: "x", clientAddress, since: now - SIGN_IN_THROTTLE.windowMs })).clientAddress).toBe(50);
      const victim = await createUser(db);
      expect(await checkCredentials(db, { email: victim.email, password: PASSWORD, clientAddress })).toEqual({ ok: false, reason: "throttled" });
      expect(await checkCredentials(db, { email: victim.email, password: PASSWORD, clientAddress: newAddress() })).toMatchObject({ ok: true });
    });

    it("counts in the database, so another connection (another replica) sees the same lock", async () => {
      const user = await createUser(db);
      for (let i = 0; i < SIGN_IN_THROTTLE.maxAccountFailures; i++) {
        await checkCredentials(db, { email: user.email, password: "wrong password!", clientAddress: newAddress() });
      }
      // A second, independent connection to the same storage, as another replica would hold.
      const replica = await openDatabase({ url: db.location, schema: db.schema ?? undefined });
      try {
        expect(await checkCredentials(replica, { email: user.email, password: PASSWORD, clientAddress: newAddress() })).toEqual({ ok: false, reason: "throttled" });
      } finally {
        await replica.close();
      }
    });
  });
});

describe("client address", () => {
  it("is the last X-Forwarded-For entry (the one Next.js or the nearest proxy added)", () => {
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "203.0.113.9, 10.0.0.2" }))).toBe("10.0.0.2");
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "127.0.0.1" }))).toBe("127.0.0.1");
    expect(clientAddressOf(new Headers())).toBe("unknown");
  });
});
