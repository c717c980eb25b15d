import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { ContentListSchema, ContentSchema, KnowledgeConfigSchema, SearchResultSchema } from "@/lib/http/schemas/knowledge.ts";
import { DIALECTS } from "../support/databases.ts";
import { withScopes } from "../support/api.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

const KNOWLEDGE_SCOPES = ["knowledge:read", "knowledge:write", "knowledge:delete"];

/** Two members with the knowledge scopes, and an admin. */
function knowledgePrincipals() {
  const who = mintPrincipals();
  return { ...who, a: withScopes(who.a, KNOWLEDGE_SCOPES), b: withScopes(who.b, KNOWLEDGE_SCOPES) };
}

describe.each(DIALECTS)("the knowledge API on $name", (dialect) => {
  let server: ModelServer;
  let app: TestApp;
  const who = knowledgePrincipals();

  beforeAll(async () => {
    if (dialect.skipReason) return;
    server = await startModelServer();
    app = await startTestApp({ dialect, agents: [], env: { OPENAI_COMPATIBLE_BASE_URL: server.url, OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted", AGENTRY_EMBEDDING_DIMENSIONS: "384" } });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  const upload = async (form: Record<string, string> | FormData, principal = who.a) => app.call("POST", "/knowledge/content", { form, principal });
  const statusOf = async (id: string, principal = who.a) => ((await (await app.call("GET", `/knowledge/content/${id}/status`, { principal })).json()) as Json).status;
  const processed = async (id: string, principal = who.a) => until(`content ${id} processed`, async () => (await statusOf(id, principal)) !== "processing");

  it.skipIf(dialect.skipReason)("text content: 202 processing, then completed; its row in Agno's shape; searchable by vector, keyword and hybrid", async () => {
    const response = await upload({ text_content: "The Ridgeline 2 tent sleeps two and weighs 1.9 kg.", name: "ridgeline", description: "tent specs", metadata: '{"team":"gear"}' });
    expect(response.status).toBe(202);
    const accepted = ContentSchema.parse(await response.json());
    expect(accepted).toMatchObject({ name: "ridgeline", description: "tent specs", metadata: { team: "gear" }, status: "processing", type: "manual" });
    await processed(accepted.id);
    const row = (await (await app.call("GET", `/knowledge/content/${accepted.id}`, { principal: who.a })).json()) as Json;
    expect(ContentSchema.parse(row)).toMatchObject({ id: accepted.id, status: "completed", size: String(new TextEncoder().encode("The Ridgeline 2 tent sleeps two and weighs 1.9 kg.").length) });
    // Nulls are sent, as Agno's route (no exclude_none) does.
    expect(row).toHaveProperty("access_count", 0);
    for (const search_type of ["vector", "keyword", "hybrid"]) {
      const found = SearchResultSchema.parse(await (await app.call("POST", "/knowledge/search", { json: { query: "how heavy is the ridgeline tent", search_type }, principal: who.a })).json());
      expect(found.data[0]).toMatchObject({ content_id: accepted.id, name: "ridgeline", meta_data: { team: "gear", linked_to: "Knowledge", chunk: 1 } });
      expect(found.search_type).toBe(search_type);
      expect(found.meta.search_time_ms).toBeGreaterThanOrEqual(0);
    }
    const listed = ContentListSchema.parse(await (await app.call("GET", "/knowledge/content?limit=5&sort_by=name&sort_order=asc", { principal: who.a })).json());
    expect(listed.data.map((c) => c.id)).toContain(accepted.id);
    expect(listed.meta).toMatchObject({ page: 1, limit: 5 });
  });

  it.skipIf(dialect.skipReason)("a file upload (multipart) is read by the reader its type picks", async () => {
    const form = new FormData();
    form.set("file", new File(["product,price\nTrail boots,129\nRain shell,89\n"], "prices.csv", { type: "text/csv" }));
    const accepted = ContentSchema.parse(await (await upload(form)).json());
    expect(accepted).toMatchObject({ name: "prices.csv", type: "text/csv" });
    await processed(accepted.id);
    expect(await statusOf(accepted.id)).toBe("completed");
    const found = SearchResultSchema.parse(await (await app.call("POST", "/knowledge/search", { json: { query: "rain shell price", search_type: "keyword" }, principal: who.a })).json());
    expect(found.data[0]?.content).toMatch(/product: Rain shell, price: 89/);
  });

  it.skipIf(dialect.skipReason)("bad input is a 4xx naming the problem", async () => {
    const none = await upload({ name: "nothing" });
    expect(none.status).toBe(422);
    expect(JSON.stringify(await none.json())).toMatch(/file, url or text_content/);
    const badUrl = await upload({ url: "file:///etc/passwd" });
    expect(badUrl.status).toBe(422);
    expect(JSON.stringify(await badUrl.json())).toMatch(/not an http\(s\) URL/);
    const reader = await upload({ text_content: "x", reader_id: "nope" });
    expect(reader.status).toBe(422);
    expect(JSON.stringify(await reader.json())).toMatch(/reader_id/);
    const overlap = await upload({ text_content: "x", chunk_size: "100", chunk_overlap: "100" });
    expect(overlap.status).toBe(422);
    expect(JSON.stringify(await overlap.json())).toMatch(/chunk_overlap/);
    const size = await upload({ text_content: "x", chunk_size: "zero" });
    expect(size.status).toBe(422);
    const noQuery = await app.call("POST", "/knowledge/search", { json: { search_type: "keyword" }, principal: who.a });
    expect(noQuery.status).toBe(422);
    expect(JSON.stringify(await noQuery.json())).toMatch(/query/);
    const empty = await app.call("POST", "/knowledge/search", { json: { query: "" }, principal: who.a });
    expect(empty.status).toBe(200);
    expect(((await empty.json()) as { data: unknown[] }).data).toEqual([]);
    const badType = await app.call("POST", "/knowledge/search", { json: { query: "x", search_type: "fuzzy" }, principal: who.a });
    expect(badType.status).toBe(422);
    expect((await app.call("GET", "/knowledge/content?knowledge_id=nope", { principal: who.a })).status).toBe(404);
    expect((await app.call("GET", "/knowledge/content/missing", { principal: who.a })).status).toBe(404);
    expect(await (await app.call("GET", "/knowledge/content/missing/status", { principal: who.a })).json()).toEqual({ id: "missing", status: "failed", status_message: "Content not found" });
    const vectorDb = await app.call("POST", "/knowledge/search", { json: { query: "x", vector_db_ids: ["other"] }, principal: who.a });
    expect(vectorDb.status).toBe(400);
  });

  it.skipIf(dialect.skipReason)("edit and delete: owners and admins only; shared contents are the admins'; B never sees A's", async () => {
    const mine = ContentSchema.parse(await (await upload({ text_content: "A's secret packing list: alpaca socks", name: "packing" })).json());
    const shared = ContentSchema.parse(await (await upload({ text_content: "Company holidays: the first Monday of May", name: "holidays" }, who.admin)).json());
    await processed(mine.id);
    await processed(shared.id, who.admin);
    // B sees neither A's row nor A's chunks, and can touch neither.
    expect((await app.call("GET", `/knowledge/content/${mine.id}`, { principal: who.b })).status).toBe(404);
    expect((await app.call("PATCH", `/knowledge/content/${mine.id}`, { form: { name: "x" }, principal: who.b })).status).toBe(404);
    expect((await app.call("DELETE", `/knowledge/content/${mine.id}`, { principal: who.b })).status).toBe(404);
    const bSearch = JSON.stringify(await (await app.call("POST", "/knowledge/search", { json: { query: "alpaca socks packing holidays May" }, principal: who.b })).json());
    expect(bSearch).not.toMatch(/alpaca/);
    expect(bSearch).toMatch(/holidays/);
    // Shared content: readable by members, changed by admins only.
    expect((await app.call("GET", `/knowledge/content/${shared.id}`, { principal: who.a })).status).toBe(200);
    const forbidden = await app.call("PATCH", `/knowledge/content/${shared.id}`, { form: { name: "mine now" }, principal: who.a });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ detail: "Cannot modify shared content" });
    expect((await app.call("DELETE", `/knowledge/content/${shared.id}`, { principal: who.a })).status).toBe(403);
    // The owner edits; bad metadata is a 400 naming it.
    const renamed = ContentSchema.parse(await (await app.call("PATCH", `/knowledge/content/${mine.id}`, { form: { name: "packing list", metadata: '{"trip":"alps"}' }, principal: who.a })).json());
    expect(renamed).toMatchObject({ name: "packing list", metadata: { trip: "alps" } });
    const badMeta = await app.call("PATCH", `/knowledge/content/${mine.id}`, { form: { metadata: "{nope" }, principal: who.a });
    expect(badMeta.status).toBe(400);
    expect(await badMeta.json()).toMatchObject({ detail: "Invalid JSON format for metadata" });
    // B's delete-all deletes only B's (nothing); A's stays.
    expect(await (await app.call("DELETE", "/knowledge/content", { principal: who.b })).json()).toBe("success");
    expect(await statusOf(mine.id)).toBe("completed");
    // The owner deletes: the row and its chunks go.
    expect(await (await app.call("DELETE", `/knowledge/content/${mine.id}`, { principal: who.a })).json()).toEqual({ id: mine.id });
    const after = JSON.stringify(await (await app.call("POST", "/knowledge/search", { json: { query: "alpaca socks" }, principal: who.admin })).json());
    expect(after).not.toMatch(/alpaca/);
  });

  it.skipIf(dialect.skipReason)("/knowledge/config lists readers, chunkers, the vector db with its search types, and the caller's metadata keys", async () => {
    const config = KnowledgeConfigSchema.parse(await (await app.call("GET", "/knowledge/config", { principal: who.a })).json());
    expect(Object.keys(config.readers)).toEqual(expect.arrayContaining(["text", "markdown", "html", "pdf", "docx", "csv", "json", "url"]));
    expect(Object.keys(config.chunkers)).toEqual(["FixedSizeChunker", "RecursiveChunker", "MarkdownChunker"]);
    expect(config.chunkers.FixedSizeChunker?.metadata).toEqual({ chunk_size: 5000, chunk_overlap: 0 });
    expect(config.vector_dbs[0]?.search_types).toEqual(["vector", "keyword", "hybrid"]);
    expect(config.embedder).toMatchObject({ provider: "openai-compatible", model: "scripted", dimensions: 384 });
    expect(config.filters).toContain("team");
  });
});

describe("without an embedder", () => {
  let app: TestApp;
  const who = knowledgePrincipals();
  beforeAll(async () => {
    app = await startTestApp({ dialect: DIALECTS[0]!, agents: [] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("knowledge works by keyword; /knowledge/config says vector search needs an embedder; a vector search is a 400 naming the variables", async () => {
    const accepted = ContentSchema.parse(await (await app.call("POST", "/knowledge/content", { form: { text_content: "Store hours: nine to six" }, principal: who.a })).json());
    await until("processed", async () => ((await (await app.call("GET", `/knowledge/content/${accepted.id}/status`, { principal: who.a })).json()) as Json).status === "completed");
    const found = SearchResultSchema.parse(await (await app.call("POST", "/knowledge/search", { json: { query: "store hours" }, principal: who.a })).json());
    expect(found).toMatchObject({ search_type: "keyword", data: [{ content_id: accepted.id }] });
    const config = KnowledgeConfigSchema.parse(await (await app.call("GET", "/knowledge/config", { principal: who.a })).json());
    expect(config.vector_dbs[0]?.search_types).toEqual(["keyword"]);
    expect(config.embedder).toBeNull();
    expect(config.notes.join(" ")).toMatch(/need an embedder/);
    const vector = await app.call("POST", "/knowledge/search", { json: { query: "store", search_type: "vector" }, principal: who.a });
    expect(vector.status).toBe(400);
    expect(((await vector.json()) as Json).detail).toMatch(/OPENAI_EMBEDDING_MODEL/);
  });
});
