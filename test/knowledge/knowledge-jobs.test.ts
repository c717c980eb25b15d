import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { ContentSchema } from "@/lib/http/schemas/knowledge.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;
/** Worker timings small enough for tests: claims within 50 ms. */
const FAST = { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50", AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "2" };

describe.each(DIALECTS)("knowledge processing as durable jobs on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    const who = mintPrincipals();
    const a = withScopes(who.a, ["knowledge:read", "knowledge:write"]);

    beforeAll(async () => {
      server = await startModelServer();
      app = await startTestApp({
        dialect,
        agents: [],
        env: { ...FAST, OPENAI_COMPATIBLE_BASE_URL: server.url, OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted", AGENTRY_EMBEDDING_DIMENSIONS: "384" },
      });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("an upload stores the content, its bytes and its knowledge_content job together; a worker processes it for its owner; the upload is dropped after", async () => {
      const accepted = ContentSchema.parse(
        await (await app.call("POST", "/knowledge/content", { form: { text_content: "Crampons attach to stiff mountaineering boots.", name: "crampons" }, principal: a })).json(),
      );
      expect(accepted.status).toBe("processing");
      const status = async () => ((await (await app.call("GET", `/knowledge/content/${accepted.id}/status`, { principal: a })).json()) as Json).status;
      await until("the job processes the content", async () => (await status()) === "completed");
      const jobs = (await (await app.call("GET", "/queue/jobs?job_type=knowledge_content", { principal: who.admin })).json()) as { data: Json[] };
      const job = jobs.data.find((j) => j.component_id === accepted.id);
      expect(job).toMatchObject({ job_type: "knowledge_content", component_type: "knowledge_content", user_id: who.userA });
      await until("the job settles", async () => ((await (await app.call("GET", `/queue/jobs/${job!.id}`, { principal: who.admin })).json()) as Json).status === "completed");
      const db = await app.db();
      expect(await db.sql.query("SELECT content_id FROM agentry_knowledge_uploads WHERE content_id = ?", [accepted.id])).toEqual([]);
      const hits = (await (await app.call("POST", "/knowledge/search", { json: { query: "crampons boots" }, principal: a })).json()) as { data: Json[] };
      expect(hits.data[0]).toMatchObject({ content_id: accepted.id });
      // The same upload again changes nothing and enqueues nothing.
      const again = ContentSchema.parse(
        await (await app.call("POST", "/knowledge/content", { form: { text_content: "Crampons attach to stiff mountaineering boots.", name: "crampons" }, principal: a })).json(),
      );
      expect(again).toMatchObject({ id: accepted.id, status: "completed" });
      const after = (await (await app.call("GET", "/queue/jobs?job_type=knowledge_content", { principal: who.admin })).json()) as { data: Json[] };
      expect(after.data.filter((j) => j.component_id === accepted.id)).toHaveLength(1);
    });

    it("a URL that cannot be fetched ends failed, with a message naming the host", async () => {
      const accepted = ContentSchema.parse(await (await app.call("POST", "/knowledge/content", { form: { url: "https://example.invalid/page", name: "unreachable" }, principal: a })).json());
      await until("it ends", async () => ((await (await app.call("GET", `/knowledge/content/${accepted.id}/status`, { principal: a })).json()) as Json).status !== "processing");
      const row = (await (await app.call("GET", `/knowledge/content/${accepted.id}`, { principal: a })).json()) as Json;
      expect(row.status).toBe("failed");
      expect(String(row.status_message)).toMatch(/example\.invalid/);
    });
  });
});
