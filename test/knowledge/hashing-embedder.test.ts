import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { APICallError, cosineSimilarity, embed, embedMany, generateText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { fnv1a32, HASHING_DIMENSIONS, hashingEmbedding, hashingWords } from "../../e2e/fixtures/hashing-embedder.ts";
import { type EmbedResult, type ModelServer, startModelServer } from "../../e2e/fixtures/model-server.ts";

const norm = (vector: number[]): number => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
const dot = (a: number[], b: number[]): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

function expectVectorClose(actual: number[], expected: number[], tolerance = 1e-12): void {
  expect(actual).toHaveLength(expected.length);
  const worst = actual.reduce((max, x, i) => Math.max(max, Math.abs(x - expected[i]!)), 0);
  expect(worst).toBeLessThanOrEqual(tolerance);
}

describe("hashingEmbedding", () => {
  it("hashes with 32-bit FNV-1a over UTF-8 bytes (the published test values)", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
    // Non-ASCII text hashes its UTF-8 bytes ("é" is C3 A9), not its UTF-16 code unit (E9).
    const overBytes = (bytes: number[]) => bytes.reduce((hash, byte) => Math.imul(hash ^ byte, 0x01000193), 0x811c9dc5) >>> 0;
    expect(fnv1a32("é")).toBe(overBytes([0xc3, 0xa9]));
    expect(fnv1a32("é")).not.toBe(overBytes([0xe9]));
  });

  it("splits lower-cased text on anything that is not a Unicode letter or digit", () => {
    expect(hashingWords("Won't-fit, 2 TENTS!")).toEqual(["won", "t", "fit", "2", "tents"]);
    expect(hashingWords("  Zürich → 東京 / Ærø  ")).toEqual(["zürich", "東京", "ærø"]);
    expect(hashingWords(" ... -- ")).toEqual([]);
  });

  it("is deterministic: the same text gives the same vector, pinned to known buckets", () => {
    const text = "Northwind Outfitters ships tents within two business days.";
    expect(hashingEmbedding(text)).toEqual(hashingEmbedding(text));
    expect(hashingEmbedding(text)).toHaveLength(HASHING_DIMENSIONS);

    // "hello world" has three features — "hello", "hello world", "world" — each landing in its own
    // bucket with its sign, so every non-zero component is ±1/√3. Pinned so that a change to the
    // hash, the tokenizer or the bucketing shows up here rather than as shifted retrieval scores.
    expect([fnv1a32("hello"), fnv1a32("hello world"), fnv1a32("world")]).toEqual([0x4f9f2cab, 0xd58b3fa7, 0x37a3e893]);
    const vector = hashingEmbedding("Hello, WORLD");
    const third = 1 / Math.sqrt(3);
    expect(vector[171]).toBeCloseTo(third, 15); // "hello": 0x4f9f2cab % 384 = 171, bit 31 clear → +1
    expect(vector[39]).toBeCloseTo(-third, 15); // "hello world": 0xd58b3fa7 % 384 = 39, bit 31 set → -1
    expect(vector[147]).toBeCloseTo(third, 15); // "world": 0x37a3e893 % 384 = 147, bit 31 clear → +1
    expect(vector.filter((x) => x !== 0)).toHaveLength(3);
  });

  it("returns unit-length vectors", () => {
    for (const text of ["tent", "Our returns policy for online orders", "Crème brûlée über alles — 東京 2024", "a a a a a a a a"]) {
      expect(norm(hashingEmbedding(text))).toBeCloseTo(1, 12);
    }
  });

  it("puts texts that share words and phrases closer than unrelated ones", () => {
    const query = hashingEmbedding("How do I return boots bought online?");
    const related = hashingEmbedding("Online orders: boots and other items bought online can be returned within 45 days.");
    const unrelated = hashingEmbedding("Reset your VPN password from the IT self-service portal.");
    expect(cosineSimilarity(query, related)).toBeGreaterThan(cosineSimilarity(query, unrelated));
    expect(cosineSimilarity(query, related)).toBeGreaterThan(0.2);
    expect(Math.abs(cosineSimilarity(query, unrelated))).toBeLessThan(0.2);
    // Unit vectors: the dot product is the cosine similarity.
    expect(dot(query, related)).toBeCloseTo(cosineSimilarity(query, related), 12);
  });

  it("tells word order apart through bigrams", () => {
    const a = hashingEmbedding("dog bites man");
    const b = hashingEmbedding("man bites dog");
    expect(hashingWords("dog bites man").sort()).toEqual(hashingWords("man bites dog").sort());
    expect(cosineSimilarity(a, b)).toBeLessThan(0.9);
    expect(cosineSimilarity(a, b)).toBeGreaterThan(0.3);
    expect(cosineSimilarity(a, hashingEmbedding("Dog, bites... MAN!"))).toBeCloseTo(1, 12);
  });

  it("returns all zeros for text without words", () => {
    for (const text of ["", "   ", "?!. -- …"]) {
      const vector = hashingEmbedding(text);
      expect(vector).toHaveLength(384);
      expect(vector.every((x) => x === 0)).toBe(true);
    }
  });

  it("honours dimensions and rejects invalid ones", () => {
    expect(hashingEmbedding("two tents", 16)).toHaveLength(16);
    expect(norm(hashingEmbedding("two tents", 1))).toBeCloseTo(1, 12);
    expect(() => hashingEmbedding("x", 0)).toThrow(RangeError);
    expect(() => hashingEmbedding("x", 2.5)).toThrow(RangeError);
  });
});

