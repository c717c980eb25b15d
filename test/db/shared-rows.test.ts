import { beforeAll, describe, expect, it } from "vitest";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { getMemory, upsertMemory } from "@/lib/db/memories/memories.ts";
import { canWrite, ownerSql, ownerWhere, unsafeSystemScope, type DataScope } from "@/lib/db/scope.ts";
import { ConflictError } from "@/lib/errors/domain-errors.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";

/**
 * Owner-less rows are shared: resources that allow it (metrics of user-less sessions, shared
 * knowledge, pre-v3 documents) let everyone read them, but only admins change them. These are the
 * primitives those resources build on, run against stored rows on each dialect: which of alice's,
 * bob's and a shared row each scope reads (through the raw-SQL filter and the Prisma one alike)
 * and which it may change.
 */
describe.each(DIALECTS)("shared (owner-less) rows on $name", (dialect) => {
  const { admin, a: alice, b: bob, userA, userB } = mintPrincipals();
  let db: TestDb;
  let seq = 0;

  useMigratedDb(dialect, (opened) => (db = opened));

  /** Fresh rows of alice's, bob's and a shared one, written as each owner. */
  async function seed(): Promise<{ alice: string; bob: string; shared: string }> {
    const tag = `${userA}-${++seq}`;
    const rows = { alice: `mem-alice-${tag}`, bob: `mem-bob-${tag}`, shared: `mem-shared-${tag}` };
    await upsertMemory(db, { scope: unsafeSystemScope("test fixture", { actingAs: userA }), memory: { memoryId: rows.alice, memory: "alice's" } });
    await upsertMemory(db, { scope: unsafeSystemScope("test fixture", { actingAs: userB }), memory: { memoryId: rows.bob, memory: "bob's" } });
    await upsertMemory(db, { scope: unsafeSystemScope("test fixture", { actingAs: null }), memory: { memoryId: rows.shared, memory: "everyone's" } });
    return rows;
  }

  /** Which of `rows` a scope reads, through `ownerSql` and through `ownerWhere` (they must agree), by name. */
  async function readable(rows: Record<string, string>, scope: DataScope, options: { includeShared?: boolean } = {}): Promise<string[]> {
    const ids = Object.values(rows);
    const owner = ownerSql(scope, "user_id", options);
    const viaSql = await db.sql.query<{ memory_id: string }>(`SELECT memory_id FROM agno_memories WHERE memory_id IN (${ids.map(() => "?").join(", ")}) AND ${owner.clause} ORDER BY memory_id`, [
      ...ids,
      ...owner.params,
    ]);
    const viaPrisma = await db.prisma.memory.findMany({ where: { memory_id: { in: ids }, ...ownerWhere(scope, options) }, orderBy: { memory_id: "asc" } });
    expect(viaPrisma.map((r) => r.memory_id)).toEqual(viaSql.map((r) => r.memory_id));
    const names = new Map(Object.entries(rows).map(([name, id]) => [id, name]));
    return viaSql.map((r) => names.get(r.memory_id)!).sort();
  }

  describe.skipIf(dialect.skipReason !== null)("reads", () => {
    let rows: Awaited<ReturnType<typeof seed>>;
    beforeAll(async () => {
      if (!dialect.skipReason) rows = await seed();
    });

    it("a member reads its own rows, and the shared ones only where the resource includes them", async () => {
      expect(await readable(rows, dataScopeFor(alice))).toEqual(["alice"]);
      expect(await readable(rows, dataScopeFor(alice), { includeShared: true })).toEqual(["alice", "shared"]);
      expect(await readable(rows, dataScopeFor(bob), { includeShared: true })).toEqual(["bob", "shared"]);
    });

    it("a member naming another user, or no user, still reads only its own rows (and the shared ones where included)", async () => {
      expect(await readable(rows, dataScopeFor(alice, userB))).toEqual(["alice"]);
      expect(await readable(rows, dataScopeFor(alice, null))).toEqual(["alice"]);
      expect(await readable(rows, dataScopeFor(alice, userB), { includeShared: true })).toEqual(["alice", "shared"]);
    });

    it("an admin reads everyone's rows, one user's, or exactly the shared ones", async () => {
      expect(await readable(rows, dataScopeFor(admin))).toEqual(["alice", "bob", "shared"]);
      expect(await readable(rows, dataScopeFor(admin, userB))).toEqual(["bob"]);
      expect(await readable(rows, dataScopeFor(admin, null))).toEqual(["shared"]);
    });
  });

  describe.skipIf(dialect.skipReason !== null)("writes", () => {
    it("a member may change only its own rows; shared rows are admins' alone", () => {
      const owners = { alice: userA, bob: userB, shared: null };
      const writable = (scope: DataScope) =>
        Object.entries(owners)
          .filter(([, owner]) => canWrite(scope, owner))
          .map(([name]) => name);
      expect(writable(dataScopeFor(alice))).toEqual(["alice"]);
      expect(writable(dataScopeFor(bob))).toEqual(["bob"]);
      expect(writable(dataScopeFor(admin))).toEqual(["alice", "bob", "shared"]);
    });

    it("a member's write over a shared or another user's row is refused and changes nothing; an admin's lands", async () => {
      const rows = await seed();
      for (const target of [rows.shared, rows.bob]) {
        const refused = await upsertMemory(db, { scope: dataScopeFor(alice), memory: { memoryId: target, memory: "alice was here" } }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(ConflictError);
      }
      const everyone = unsafeSystemScope("test: read the fixture back");
      expect(await getMemory(db, { scope: everyone, memoryId: rows.shared })).toMatchObject({ memory: "everyone's", user_id: null });
      expect(await getMemory(db, { scope: everyone, memoryId: rows.bob })).toMatchObject({ memory: "bob's", user_id: userB });

      await upsertMemory(db, { scope: dataScopeFor(admin, null), memory: { memoryId: rows.shared, memory: "everyone's, edited" } });
      expect(await getMemory(db, { scope: everyone, memoryId: rows.shared })).toMatchObject({ memory: "everyone's, edited", user_id: null });
    });

    it("a member's new row is stamped with its own id, whatever owner it names", async () => {
      const id = `mem-stamp-${userA}-${++seq}`;
      await upsertMemory(db, { scope: dataScopeFor(alice), memory: { memoryId: id, memory: "mine", userId: null } });
      expect(await getMemory(db, { scope: unsafeSystemScope("test: read it back"), memoryId: id })).toMatchObject({ user_id: userA });
    });
  });
});
