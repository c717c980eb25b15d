import { describe, expect, it } from "vitest";
import { ConflictError, PaginationError } from "@/lib/errors/domain-errors.ts";
import {
  decisionLearningId,
  entityIdSlug,
  entityIdSlugOrNull,
  entityLearningId,
  entityTypeSlug,
  identityLearningId,
  isReservedEntityNamespace,
  LearningIdentityError,
  sessionContextLearningId,
  userEntityKey,
  userKeyDigest,
  userMemoryLearningId,
  userProfileLearningId,
} from "@/lib/db/learnings/learning-ids.ts";
import {
  deleteLearning,
  deleteUserLearnings,
  getLearning,
  insertLearning,
  LearningExistsError,
  LearningOwnedElsewhereError,
  learningSearchPatterns,
  listLearnings,
  listLearningUsers,
  searchLearnings,
  updateLearning,
  upsertLearning,
  type LearningInput,
} from "@/lib/db/learnings/learnings.ts";
import { unsafeSystemScope } from "@/lib/db/scope.ts";
import { userKeyDigest as migrationsDigest } from "@/lib/migrations/steps/learnings.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}-${Math.random().toString(36).slice(2, 6)}`;
const T0 = 1_800_000_000;

describe("learning ids (Agno's build_learning_id)", () => {
  it("builds the identity keys and a decision's fresh key", () => {
    expect(userProfileLearningId("u1")).toBe("user_profile_u1");
    expect(userMemoryLearningId("u1")).toBe("memories_u1");
    expect(sessionContextLearningId("s1")).toBe("session_context_s1");
    expect(entityLearningId({ entityType: "person", entityId: "sarah_chen" })).toBe("entity_global_person_sarah_chen");
    expect(entityLearningId({ namespace: "", entityType: "person", entityId: "x" })).toBe("entity_global_person_x");
    expect(entityLearningId({ namespace: "team_a", entityType: "company", entityId: "acme", userId: "ignored" })).toBe("entity_team_a_company_acme");
    // sha256("u1")[:16], as Agno's `_user_key_segment` computes it.
    expect(userKeyDigest("u1")).toBe("bb82030dbc2bcaba");
    expect(entityLearningId({ namespace: "user", entityType: "person", entityId: "bob", userId: "u1" })).toBe("entity_user_bb82030dbc2bcaba_person_bob");
    expect(userEntityKey("u1", "person", "bob")).toBe("entity_user_bb82030dbc2bcaba_person_bob");
    expect(migrationsDigest).toBe(userKeyDigest);
    expect(() => entityLearningId({ namespace: "user", entityType: "person", entityId: "bob" })).toThrow(LearningIdentityError);
    expect(() => entityLearningId({ namespace: "user", entityType: "person", entityId: "bob" })).toThrow(/namespace 'user'.*user_id is required/);
    const decisions = new Set(Array.from({ length: 50 }, decisionLearningId));
    expect(decisions.size).toBe(50);
    for (const id of decisions) expect(id).toMatch(/^dec_[0-9a-f]{8}$/);
  });

  it("identityLearningId: undefined for types without an identity key, the key or the missing fields for the others", () => {
    expect(identityLearningId("decision_log", { userId: "u1" })).toBeUndefined();
    expect(identityLearningId("my_custom_type", {})).toBeUndefined();
    expect(identityLearningId("user_profile", { userId: "u1" })).toBe("user_profile_u1");
    expect(identityLearningId("user_memory", { userId: "u1" })).toBe("memories_u1");
    expect(identityLearningId("session_context", { sessionId: "s1", userId: "u1" })).toBe("session_context_s1");
    expect(identityLearningId("entity_memory", { entityId: "acme", entityType: "company" })).toBe("entity_global_company_acme");
    expect(identityLearningId("entity_memory", { entityId: "acme", entityType: "company", namespace: "user", userId: "u1" })).toBe(userEntityKey("u1", "company", "acme"));
    const missing = (type: string, fields: Parameters<typeof identityLearningId>[1]) => {
      try {
        identityLearningId(type, fields);
      } catch (error) {
        expect(error).toBeInstanceOf(LearningIdentityError);
        return (error as LearningIdentityError).missing;
      }
      throw new Error("no error");
    };
    expect(missing("user_profile", {})).toEqual(["user_id"]);
    expect(missing("user_memory", { userId: "" })).toEqual(["user_id"]);
    expect(missing("session_context", { userId: "u1" })).toEqual(["session_id"]);
    expect(missing("entity_memory", { entityId: "acme" })).toEqual(["entity_type"]);
    expect(missing("entity_memory", { namespace: "user" })).toEqual(["entity_id", "entity_type", "user_id"]);
    expect(missing("entity_memory", { namespace: "user", entityId: "acme", entityType: "company" })).toEqual(["user_id"]);
  });

  it("refuses a namespace shaped like a user's entity key digest", () => {
    expect(isReservedEntityNamespace("user_0123456789abcdef")).toBe(true);
    expect(isReservedEntityNamespace("user_0123456789abcdef_more_segments")).toBe(true);
    expect(isReservedEntityNamespace("user_0123456789ABCDEF")).toBe(false);
    expect(isReservedEntityNamespace("user_0123456789abcde")).toBe(false);
    expect(isReservedEntityNamespace("user_0123456789abcdefx")).toBe(false);
    expect(isReservedEntityNamespace("user_0123456789abcdef_a\nb")).toBe(false);
    expect(isReservedEntityNamespace("user")).toBe(false);
    expect(isReservedEntityNamespace("global")).toBe(false);
  });

  it("slugs entity names and types as Agno's entity store does", () => {
    const cases: [string, string][] = [
      ["Sarah Chen", "sarah_chen"],
      ["Sofía Muñoz", "sofia_munoz"],
      ["Anna Müller", "anna_muller"],
      ["C++", "c_plus_plus"],
      ["C#", "c_sharp"],
      ["C", "c"],
      ["x++y#z", "x_plus_plus_y_sharp_z"],
      ["Acme, Inc.", "acme_inc"],
      ["  Node.js  ", "node_js"],
      ["李 Ming", "李_ming"],
      ["Ω ① ²", "ω_1_2"],
      // Lowercased before the compatibility fold: № folds to "No" afterwards.
      ["ﬁle №5", "file_No5"],
      // Only marks with a combining class are dropped: Devanagari's vowel signs separate.
      ["हिंदू धर्म", "ह_द_धरम"],
      ["Café—Bar_", "cafe_bar"],
      ["???", "???"],
    ];
    for (const [name, slug] of cases) expect(entityIdSlug(name), name).toBe(slug);
    expect(entityIdSlugOrNull("???")).toBeNull();
    expect(entityIdSlugOrNull("  ")).toBeNull();
    expect(entityIdSlugOrNull(null)).toBeNull();
    expect(entityIdSlugOrNull("Sarah Chen")).toBe("sarah_chen");
    const types: [string, string][] = [
      ["Person", "person"],
      ["People", "person"],
      ["persons", "person"],
      ["Companies", "company"],
      ["projects", "project"],
      ["Systems", "system"],
      ["products", "product"],
      ["Tech  Stack", "tech_stack"],
      ["tools", "tools"],
      ["  ", "  "],
    ];
    for (const [type, slug] of types) expect(entityTypeSlug(type), type).toBe(slug);
  });

  it("builds Agno's search patterns", () => {
    expect(learningSearchPatterns("Sarah Chen")).toEqual(["%Sarah_Chen%"]);
    expect(learningSearchPatterns("end-to-end  tests")).toEqual(["%end_to_end_tests%"]);
    expect(learningSearchPatterns("100%")).toEqual(["%100\\%%"]);
    expect(learningSearchPatterns(" %_ ")).toEqual([]);
    expect(learningSearchPatterns("café")).toEqual(["%café%", "%caf______%"]);
    expect(learningSearchPatterns('say "hi"')).toEqual(['%say_"hi"%', '%say_\\\\"hi\\\\"%']);
  });
});

