import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { defineKnowledge } from "@/lib/config/define.ts";
import { KnowledgeBase } from "@/lib/knowledge/knowledge-base.ts";
import { efSearchFor, HNSW_DEFAULTS } from "@/lib/knowledge/stores/postgres-store.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { userScope } from "../support/scopes.ts";

describe("a knowledge base's vectorIndex settings", () => {
  it("are checked when the base is defined, naming the field", () => {
    expect(defineKnowledge({ id: "k", name: "K", vectorIndex: { m: 24, efConstruction: 96, efSearch: 100 } }).vectorIndex).toEqual({ m: 24, efConstruction: 96, efSearch: 100 });
    expect(() => defineKnowledge({ id: "k", name: "K", vectorIndex: { m: 32, efConstruction: 40 } })).toThrow(/efConstruction must be at least twice m/);
    expect(() => defineKnowledge({ id: "k", name: "K", vectorIndex: { efSearch: 5000 } })).toThrow(/vectorIndex\.efSearch/);
    expect(() => defineKnowledge({ id: "k", name: "K", vectorIndex: { ef: 10 } as never })).toThrow(/vectorIndex: Unrecognized key/);
  });

  it("a search keeps at least efSearch candidates, twice its limit when that is more, at most 1,000", () => {
    expect(efSearchFor(10)).toBe(HNSW_DEFAULTS.efSearch);
    expect(efSearchFor(10, { ...HNSW_DEFAULTS, efSearch: 40 })).toBe(40);
    expect(efSearchFor(100, { ...HNSW_DEFAULTS, efSearch: 40 })).toBe(200);
    expect(efSearchFor(100, { ...HNSW_DEFAULTS, efSearch: 1000 })).toBe(1000);
  });
});

describe.each(DIALECTS.filter((d) => d.name === "postgres"))("the HNSW index on $name", (dialect) => {
  let db: TestDb;
  let server: ModelServer;
  useMigratedDb(dialect, (x) => (db = x));
  beforeAll(async () => {
    if (!dialect.skipReason) server = await startModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const options = async (table: string) => {
    const [row] = await db.sql.query<{ options: string[] }>(
      "SELECT c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = ?",
      [`${table}_hnsw_index`],
    );
    return row?.options;
  };

  it.skipIf(dialect.skipReason)("is built with the base's m and efConstruction, or the defaults; a search runs with its efSearch", async () => {
    const embedder = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t", dimensions: 384 };
    const tuned = new KnowledgeBase(db, { id: "tuned", name: "Tuned", vectorTable: "tuned_vectors", vectorIndex: { m: 8, efConstruction: 32, efSearch: 50 } }, embedder);
    await tuned.ready();
    expect(await options("tuned_vectors")).toEqual(["m=8", "ef_construction=32"]);
    const plain = new KnowledgeBase(db, { id: "plain", name: "Plain", vectorTable: "plain_vectors" }, embedder);
    await plain.ready();
    expect(await options("plain_vectors")).toEqual([`m=${HNSW_DEFAULTS.m}`, `ef_construction=${HNSW_DEFAULTS.efConstruction}`]);
    // The setting reaches the search's transaction: the statement batch is observed on its way.
    const seen: string[] = [];
    const batchRows = db.sql.batchRows.bind(db.sql);
    const observed = new KnowledgeBase(
      { ...db, sql: { ...db.sql, batchRows: async (statements) => (seen.push(...statements.map((s) => s.text)), batchRows(statements)) } },
      { id: "tuned", name: "Tuned", vectorTable: "tuned_vectors", vectorIndex: { efSearch: 50 } },
      embedder,
    );
    await observed.search({ scope: userScope("hnsw-user"), query: "kayak paddles", searchType: "vector" });
    expect(seen).toContain("SET LOCAL hnsw.ef_search = 50");
  });
});
