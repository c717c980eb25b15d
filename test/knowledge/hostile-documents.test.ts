import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigHtml, deepJson, docxBomb, longCsv, manyPagePdf, pdfStreamBomb } from "@/e2e/fixtures/hostile-documents.ts";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { DEFAULT_KNOWLEDGE_LIMITS, type KnowledgeLimits } from "@/lib/config/settings.ts";
import { DocumentPool } from "@/lib/knowledge/document-pool.ts";
import type { DocumentRequest, DocumentResult } from "@/lib/knowledge/read-document.ts";
import { ContentSchema } from "@/lib/http/schemas/knowledge.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;
const MiB = 1024 * 1024;
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("documents read on worker threads, within the knowledge limits", () => {
  const pools: DocumentPool[] = [];
  /** One page past knowledge.maxPdfPages (slow to read when the cap is raised). */
  let pdf: Uint8Array;
  beforeAll(async () => {
    pdf = await manyPagePdf(2001);
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
  });

  /** Reads one document on a pool of its own with these limits. */
  async function read(document: Pick<DocumentRequest, "bytes" | "name" | "mimeType"> & Partial<DocumentRequest>, limits: Partial<KnowledgeLimits> = {}): Promise<DocumentResult> {
    const all = { ...DEFAULT_KNOWLEDGE_LIMITS, ...limits };
    const pool = new DocumentPool(all);
    pools.push(pool);
    return pool.read({ metadata: {}, limits: all, ...document });
  }
  const refusal = (result: DocumentResult) => {
    expect(result.ok).toBe(false);
    return result as Extract<DocumentResult, { ok: false }>;
  };

  it("a DOCX bomb (document.xml inflating past 50 MiB) is refused while inflating, naming the limit", async () => {
    const bomb = docxBomb({ inflatedBytes: 60 * MiB });
    expect(bomb.length).toBeLessThan(300 * 1024);
    const result = refusal(await read({ bytes: bomb, name: "bomb.docx" }));
    expect(result).toMatchObject({ limit: true });
    expect(result.message).toMatch(/"word\/document\.xml" inflates to more than 50 MiB.*knowledge\.maxInflatedBytes/);
  });

  it("a DOCX entry that declares a small size but inflates past it is stopped at the declared size", async () => {
    const liar = docxBomb({ inflatedBytes: 60 * MiB, declaredSize: 4096 });
    const result = refusal(await read({ bytes: liar, name: "liar.docx" }));
    expect(result).toMatchObject({ limit: true });
    expect(result.message).toMatch(/inflates to more than the 4096 bytes it declares/);
  });

  it("a PDF of more pages than knowledge.maxPdfPages is refused before its pages are read", async () => {
    const result = refusal(await read({ bytes: pdf, name: "pages.pdf" }));
    expect(result).toMatchObject({ limit: true });
    expect(result.message).toMatch(/The PDF has 2,001 pages, more than the 2,000 read per document \(knowledge\.maxPdfPages\)/);
  });

  it("JSON nested 100,000 deep is refused by depth, not by a stack overflow", async () => {
    const result = refusal(await read({ bytes: utf8(deepJson(100_000)), name: "deep.json" }));
    expect(result).toMatchObject({ limit: true });
    expect(result.message).toMatch(/the JSON is nested more than 64 levels deep/i);
    expect((await read({ bytes: utf8(deepJson(60)), name: "ok.json" })).ok).toBe(true);
  });

  it("HTML past knowledge.maxHtmlBytes is refused unparsed", async () => {
    const result = refusal(await read({ bytes: utf8(bigHtml(11 * MiB)), name: "big.html" }));
    expect(result).toMatchObject({ limit: true });
    expect(result.message).toMatch(/more than the 10 MiB converted per document \(knowledge\.maxHtmlBytes\)/);
  });

  it("a CSV past knowledge.maxCsvRows is refused (parsing stops one row past it)", async () => {
    const result = refusal(await read({ bytes: utf8(longCsv(200_001)), name: "rows.csv" }));
    expect(result).toMatchObject({ limit: true });
    expect(result.message).toMatch(/more than 200,000 rows.*knowledge\.maxCsvRows/);
    const fits = await read({ bytes: utf8(longCsv(500)), name: "rows.csv" });
    expect(fits.ok).toBe(true);
  });

  it("text past knowledge.maxExtractedChars, and more chunks than knowledge.maxChunksPerContent, are refused", async () => {
    const text = refusal(await read({ bytes: utf8("word ".repeat(300_000)), name: "long.txt" }, { maxExtractedChars: 1_000_000 }));
    expect(text.message).toMatch(/more than 1,000,000 characters.*knowledge\.maxExtractedChars/);
    const chunks = refusal(await read({ bytes: utf8("word ".repeat(60_000)), name: "many.txt", chunkSize: 100 }, { maxChunksPerContent: 2000 }));
    expect(chunks).toMatchObject({ limit: true });
    expect(chunks.message).toMatch(/makes (at least )?3,000 chunks, more than the 2,000 one content may have \(knowledge\.maxChunksPerContent\)/);
  });

  it("a document that runs past knowledge.readerTimeoutSeconds, or past the thread's heap, is stopped; the pool goes on", async () => {
    const limits = { ...DEFAULT_KNOWLEDGE_LIMITS, readerThreads: 1, readerMemoryMiB: 64, readerTimeoutSeconds: 1 };
    const quick = new DocumentPool(limits);
    const roomy = new DocumentPool({ ...limits, readerTimeoutSeconds: 120 });
    pools.push(quick, roomy);
    const slow = await quick.read({ bytes: pdf, name: "slow.pdf", metadata: {}, limits: { ...limits, maxPdfPages: 5000 } });
    expect(refusal(slow)).toMatchObject({ limit: true, message: expect.stringMatching(/took longer than 1 s \(knowledge\.readerTimeoutSeconds\)/) });
    const heavy = await roomy.read({ bytes: utf8(bigHtml(6 * MiB)), name: "heavy.html", metadata: {}, limits });
    expect(refusal(heavy)).toMatchObject({ limit: true, message: expect.stringMatching(/more than 64 MiB of memory \(knowledge\.readerMemoryMiB\)/) });
    // Inflated PDF streams fill ArrayBuffers outside the heap: the pool's watch of the process's memory stops it.
    const inflating = await roomy.read({ bytes: await pdfStreamBomb(400 * MiB), name: "stream.pdf", metadata: {}, limits });
    expect(refusal(inflating)).toMatchObject({ limit: true, message: expect.stringMatching(/more than 64 MiB of memory \(knowledge\.readerMemoryMiB\)/) });
    for (const pool of [quick, roomy]) {
      const small = await pool.read({ bytes: utf8("A small note about tents."), name: "note.txt", metadata: {}, limits });
      expect(small).toMatchObject({ ok: true, readerId: "text" });
    }
  });
});

