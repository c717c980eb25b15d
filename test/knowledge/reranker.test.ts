import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText, startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { KnowledgeBase } from "@/lib/knowledge/knowledge-base.ts";
import { RERANK_INSTRUCTIONS } from "@/lib/knowledge/reranker.ts";
import { submitContent } from "@/lib/knowledge/ingestion/submit-content.ts";
import { sqliteDialect, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";

describe("a knowledge base's reranker", () => {
  let db: TestDb;
  let server: ModelServer;
  let mode: "reverse" | "fail" = "reverse";
  useMigratedDb(sqliteDialect, (x) => (db = x));

  beforeAll(async () => {
    // The scripted reranker: it scores the passages in reverse order of how they were sent (or fails).
    server = await startModelServer({
      respond: (body) => {
        const system = messageText(body.messages.find((m) => m.role === "system"));
        if (!system.startsWith(RERANK_INSTRUCTIONS)) return { text: "not a rerank request" };
        if (mode === "fail") return { error: { status: 500, message: "reranker down" } };
        const count = (messageText(body.messages.at(-1)).match(/^Passage \d+:/gm) ?? []).length;
        return { text: JSON.stringify({ ranking: Array.from({ length: count }, (_, i) => ({ passage: i + 1, relevance: (i + 1) / count })) }) };
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const baseWith = (reranker: boolean) =>
    new KnowledgeBase(
      db,
      { id: "rr", name: "Reranked", vectorTable: "rr_vectors", ...(reranker ? { reranker: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } } : {}) },
      { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t", dimensions: 384 },
    );

  it("reorders the fused results by the model's relevance, which becomes their score; a failing reranker keeps the search order", async () => {
    const plain = baseWith(false);
    for (const text of ["Tent poles are aluminium.", "Tent stakes are titanium.", "Tent fly is silnylon."]) {
      await (await submitContent({ db, settings: testSettings(), base: plain, scope: adminScope(), submission: { source: { text } } })).done;
    }
    const query = { scope: userScope("reader"), query: "tent poles stakes fly", searchType: "hybrid" as const, maxResults: 3 };
    const before = (await plain.search(query)).hits.map((h) => h.content);
    expect(before).toHaveLength(3);
    const reranked = await baseWith(true).search(query);
    expect(reranked.hits.map((h) => h.content)).toEqual([...before].reverse());
    expect(reranked.hits.map((h) => h.score)).toEqual([1, 2 / 3, 1 / 3]);
    mode = "fail";
    expect((await baseWith(true).search(query)).hits.map((h) => h.content)).toEqual(before);
  });
});
