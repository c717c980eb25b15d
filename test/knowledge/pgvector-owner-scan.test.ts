import { describe, expect, it } from "vitest";
import { hashingEmbedding } from "@/e2e/fixtures/hashing-embedder.ts";
import { postgresStore } from "@/lib/knowledge/stores/postgres-store.ts";
import type { ChunkRecord } from "@/lib/knowledge/stores/vector-store.ts";
import { postgresDialect, useMigratedDb, type TestDb } from "../support/databases.ts";
import { userScope } from "../support/scopes.ts";

/** A seeded stream of words, so the corpus and its queries are the same on every run. */
function words(seed: number) {
  const vocabulary =
    "tent stove boot jacket trail river summit camp rope lantern map compass glove pack tarp kayak paddle snow rain wind moss cedar granite canyon ridge valley lake ember dawn dusk".split(" ");
  let state = seed;
  return (count: number) =>
    Array.from({ length: count }, () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return vocabulary[state % vocabulary.length];
    }).join(" ");
}

describe.skipIf(postgresDialect.skipReason)("pgvector: the owner filter inside the HNSW scan", () => {
  let db: TestDb;
  useMigratedDb(postgresDialect, (x) => (db = x));

  it("a user holding 1% of 5,000 chunks still gets max_results hits, all its own; without the iterative scan the same index scan finds almost none", async () => {
    const store = postgresStore(db, "owner_scan_vectors");
    await store.ensure(384);
    const next = words(7);
    for (let content = 0; content < 50; content++) {
      const chunks: ChunkRecord[] = Array.from({ length: 100 }, (_, i) => {
        const text = next(12);
        // Every 100th chunk (the first of each content) is the rare user's: 50 of 5,000.
        const userId = i === 0 ? "rare" : `bulk-${(content * 100 + i) % 40}`;
        return {
          id: `c${content}-${i}`,
          name: `content-${content}`,
          content: text,
          metadata: {},
          filters: null,
          contentId: `content-${content}`,
          contentHash: "h",
          userId,
          embedding: hashingEmbedding(text),
          usage: null,
        };
      });
      await store.replaceContent(`content-${content}`, chunks);
    }
    const query = hashingEmbedding(words(99)(12));
    const hits = await store.vectorSearch(query, { scope: userScope("rare"), limit: 10 });
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => h.userId === "rare")).toBe(true);
    // Best first.
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => y - x));

    // The same query with the iterative scan off: the index hands over ef_search candidates, and
    // the owner filter keeps about 1% of them.
    const literal = `[${query.join(",")}]`;
    const [, , , rows] = await db.sql.batchRows([
      { text: "SET LOCAL enable_seqscan = off" },
      { text: "SET LOCAL hnsw.iterative_scan = off" },
      { text: "SET LOCAL hnsw.ef_search = 40" },
      { text: "SELECT id FROM owner_scan_vectors WHERE (user_id = ? OR user_id IS NULL) ORDER BY embedding <=> ?::vector LIMIT 10", params: ["rare", literal] },
    ]);
    expect(rows!.length).toBeLessThan(10);
  });
});
