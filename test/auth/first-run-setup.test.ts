import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setupFirstAdmin, setupIsOpen } from "@/lib/auth/dashboard/account-setup.ts";
import { checkCredentials } from "@/lib/auth/dashboard/credentials.ts";
import { listUsers } from "@/lib/db/users/users.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { PASSWORD } from "./dashboard-support.ts";
import { adminScope } from "../support/scopes.ts";

describe.each(DIALECTS)("first-run setup on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    beforeEach(async () => {
      db = await openMigrated(dialect);
    });
    afterEach(async () => db?.destroy());

    it("is open only while no user exists, and creates the first admin (email lower-cased, password hashed)", async () => {
      expect(await setupIsOpen(db)).toBe(true);
      const result = await setupFirstAdmin(db, { email: "  Owner@Example.TEST ", name: "Owner", password: PASSWORD });
      expect(result).toMatchObject({ ok: true, user: { email: "owner@example.test", role: "admin", name: "Owner", disabledAt: null, hasPassword: true } });
      expect(await setupIsOpen(db)).toBe(false);
      const [row] = await db.sql.query<{ password_hash: string }>(`SELECT password_hash FROM agentry_users`);
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(row.password_hash).not.toContain(PASSWORD);
      expect(await checkCredentials(db, { email: "owner@example.test", password: PASSWORD, clientAddress: "127.0.0.1" })).toMatchObject({ ok: true });
    });

    it("is refused once a user exists: no second admin through setup", async () => {
      expect((await setupFirstAdmin(db, { email: "first@example.test", name: "", password: PASSWORD })).ok).toBe(true);
      expect(await setupFirstAdmin(db, { email: "second@example.test", name: "", password: PASSWORD })).toEqual({
        ok: false,
        error: "Setup is already complete. Sign in instead.",
      });
      expect((await listUsers(db, { scope: adminScope() })).map((u) => u.email)).toEqual(["first@example.test"]);
    });

    it("two setups at once create exactly one admin", async () => {
      const results = await Promise.all(["a", "b", "c"].map((who) => setupFirstAdmin(db, { email: `${who}@example.test`, name: who, password: PASSWORD })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(await listUsers(db, { scope: adminScope() })).toHaveLength(1);
    });

    it("refuses a bad email or a short password without creating anyone", async () => {
      expect(await setupFirstAdmin(db, { email: "not-an-email", name: "", password: PASSWORD })).toMatchObject({ ok: false });
      expect(await setupFirstAdmin(db, { email: "ok@example.test", name: "", password: "short" })).toMatchObject({ ok: false, error: expect.stringMatching(/at least 10/) });
      expect(await setupIsOpen(db)).toBe(true);
    });

    it("refuses a NUL or lone surrogate in the email or name, and an over-long name, without creating anyone", async () => {
      for (const [email, name, error] of [
        ["nul\u0000@example.test", "", /valid email/],
        ["ok@example.test", "Own\u0000er", /control characters/],
        ["ok@example.test", "half \ud800", /control characters/],
        ["ok@example.test", "n".repeat(201), /at most 200/],
        [`${"a".repeat(250)}@example.test`, "", /valid email/],
      ] as const) {
        expect(await setupFirstAdmin(db, { email, name, password: PASSWORD }), name || email).toMatchObject({ ok: false, error: expect.stringMatching(error) });
      }
      expect(await setupIsOpen(db)).toBe(true);
    });
  });
});
