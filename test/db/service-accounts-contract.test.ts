import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createServiceAccount, getServiceAccount, listServiceAccounts, revokeServiceAccount, touchLastUsed, unsafeFindServiceAccountByTokenHash, type NewServiceAccount } from "@/lib/db/index.ts";
import { ConflictError } from "@/lib/errors/domain-errors.ts";
import { uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";

const T0 = 1_750_000_000;

function newAccount(overrides: Partial<NewServiceAccount> = {}): NewServiceAccount & { token: string } {
  const token = `agno_pat_${randomBytes(32).toString("base64url")}`;
  return {
    token,
    id: uid("sa"),
    name: uid("name"),
    tokenHash: createHash("sha256").update(token).digest("hex"),
    tokenPrefix: token.slice(0, 13),
    scopes: [
      { scope: "sessions:read", effect: "allow" },
      { scope: "sessions:delete", effect: "deny" },
    ],
    expiresAt: T0 + 86_400,
    createdBy: "creator",
    now: T0,
    ...overrides,
  };
}

describe.each(DIALECTS)("service accounts contract on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)("service accounts", () => {
    it("createServiceAccount stamps a non-admin as owner and stores the hash, never the token", async () => {
      const p = mintPrincipals();
      const input = newAccount({ userId: p.userB });
      const created = await createServiceAccount(db, { scope: p.scopes.a, account: input });
      expect(created).toEqual({
        id: input.id,
        name: input.name,
        user_id: p.userA,
        token_prefix: input.token.slice(0, 13),
        scopes: input.scopes,
        created_at: T0,
        expires_at: T0 + 86_400,
        last_used_at: null,
        revoked_at: null,
        created_by: "creator",
      });
      const [row] = await db.sql.query("SELECT * FROM agno_service_accounts WHERE id = ?", [input.id]);
      expect(row.token_hash).toBe(input.tokenHash);
      expect(JSON.stringify(row)).not.toContain(input.token);
      const byAdmin = await createServiceAccount(db, { scope: adminScope(), account: newAccount({ userId: p.userB }) });
      expect(byAdmin.user_id).toBe(p.userB);
      const ownerless = await createServiceAccount(db, { scope: adminScope(), account: newAccount({ userId: null }) });
      expect(ownerless.user_id).toBeNull();
    });

    it("refuses a second active account of the same name (ConflictError), and allows it after revocation", async () => {
      const p = mintPrincipals();
      const name = uid("dup");
      const first = await createServiceAccount(db, { scope: p.scopes.a, account: newAccount({ name }) });
      await expect(createServiceAccount(db, { scope: p.scopes.a, account: newAccount({ name }) })).rejects.toThrow(ConflictError);
      await revokeServiceAccount(db, { scope: p.scopes.a, id: first.id, now: T0 + 5 });
      const second = await createServiceAccount(db, { scope: p.scopes.a, account: newAccount({ name }) });
      expect(second.name).toBe(name);
    });

    it("getServiceAccount and listServiceAccounts see only the scope's own accounts; an admin sees all", async () => {
      const p = mintPrincipals();
      const ofA = await createServiceAccount(db, { scope: p.scopes.a, account: newAccount() });
      const ofB = await createServiceAccount(db, { scope: p.scopes.b, account: newAccount() });
      expect(await getServiceAccount(db, { scope: p.scopes.b, id: ofA.id })).toBeNull();
      expect((await getServiceAccount(db, { scope: p.scopes.a, id: ofA.id }))?.id).toBe(ofA.id);
      expect((await getServiceAccount(db, { scope: adminScope(), id: ofB.id }))?.id).toBe(ofB.id);
      const listA = await listServiceAccounts(db, { scope: p.scopes.a });
      expect(listA.accounts.map((a) => a.id)).toEqual([ofA.id]);
      expect(listA.totalCount).toBe(1);
      const all = await listServiceAccounts(db, { scope: adminScope() });
      expect(all.accounts.map((a) => a.id)).toEqual(expect.arrayContaining([ofA.id, ofB.id]));
      const onlyB = await listServiceAccounts(db, { scope: adminScope(p.userB) });
      expect(onlyB.accounts.map((a) => a.id)).toEqual([ofB.id]);
    });

    it("lists with include_revoked, pages, and sorts (NULLs last either way)", async () => {
      const p = mintPrincipals();
      const mk = (name: string, lastUsed: number | null, at: number) =>
        createServiceAccount(db, { scope: p.scopes.a, account: newAccount({ name: `${name}-${p.userA}`, now: at }) }).then(async (a) => {
          if (lastUsed !== null) await touchLastUsed(db, { scope: p.scopes.a, id: a.id, now: lastUsed });
          return a;
        });
      const b = await mk("b", T0 + 100, T0 + 1);
      const a = await mk("a", null, T0 + 2);
      const c = await mk("c", T0 + 300, T0 + 3);
      await revokeServiceAccount(db, { scope: p.scopes.a, id: c.id, now: T0 + 10 });

      const active = await listServiceAccounts(db, { scope: p.scopes.a });
      expect(active.accounts.map((x) => x.id)).toEqual([a.id, b.id]);
      const all = await listServiceAccounts(db, { scope: p.scopes.a, includeRevoked: true, sortBy: "name", sortOrder: "asc" });
      expect(all.accounts.map((x) => x.id)).toEqual([a.id, b.id, c.id]);
      expect(all.totalCount).toBe(3);
      const paged = await listServiceAccounts(db, { scope: p.scopes.a, includeRevoked: true, sortBy: "created_at", sortOrder: "asc", page: 2, limit: 2 });
      expect(paged).toMatchObject({ totalCount: 3 });
      expect(paged.accounts.map((x) => x.id)).toEqual([c.id]);
      for (const sortOrder of ["asc", "desc"] as const) {
        const byUse = await listServiceAccounts(db, { scope: p.scopes.a, includeRevoked: true, sortBy: "last_used_at", sortOrder });
        expect(byUse.accounts.map((x) => x.id)).toEqual(sortOrder === "asc" ? [b.id, c.id, a.id] : [c.id, b.id, a.id]);
      }
    });

    it("revokeServiceAccount stamps revoked_at once, keeps the row, and cannot touch another owner's account", async () => {
      const p = mintPrincipals();
      const ofA = await createServiceAccount(db, { scope: p.scopes.a, account: newAccount() });
      expect(await revokeServiceAccount(db, { scope: p.scopes.b, id: ofA.id, now: T0 + 1 })).toBeNull();
      expect((await getServiceAccount(db, { scope: p.scopes.a, id: ofA.id }))?.revoked_at).toBeNull();
      expect((await revokeServiceAccount(db, { scope: p.scopes.a, id: ofA.id, now: T0 + 2 }))?.revoked_at).toBe(T0 + 2);
      expect((await revokeServiceAccount(db, { scope: p.scopes.a, id: ofA.id, now: T0 + 3 }))?.revoked_at).toBe(T0 + 2);
      expect(await revokeServiceAccount(db, { scope: adminScope(), id: uid("missing") })).toBeNull();
      const rows = await db.sql.query("SELECT id FROM agno_service_accounts WHERE id = ?", [ofA.id]);
      expect(rows).toHaveLength(1);
    });

    it("unsafeFindServiceAccountByTokenHash finds an account by its hash alone, revoked ones too", async () => {
      const p = mintPrincipals();
      const input = newAccount();
      const created = await createServiceAccount(db, { scope: p.scopes.a, account: input });
      expect((await unsafeFindServiceAccountByTokenHash(db, input.tokenHash))?.id).toBe(created.id);
      expect(await unsafeFindServiceAccountByTokenHash(db, createHash("sha256").update("other").digest("hex"))).toBeNull();
      await revokeServiceAccount(db, { scope: p.scopes.a, id: created.id, now: T0 + 1 });
      expect((await unsafeFindServiceAccountByTokenHash(db, input.tokenHash))?.revoked_at).toBe(T0 + 1);
    });

    it("touchLastUsed writes at most once a minute, and only within the scope", async () => {
      const p = mintPrincipals();
      const { id } = await createServiceAccount(db, { scope: p.scopes.a, account: newAccount() });
      expect(await touchLastUsed(db, { scope: p.scopes.b, id, now: T0 })).toBe(false);
      expect(await touchLastUsed(db, { scope: p.scopes.a, id, now: T0 })).toBe(true);
      expect(await touchLastUsed(db, { scope: p.scopes.a, id, now: T0 + 59 })).toBe(false);
      expect((await getServiceAccount(db, { scope: p.scopes.a, id }))?.last_used_at).toBe(T0);
      expect(await touchLastUsed(db, { scope: p.scopes.a, id, now: T0 + 60 })).toBe(true);
      expect((await getServiceAccount(db, { scope: p.scopes.a, id }))?.last_used_at).toBe(T0 + 60);
    });
  });
});
