import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { knowledgeBasesOf } from "@/lib/knowledge/knowledge-bases.ts";
import { migrateKnowledgeTables, reembedKnowledge } from "@/lib/knowledge/maintenance.ts";
import { EmbedderDimensionsError } from "@/lib/knowledge/stores/vector-store.ts";
import { submitContent } from "@/lib/knowledge/ingestion/submit-content.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { userScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";

describe.each(DIALECTS)("knowledge maintenance on $name", (dialect) => {
  let db: TestDb;
  let server: ModelServer;
  useMigratedDb(dialect, (x) => (db = x));
  beforeAll(async () => {
    if (dialect.skipReason) return;
    server = await startModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const settingsWith = (dimensions: number | null) =>
    testSettings({
      env: dimensions ? { OPENAI_COMPATIBLE_BASE_URL: server.url, OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted", AGENTRY_EMBEDDING_DIMENSIONS: String(dimensions) } : {},
      file: { knowledge: { bases: [{ id: "m", name: "Maintained", vectorTable: `m_vectors_${dimensions ?? 0}` }] } },
    });

  it.skipIf(dialect.skipReason)("reembed: chunks stored without an embedder (or with another length) become searchable by meaning with the configured one", async () => {
    // Stored by keyword only (no embedder), in a table the 64-dimension settings below will use.
    const plain = testSettings({ file: { knowledge: { bases: [{ id: "m", name: "Maintained", vectorTable: "m_vectors_64" }] } } });
    const keywordBase = knowledgeBasesOf(db, plain).get("m")!;
    const a = userScope("maint-a");
    const stored = await submitContent({ db, settings: plain, base: keywordBase, scope: a, submission: { source: { text: "Kayak paddles come in carbon and aluminium." }, name: "paddles" } });
    await stored.done;
    const embedded = settingsWith(64);
    const base = knowledgeBasesOf(db, embedded).get("m")!;
    await expect(base.ready()).rejects.toThrow(EmbedderDimensionsError);
    const outcomes = await reembedKnowledge(db, embedded);
    expect(outcomes).toEqual([{ table: "m_vectors_64", chunks: 1 }]);
    await base.ready();
    const hits = await base.search({ scope: a, query: "carbon kayak paddles", searchType: "vector" });
    expect(hits.hits.map((h) => h.name)).toEqual(["paddles"]);
    expect(await base.store.info()).toMatchObject({ dimensions: 64, chunks: 1 });
  });

  it.skipIf(dialect.skipReason)("the migrate step adds the owner column to a configured chunk table made before per-user isolation, once", async () => {
    const settings = testSettings({ file: { knowledge: { bases: [{ id: "old", name: "Old", vectorTable: "old_vectors" }] } } });
    const base = knowledgeBasesOf(db, settings).get("old")!;
    await base.ready();
    if (db.dialect === "sqlite") await db.sql.exec("DROP INDEX idx_old_vectors_user_id");
    await db.sql.exec("ALTER TABLE old_vectors DROP COLUMN user_id");
    expect(await migrateKnowledgeTables(db, settings)).toEqual([{ table: "old_vectors", addedOwnerColumn: true, addedKeywordColumn: false }]);
    expect(await migrateKnowledgeTables(db, settings)).toEqual([{ table: "old_vectors", addedOwnerColumn: false, addedKeywordColumn: false }]);
    expect((await base.store.info()).hasOwnerColumn).toBe(true);
  });
});
