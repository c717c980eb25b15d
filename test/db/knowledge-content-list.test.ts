import { describe, expect, it } from "vitest";
import { listContentPage, type ListContentPageOptions } from "@/lib/db/knowledge/content-list.ts";
import { STALE_CONTENT_SECONDS } from "@/lib/db/knowledge/contents.ts";
import { uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";

const NOW = () => Math.floor(Date.now() / 1000);

/** A content row as Agno writes it, straight into the table. */
async function seed(db: TestDb, row: { userId: string | null; name: string; linkedTo?: string; status?: string; createdAt: number; updatedAt?: number; message?: string }): Promise<string> {
  const id = uid("content");
  await db.sql.exec(
    `INSERT INTO agno_knowledge (id, user_id, name, description, metadata, type, size, linked_to, access_count, status, status_message, created_at, updated_at, external_id)
     VALUES (?, ?, ?, '', NULL, 'manual', 10, ?, 0, ?, ?, ?, ?, NULL)`,
    [id, row.userId, row.name, row.linkedTo ?? "Docs", row.status ?? "completed", row.message ?? "", row.createdAt, row.updatedAt ?? row.createdAt],
  );
  return id;
}

/** Every page's names, following `next` cursors from the first. */
async function walk(db: TestDb, options: Omit<ListContentPageOptions, "after" | "before">): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listContentPage(db, { ...options, after });
    pages.push(page.rows.map((r) => r.name));
    if (!page.next) return pages;
    after = page.next;
  }
}

describe.each(DIALECTS)("listContentPage on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("pages forward and back by keyset, newest first or by name, within one knowledge base", async () => {
      const p = mintPrincipals();
      const linkedTo = uid("base");
      const t0 = NOW() - 100;
      for (const [i, name] of ["delta", "alpha", "echo", "bravo", "charlie"].entries()) await seed(db, { userId: p.userA, name, linkedTo, createdAt: t0 + i });
      await seed(db, { userId: p.userA, name: "elsewhere", linkedTo: uid("other"), createdAt: t0 });
      const scope = p.scopes.a;
      expect(await walk(db, { scope, linkedTo, limit: 2 })).toEqual([["charlie", "bravo"], ["echo", "alpha"], ["delta"]]);
      expect(await walk(db, { scope, linkedTo, limit: 3, sortBy: "name", order: "asc" })).toEqual([
        ["alpha", "bravo", "charlie"],
        ["delta", "echo"],
      ]);
      const first = await listContentPage(db, { scope, linkedTo, limit: 2 });
      expect(first).toMatchObject({ prev: null, total: { count: 5, capped: false } });
      const second = await listContentPage(db, { scope, linkedTo, limit: 2, after: first.next! });
      const back = await listContentPage(db, { scope, linkedTo, limit: 2, before: second.prev! });
      expect(back.rows.map((r) => r.name)).toEqual(["charlie", "bravo"]);
    });

    it("is scoped: a member sees its own and the shared contents; an admin everyone's, or one user's and the shared ones", async () => {
      const p = mintPrincipals();
      const linkedTo = uid("base");
      const t0 = NOW() - 100;
      await seed(db, { userId: p.userA, name: "a's", linkedTo, createdAt: t0 });
      await seed(db, { userId: p.userB, name: "b's", linkedTo, createdAt: t0 + 1 });
      await seed(db, { userId: null, name: "shared", linkedTo, createdAt: t0 + 2 });
      const names = async (scope: ListContentPageOptions["scope"]) => (await listContentPage(db, { scope, linkedTo, limit: 50 })).rows.map((r) => r.name).sort();
      expect(await names(p.scopes.a)).toEqual(["a's", "shared"]);
      expect(await names(p.scopes.b)).toEqual(["b's", "shared"]);
      expect(await names(adminScope())).toEqual(["a's", "b's", "shared"]);
      expect(await names(adminScope(p.userB))).toEqual(["b's", "shared"]);
    });

    it("filters by the status a read reports: a processing content nothing works on any more is failed, with why", async () => {
      const p = mintPrincipals();
      const linkedTo = uid("base");
      const now = NOW();
      await seed(db, { userId: p.userA, name: "done", linkedTo, createdAt: now - 10 });
      await seed(db, { userId: p.userA, name: "working", linkedTo, status: "processing", createdAt: now - 5 });
      await seed(db, { userId: p.userA, name: "broken", linkedTo, status: "failed", message: "not a PDF", createdAt: now - 4 });
      await seed(db, { userId: p.userA, name: "abandoned", linkedTo, status: "processing", createdAt: now - STALE_CONTENT_SECONDS - 60 });
      const scope = p.scopes.a;
      const of = async (status: "processing" | "completed" | "failed") => (await listContentPage(db, { scope, linkedTo, limit: 50, status })).rows;
      expect((await of("completed")).map((r) => r.name)).toEqual(["done"]);
      expect((await of("processing")).map((r) => r.name)).toEqual(["working"]);
      const failed = await of("failed");
      expect(failed.map((r) => r.name)).toEqual(["broken", "abandoned"]);
      expect(failed[0]).toMatchObject({ status: "failed", status_message: "not a PDF" });
      expect(failed[1]!.status_message).toContain("Processing was interrupted");
      expect((await listContentPage(db, { scope, linkedTo, limit: 50, status: "failed" })).total).toEqual({ count: 2, capped: false });
    });
  });
});
