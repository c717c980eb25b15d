import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import { listMemoryPage } from "@/lib/db/memories/memory-list.ts";
import { getMemory, upsertMemory } from "@/lib/db/memories/memories.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { createMemoryAction, deleteMemoryAction, updateMemoryAction } from "@/lib/http/dashboard/memory-actions.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { adminScope } from "../support/scopes.ts";

const settings = testSettings();

describe.each(DIALECTS)("the memories page's actions on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    let admin: Principal;
    let a: Principal;
    let b: Principal;
    const call = (action: DashboardAction, principal: Principal | null, fields: Record<string, string>) => action.run({ principal, formData: formOf(fields), db, settings, origin: ACTION_ORIGIN });
    /** A memory of `owner`'s, written as the API would. */
    const memoryOf = async (owner: Principal, text: string) =>
      (await upsertMemory(db, { scope: dataScopeFor(owner), memory: { memory: text, topics: ["kept"], agentId: "assistant", input: "said so", userId: owner.userId } })).memory_id;

    beforeAll(async () => {
      db = await openMigrated(dialect);
      admin = principalForUser(await createUser(db, { role: "admin" }), settings);
      a = principalForUser(await createUser(db), settings);
      b = principalForUser(await createUser(db), settings);
    });
    afterAll(async () => db?.destroy());

    it("a member adds a memory for itself, whoever the form names; topics are split, trimmed and deduplicated", async () => {
      const result = await call(createMemoryAction, a, { memory: "  Likes green tea  ", topics: " food, drinks,,food , ", userId: b.userId! });
      expect(result).toEqual({ ok: true, message: "Memory added." });
      const [stored] = (await listMemoryPage(db, { scope: adminScope(), limit: 10, search: "green tea" })).rows;
      expect(stored).toMatchObject({ memory: "Likes green tea", topics: ["food", "drinks"], user_id: a.userId });
      // Stored as the API stores it: the memory column is the text (a JSON string).
      expect(await getMemory(db, { scope: dataScopeFor(a), memoryId: stored.memory_id })).toMatchObject({ memory: "Likes green tea" });
    });

    it("user B can neither read, edit nor delete user A's memory: it is not found, and nothing changes", async () => {
      const id = await memoryOf(a, "A's secret");
      expect((await listMemoryPage(db, { scope: dataScopeFor(b, a.userId), limit: 50 })).rows.map((r) => r.memory_id)).not.toContain(id);

      const edit = await call(updateMemoryAction, b, { memoryId: id, memory: "hijacked", topics: "" });
      expect(edit).toMatchObject({ ok: false, status: 404, error: `Memory ${id} was not found (it may have been deleted).` });
      expect(await call(deleteMemoryAction, b, { memoryId: id })).toMatchObject({ ok: false, status: 404 });
      expect(await getMemory(db, { scope: adminScope(), memoryId: id })).toMatchObject({ memory: "A's secret", user_id: a.userId, topics: ["kept"] });
      // A memory id that does not exist reads the same, so B learns nothing about A's.
      expect(await call(deleteMemoryAction, b, { memoryId: "no-such-memory" })).toMatchObject({ ok: false, status: 404 });
    });

    it("the owner edits text and topics, keeping where the memory came from; then deletes it, once", async () => {
      const id = await memoryOf(a, "Lives in Paris");
      expect(await call(updateMemoryAction, a, { memoryId: id, memory: "Lives in Lyon", topics: "home" })).toEqual({ ok: true, message: "Memory saved." });
      expect(await getMemory(db, { scope: dataScopeFor(a), memoryId: id })).toMatchObject({
        memory: "Lives in Lyon",
        topics: ["home"],
        user_id: a.userId,
        agent_id: "assistant",
        input: "said so",
      });
      expect(await call(updateMemoryAction, a, { memoryId: id, memory: "No topics now" })).toMatchObject({ ok: true });
      expect((await getMemory(db, { scope: dataScopeFor(a), memoryId: id }))?.topics).toEqual([]);
      expect(await call(deleteMemoryAction, a, { memoryId: id })).toEqual({ ok: true, message: "Memory deleted." });
      expect(await getMemory(db, { scope: adminScope(), memoryId: id })).toBeNull();
      expect(await call(deleteMemoryAction, a, { memoryId: id })).toMatchObject({ ok: false, status: 404 });
      // An edit arriving after the delete (a second tab) does not bring the memory back.
      expect(await call(updateMemoryAction, a, { memoryId: id, memory: "Lives in Nice" })).toMatchObject({ ok: false, status: 404 });
      expect(await getMemory(db, { scope: adminScope(), memoryId: id })).toBeNull();
    });

    it("an admin edits anyone's memory (the owner stays) and adds one for a named user", async () => {
      const id = await memoryOf(b, "B's note");
      expect(await call(updateMemoryAction, admin, { memoryId: id, memory: "B's note, corrected", topics: "admin" })).toMatchObject({ ok: true });
      expect(await getMemory(db, { scope: adminScope(), memoryId: id })).toMatchObject({ memory: "B's note, corrected", user_id: b.userId });
      expect(await call(createMemoryAction, admin, { memory: "for an API user", userId: "api-user-7" })).toMatchObject({ ok: true });
      expect(await call(createMemoryAction, admin, { memory: "for myself" })).toMatchObject({ ok: true });
      const owners = (await listMemoryPage(db, { scope: adminScope(), limit: 50, search: "for " })).rows.map((r) => [r.memory, r.user_id]);
      expect(owners).toEqual(
        expect.arrayContaining([
          ["for an API user", "api-user-7"],
          ["for myself", admin.userId],
        ]),
      );
    });

    it("bad input gets a message naming the field; a caller who is not signed in gets 401", async () => {
      expect(await call(createMemoryAction, a, { memory: "   ", topics: "x" })).toEqual({ ok: false, status: 422, error: "memory: write the memory's text" });
      expect(await call(createMemoryAction, a, { topics: "x" })).toEqual({ ok: false, status: 422, error: "memory: write the memory's text" });
      expect(await call(updateMemoryAction, a, { memory: "text" })).toEqual({ ok: false, status: 422, error: "memoryId: say which memory" });
      expect(await call(deleteMemoryAction, a, { memoryId: "" })).toEqual({ ok: false, status: 422, error: "memoryId: say which memory" });
      for (const action of [createMemoryAction, updateMemoryAction, deleteMemoryAction]) {
        expect(await call(action, null, { memory: "x", memoryId: "x" }), action.name).toMatchObject({ ok: false, status: 401 });
      }
    });
  });
});