describe("POST /v1/embeddings on the model-server fixture", () => {
  let server: ModelServer;
  let scripted: ((inputs: string[]) => EmbedResult) | undefined;
  const embeddingModel = () => createOpenAI({ baseURL: server.url, apiKey: "t" }).embedding("scripted");

  beforeAll(async () => {
    server = await startModelServer({ embed: (inputs) => scripted?.(inputs) });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    scripted = undefined;
  });

  it("answers the AI SDK's embed and embedMany with the hashing embedder", async () => {
    const text = "Can I return hiking boots I bought on the website?";
    const single = await embed({ model: embeddingModel(), value: text });
    expectVectorClose(single.embedding, hashingEmbedding(text));
    expect(single.usage.tokens).toBeGreaterThan(0);

    const values = ["Ridgeline 2 tent packed weight", "Summit 3 tent packed weight", ""];
    const many = await embedMany({ model: embeddingModel(), values });
    expect(many.embeddings).toHaveLength(3);
    for (const [i, vector] of many.embeddings.entries()) expectVectorClose(vector, hashingEmbedding(values[i]!));

    expect(server.embeddingRequests.map((r) => [r.index, r.path, r.inputs, r.dimensions, r.encodingFormat, r.answeredBy, r.status])).toEqual([
      [0, "/v1/embeddings", [text], 384, "float", "hashing", 200],
      [1, "/v1/embeddings", values, 384, "float", "hashing", 200],
    ]);
    expect(server.embeddingRequests[0]!.headers.authorization).toBe("Bearer t");
    expect(server.embeddingRequests[0]!.body.model).toBe("scripted");
    expect(server.requests).toHaveLength(0); // embedding requests are not chat requests
    expect(await server.waitForEmbeddingRequests(2)).toHaveLength(2);
  });

  it("honours dimensions sent as the OpenAI provider option", async () => {
    const text = "waterproof rating of the Summit 3";
    const { embedding } = await embed({ model: embeddingModel(), value: text, providerOptions: { openai: { dimensions: 64 } } });
    expectVectorClose(embedding, hashingEmbedding(text, 64));
    expect(server.embeddingRequests[0]!.dimensions).toBe(64);
  });

  it("answers OpenAI's wire shape, as floats or as base64 little-endian float32", async () => {
    const post = (body: unknown) => fetch(`${server.url}/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const floats = await (await post({ model: "m", input: "store hours" })).json();
    expect(floats).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: hashingEmbedding("store hours") }],
      model: "m",
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });

    const inputs = ["store hours", "warranty claim"];
    const encoded = await (await post({ model: "m", input: inputs, encoding_format: "base64", dimensions: 32 })).json();
    expect(encoded.data.map((d: { index: number; object: string }) => [d.index, d.object])).toEqual([
      [0, "embedding"],
      [1, "embedding"],
    ]);
    encoded.data.forEach((item: { embedding: string }, i: number) => {
      expect(typeof item.embedding).toBe("string");
      const bytes = Buffer.from(item.embedding, "base64");
      expect(bytes.length).toBe(32 * 4);
      const decoded = Array.from({ length: 32 }, (_, j) => bytes.readFloatLE(j * 4));
      expectVectorClose(decoded, hashingEmbedding(inputs[i]!, 32), 1e-7);
    });
  });

  it("answers 400 to invalid bodies (not recorded) and 405 to other methods", async () => {
    const post = (body: string) => fetch(`${server.url}/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const cases: Array<[string, string | null]> = [
      ["{not json", null],
      [JSON.stringify({ input: "x" }), "model"],
      [JSON.stringify({ model: "m", input: [1, 2, 3] }), "input"],
      [JSON.stringify({ model: "m", input: [] }), "input"],
      [JSON.stringify({ model: "m", input: "x", dimensions: 0 }), "dimensions"],
      [JSON.stringify({ model: "m", input: "x", encoding_format: "int8" }), "encoding_format"],
    ];
    for (const [body, param] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const json = await res.json();
      expect(json.error.type).toBe("invalid_request_error");
      if (param) expect(json.error.param).toBe(param);
    }
    const get = await fetch(`${server.url}/embeddings`);
    expect(get.status).toBe(405);
    expect(server.embeddingRequests).toHaveLength(0);
    expect(server.allRequests).toHaveLength(cases.length + 1);
  });

  it("lets the embed option script vectors, fall through, or fail", async () => {
    scripted = (inputs) => (inputs[0] === "fall through" ? undefined : inputs.map((_, i) => [i, 0, 1]));
    const many = await embedMany({ model: embeddingModel(), values: ["a", "b"] });
    expect(many.embeddings).toEqual([
      [0, 0, 1],
      [1, 0, 1],
    ]);
    const through = await embed({ model: embeddingModel(), value: "fall through" });
    expectVectorClose(through.embedding, hashingEmbedding("fall through"));

    scripted = () => ({ status: 429, body: { error: { message: "slow down", type: "requests", param: null, code: "rate_limit_exceeded" } }, headers: { "retry-after-ms": "0" } });
    const failure = await embed({ model: embeddingModel(), value: "x", maxRetries: 0 }).catch((err: unknown) => err);
    expect(APICallError.isInstance(failure)).toBe(true);
    expect((failure as APICallError).statusCode).toBe(429);
    expect((failure as APICallError).message).toBe("slow down");

    scripted = () => {
      throw new Error("boom");
    };
    const thrown = await fetch(`${server.url}/embeddings`, { method: "POST", body: JSON.stringify({ model: "m", input: "x" }) });
    expect(thrown.status).toBe(500);
    expect((await thrown.json()).error.message).toMatch(/embed option threw: boom/);

    expect(server.embeddingRequests.map((r) => [r.answeredBy, r.status])).toEqual([
      ["embed", 200],
      ["hashing", 200],
      ["embed", 429],
      [undefined, 500],
    ]);
  });

  it("leaves chat steps and chat request counts alone", async () => {
    server.enqueue({ text: "chat answer" });
    await embed({ model: embeddingModel(), value: "not a chat request" });
    expect(server.pending).toBe(1);
    const result = await generateText({ model: createOpenAI({ baseURL: server.url, apiKey: "t" }).chat("scripted"), prompt: "hi" });
    expect(result.text).toBe("chat answer");
    expect(server.requests).toHaveLength(1);
    expect(server.embeddingRequests).toHaveLength(1);
    expect(server.allRequests.map((r) => r.path)).toEqual(["/v1/embeddings", "/v1/chat/completions"]);
  });
});
