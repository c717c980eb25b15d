import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashingEmbedding } from "@/e2e/fixtures/hashing-embedder.ts";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { getContent } from "@/lib/db/knowledge/contents.ts";
import { unsafeSystemScope } from "@/lib/db/scope.ts";
import { KnowledgeBase } from "@/lib/knowledge/knowledge-base.ts";
import { EmbedderDimensionsError, SEARCH_TYPES, VectorTableMigrationError } from "@/lib/knowledge/stores/vector-store.ts";
import { submitContent, type ContentSubmission } from "@/lib/knowledge/ingestion/submit-content.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";

const settings = testSettings();

describe.each(DIALECTS)("knowledge base on $name", (dialect) => {
  let db: TestDb;
  let server: ModelServer;
  let base: KnowledgeBase;
  useMigratedDb(dialect, (x) => (db = x));

  const insert = async (scope: ReturnType<typeof userScope>, submission: ContentSubmission, on = base) => {
    const submitted = await submitContent({ db, settings, base: on, scope, submission });
    await submitted.done;
    return submitted;
  };

  beforeAll(async () => {
    if (dialect.skipReason) return;
    server = await startModelServer();
    base = new KnowledgeBase(db, { id: "kb", name: "Handbook", vectorTable: "kb_vectors" }, { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t", dimensions: 384 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.skipIf(dialect.skipReason)("user A's chunks never reach user B through vector, keyword or hybrid search; shared chunks reach both", async () => {
    const a = userScope("kb-user-a");
    const b = userScope("kb-user-b");
    await insert(a, { source: { text: "Llama wool care: wash the alpaca and llama sweater in cold water." }, name: "llama" });
    await insert(b, { source: { text: "Tent pitching: stake the corners of the tent before raising the poles." }, name: "tent" });
    await insert(adminScope(null), { source: { text: "Store opening hours: the llama store opens at nine every day." }, name: "hours" });
    for (const searchType of SEARCH_TYPES) {
      const forA = await base.search({ scope: a, query: "llama wool sweater", searchType, maxResults: 10 });
      expect(forA.hits.length).toBeGreaterThan(0);
      expect(forA.hits.every((h) => h.userId === "kb-user-a" || h.userId === null)).toBe(true);
      const forB = await base.search({ scope: b, query: "llama wool sweater", searchType, maxResults: 10 });
      expect(forB.hits.some((h) => h.userId === "kb-user-a")).toBe(false);
      expect(forB.hits.map((h) => h.name)).not.toContain("llama");
      // The shared chunk is everyone's.
      expect(forB.hits.map((h) => h.name)).toContain("hours");
    }
    // An admin sees everyone's.
    const all = await base.search({ scope: adminScope(), query: "llama tent", searchType: "keyword", maxResults: 10 });
    expect(new Set(all.hits.map((h) => h.name))).toEqual(new Set(["llama", "tent", "hours"]));
  });

  it.skipIf(dialect.skipReason)("the same user inserting the same content twice is a no-op; another user's identical upload is a second content", async () => {
    const a = userScope("kb-dup-a");
    const text = { source: { text: "Warranty claims need the receipt and a photo of the damage." }, name: "warranty" } as const;
    const first = await insert(a, text);
    expect(first.created).toBe(true);
    const again = await insert(a, text);
    expect(again).toMatchObject({ created: false, content: { id: first.content.id, status: "completed" } });
    expect(server.embeddingRequests.filter((r) => r.inputs.some((i) => i.includes("Warranty claims")))).toHaveLength(1);
    const other = await insert(userScope("kb-dup-b"), text);
    expect(other.created).toBe(true);
    expect(other.content.id).not.toBe(first.content.id);
    const hits = await base.search({ scope: a, query: "warranty receipt", searchType: "keyword" });
    expect(hits.hits.filter((h) => h.contentId === first.content.id)).toHaveLength(1);
  });

  it.skipIf(dialect.skipReason)("a failed reader marks the content failed with a message a person can act on", async () => {
    const a = userScope("kb-fail-a");
    const bad = await insert(a, { source: { file: { bytes: new TextEncoder().encode("%PDF-1.7 this is not really a pdf"), filename: "broken.pdf", mimeType: "application/pdf" } } });
    const stored = await getContent(db, { scope: a, id: bad.content.id });
    expect(stored?.status).toBe("failed");
    expect(stored?.status_message).toMatch(/PDF/);
    const empty = await insert(a, { source: { text: "   \n  " }, name: "blank" });
    expect((await getContent(db, { scope: a, id: empty.content.id }))?.status_message).toMatch(/empty/);
  });

  it.skipIf(dialect.skipReason)("an embedder of another vector length is refused with the re-embed command; keyword search needs no embedder", async () => {
    const a = userScope("kb-dims-a");
    await insert(a, { source: { text: "Boots need waterproofing wax every season." }, name: "boots" });
    const other = new KnowledgeBase(
      db,
      { id: "kb64", name: "Handbook", vectorTable: "kb_vectors" },
      { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t", dimensions: 64 },
    );
    await expect(other.ready()).rejects.toThrow(EmbedderDimensionsError);
    await expect(other.ready()).rejects.toThrow(/npx agentry knowledge reembed/);
    const keywordOnly = new KnowledgeBase(db, { id: "kbk", name: "Handbook", vectorTable: "kb_vectors" }, null);
    expect(keywordOnly.searchTypes()).toEqual(["keyword"]);
    expect((await keywordOnly.search({ scope: a, query: "boots wax" })).hits.map((h) => h.name)).toContain("boots");
    await expect(keywordOnly.search({ scope: a, query: "boots", searchType: "vector" })).rejects.toThrow(/needs an embedder/);
  });

  it.skipIf(dialect.skipReason)(
    "a table created before per-user isolation (no user_id) refuses a user's search naming the migration, never answers empty; adding the column makes its rows shared",
    async () => {
      const legacy = "legacy_vectors";
      if (db.dialect === "postgres") {
        await db.sql.exec(`CREATE TABLE ${legacy} (id varchar PRIMARY KEY, name varchar, meta_data jsonb DEFAULT '{}'::jsonb, filters jsonb DEFAULT '{}'::jsonb,
        content text, embedding vector(384), usage jsonb, created_at timestamptz DEFAULT now(), updated_at timestamptz, content_hash varchar, content_id varchar)`);
        await db.sql.exec(`INSERT INTO ${legacy} (id, name, content, embedding, content_id) VALUES ('r1', 'old', 'Old handbook page about kayaks', ?::vector, 'c1')`, [
          `[${hashingEmbedding("Old handbook page about kayaks").join(",")}]`,
        ]);
      } else {
        const old = new KnowledgeBase(db, { id: "old", name: "Old", vectorTable: legacy }, null);
        await old.ready();
        await db.sql.exec(`ALTER TABLE ${legacy} DROP COLUMN user_id`).catch(async () => {
          await db.sql.exec(`DROP INDEX idx_${legacy}_user_id`);
          await db.sql.exec(`ALTER TABLE ${legacy} DROP COLUMN user_id`);
        });
        await db.sql.exec(`INSERT INTO ${legacy} (id, name, content, content_id) VALUES ('r1', 'old', 'Old handbook page about kayaks', 'c1')`);
      }
      const legacyBase = new KnowledgeBase(db, { id: "legacy", name: "Legacy", vectorTable: legacy }, null);
      expect((await legacyBase.store.info()).hasOwnerColumn).toBe(false);
      await expect(legacyBase.search({ scope: userScope("kb-legacy"), query: "kayaks" })).rejects.toThrow(VectorTableMigrationError);
      await expect(legacyBase.search({ scope: userScope("kb-legacy"), query: "kayaks" })).rejects.toThrow(/npx agentry migrate/);
      expect((await legacyBase.search({ scope: adminScope(), query: "kayaks" })).hits).toHaveLength(1);
      expect(await legacyBase.store.addOwnerColumn()).toBe(true);
      const after = await legacyBase.search({ scope: userScope("kb-legacy"), query: "kayaks" });
      expect(after.hits.map((h) => [h.name, h.userId])).toEqual([["old", null]]);
      // PostgreSQL: the keyword text becomes a stored column with its own GIN index, once.
      expect(await legacyBase.store.addKeywordColumn()).toBe(db.dialect === "postgres");
      expect(await legacyBase.store.addKeywordColumn()).toBe(false);
      expect((await legacyBase.search({ scope: userScope("kb-legacy"), query: "kayak" })).hits.map((h) => h.name)).toEqual(["old"]);
      if (db.dialect === "postgres") {
        const indexes = await db.sql.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? ORDER BY 1", [legacy]);
        expect(indexes.map((i) => i.indexname)).toContain(`${legacy}_content_tsv_index`);
        expect(indexes.map((i) => i.indexname)).not.toContain(`${legacy}_content_gin_index`);
      }
    },
  );

  it.skipIf(dialect.skipReason)("metadata filters apply inside the search", async () => {
    const a = userScope("kb-filter-a");
    await insert(a, { source: { text: "Parental leave lasts sixteen weeks." }, name: "leave-us", metadata: { region: "us" } });
    await insert(a, { source: { text: "Parental leave lasts twenty weeks." }, name: "leave-eu", metadata: { region: "eu" } });
    for (const searchType of SEARCH_TYPES) {
      const hits = await base.search({ scope: a, query: "parental leave weeks", searchType, filters: { region: "eu" } });
      expect(hits.hits.map((h) => h.name)).toEqual(["leave-eu"]);
    }
    void unsafeSystemScope;
  });
});