describe.each(DIALECTS)("hostile uploads through the API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    const who = mintPrincipals();
    const a = withScopes(who.a, ["knowledge:read", "knowledge:write"]);
    const b = withScopes(who.b, ["knowledge:read", "knowledge:write"]);

    beforeAll(async () => {
      server = await startModelServer();
      app = await startTestApp({
        dialect,
        agents: [],
        env: {
          AGENTRY_QUEUE_DURABLE: "true",
          AGENTRY_QUEUE_POLL_INTERVAL_MS: "50",
          OPENAI_COMPATIBLE_BASE_URL: server.url,
          OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted",
          AGENTRY_EMBEDDING_DIMENSIONS: "384",
        },
      });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    const upload = async (file: File, principal: typeof a) => ContentSchema.parse(await (await app.call("POST", "/knowledge/content", { form: fileForm(file), principal })).json());
    const contentOf = async (id: string, principal: typeof a) => (await (await app.call("GET", `/knowledge/content/${id}`, { principal })).json()) as Json;
    const ended = (id: string, principal: typeof a) => until(`content ${id} processed`, async () => (await contentOf(id, principal)).status !== "processing", 60_000, 100);

    it("a DOCX bomb and deep JSON fail with the named limit and are not retried, while another user's small upload at the same time completes", async () => {
      const [bomb, deep, small] = await Promise.all([
        upload(new File([docxBomb({ inflatedBytes: 60 * MiB })], "bomb.docx"), a),
        upload(new File([deepJson(100_000)], "deep.json", { type: "application/json" }), a),
        upload(new File(["The Ridgeline 2 tent weighs 1.9 kg."], "tent.txt", { type: "text/plain" }), b),
      ]);
      await Promise.all([ended(bomb.id, a), ended(deep.id, a), ended(small.id, b)]);
      expect(await contentOf(small.id, b)).toMatchObject({ status: "completed" });
      expect(await contentOf(bomb.id, a)).toMatchObject({ status: "failed", status_message: expect.stringMatching(/knowledge\.maxInflatedBytes/) });
      expect(await contentOf(deep.id, a)).toMatchObject({ status: "failed", status_message: expect.stringMatching(/nested more than 64 levels deep/) });
      const jobs = (await (await app.call("GET", "/queue/jobs?job_type=knowledge_content&limit=100", { principal: who.admin })).json()) as { data: Json[] };
      for (const id of [bomb.id, deep.id]) {
        const job = jobs.data.find((j) => j.component_id === id);
        await until("the job settles", async () => ((await (await app.call("GET", `/queue/jobs/${job!.id}`, { principal: who.admin })).json()) as Json).status === "completed");
        expect(((await (await app.call("GET", `/queue/jobs/${job!.id}`, { principal: who.admin })).json()) as Json).attempt).toBe(1);
      }
    });

    it("chunk_size below knowledge.minChunkSize is a 422 naming the field; a content making too many chunks fails with the count", async () => {
      const tiny = await app.call("POST", "/knowledge/content", { form: { text_content: "word ".repeat(100), chunk_size: "1" }, principal: a });
      expect(tiny.status).toBe(422);
      expect(JSON.stringify(await tiny.json())).toMatch(/"loc":\["body","chunk_size"\].*at least 100 characters \(knowledge\.minChunkSize\)/);
      // An overlap that leaves each chunk less new text than the floor multiplies chunks the same way.
      const creeping = await app.call("POST", "/knowledge/content", { form: { text_content: "word ".repeat(100), chunk_size: "100", chunk_overlap: "99" }, principal: a });
      expect(creeping.status).toBe(422);
      expect(JSON.stringify(await creeping.json())).toMatch(/"loc":\["body","chunk_overlap"\].*chunk_size minus chunk_overlap must be at least 100/);
      const form = fileForm(new File(["word ".repeat(500_001)], "many.txt", { type: "text/plain" }));
      form.set("chunk_size", "100");
      const many = ContentSchema.parse(await (await app.call("POST", "/knowledge/content", { form, principal: a })).json());
      await ended(many.id, a);
      expect(await contentOf(many.id, a)).toMatchObject({ status: "failed", status_message: expect.stringMatching(/makes (at least )?[\d,]+ chunks, more than the 20,000 one content may have/) });
    });
  });
});

function fileForm(file: File): FormData {
  const form = new FormData();
  form.set("file", file);
  return form;
}
