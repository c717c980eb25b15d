import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import { decisionLearningId, entityLearningId, userMemoryLearningId, userProfileLearningId } from "@/lib/db/learnings/learning-ids.ts";
import { getLearning, insertLearning, type LearningInput } from "@/lib/db/learnings/learnings.ts";
import { listMemories, upsertMemory } from "@/lib/db/memories/memories.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import {
  deleteLearningAction,
  deleteLearningMemoryAction,
  forgetEverythingAction,
  updateLearningContentAction,
  updateLearningMemoryAction,
  updateLearningProfileAction,
} from "@/lib/http/dashboard/learning-actions.ts";
import { learningVersion, loadLearningsView, readLearnings, sharedListScope } from "@/lib/http/dashboard/learnings-view.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { adminScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";

/**
 * The "What agents know" page (lib/http/dashboard/learnings-view.ts, learning-actions.ts) on both
 * dialects: a member sees its own learnings and the shared ones, never another's; changes only
 * its own (another's is not found, a shared one a 403); an admin changes anyone's and the shared
 * ones; "Forget everything" removes that member's learnings and memories, nothing else.
 */

const settings = testSettings();
const T0 = 1_700_000_000;
let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

describe.each(DIALECTS)("the learnings page's actions on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    let admin: Principal;
    const call = (action: DashboardAction, principal: Principal | null, fields: Record<string, string>) => action.run({ principal, formData: formOf(fields), db, settings, origin: ACTION_ORIGIN });
    const member = async () => principalForUser(await createUser(db), settings);
    /** A row written as the learning machine would (an admin's write for `owner`; null: shared). */
    const seed = (owner: string | null, learning: Omit<LearningInput, "learningId"> & { learningId?: string }) =>
      insertLearning(db, { scope: adminScope(owner), learning: { learningId: uid("learning"), agentId: "companion", ...learning }, now: T0 });
    /** What a member has: a profile, two memories, an entity of their own, a decision, and an agno_memories row. */
    const seedMember = async (who: Principal, name: string) => {
      const userId = who.userId!;
      await seed(userId, { learningId: userProfileLearningId(userId), learningType: "user_profile", content: { user_id: userId, name, preferred_name: name.split(" ")[0], favourite_tea: "oolong" } });
      await seed(userId, {
        learningId: userMemoryLearningId(userId),
        learningType: "user_memory",
        content: {
          user_id: userId,
          memories: [
            { id: "m1", content: `${name} keeps bees` },
            { id: "m2", content: `${name} lives in Lyon` },
          ],
        },
      });
      await seed(userId, {
        learningId: entityLearningId({ namespace: "user", entityType: "person", entityId: "grace", userId }),
        learningType: "entity_memory",
        namespace: "user",
        entityId: "grace",
        entityType: "person",
        content: { entity_id: "grace", entity_type: "person", name: "Grace", facts: [{ id: "f1", content: "Colleague" }] },
      });
      await seed(userId, { learningId: decisionLearningId(), learningType: "decision_log", content: { decision: "Recommend oolong", reasoning: "They like tea" } });
      await upsertMemory(db, { scope: dataScopeFor(who), memory: { memory: `${name} reads at night`, topics: [], userId } });
    };
    const sharedEntity = () =>
      seed(null, {
        learningId: entityLearningId({ namespace: "global", entityType: "company", entityId: uid("acme") }),
        learningType: "entity_memory",
        namespace: "global",
        entityType: "company",
        content: { name: "Acme", entity_type: "company", facts: [] },
      });
    const stored = async (learningId: string) => getLearning(db, { scope: adminScope(), learningId });

    beforeAll(async () => {
      db = await openMigrated(dialect);
      admin = principalForUser(await createUser(db, { role: "admin" }), settings);
    });
    afterAll(async () => db?.destroy());

    it("a member sees its own learnings, grouped by agent, and the shared ones on their tab; never another member's", async () => {
      const [a, b] = [await member(), await member()];
      await seedMember(a, "Ada Lovelace");
      await seedMember(b, "Bea Brown");
      const shared = await sharedEntity();
      const view = (who: Principal, tab: "about" | "shared") =>
        loadLearningsView(db, { scope: tab === "shared" ? sharedListScope(who) : dataScopeFor(who), tab, settings, principal: who, ownerLabel: (id) => id });

      const about = await view(a, "about");
      expect(about.groups.map((g) => [g.kind, g.id])).toEqual([["agent", "companion"]]);
      const items = about.groups[0]!.items;
      // Profile first, then memories, entities, decisions; every one the member's own and editable.
      expect(items.map((i) => i.learningType)).toEqual(["user_profile", "user_memory", "entity_memory", "decision_log"]);
      expect(items.every((i) => i.userId === a.userId && i.editable)).toBe(true);
      expect(JSON.stringify(about)).not.toContain("Bea Brown");
      expect(JSON.stringify(about)).not.toContain(shared.learning_id);

      const sharedTab = await view(a, "shared");
      const sharedIds = sharedTab.groups.flatMap((g) => g.items.map((i) => i.learningId));
      expect(sharedIds).toContain(shared.learning_id);
      // Shared: read-only for a member; and no one's own rows are in the tab.
      expect(sharedTab.groups.flatMap((g) => g.items).every((i) => i.userId === null && !i.editable)).toBe(true);
      // A kind narrows the view.
      expect((await readLearnings(db, { scope: dataScopeFor(a), tab: "about", kind: "user_memory" })).rows.map((r) => r.learning_id)).toEqual([userMemoryLearningId(a.userId!)]);
      // An admin's shared tab: editable.
      expect((await view(admin, "shared")).groups.flatMap((g) => g.items).find((i) => i.learningId === shared.learning_id)?.editable).toBe(true);
      // An admin filtering by a user sees that user's rows, and only theirs.
      const adminOnA = await loadLearningsView(db, { scope: dataScopeFor(admin, a.userId), tab: "about", settings, principal: admin, ownerLabel: (id) => id });
      expect(new Set(adminOnA.groups.flatMap((g) => g.items.map((i) => i.userId)))).toEqual(new Set([a.userId]));
    });

    it("a member can neither edit nor delete another member's learning (not found) nor a shared one (403); nothing changes", async () => {
      const [a, b] = [await member(), await member()];
      await seedMember(b, "Bea Brown");
      const shared = await sharedEntity();
      const profileOfB = userProfileLearningId(b.userId!);
      const memoriesOfB = userMemoryLearningId(b.userId!);
      const before = await stored(profileOfB);

      const notFound = { ok: false, status: 404, error: `No profile ${profileOfB} was found (it may have been deleted).` };
      expect(await call(updateLearningProfileAction, a, { learningId: profileOfB, name: "Hijacked" })).toEqual(notFound);
      expect(await call(updateLearningContentAction, a, { learningId: profileOfB, content: '{"name":"Hijacked"}' })).toMatchObject({ ok: false, status: 404 });
      expect(await call(updateLearningMemoryAction, a, { learningId: memoriesOfB, memoryId: "m1", memory: "Hijacked" })).toMatchObject({ ok: false, status: 404 });
      expect(await call(deleteLearningMemoryAction, a, { learningId: memoriesOfB, memoryId: "m1" })).toMatchObject({ ok: false, status: 404 });
      expect(await call(deleteLearningAction, a, { learningId: profileOfB })).toMatchObject({ ok: false, status: 404 });
      // One that does not exist reads the same, so A learns nothing about B's.
      expect(await call(deleteLearningAction, a, { learningId: "no-such-learning" })).toMatchObject({ ok: false, status: 404 });
      expect(await stored(profileOfB)).toEqual(before);
      expect((await stored(memoriesOfB))?.content.memories).toHaveLength(2);

      const sharedRefusal = { ok: false, status: 403, error: "Shared learnings belong to no user: only admins can change or delete them." };
      expect(await call(updateLearningContentAction, a, { learningId: shared.learning_id, content: '{"name":"Mine now"}' })).toEqual(sharedRefusal);
      expect(await call(deleteLearningAction, a, { learningId: shared.learning_id })).toEqual(sharedRefusal);
      expect(await stored(shared.learning_id)).toEqual(shared);
    });

    it("the owner edits its profile, a memory and an entity's JSON, and deletes a memory and a learning; a stale form is a 409", async () => {
      const a = await member();
      await seedMember(a, "Ada Lovelace");
      const profileId = userProfileLearningId(a.userId!);
      const memoriesId = userMemoryLearningId(a.userId!);
      const entityId = entityLearningId({ namespace: "user", entityType: "person", entityId: "grace", userId: a.userId! });

      const profile = (await stored(profileId))!;
      expect(await call(updateLearningProfileAction, a, { learningId: profileId, version: learningVersion(profile), name: "  Ada King ", preferred_name: "" })).toEqual({
        ok: true,
        message: "Profile saved.",
      });
      const saved = (await stored(profileId))!;
      // The fields given change (blank clears); the rest of the profile stays; the owner never changes.
      expect(saved.content).toMatchObject({ name: "Ada King", preferred_name: null, favourite_tea: "oolong", user_id: a.userId });
      expect(saved.user_id).toBe(a.userId);
      // The form the page showed before that save is stale now.
      expect(await call(updateLearningProfileAction, a, { learningId: profileId, version: learningVersion(profile), name: "Ada" })).toMatchObject({ ok: false, status: 409 });
      expect((await stored(profileId))!.content.name).toBe("Ada King");

      expect(await call(updateLearningMemoryAction, a, { learningId: memoriesId, memoryId: "m2", memory: "Ada lives in Paris" })).toEqual({ ok: true, message: "Memory saved." });
      expect(await call(deleteLearningMemoryAction, a, { learningId: memoriesId, memoryId: "m1" })).toEqual({ ok: true, message: "Memory deleted." });
      expect(((await stored(memoriesId))!.content.memories as { id: string; content: string }[]).map((m) => [m.id, m.content])).toEqual([["m2", "Ada lives in Paris"]]);
      expect(await call(deleteLearningMemoryAction, a, { learningId: memoriesId, memoryId: "m1" })).toEqual({ ok: false, status: 404, error: "Memory m1 was not found (it may have been deleted)." });
      // A profile's id is not a memory list.
      expect(await call(updateLearningMemoryAction, a, { learningId: profileId, memoryId: "m2", memory: "x" })).toMatchObject({ ok: false, status: 404 });

      const entity = { entity_id: "grace", entity_type: "person", name: "Grace Hopper", facts: [{ id: "f1", content: "Wrote the first compiler" }] };
      expect(await call(updateLearningContentAction, a, { learningId: entityId, content: JSON.stringify(entity) })).toEqual({ ok: true, message: "Saved." });
      expect((await stored(entityId))!.content).toEqual(entity);

      expect(await call(deleteLearningAction, a, { learningId: entityId })).toEqual({ ok: true, message: "Deleted." });
      expect(await stored(entityId)).toBeUndefined();
      expect(await call(deleteLearningAction, a, { learningId: entityId })).toMatchObject({ ok: false, status: 404 });
      // An edit arriving after the delete (another tab) does not bring it back.
      expect(await call(updateLearningContentAction, a, { learningId: entityId, content: "{}" })).toMatchObject({ ok: false, status: 404 });
      expect(await stored(entityId)).toBeUndefined();
    });

    it("bad input is a 422 naming the field, and what was stored stays; not signed in is a 401", async () => {
      const a = await member();
      await seedMember(a, "Ada Lovelace");
      const memoriesId = userMemoryLearningId(a.userId!);
      const before = await stored(memoriesId);
      const content = (text: string) => call(updateLearningContentAction, a, { learningId: memoriesId, content: text });
      expect(await content("{not json")).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^content: invalid JSON/) });
      expect(await content("[1, 2]")).toEqual({ ok: false, status: 422, error: "content: must be a JSON object ({ … })" });
      expect(await content("   ")).toEqual({ ok: false, status: 422, error: "content: write the content as a JSON object" });
      expect(await content('{"memories": "all of them"}')).toEqual({ ok: false, status: 422, error: 'content: "memories" must be a list' });
      expect(await content('{"memories": [{"id": "m1"}]}')).toEqual({ ok: false, status: 422, error: 'content: memories[0] must be an object with its text in "content"' });
      expect(await content('{"memories": [], "note": "a\\u0000b"}')).toEqual({ ok: false, status: 422, error: "content: note must not contain a NUL character (\\u0000)" });
      expect(await content(`${"[".repeat(70)}${"]".repeat(70)}`)).toMatchObject({ ok: false, status: 422, error: expect.stringContaining("nested deeper") });
      expect(await call(updateLearningMemoryAction, a, { learningId: memoriesId, memoryId: "m1", memory: "  " })).toEqual({ ok: false, status: 422, error: "memory: write the memory's text" });
      expect(await call(updateLearningMemoryAction, a, { learningId: memoriesId, memory: "x" })).toEqual({ ok: false, status: 422, error: "memoryId: say which memory" });
      expect(await call(deleteLearningAction, a, {})).toEqual({ ok: false, status: 422, error: "learningId: say which learning" });
      expect(await call(updateLearningProfileAction, a, { learningId: userProfileLearningId(a.userId!), name: "x".repeat(201) })).toEqual({
        ok: false,
        status: 422,
        error: "name: keep the name under 200 characters",
      });
      expect(await stored(memoriesId)).toEqual(before);
      const actions = [updateLearningProfileAction, updateLearningMemoryAction, deleteLearningMemoryAction, updateLearningContentAction, deleteLearningAction, forgetEverythingAction];
      for (const action of actions) {
        expect(await call(action, null, { learningId: memoriesId, memoryId: "m1", memory: "x", content: "{}" }), action.name).toEqual({ ok: false, status: 401, error: "Sign in first." });
      }
    });

    it("an admin edits and deletes a shared learning and another user's", async () => {
      const b = await member();
      await seedMember(b, "Bea Brown");
      const shared = await sharedEntity();
      expect(await call(updateLearningContentAction, admin, { learningId: shared.learning_id, version: learningVersion(shared), content: '{"name":"Acme Corp","facts":[]}' })).toMatchObject({
        ok: true,
      });
      expect(await stored(shared.learning_id)).toMatchObject({ user_id: null, namespace: "global", content: { name: "Acme Corp", facts: [] } });
      expect(await call(updateLearningProfileAction, admin, { learningId: userProfileLearningId(b.userId!), name: "Beatrice Brown", preferred_name: "Bea" })).toMatchObject({ ok: true });
      expect(await stored(userProfileLearningId(b.userId!))).toMatchObject({ user_id: b.userId, content: { name: "Beatrice Brown", preferred_name: "Bea" } });
      expect(await call(deleteLearningAction, admin, { learningId: shared.learning_id })).toEqual({ ok: true, message: "Deleted." });
      expect(await stored(shared.learning_id)).toBeUndefined();
    });

    it("forget everything removes only that member's learnings and memories: another member's and the shared ones stay", async () => {
      const [a, b] = [await member(), await member()];
      await seedMember(a, "Ada Lovelace");
      await seedMember(b, "Bea Brown");
      const shared = await sharedEntity();
      const learningsOf = async (who: Principal) => (await readLearnings(db, { scope: dataScopeFor(who), tab: "about" })).rows;
      const memoriesOf = async (who: Principal) => (await listMemories(db, { scope: dataScopeFor(who) })).memories;
      const bLearnings = await learningsOf(b);

      // A member forgets itself, whoever the form names.
      expect(await call(forgetEverythingAction, a, { userId: b.userId! })).toEqual({
        ok: true,
        message: "Agents forgot everything they learned about you: 4 learnings, 1 memory and 0 learned insights deleted.",
      });
      expect(await learningsOf(a)).toEqual([]);
      expect(await memoriesOf(a)).toEqual([]);
      const view = await loadLearningsView(db, { scope: dataScopeFor(a), tab: "about", settings, principal: a, ownerLabel: (id) => id });
      expect(view.groups).toEqual([]);
      expect(await learningsOf(b)).toEqual(bLearnings);
      expect(await memoriesOf(b)).toHaveLength(1);
      expect(await stored(shared.learning_id)).toEqual(shared);
      // Nothing left: a second forget deletes nothing, and says so.
      expect(await call(forgetEverythingAction, a, {})).toMatchObject({ ok: true, message: expect.stringContaining("0 learnings, 0 memories and 0 learned insights") });

      // An admin forgets the user the page shows.
      expect(await call(forgetEverythingAction, admin, { userId: b.userId! })).toEqual({
        ok: true,
        message: `Agents forgot everything they learned about ${b.userId}: 4 learnings, 1 memory and 0 learned insights deleted.`,
      });
      expect(await learningsOf(b)).toEqual([]);
      expect(await stored(shared.learning_id)).toEqual(shared);
    });
  });
});
