import { describe, expect, it } from "vitest";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { PaginationError } from "@/lib/errors/domain-errors.ts";
import { listMemoryPage, type ListMemoryPageOptions } from "@/lib/db/memories/memory-list.ts";
import { upsertMemory } from "@/lib/db/memories/memories.ts";
import { uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";

const T0 = 1_800_000_000;

/** A memory as Agno writes it, straight into the table: its times chosen, updated_at possibly NULL. */
async function seed(db: TestDb, row: { userId: string | null; memory: unknown; topics?: unknown; createdAt: number; updatedAt: number | null }): Promise<string> {
  const id = uid("mem");
  await db.sql.exec(`INSERT INTO agno_memories (memory_id, memory, topics, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, [
    id,
    typeof row.memory === "string" && row.memory.startsWith("raw:") ? row.memory.slice(4) : JSON.stringify(row.memory),
    row.topics === undefined ? null : JSON.stringify(row.topics),
    row.userId,
    row.createdAt,
    row.updatedAt,
  ]);
  return id;
}

/** Every page, following `next` cursors from the first. */
async function walk(db: TestDb, options: Omit<ListMemoryPageOptions, "after" | "before">): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listMemoryPage(db, { ...options, after });
    pages.push(page.rows.map((r) => r.memory));
    if (!page.next) return pages;
    after = page.next;
  }
}

describe.each(DIALECTS)("listMemoryPage on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("pages forward and back by keyset, newest update first; a row without updated_at sorts by its created_at", async () => {
      const p = mintPrincipals();
      // m0…m6, updated one minute apart; m3 never updated (an Agno row), created at m3's slot.
      for (let i = 0; i < 7; i++) {
        await seed(db, { userId: p.userA, memory: `m${i}`, createdAt: T0 + i, updatedAt: i === 3 ? null : T0 + 60 * i });
      }
      const scope = p.scopes.a;
      expect(await walk(db, { scope, limit: 3 })).toEqual([["m6", "m5", "m4"], ["m2", "m1", "m3"], ["m0"]]);
      const first = await listMemoryPage(db, { scope, limit: 3 });
      expect(first).toMatchObject({ prev: null, total: { count: 7, capped: false } });
      const second = await listMemoryPage(db, { scope, limit: 3, after: first.next! });
      expect(second.prev).not.toBeNull();
      const back = await listMemoryPage(db, { scope, limit: 3, before: second.prev! });
      expect(back.rows.map((r) => r.memory)).toEqual(["m6", "m5", "m4"]);
      expect(back.prev).toBeNull();
      expect(second.rows.find((r) => r.memory === "m3")).toMatchObject({ created_at: T0 + 3, updated_at: T0 + 3 });

      expect(await walk(db, { scope, limit: 4, sortBy: "created_at", order: "asc" })).toEqual([
        ["m0", "m1", "m2", "m3"],
        ["m4", "m5", "m6"],
      ]);
    });

    it("is scoped: a user sees only its own memories, whatever user it names; an admin sees everyone's or one user's", async () => {
      const p = mintPrincipals();
      await seed(db, { userId: p.userA, memory: "a's", createdAt: T0, updatedAt: T0 });
      await seed(db, { userId: p.userB, memory: "b's", createdAt: T0, updatedAt: T0 });
      const list = async (scope: ListMemoryPageOptions["scope"]) => (await listMemoryPage(db, { scope, limit: 50, search: "'s" })).rows.map((r) => r.memory).sort();
      expect(await list(dataScopeFor(p.a, p.userB))).toEqual(["a's"]);
      expect(await list(dataScopeFor(p.b))).toEqual(["b's"]);
      expect(await list(adminScope(p.userB))).toEqual(["b's"]);
      expect(await list(adminScope())).toEqual(expect.arrayContaining(["a's", "b's"]));
    });

    it("filters by any of the topics and by case-insensitive text, the text read as written (not as JSON)", async () => {
      const p = mintPrincipals();
      const scope = p.scopes.a;
      await upsertMemory(db, { scope, memory: { memory: 'Says "Bonjour" — 100% of the time', topics: ["language", "greeting"] } });
      await upsertMemory(db, { scope, memory: { memory: "Drinks tea_with milk", topics: ["food"] } });
      await upsertMemory(db, { scope, memory: { memory: "Lives in Lyon", topics: [] } });
      await seed(db, { userId: p.userA, memory: { kind: "structured", value: 1 }, topics: "not-an-array", createdAt: T0, updatedAt: T0 });
      const texts = async (options: Partial<ListMemoryPageOptions>) => (await listMemoryPage(db, { scope, limit: 50, ...options })).rows.map((r) => r.memory).sort();

      expect(await texts({ topics: ["food", "greeting"] })).toEqual(["Drinks tea_with milk", 'Says "Bonjour" — 100% of the time']);
      expect(await texts({ topics: ["nobody-has-this"] })).toEqual([]);
      // Quotes and non-ASCII match as typed; LIKE's wildcards are literal.
      expect(await texts({ search: '"bonjour" —' })).toEqual(['Says "Bonjour" — 100% of the time']);
      expect(await texts({ search: "100%" })).toHaveLength(1);
      expect(await texts({ search: "a_w" })).toEqual(["Drinks tea_with milk"]);
      expect(await texts({ search: "%" })).toEqual(['Says "Bonjour" — 100% of the time']);
      expect(await texts({ search: "lyon", topics: ["food"] })).toEqual([]);
      // A non-string memory is shown as its JSON; topics that are not an array count as none.
      const structured = (await listMemoryPage(db, { scope, limit: 50, search: "structured" })).rows;
      expect(structured).toHaveLength(1);
      expect(JSON.parse(structured[0].memory)).toEqual({ kind: "structured", value: 1 });
      expect(structured[0].topics).toEqual([]);
      expect((await listMemoryPage(db, { scope, limit: 50, search: "bonjour" })).rows[0].topics).toEqual(["language", "greeting"]);
    });

    it.runIf(dialect.name === "sqlite")("reads an Agno SQLite memory stored as plain text (not JSON)", async () => {
      const p = mintPrincipals();
      await seed(db, { userId: p.userA, memory: "raw:plain words, not JSON", createdAt: T0, updatedAt: T0 });
      expect((await listMemoryPage(db, { scope: p.scopes.a, limit: 5, search: "plain" })).rows.map((r) => r.memory)).toEqual(["plain words, not JSON"]);
    });

    it("refuses a cursor it did not issue, both cursors at once, and a limit out of range, naming the problem", async () => {
      const scope = mintPrincipals().scopes.a;
      await expect(listMemoryPage(db, { scope, limit: 10, after: "bm90LWEtY3Vyc29y" })).rejects.toThrow(/cursor is not one this server issued/);
      await expect(listMemoryPage(db, { scope, limit: 10, after: "x", before: "y" })).rejects.toThrow(/either after or before/);
      await expect(listMemoryPage(db, { scope, limit: 0 })).rejects.toBeInstanceOf(PaginationError);
    });
  });
});
