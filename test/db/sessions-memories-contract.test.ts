import { describe, expect, it } from "vitest";
import { createSession, getRuns, getSessionRow, getMemory, getSessionRuns, listMemories, listMemoryTopics, updateSession, upsertMemory, userMemoryStats } from "@/lib/db/index.ts";
import { ConflictError } from "@/lib/errors/domain-errors.ts";
import { listMemoryPage } from "@/lib/db/memories/memory-list.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";

const T0 = 1_750_000_000;

describe.each(DIALECTS)("sessions and memories contract on $name", (dialect) => {
  const p = mintPrincipals();
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)("sessions", () => {
    it("createSession stamps the owner and refuses an existing id, whoever owns it", async () => {
      const sessionId = uid("s");
      const created = await createSession(db, { scope: p.scopes.a, session: { sessionId, sessionType: "agent", userId: p.userB, sessionData: { session_name: "x" } } });
      expect(created).toMatchObject({ session_id: sessionId, user_id: p.userA, session_data: { session_name: "x" } });
      await expect(createSession(db, { scope: p.scopes.b, session: { sessionId, sessionType: "agent" } })).rejects.toThrow(ConflictError);
      await expect(createSession(db, { scope: p.scopes.admin, session: { sessionId, sessionType: "team" } })).rejects.toThrow(ConflictError);
      expect((await getSessionRow(db, { scope: p.scopes.admin, sessionId }))?.session_type).toBe("agent");
    });

    it("updateSession edits session_data keys in place, replaces metadata/summary, and keeps runs", async () => {
      const s = await seedSession(db, {
        scope: p.scopes.a,
        session: { sessionData: { session_name: "old", session_metrics: { total_tokens: 9 }, media: { n: 1 } }, metadata: { a: 1 } },
        runs: [agnoRun({ sessionId: "", agentId: "assistant" })],
      });
      const runsBefore = await getRuns(db, { scope: p.scopes.a, sessionId: s.session_id });
      const updated = await updateSession(db, {
        scope: p.scopes.a,
        sessionId: s.session_id,
        sessionName: 'it\'s "new"',
        sessionState: { list: [1, { deep: true }] },
        metadata: { b: 2 },
        summary: { summary: "short" },
      });
      expect(updated?.session_data).toEqual({
        session_name: 'it\'s "new"',
        session_metrics: { total_tokens: 9 },
        media: { n: 1 },
        session_state: { list: [1, { deep: true }] },
      });
      expect(updated).toMatchObject({ metadata: { b: 2 }, summary: { summary: "short" } });
      expect(updated?.runs).toHaveLength(1);
      expect(await getRuns(db, { scope: p.scopes.a, sessionId: s.session_id })).toEqual(runsBefore);
    });

    it("updateSession works on a session with no session_data, and changes nothing when given nothing", async () => {
      const s = await seedSession(db, { scope: p.scopes.a, session: { sessionData: null } });
      expect((await updateSession(db, { scope: p.scopes.a, sessionId: s.session_id, sessionName: "named" }))?.session_data).toEqual({ session_name: "named" });
      const row = await getSessionRow(db, { scope: p.scopes.a, sessionId: s.session_id });
      const same = await updateSession(db, { scope: p.scopes.a, sessionId: s.session_id });
      expect({ ...same, runs: undefined }).toEqual({ ...row, runs: undefined });
    });

    it("updateSession never touches another user's or a shared session for a non-admin (null)", async () => {
      const theirs = await seedSession(db, { scope: p.scopes.b, session: { sessionData: { session_name: "B" } } });
      const shared = await seedSession(db, { scope: adminScope(null), session: { sessionData: { session_name: "shared" } } });
      for (const sessionId of [theirs.session_id, shared.session_id, "missing"]) {
        expect(await updateSession(db, { scope: p.scopes.a, sessionId, sessionName: "hijack" })).toBeNull();
      }
      expect(await updateSession(db, { scope: p.scopes.b, sessionId: theirs.session_id, sessionType: "team", sessionName: "x" })).toBeNull();
      expect((await getSessionRow(db, { scope: p.scopes.admin, sessionId: theirs.session_id }))?.session_data).toEqual({ session_name: "B" });
      expect((await getSessionRow(db, { scope: p.scopes.admin, sessionId: shared.session_id }))?.session_data).toEqual({ session_name: "shared" });
    });

    it("getSessionRuns filters by inclusive created_at bounds, scoped and typed", async () => {
      const s = await seedSession(db, {
        scope: p.scopes.a,
        session: {},
        runs: [0, 10, 20].map((dt) => agnoRun({ runId: `w${dt}-${uid("r")}`, sessionId: "", agentId: "assistant", createdAt: T0 + dt })),
      });
      const ids = async (createdAfter?: number, createdBefore?: number) =>
        (await getSessionRuns(db, { scope: p.scopes.a, sessionId: s.session_id, createdAfter, createdBefore }))!.runs.map((r) => String(r.run_id).split("-")[0]);
      expect(await ids()).toEqual(["w0", "w10", "w20"]);
      expect(await ids(T0 + 10)).toEqual(["w10", "w20"]);
      expect(await ids(undefined, T0 + 10)).toEqual(["w0", "w10"]);
      expect(await ids(T0 + 11, T0 + 19)).toEqual([]);
      expect(await getSessionRuns(db, { scope: p.scopes.b, sessionId: s.session_id })).toBeNull();
      expect(await getSessionRuns(db, { scope: p.scopes.a, sessionId: s.session_id, sessionType: "workflow" })).toBeNull();
    });
  });

  describe.skipIf(dialect.skipReason !== null)("memories", () => {
    it("listMemoryTopics: distinct and sorted, within the scope", async () => {
      const q = mintPrincipals();
      await upsertMemory(db, { scope: q.scopes.a, memory: { memory: "1", topics: ["zebra", "apple"] } });
      await upsertMemory(db, { scope: q.scopes.a, memory: { memory: "2", topics: ["apple"] } });
      await upsertMemory(db, { scope: q.scopes.a, memory: { memory: "3" } });
      await upsertMemory(db, { scope: q.scopes.b, memory: { memory: "4", topics: ["secret"] } });
      expect(await listMemoryTopics(db, { scope: q.scopes.a })).toEqual(["apple", "zebra"]);
      expect(await listMemoryTopics(db, { scope: adminScope(q.userB) })).toEqual(["secret"]);
      expect(await listMemoryTopics(db, { scope: q.scopes.admin })).toEqual(expect.arrayContaining(["apple", "secret", "zebra"]));
    });

    it("topics as Agno stores them (JSON null for None, SQL NULL, a scalar, non-strings, SQLite text that is not JSON) read as no topics: a topics filter, the topic list, a read and the dashboard list never fail on them", async () => {
      const q = mintPrincipals();
      const scope = q.scopes.a;
      const stored = [
        ["json null", "null"],
        ["sql null", null],
        ["scalar", '"solo"'],
        ["mixed", '[1, "kept", null, {"a": "b"}]'],
        ["array", '["kept", "other"]'],
      ];
      if (dialect.name === "sqlite") stored.push(["not json", "not json ["]);
      const ids = new Map<string, string>();
      for (const [name, topics] of stored) {
        const id = uid("mem");
        ids.set(name!, id);
        await db.sql.exec("INSERT INTO agno_memories (memory_id, memory, topics, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", [id, JSON.stringify(name), topics, q.userA, T0, T0]);
      }
      const topicsById = (memories: { memory_id: string; topics: string[] }[]) => Object.fromEntries(memories.map((m) => [m.memory_id, m.topics]));

      // PostgreSQL's jsonb_array_elements threw "cannot extract elements from a scalar" on JSON null.
      const filtered = await listMemories(db, { scope, topics: ["kept", "solo"] });
      expect(filtered.memories.map((m) => m.memory_id).sort()).toEqual([ids.get("mixed"), ids.get("array")].sort());
      expect(filtered.totalCount).toBe(2);
      const all = topicsById((await listMemories(db, { scope })).memories);
      expect(all).toEqual(Object.fromEntries([...ids].map(([name, id]) => [id, name === "mixed" ? ["kept"] : name === "array" ? ["kept", "other"] : []])));
      expect((await getMemory(db, { scope, memoryId: ids.get("json null")! }))!.topics).toEqual([]);
      expect((await getMemory(db, { scope, memoryId: ids.get("mixed")! }))!.topics).toEqual(["kept"]);
      expect(await listMemoryTopics(db, { scope })).toEqual(["kept", "other"]);
      const page = await listMemoryPage(db, { scope, limit: 50, topics: ["kept", "solo"] });
      expect(topicsById(page.rows)).toEqual({ [ids.get("mixed")!]: ["kept"], [ids.get("array")!]: ["kept", "other"] });
    });

    it("userMemoryStats: counts per user, latest first, paged; a non-admin sees only itself", async () => {
      const q = mintPrincipals();
      const ids = [
        (await upsertMemory(db, { scope: q.scopes.a, memory: { memory: "a1" } })).memory_id,
        (await upsertMemory(db, { scope: q.scopes.a, memory: { memory: "a2" } })).memory_id,
        (await upsertMemory(db, { scope: q.scopes.b, memory: { memory: "b1" } })).memory_id,
      ];
      // Far-future stamps put these two users first among the admin's view of every user.
      for (const [id, at] of [
        [ids[0], 2_000_000_100],
        [ids[1], 2_000_000_200],
        [ids[2], 2_000_000_300],
      ] as const) {
        await db.sql.exec("UPDATE agno_memories SET updated_at = ? WHERE memory_id = ?", [at, id]);
      }
      const page1 = await userMemoryStats(db, { scope: q.scopes.admin, page: 1, limit: 1 });
      const page2 = await userMemoryStats(db, { scope: q.scopes.admin, page: 2, limit: 1 });
      expect(page1.stats).toEqual([{ user_id: q.userB, total_memories: 1, last_memory_updated_at: 2_000_000_300 }]);
      expect(page2.stats).toEqual([{ user_id: q.userA, total_memories: 2, last_memory_updated_at: 2_000_000_200 }]);
      expect(page1.totalCount).toBeGreaterThanOrEqual(2);
      expect(await userMemoryStats(db, { scope: q.scopes.a })).toEqual({
        stats: [{ user_id: q.userA, total_memories: 2, last_memory_updated_at: 2_000_000_200 }],
        totalCount: 1,
      });
    });
  });
});
