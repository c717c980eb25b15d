import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_THROTTLE, backoffDelayMs, checkCredentials } from "@/lib/auth/dashboard/credentials.ts";
import { setEnabled } from "@/lib/auth/dashboard/user-admin.ts";
import { openDatabase } from "@/lib/db/open-database.ts";
import { startLoginAttempt } from "@/lib/db/users/login-attempts.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { PASSWORD, SYSTEM_ADMIN, createUser, uniqueEmail } from "./dashboard-support.ts";

let address = 0;
const newAddress = () => `10.9.${Math.floor(++address / 250)}.${address % 250}`;
const { freeFailures, baseDelayMs, maxDelayMs } = SIGN_IN_THROTTLE;

describe("the backoff", () => {
  it("is free for the first failures, then doubles from 30 s up to 15 minutes", () => {
    expect([0, 1, freeFailures - 1].map(backoffDelayMs)).toEqual([0, 0, 0]);
    expect([5, 6, 7, 8, 9].map(backoffDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
    expect(backoffDelayMs(10)).toBe(maxDelayMs);
    expect(backoffDelayMs(10_000)).toBe(maxDelayMs);
  });
});

describe.each(DIALECTS)("sign-in checks and throttling on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openMigrated(dialect);
    });
    afterAll(async () => db?.destroy());

    /** `count` wrong passwords for `email` from `clientAddress`, 1 ms apart from `at`; returns the time of the last. */
    async function fail(email: string, clientAddress: string, count: number, at = Date.now()): Promise<number> {
      for (let i = 0; i < count; i++) {
        expect(await checkCredentials(db, { email, password: `wrong-${i}-password`, clientAddress, now: at + i })).toEqual({ ok: false, reason: "invalid" });
      }
      return at + count - 1;
    }

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

    it("five failures from one address do not lock the account: its owner signs in from another address at once", async () => {
      const user = await createUser(db);
      const attacker = newAddress();
      const last = await fail(user.email, attacker, freeFailures);
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: attacker, now: last + 1 })).toMatchObject({ ok: false, reason: "throttled" });
      // However many more the attacker tries, from as many addresses as it likes.
      for (let i = 0; i < 3; i++) await fail(user.email, newAddress(), freeFailures, last + 10 * i);
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: newAddress(), now: last + 100 })).toMatchObject({ ok: true });
    });

    it("counts an IPv6 client by its /64: another address in the same /64 is the same client, another /64 is not", async () => {
      const user = await createUser(db);
      const site = `2001:db8:${(++address).toString(16)}:7`;
      const last = await fail(user.email, `${site}::1`, freeFailures);
      for (const sameClient of [`${site}::2`, `${site}:ffff:ffff:ffff:ffff`, `${site}:0:0:0:9`]) {
        expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: sameClient, now: last + 1 }), sameClient).toMatchObject({ ok: false, reason: "throttled" });
      }
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: `${site.slice(0, -1)}8::1`, now: last + 1 })).toMatchObject({ ok: true });
    });

    it("backs off per (account, address): 30 s after the 5th failure, then twice as long after each further one, up to 15 minutes", async () => {
      const user = await createUser(db);
      const from = newAddress();
      let last = await fail(user.email, from, freeFailures);
      for (let failures = freeFailures; failures < freeFailures + 7; failures++) {
        const wait = Math.min(maxDelayMs, baseDelayMs * 2 ** (failures - freeFailures));
        // Refused just before the wait is over — even with the right password, which is not checked.
        expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: from, now: last + wait - 1000 })).toEqual({
          ok: false,
          reason: "throttled",
          retryAfterSeconds: 1,
        });
        // Refusals do not lengthen the wait: once it is over, one more attempt is let through.
        last = await fail(user.email, from, 1, last + wait);
      }
      expect(backoffDelayMs(freeFailures + 7)).toBe(maxDelayMs);
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: from, now: last + 1 })).toEqual({
        ok: false,
        reason: "throttled",
        retryAfterSeconds: maxDelayMs / 1000,
      });
      // After the wait, the right password gets in, and the pair starts over with its free failures.
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: from, now: last + maxDelayMs })).toMatchObject({ ok: true });
      await fail(user.email, from, freeFailures, last + maxDelayMs + 1);
    });

    it("throttles an unknown email exactly like a real one (no enumeration through the backoff)", async () => {
      const email = uniqueEmail("ghost");
      const from = newAddress();
      const last = await fail(email, from, freeFailures);
      expect(await checkCredentials(db, { email, password: "whatever-password", clientAddress: from, now: last + 1 })).toEqual({
        ok: false,
        reason: "throttled",
        retryAfterSeconds: baseDelayMs / 1000,
      });
    });

    it("a successful sign-in resets that address's count for the account", async () => {
      const user = await createUser(db);
      const from = newAddress();
      const last = await fail(user.email, from, freeFailures - 1);
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: from, now: last + 1 })).toMatchObject({ ok: true });
      await fail(user.email, from, freeFailures - 1, last + 2);
    });

    it("forgets a pair's failures after a day", async () => {
      const user = await createUser(db);
      const from = newAddress();
      const now = Date.now();
      await fail(user.email, from, freeFailures, now - SIGN_IN_THROTTLE.pairMemoryMs - 60_000);
      // Remembered, those would make this the 6th failure and the next attempt wait a minute.
      await fail(user.email, from, 1, now);
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: from, now: now + 1 })).toMatchObject({ ok: true });
    });

    it("allows 50 failures per client address across accounts; the 51st is refused, other addresses are not", async () => {
      const clientAddress = newAddress();
      const now = Date.now();
      // 50 failures on 50 different accounts from one address (recorded as the sign-in path records them).
      for (let i = 0; i < SIGN_IN_THROTTLE.maxAddressFailures; i++) {
        await startLoginAttempt(db, { account: uniqueEmail(`spray-${i}`), clientAddress, at: now - 1000 });
      }
      const victim = await createUser(db);
      expect(await checkCredentials(db, { email: victim.email, password: PASSWORD, clientAddress, now })).toEqual({
        ok: false,
        reason: "throttled",
        retryAfterSeconds: (SIGN_IN_THROTTLE.addressWindowMs - 1000) / 1000,
      });
      expect(await checkCredentials(db, { email: victim.email, password: PASSWORD, clientAddress: newAddress(), now })).toMatchObject({ ok: true });
    });

    it("counts in the database, so another connection (another replica) sees the same backoff", async () => {
      const user = await createUser(db);
      const from = newAddress();
      const last = await fail(user.email, from, freeFailures);
      // A second, independent connection to the same storage, as another replica would hold.
      const replica = await openDatabase({ url: db.location, schema: db.schema ?? undefined });
      try {
        expect(await checkCredentials(replica, { email: user.email, password: PASSWORD, clientAddress: from, now: last + 1 })).toMatchObject({ ok: false, reason: "throttled" });
        expect(await checkCredentials(replica, { email: user.email, password: PASSWORD, clientAddress: newAddress(), now: last + 1 })).toMatchObject({ ok: true });
      } finally {
        await replica.close();
      }
    });

    it("concurrent attempts from one address see each other: a burst past the free failures is refused", async () => {
      const user = await createUser(db);
      const from = newAddress();
      const now = Date.now();
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => checkCredentials(db, { email: user.email, password: `burst-${i}-password`, clientAddress: from, now })));
      // Each attempt is recorded before it counts, and only refused ones are forgotten: however the
      // attempts interleave, at most the free failures reach the password check.
      const reasons = results.map((r) => ("reason" in r ? r.reason : "ok"));
      expect(reasons.filter((r) => r === "invalid").length).toBeLessThanOrEqual(freeFailures);
      expect(reasons.filter((r) => r === "throttled").length).toBeGreaterThanOrEqual(12 - freeFailures);
    });
  });
});
