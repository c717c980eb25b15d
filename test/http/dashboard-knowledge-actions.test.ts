import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { listContentPage } from "@/lib/db/knowledge/content-list.ts";
import { getContent } from "@/lib/db/knowledge/contents.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { deleteContentAction, searchKnowledgeAction, submitContentAction, type ContentFormState, type SearchState } from "@/lib/http/dashboard/knowledge-actions.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { adminScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";
import { until } from "../support/until.ts";

/**
 * The Knowledge page's actions: what a member and an admin add (their own / shared, whatever the
 * form says), the form's refusals naming their field, who may delete what, and searches through
 * the caller's scope, with the scripted model's hashing embedder.
 */
describe.each(DIALECTS)("the knowledge page's actions on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let settings: Settings;
    let db: TestDb;
    let admin: Principal;
    let a: Principal;
    let b: Principal;
    const call = (action: DashboardAction, principal: Principal | null, form: FormData | Record<string, string>) =>
      action.run({ principal, formData: form instanceof FormData ? form : formOf(form), db, settings, origin: ACTION_ORIGIN });
    /** The newest content of the scope's list whose name is `name`, once it is no longer processing. */
    const processed = async (principal: Principal, name: string) => {
      let found: Awaited<ReturnType<typeof getContent>> = null;
      await until(`${name} processed`, async () => {
        const page = await listContentPage(db, { scope: dataScopeFor(principal), linkedTo: "Knowledge", limit: 50 });
        found = page.rows.find((c) => c.name === name && c.status !== "processing") ?? null;
        return found !== null;
      });
      return found!;
    };

    beforeAll(async () => {
      server = await startModelServer();
      settings = testSettings({ env: { OPENAI_COMPATIBLE_BASE_URL: server.url, OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted", AGENTRY_EMBEDDING_DIMENSIONS: "384" } });
      db = await openMigrated(dialect);
      admin = principalForUser(await createUser(db, { role: "admin" }), settings);
      a = principalForUser(await createUser(db), settings);
      b = principalForUser(await createUser(db), settings);
    });
    afterAll(async () => {
      await db?.destroy();
      await server?.close();
    });

    it("a member's text is its own (a user id in the form changes nothing), an admin's is shared; both complete", async () => {
      const added = await call(submitContentAction, a, { text_content: "Kettles boil faster with a lid on.", name: "kettles", metadata: '{"topic": "kitchen"}', userId: b.userId! });
      expect(added).toEqual({ ok: true, message: "Added “kettles”: it is being processed." });
      const mine = await processed(a, "kettles");
      expect(mine).toMatchObject({ user_id: a.userId, status: "completed", type: "manual", metadata: { topic: "kitchen" } });
      // The same content again is a no-op that says so.
      expect(await call(submitContentAction, a, { text_content: "Kettles boil faster with a lid on.", name: "kettles", metadata: '{"topic": "kitchen"}' })).toMatchObject({
        ok: true,
        message: "“kettles” was already added (completed); nothing changed.",
      });

      expect(await call(submitContentAction, admin, { text_content: "Shared house rules: lids on pans.", name: "house rules" })).toMatchObject({ ok: true });
      expect(await processed(admin, "house rules")).toMatchObject({ user_id: null, status: "completed" });
      // B sees the shared content and not A's.
      const seenByB = (await listContentPage(db, { scope: dataScopeFor(b), linkedTo: "Knowledge", limit: 50 })).rows.map((c) => c.name);
      expect(seenByB).toContain("house rules");
      expect(seenByB).not.toContain("kettles");
    });

    it("a file is read by its type; one that is not the PDF its name says fails with the reader's reason", async () => {
      const form = new FormData();
      form.set("file", new File(["# Pans\n\nCast iron pans need oil after washing."], "pans.md", { type: "text/markdown" }));
      expect(await call(submitContentAction, a, form)).toMatchObject({ ok: true, message: "Added “pans.md”: it is being processed." });
      expect(await processed(a, "pans.md")).toMatchObject({ status: "completed", size: 46, type: "text/markdown" });

      const broken = new FormData();
      broken.set("file", new File(["not a pdf"], "broken.pdf", { type: "application/pdf" }));
      await call(submitContentAction, a, broken);
      const failed = await processed(a, "broken.pdf");
      expect(failed.status).toBe("failed");
      expect(failed.status_message).toContain("The file is not a readable PDF");
      expect((await listContentPage(db, { scope: dataScopeFor(a), linkedTo: "Knowledge", limit: 50, status: "failed" })).rows.map((c) => c.name)).toEqual(["broken.pdf"]);
    });

    it("refusals name their field: nothing to add, a URL that is not http(s), metadata that is not a JSON object, an unknown base", async () => {
      const refused = async (form: FormData | Record<string, string>) => (await call(submitContentAction, a, form)) as ContentFormState;
      const empty = new FormData();
      empty.set("file", new File([], ""));
      empty.set("text_content", "   ");
      expect(await refused(empty)).toEqual({ ok: false, status: 422, field: "source", error: "Nothing to add: choose a file, enter a URL or paste some text." });
      expect(await refused({ url: "ftp://example.com/a.md" })).toMatchObject({
        status: 422,
        field: "url",
        error: "'ftp://example.com/a.md' is not an http(s) URL: give an address starting with http:// or https://.",
      });
      expect(await refused({ url: "not a url" })).toMatchObject({ status: 422, field: "url" });
      expect(await refused({ text_content: "x", metadata: "{topic: 1}" })).toMatchObject({
        status: 422,
        field: "metadata",
        error: 'metadata is not JSON: write an object such as {"topic": "tents"}.',
      });
      expect(await refused({ text_content: "x", metadata: "[1, 2]" })).toMatchObject({ status: 422, field: "metadata" });
      expect(await refused({ text_content: "x", knowledge_id: "nope" })).toMatchObject({ ok: false, status: 404, error: "Knowledge base 'nope' not found." });
      expect(await call(submitContentAction, null, { text_content: "x" })).toMatchObject({ ok: false, status: 401 });
      // Nothing refused was stored.
      expect((await listContentPage(db, { scope: adminScope(), linkedTo: "Knowledge", limit: 50 })).rows.map((c) => c.name)).not.toContain("Text");
    });

    it("a member deletes its own content only: another's is not found, a shared one is refused; an admin deletes a shared one", async () => {
      await call(submitContentAction, a, { text_content: "A's note on spoons.", name: "spoons" });
      const spoons = await processed(a, "spoons");
      await call(submitContentAction, admin, { text_content: "Shared note on forks.", name: "forks" });
      const forks = await processed(admin, "forks");

      expect(await call(deleteContentAction, b, { contentId: spoons.id })).toMatchObject({ ok: false, status: 404 });
      expect(await call(deleteContentAction, a, { contentId: forks.id })).toEqual({ ok: false, status: 403, error: "Shared contents can be deleted by admins only." });
      expect(await getContent(db, { scope: adminScope(), id: forks.id })).not.toBeNull();

      expect(await call(deleteContentAction, a, { contentId: spoons.id })).toEqual({ ok: true, message: "Deleted “spoons”." });
      expect(await getContent(db, { scope: adminScope(), id: spoons.id })).toBeNull();
      expect(await call(deleteContentAction, a, { contentId: spoons.id })).toMatchObject({ ok: false, status: 404 });
      expect(await call(deleteContentAction, admin, { contentId: forks.id })).toMatchObject({ ok: true });
      // Their chunks went with them.
      const search = (await call(searchKnowledgeAction, admin, { query: "spoons forks", search_type: "keyword" })) as SearchState;
      expect(search.hits?.filter((h) => h.contentId === spoons.id || h.contentId === forks.id)).toEqual([]);
    });

    it("searches through the caller's scope in each type, with scores and chunk numbers; bad fields are named", async () => {
      await call(submitContentAction, a, { text_content: "Whisk the eggs with a fork before frying an omelette.", name: "omelette" });
      await processed(a, "omelette");
      for (const searchType of ["hybrid", "vector", "keyword"]) {
        const found = (await call(searchKnowledgeAction, a, { query: "whisk eggs omelette", search_type: searchType, max_results: "3" })) as SearchState;
        expect(found).toMatchObject({ ok: true, searchType, query: "whisk eggs omelette" });
        expect(found.hits![0]).toMatchObject({ name: "omelette", chunk: 1, content: "Whisk the eggs with a fork before frying an omelette." });
        expect(typeof found.hits![0]!.score).toBe("number");
        expect(found.hits!.length).toBeLessThanOrEqual(3);
      }
      const asB = (await call(searchKnowledgeAction, b, { query: "whisk eggs omelette", search_type: "keyword" })) as SearchState;
      expect(asB.hits?.map((h) => h.name)).not.toContain("omelette");

      expect(await call(searchKnowledgeAction, a, { query: "  " })).toMatchObject({ ok: false, status: 422, field: "query" });
      expect(await call(searchKnowledgeAction, a, { query: "eggs", search_type: "semantic" })).toMatchObject({ ok: false, status: 422, field: "search_type" });
      expect(await call(searchKnowledgeAction, a, { query: "eggs", max_results: "0" })).toMatchObject({ ok: false, status: 422, field: "max_results" });
      expect(await call(searchKnowledgeAction, a, { query: "eggs", max_results: "101" })).toMatchObject({ ok: false, status: 422, field: "max_results" });
    });

    it("without an embedder only keyword search runs; asking for vector search says what to configure", async () => {
      const keywordOnly = testSettings();
      const other = await openMigrated(dialect);
      try {
        const run = (fields: Record<string, string>) => searchKnowledgeAction.run({ principal: a, formData: formOf(fields), db: other, settings: keywordOnly, origin: ACTION_ORIGIN });
        const refused = await run({ query: "eggs", search_type: "vector" });
        expect(refused).toMatchObject({ ok: false, status: 400 });
        expect(refused.error).toContain("vector search needs an embedder");
        expect(await run({ query: "eggs", search_type: "keyword" })).toMatchObject({ ok: true, hits: [] });
      } finally {
        await other.destroy();
      }
    });
  });
});
