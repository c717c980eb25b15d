import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { KnowledgeBase } from "@/lib/knowledge/knowledge-base.ts";
import { SEARCH_TYPES, type SearchType } from "@/lib/knowledge/stores/vector-store.ts";
import { submitContent } from "@/lib/knowledge/ingestion/submit-content.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";

/**
 * Retrieval quality on the hand-written set of test/fixtures/knowledge-retrieval/ (100 documents,
 * 30 questions labelled with their answer documents), embedded by the scripted hashing embedder.
 * recall@5 of a question: the share of its answer documents among the first five documents found.
 */
const FIXTURES = new URL("../fixtures/knowledge-retrieval/", import.meta.url);
const documents = JSON.parse(readFileSync(new URL("documents.json", FIXTURES), "utf8")) as { id: string; title: string; text: string }[];
const questions = JSON.parse(readFileSync(new URL("questions.json", FIXTURES), "utf8")) as { id: string; question: string; answers: string[] }[];

describe.each(DIALECTS)("retrieval on the labelled set ($name)", (dialect) => {
  let db: TestDb;
  let server: ModelServer;
  let base: KnowledgeBase;
  const recall: Partial<Record<SearchType, number>> = {};
  useMigratedDb(dialect, (x) => (db = x));

  beforeAll(async () => {
    if (dialect.skipReason) return;
    server = await startModelServer();
    base = new KnowledgeBase(db, { id: "northwind", name: "Northwind" }, { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t", dimensions: 384 });
    const settings = testSettings();
    // The handbook is shared (an admin's upload): every member searches it.
    for (const doc of documents) {
      const submitted = await submitContent({ db, settings, base, scope: adminScope(), submission: { source: { text: `${doc.title}\n\n${doc.text}` }, name: doc.id } });
      await submitted.done;
    }
    for (const searchType of SEARCH_TYPES) {
      let sum = 0;
      for (const q of questions) {
        const { hits } = await base.search({ scope: userScope("reader"), query: q.question, searchType, maxResults: 20 });
        const top = [...new Set(hits.map((h) => h.name))].slice(0, 5);
        sum += q.answers.filter((a) => top.includes(a)).length / q.answers.length;
      }
      recall[searchType] = sum / questions.length;
    }
    console.log(`[retrieval ${dialect.name}] recall@5 vector ${recall.vector?.toFixed(3)}, keyword ${recall.keyword?.toFixed(3)}, hybrid ${recall.hybrid?.toFixed(3)}`);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it.skipIf(dialect.skipReason)("every document was stored as a completed content", async () => {
    const { hits } = await base.search({ scope: adminScope(), query: "Northwind", searchType: "keyword", maxResults: 100 });
    expect(new Set(hits.map((h) => h.name)).size).toBeGreaterThan(0);
    expect((await base.store.info()).chunks).toBe(documents.length);
  });

  it.skipIf(dialect.skipReason)("keyword recall@5 is at least 0.85 and hybrid recall@5 at least vector's: fusion adds the words to the meaning", () => {
    expect(recall.keyword).toBeGreaterThanOrEqual(0.85);
    expect(recall.hybrid).toBeGreaterThanOrEqual(recall.vector!);
  });

  it.skipIf(dialect.skipReason)("no fusion of these two lists can reach 0.9: every question keyword search misses, the hashing embedder misses too (paraphrases)", async () => {
    // The union of both top-5 lists bounds any fusion of them; it equals keyword's recall here.
    let union = 0;
    for (const q of questions) {
      const [byMeaning, byWords] = await Promise.all(
        (["vector", "keyword"] as const).map(async (searchType) => (await base.search({ scope: userScope("reader"), query: q.question, searchType, maxResults: 20 })).hits),
      );
      const top = new Set([...new Set(byMeaning!.map((h) => h.name))].slice(0, 5).concat([...new Set(byWords!.map((h) => h.name))].slice(0, 5)));
      union += q.answers.filter((a) => top.has(a)).length / q.answers.length;
    }
    expect(union / questions.length).toBeCloseTo(recall.keyword!, 5);
    expect(union / questions.length).toBeLessThan(0.9);
  });
});