const input = (overrides: Partial<LearningInput> & { learningId: string }): LearningInput => ({ learningType: "user_profile", content: { name: "x" }, ...overrides });

describe.each(DIALECTS)("learnings on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    const read = async (id: string) => (await db.sql.query("SELECT * FROM agno_learnings WHERE learning_id = ?", [id]))[0];

    it("upsert: a new id is inserted whole; on conflict only content, metadata and updated_at change", async () => {
      const owner = uid("u");
      const id = `entity_team_company_${uid("acme")}`;
      const created = await upsertLearning(db, {
        scope: adminScope(),
        learning: {
          learningId: id,
          learningType: "entity_memory",
          namespace: "team",
          userId: owner,
          agentId: "a1",
          teamId: "t1",
          workflowId: "w1",
          sessionId: "s1",
          entityId: "acme",
          entityType: "company",
          content: { name: "Acme", facts: [{ id: "f1", content: "makes anvils" }], note: null },
          metadata: { source: "agent" },
        },
        now: T0,
      });
      expect(created).toEqual({
        learning_id: id,
        learning_type: "entity_memory",
        namespace: "team",
        user_id: owner,
        agent_id: "a1",
        team_id: "t1",
        workflow_id: "w1",
        session_id: "s1",
        entity_id: "acme",
        entity_type: "company",
        content: { name: "Acme", facts: [{ id: "f1", content: "makes anvils" }], note: null },
        metadata: { source: "agent" },
        created_at: T0,
        updated_at: T0,
      });
      const again = await upsertLearning(db, {
        scope: adminScope(),
        learning: {
          learningId: id,
          learningType: "decision_log",
          namespace: "other",
          userId: uid("someone-else"),
          agentId: "a2",
          teamId: null,
          workflowId: null,
          sessionId: "s2",
          entityId: "other",
          entityType: "person",
          content: { name: "Acme Corp" },
          metadata: null,
        },
        now: T0 + 60,
      });
      expect(again).toEqual({ ...created, content: { name: "Acme Corp" }, metadata: null, updated_at: T0 + 60 });
      expect(await getLearning(db, { scope: adminScope(), learningId: id })).toEqual(again);
    });

    it("upsert: a user scope writes as itself and never overwrites another user's or a shared row", async () => {
      const [a, b] = [uid("a"), uid("b")];
      const mine = await upsertLearning(db, { scope: userScope(a), learning: input({ learningId: userProfileLearningId(a), userId: b }), now: T0 });
      expect(mine.user_id).toBe(a);
      expect((await upsertLearning(db, { scope: userScope(a), learning: input({ learningId: mine.learning_id, content: { name: "A" } }), now: T0 + 1 })).content).toEqual({ name: "A" });

      const theirs = await upsertLearning(db, { scope: userScope(b), learning: input({ learningId: userProfileLearningId(b), content: { name: "B" } }), now: T0 });
      const shared = await upsertLearning(db, {
        scope: adminScope(null),
        learning: input({ learningId: `entity_global_person_${uid("p")}`, learningType: "entity_memory", content: { name: "P" } }),
        now: T0,
      });
      expect(shared.user_id).toBeNull();
      for (const target of [theirs, shared]) {
        const attempt = upsertLearning(db, { scope: userScope(a), learning: input({ learningId: target.learning_id, content: { name: "hijacked" } }), now: T0 + 5 });
        await expect(attempt).rejects.toBeInstanceOf(LearningOwnedElsewhereError);
        await expect(attempt).rejects.toBeInstanceOf(ConflictError);
        expect(await getLearning(db, { scope: adminScope(), learningId: target.learning_id })).toEqual(target);
      }
      // An admin (and a system scope) may change any row; the owner still never changes.
      const adminWrite = await upsertLearning(db, { scope: adminScope(a), learning: input({ learningId: theirs.learning_id, content: { name: "by admin" } }), now: T0 + 9 });
      expect(adminWrite).toMatchObject({ user_id: b, content: { name: "by admin" }, updated_at: T0 + 9, created_at: T0 });
      const system = await upsertLearning(db, { scope: unsafeSystemScope("test: the learning machine's shared write"), learning: input({ learningId: shared.learning_id, content: { name: "P2" } }) });
      expect(system.user_id).toBeNull();
      // A shared write (the runtime acting for no one) changes only a shared row: one a user holds at that id stays theirs.
      const sharedWrite = upsertLearning(db, {
        scope: unsafeSystemScope("test: the runtime's shared write", { actingAs: null }),
        learning: input({ learningId: theirs.learning_id, content: { name: "shared takeover" } }),
        now: T0 + 10,
      });
      await expect(sharedWrite).rejects.toBeInstanceOf(LearningOwnedElsewhereError);
      expect((await getLearning(db, { scope: adminScope(), learningId: theirs.learning_id }))!.content).toEqual({ name: "by admin" });
    });

    it("insert: an existing id, whoever owns it, is LearningExistsError and nothing changes", async () => {
      const owner = uid("u");
      const id = userMemoryLearningId(owner);
      const row = await insertLearning(db, { scope: userScope(owner), learning: input({ learningId: id, learningType: "user_memory", content: { memories: [] } }), now: T0 });
      expect(row).toMatchObject({ learning_id: id, user_id: owner, created_at: T0, updated_at: T0, metadata: null, namespace: null });
      for (const scope of [userScope(owner), userScope(uid("other")), adminScope()]) {
        const attempt = insertLearning(db, { scope, learning: input({ learningId: id, content: { memories: ["x"] } }), now: T0 + 1 });
        await expect(attempt).rejects.toBeInstanceOf(LearningExistsError);
        await expect(attempt).rejects.toMatchObject({ learningId: id });
      }
      expect(await getLearning(db, { scope: adminScope(), learningId: id })).toEqual(row);
    });

    it("get: a user reads its own and shared rows, never another user's; an admin reads all", async () => {
      const [a, b] = [uid("a"), uid("b")];
      const mine = await insertLearning(db, { scope: userScope(a), learning: input({ learningId: uid("mine") }) });
      const theirs = await insertLearning(db, { scope: userScope(b), learning: input({ learningId: uid("theirs") }) });
      const shared = await insertLearning(db, { scope: adminScope(null), learning: input({ learningId: uid("shared"), learningType: "decision_log" }) });
      expect(await getLearning(db, { scope: userScope(a), learningId: mine.learning_id })).toEqual(mine);
      expect(await getLearning(db, { scope: userScope(a), learningId: shared.learning_id })).toEqual(shared);
      expect(await getLearning(db, { scope: userScope(a), learningId: theirs.learning_id })).toBeUndefined();
      expect(await getLearning(db, { scope: userScope(a), learningId: "missing" })).toBeUndefined();
      expect(await getLearning(db, { scope: adminScope(), learningId: theirs.learning_id })).toEqual(theirs);
    });

    it("reads JSON however it was stored: double-encoded text, non-object content, NULL metadata and updated_at", async () => {
      const id = uid("legacy");
      const doubled = JSON.stringify(JSON.stringify({ name: "double" }));
      await db.sql.exec(
        `INSERT INTO agno_learnings (learning_id, learning_type, user_id, content, metadata, created_at, updated_at) VALUES (?, 'user_profile', NULL, ${db.dialect === "postgres" ? "?::jsonb" : "?"}, NULL, ?, NULL)`,
        [id, doubled, T0],
      );
      expect(await getLearning(db, { scope: adminScope(), learningId: id })).toMatchObject({ content: { name: "double" }, metadata: null, created_at: T0, updated_at: null });
      const listId = uid("list-content");
      await db.sql.exec(`INSERT INTO agno_learnings (learning_id, learning_type, content, created_at) VALUES (?, 'odd', ${db.dialect === "postgres" ? "?::jsonb" : "?"}, ?)`, [listId, "[1, 2]", T0]);
      expect((await getLearning(db, { scope: adminScope(), learningId: listId }))?.content).toEqual({});
    });

    it("list: filters, scope (own + shared for a user), sorting with a whitelist, and pages with a total", async () => {
      const [a, b] = [uid("a"), uid("b")];
      const agent = uid("agent");
      const rows = [
        { learningId: uid("l1"), userId: a, agentId: agent, learningType: "user_profile", namespace: "n1", at: T0 + 30 },
        { learningId: uid("l2"), userId: a, agentId: agent, learningType: "user_memory", namespace: "n2", at: T0 + 10 },
        { learningId: uid("l3"), userId: null, agentId: agent, learningType: "entity_memory", namespace: "global", entityId: "acme", entityType: "company", at: T0 + 20 },
        { learningId: uid("l4"), userId: b, agentId: agent, learningType: "user_profile", namespace: "n1", at: T0 + 40 },
      ];
      for (const { at, ...row } of rows) await insertLearning(db, { scope: adminScope(row.userId), learning: input(row), now: at });
      const [l1, l2, l3, l4] = rows.map((r) => r.learningId);
      const ids = async (options: Partial<Parameters<typeof listLearnings>[1]> = {}) => (await listLearnings(db, { scope: adminScope(), agentId: agent, ...options })).rows.map((r) => r.learning_id);
      expect(await ids()).toEqual([l4, l1, l3, l2]);
      expect(await ids({ sortOrder: "asc" })).toEqual([l2, l3, l1, l4]);
      expect(await ids({ sortBy: "created_at", sortOrder: "asc" })).toEqual([l2, l3, l1, l4]);
      expect(await ids({ sortBy: "learning_type", sortOrder: "asc" })).toEqual([l3, l2, ...[l1, l4].sort()]);
      expect(await ids({ sortBy: "user_id; DROP TABLE agno_learnings", sortOrder: "asc" })).toEqual([l2, l3, l1, l4]);
      expect(await ids({ sortBy: "content" })).toEqual([l4, l1, l3, l2]);
      expect(await ids({ learningType: "user_profile" })).toEqual([l4, l1]);
      expect(await ids({ namespace: "n1", userId: a })).toEqual([l1]);
      expect(await ids({ entityId: "acme", entityType: "company" })).toEqual([l3]);
      expect(await ids({ userId: b })).toEqual([l4]);
      // A user scope: its own rows and the shared ones.
      expect((await listLearnings(db, { scope: userScope(a), agentId: agent })).rows.map((r) => r.learning_id)).toEqual([l1, l3, l2]);
      expect((await listLearnings(db, { scope: userScope(a), agentId: agent, userId: b })).rows).toEqual([]);
      // An admin naming a user: that user's rows only.
      expect((await listLearnings(db, { scope: adminScope(a), agentId: agent })).rows.map((r) => r.learning_id)).toEqual([l1, l2]);
      const page = await listLearnings(db, { scope: adminScope(), agentId: agent, limit: 3, page: 2 });
      expect(page).toMatchObject({ total: 4 });
      expect(page.rows.map((r) => r.learning_id)).toEqual([l2]);
      expect((await listLearnings(db, { scope: adminScope(), agentId: agent, limit: 3, page: 3 })).rows).toEqual([]);
      await expect(listLearnings(db, { scope: adminScope(), page: 0, limit: 3 })).rejects.toBeInstanceOf(PaginationError);
    });

    it("search: a case-insensitive match over the content, across spaces and underscores, within the scope", async () => {
      const [a, b] = [uid("a"), uid("b")];
      const ns = uid("ns");
      const entity = (owner: string | null, name: string, at: number) =>
        insertLearning(db, { scope: adminScope(owner), learning: input({ learningId: uid("e"), learningType: "entity_memory", namespace: ns, content: { name, note: "100% sure" } }), now: at });
      const sarah = await entity(null, "Sarah Chen", T0 + 1);
      const slugged = await entity(a, "sarah_chen the second", T0 + 2);
      const hidden = await entity(b, "Sarah Chen (B's)", T0 + 3);
      const search = (scope: ReturnType<typeof adminScope>, query?: string) =>
        searchLearnings(db, { scope, learningType: "entity_memory", namespace: ns, query, limit: 10 }).then((rows) => rows.map((r) => r.learning_id));
      expect(await search(adminScope(), "SARAH chen")).toEqual([hidden.learning_id, slugged.learning_id, sarah.learning_id]);
      expect(await search(userScope(a), "sarah chen")).toEqual([slugged.learning_id, sarah.learning_id]);
      expect(await search(userScope(a), "second")).toEqual([slugged.learning_id]);
      expect(await search(userScope(a), "100%")).toEqual([slugged.learning_id, sarah.learning_id]);
      expect(await search(userScope(a), "200%")).toEqual([]);
      expect(await search(userScope(a), "%")).toEqual([]);
      expect(await search(userScope(a))).toEqual([slugged.learning_id, sarah.learning_id]);
      expect(await searchLearnings(db, { scope: adminScope(), learningType: "entity_memory", namespace: ns, query: "sarah", limit: 1 })).toHaveLength(1);
    });

    it("update: replaces only the given fields, UPDATE-only, within what the scope may write", async () => {
      const [a, b] = [uid("a"), uid("b")];
      const mine = await insertLearning(db, { scope: userScope(a), learning: input({ learningId: uid("m"), content: { name: "A" }, metadata: { v: 1 } }), now: T0 });
      const shared = await insertLearning(db, { scope: adminScope(null), learning: input({ learningId: uid("s") }), now: T0 });
      const onlyMetadata = await updateLearning(db, { scope: userScope(a), learningId: mine.learning_id, metadata: { v: 2 }, now: T0 + 5 });
      expect(onlyMetadata).toEqual({ ...mine, metadata: { v: 2 }, updated_at: T0 + 5 });
      const both = await updateLearning(db, { scope: userScope(a), learningId: mine.learning_id, content: { name: "A2" }, metadata: null, now: T0 + 6 });
      expect(both).toEqual({ ...mine, content: { name: "A2" }, metadata: null, updated_at: T0 + 6 });
      expect(await updateLearning(db, { scope: userScope(a), learningId: mine.learning_id })).toEqual(both);
      expect(await updateLearning(db, { scope: userScope(b), learningId: mine.learning_id, content: { name: "hijack" } })).toBeUndefined();
      expect(await updateLearning(db, { scope: userScope(a), learningId: shared.learning_id, content: { name: "hijack" } })).toBeUndefined();
      expect(await updateLearning(db, { scope: userScope(a), learningId: "missing", content: {} })).toBeUndefined();
      expect(await read("missing")).toBeUndefined();
      expect((await updateLearning(db, { scope: adminScope(), learningId: shared.learning_id, content: { name: "admin" }, now: T0 + 7 }))?.content).toEqual({ name: "admin" });
      expect(await getLearning(db, { scope: adminScope(), learningId: mine.learning_id })).toEqual(both);
    });

    it("delete one and a user's: within the scope, shared rows untouched", async () => {
      const [a, b] = [uid("a"), uid("b")];
      const make = (owner: string | null, learningType = "user_profile") => insertLearning(db, { scope: adminScope(owner), learning: input({ learningId: uid("d"), learningType }) });
      const [a1, a2, a3, b1, shared] = [await make(a), await make(a, "user_memory"), await make(a, "entity_memory"), await make(b), await make(null)];
      expect(await deleteLearning(db, { scope: userScope(b), learningId: a1.learning_id })).toBe(false);
      expect(await deleteLearning(db, { scope: userScope(a), learningId: shared.learning_id })).toBe(false);
      expect(await deleteLearning(db, { scope: userScope(a), learningId: a1.learning_id })).toBe(true);
      expect(await deleteLearning(db, { scope: userScope(a), learningId: a1.learning_id })).toBe(false);
      expect(await deleteUserLearnings(db, { scope: userScope(b), userId: a })).toBe(0);
      expect(await deleteUserLearnings(db, { scope: userScope(a), userId: a, learningType: "user_memory" })).toBe(1);
      expect(await read(a2.learning_id)).toBeUndefined();
      expect(await read(a3.learning_id)).toBeDefined();
      expect(await deleteUserLearnings(db, { scope: adminScope(), userId: a })).toBe(1);
      expect(await deleteUserLearnings(db, { scope: adminScope(), userId: a })).toBe(0);
      expect(await read(b1.learning_id)).toBeDefined();
      expect(await read(shared.learning_id)).toBeDefined();
      expect(await deleteLearning(db, { scope: adminScope(), learningId: shared.learning_id })).toBe(true);
    });

    it("users: owners only, their last change, sorted and paged, within the scope", async () => {
      const type = uid("type");
      const [a, b, c] = [uid("a"), uid("b"), uid("c")];
      const make = async (owner: string | null, created: number, updated: number | null) => {
        const row = await insertLearning(db, { scope: adminScope(owner), learning: input({ learningId: uid("x"), learningType: type }), now: created });
        if (updated !== created) await db.sql.exec("UPDATE agno_learnings SET updated_at = ? WHERE learning_id = ?", [updated, row.learning_id]);
      };
      await make(a, T0, T0 + 50);
      await make(a, T0 + 10, T0 + 10);
      await make(b, T0 + 70, null);
      await make(c, T0 + 5, T0 + 5);
      await make(null, T0 + 99, T0 + 99);
      const users = (options: Partial<Parameters<typeof listLearningUsers>[1]> = {}) => listLearningUsers(db, { scope: adminScope(), learningType: type, ...options });
      expect(await users()).toEqual({
        rows: [
          { user_id: b, last_learning_updated_at: T0 + 70 },
          { user_id: a, last_learning_updated_at: T0 + 50 },
          { user_id: c, last_learning_updated_at: T0 + 5 },
        ],
        total: 3,
      });
      expect((await users({ sortOrder: "asc" })).rows.map((r) => r.user_id)).toEqual([c, a, b]);
      expect((await users({ sortBy: "user_id", sortOrder: "asc" })).rows.map((r) => r.user_id)).toEqual([a, b, c].sort());
      expect((await users({ sortBy: "bogus" })).rows.map((r) => r.user_id)).toEqual([b, a, c]);
      expect(await users({ limit: 2, page: 2 })).toEqual({ rows: [{ user_id: c, last_learning_updated_at: T0 + 5 }], total: 3 });
      expect(await users({ userId: a })).toEqual({ rows: [{ user_id: a, last_learning_updated_at: T0 + 50 }], total: 1 });
      expect(await listLearningUsers(db, { scope: userScope(a), learningType: type })).toEqual({ rows: [{ user_id: a, last_learning_updated_at: T0 + 50 }], total: 1 });
      expect(await listLearningUsers(db, { scope: userScope(a), learningType: type, userId: b })).toEqual({ rows: [], total: 0 });
      expect(await listLearningUsers(db, { scope: adminScope(b), learningType: type })).toEqual({ rows: [{ user_id: b, last_learning_updated_at: T0 + 70 }], total: 1 });
    });
  });
});
