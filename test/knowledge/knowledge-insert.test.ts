import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { Knowledge } from "@/lib/knowledge/knowledge.ts";
import { KnowledgeBase } from "@/lib/knowledge/knowledge-base.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";

describe.each(DIALECTS)("Knowledge.insert / insertMany on $name", (dialect) => {
  let db: TestDb;
  let server: ModelServer;
  let knowledge: Knowledge;
  useMigratedDb(dialect, (x) => (db = x));
  beforeAll(async () => {
    if (dialect.skipReason) return;
    server = await startModelServer();
    knowledge = new Knowledge(
      new KnowledgeBase(db, { id: "lib", name: "Library", vectorTable: "lib_vectors" }, { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t", dimensions: 384 }),
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it.skipIf(dialect.skipReason)("insert processes before it returns; insertMany takes files and text; owners are kept apart; the same insert twice is one content", async () => {
    const dir = mkdtempSync(join(tmpdir(), "knowledge-insert-"));
    writeFileSync(join(dir, "stoves.md"), "# Stoves\n\nA canister stove burns butane and propane.");
    const [file, text] = await knowledge.insertMany([
      { path: join(dir, "stoves.md"), userId: "lib-a" },
      { textContent: "Headlamps take three AAA batteries.", name: "headlamps", userId: "lib-b" },
    ]);
    expect(file).toMatchObject({ name: "stoves.md", status: "completed", user_id: "lib-a" });
    expect(text).toMatchObject({ name: "headlamps", status: "completed", user_id: "lib-b" });
    const again = await knowledge.insert({ path: join(dir, "stoves.md"), userId: "lib-a" });
    expect(again.id).toBe(file!.id);
    const forA = await knowledge.search("canister stove headlamps batteries", { userId: "lib-a", searchType: "keyword" });
    expect(forA.hits.map((h) => h.name)).toEqual(["stoves.md"]);
    expect((await knowledge.search("canister stove headlamps batteries", { searchType: "keyword" })).hits).toHaveLength(2);
    await expect(knowledge.insert({ textContent: "x", url: "https://example.com" })).rejects.toThrow(/exactly one of path, url or textContent/);
  });
});
