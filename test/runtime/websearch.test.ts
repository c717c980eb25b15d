import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "@/lib/config/define.ts";
import { WEB_SEARCH_BACKEND_NAMES } from "@/lib/config/env.ts";
import { AddressRefusedError, guardedRequest } from "@/lib/net/guarded-request.ts";
import { UnsupportedEncodingError } from "@/lib/net/read-body.ts";
import { executeTool, newToolExecution } from "@/lib/runtime/tools/run-tool.ts";
import type { Toolkit, ToolContext, ToolDefinition } from "@/lib/runtime/tools/types.ts";
import { isoDate, plainText } from "@/lib/runtime/tools/websearch/results.ts";
import { duckDuckGoTools, WEB_SEARCH_BACKENDS, webSearchTools, type WebSearchBackend, type WebSearchToolsOptions } from "@/lib/runtime/tools/websearch/websearch.ts";
import { generatedNewsHits, generatedWebHits, startSearchServer, type SearchServer } from "../../e2e/fixtures/search-server.ts";

type Json = Record<string, unknown>;

const context = (): ToolContext => ({ runId: "run-1", sessionId: "session-1", agentId: "agent-1", userId: null, signal: new AbortController().signal });

let server: SearchServer;
beforeAll(async () => {
  server = await startSearchServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => server.reset());

/** The toolkit on a backend of the fixture, its host allowed. */
function toolkitOn(backend: WebSearchBackend, options: WebSearchToolsOptions = {}): Toolkit {
  const apiKey = backend === "brave" ? server.braveApiKey : backend === "tavily" ? server.tavilyApiKey : undefined;
  return webSearchTools({ backend, ...(apiKey ? { apiKey } : {}), baseUrl: server.url, allowHosts: [server.host], ...options });
}

function toolOf(toolkit: Toolkit, name: string): ToolDefinition<unknown> {
  const tool = toolkit.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool as ToolDefinition<unknown>;
}

/** Calls a tool as the run loop does: arguments validated, a throw turned into the error result the model reads. */
async function call(toolkit: Toolkit, name: string, args: Json) {
  const tool = toolOf(toolkit, name);
  return executeTool(tool, newToolExecution(tool, { toolCallId: `call-${name}`, toolName: name, input: args }), context());
}

/** The parsed results of a call that must have succeeded. */
async function results(toolkit: Toolkit, name: string, args: Json): Promise<Json[]> {
  const done = await call(toolkit, name, args);
  expect(done.tool_call_error, String(done.result)).toBe(false);
  expect(typeof done.result).toBe("string");
  // Agno's tools answer indented JSON text.
  expect(done.result).toMatch(/^\[\n {2}\{\n {4}"/);
  return JSON.parse(done.result as string) as Json[];
}

/** The error result of a call that must have failed. */
async function failure(toolkit: Toolkit, name: string, args: Json = { query: "oslo" }): Promise<string> {
  const done = await call(toolkit, name, args);
  expect(done.tool_call_error, String(done.result)).toBe(true);
  return String(done.result);
}

const webExpected = (query: string, count: number, from = 0) =>
  generatedWebHits(query)
    .slice(from, from + count)
    .map((h) => ({ title: h.title, href: h.url, body: h.body }));
const newsExpected = (query: string, count: number, withImage = true) =>
  generatedNewsHits(query)
    .slice(0, count)
    .map((h) => ({ date: h.date.replace("Z", "+00:00"), title: h.title, body: h.body, url: h.url, image: withImage ? h.image : "", source: h.source }));

describe("webSearchTools and duckDuckGoTools (Agno's toolkit)", () => {
  it("is the toolkit `websearch` with web_search and search_news taking query and max_results", () => {
    for (const toolkit of [webSearchTools(), duckDuckGoTools()]) {
      expect(toolkit.id).toBe("websearch");
      expect(toolkit.name).toBe("websearch");
      expect(toolkit.tools.map((t) => t.name)).toEqual(["web_search", "search_news"]);
      for (const tool of toolkit.tools) {
        expect(tool.parameters.safeParse({ query: "x" }).success).toBe(true);
        expect(tool.parameters.safeParse({ query: "x", max_results: 7 }).success).toBe(true);
        expect(tool.parameters.safeParse({ max_results: 7 }).success).toBe(false);
      }
    }
    expect(webSearchTools({ enableNews: false }).tools.map((t) => t.name)).toEqual(["web_search"]);
    expect(webSearchTools({ enableSearch: false }).tools.map((t) => t.name)).toEqual(["search_news"]);
    expect(webSearchTools({ id: "search-2" }).id).toBe("search-2");
    expect(toolOf(webSearchTools({ backend: "searxng", baseUrl: "https://searx.example" }), "web_search").description).toContain("SearXNG");
    // The backends AGENTRY_WEB_SEARCH may name are the ones implemented.
    expect([...WEB_SEARCH_BACKEND_NAMES]).toEqual([...WEB_SEARCH_BACKENDS]);
  });

  it("refuses bad options at load, naming the option", () => {
    const refusal = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(refusal(() => webSearchTools({ timelimit: "x" as never }))).toBe(`webSearchTools: invalid timelimit 'x'; use "d" (day), "w" (week), "m" (month) or "y" (year)`);
    expect(refusal(() => duckDuckGoTools({ timelimit: "week" as never }))).toMatch(/^duckDuckGoTools: invalid timelimit 'week'/);
    for (const bad of [0, -1, 1.5, 51]) expect(refusal(() => webSearchTools({ fixedMaxResults: bad }))).toMatch(/fixedMaxResults must be a whole number from 1 to 50/);
    expect(refusal(() => webSearchTools({ timeout: 0 }))).toMatch(/timeout must be a positive number of seconds/);
    expect(refusal(() => webSearchTools({ region: "Norway" }))).toMatch(/region must be a DuckDuckGo region code/);
    expect(refusal(() => webSearchTools({ backend: "google" as never }))).toBe("webSearchTools: unknown backend 'google'; use one of duckduckgo, brave, tavily, searxng");
    expect(refusal(() => webSearchTools({ backend: "brave" }))).toMatch(/the Brave backend needs apiKey \(the sample configuration reads BRAVE_API_KEY\)/);
    expect(refusal(() => webSearchTools({ backend: "tavily" }))).toMatch(/the Tavily backend needs apiKey .*TAVILY_API_KEY/);
    expect(refusal(() => webSearchTools({ backend: "searxng" }))).toMatch(/the SearXNG backend needs baseUrl.*SEARXNG_URL/);
    expect(refusal(() => webSearchTools({ backend: "searxng", baseUrl: "ftp://searx.example" }))).toMatch(/baseUrl must be an http\(s\) URL/);
    expect(refusal(() => webSearchTools({ fixed_max_results: 3 } as never))).toMatch(/unknown option 'fixed_max_results'; the options are .*fixedMaxResults/);
    expect(refusal(() => webSearchTools({ proxy: "socks5://127.0.0.1:9150" } as never))).toMatch(/'proxy' is not supported/);
    expect(refusal(() => duckDuckGoTools({ backend: "brave" as never }))).toMatch(/always searches DuckDuckGo, not 'brave'/);
    // "auto" (Agno's default) is DuckDuckGo here.
    expect(toolOf(webSearchTools({ backend: "auto" }), "web_search").description).toContain("DuckDuckGo");
  });

  it("normalises text and dates the way every backend's results need", () => {
    expect(plainText("  <strong>Oslo</strong> &amp; Bergen&#x27;s   &#8212; weather  ")).toBe("Oslo & Bergen's — weather");
    expect(isoDate(1746093600)).toBe("2025-05-01T10:00:00+00:00");
    expect(isoDate("2025-05-01T10:00:00")).toBe("2025-05-01T10:00:00+00:00");
    expect(isoDate("Thu, 01 May 2025 10:00:00 GMT")).toBe("2025-05-01T10:00:00+00:00");
    expect(isoDate("2025-05-01T12:00:00+02:00")).toBe("2025-05-01T10:00:00+00:00");
    expect(isoDate("yesterday")).toBe("yesterday");
    expect(isoDate(undefined)).toBe("");
  });
});

describe.each(WEB_SEARCH_BACKENDS)("the %s backend against the scripted search server", (backend) => {
  it("web_search answers [{title, href, body}] for the query, markup and ads removed", async () => {
    const found = await results(toolkitOn(backend), "web_search", { query: "oslo weather", max_results: 3 });
    expect(found).toEqual(webExpected("oslo weather", 3));
    const request = server.requests.find((r) => r.kind === "web")!;
    expect(request.backend).toBe(backend);
    const sent = { ...request.query, ...request.form, ...request.json };
    expect(sent).toMatchObject(
      {
        duckduckgo: { q: "oslo weather", b: "", l: "us-en" },
        brave: { q: "oslo weather", count: "3", safesearch: "moderate" },
        tavily: { query: "oslo weather", topic: "general", max_results: 3 },
        searxng: { q: "oslo weather", format: "json", categories: "general" },
      }[backend],
    );
    expect(sent).not.toHaveProperty("df");
    expect(sent).not.toHaveProperty("time_range");
  });

  it("search_news answers [{date, title, body, url, image, source}] with ISO dates", async () => {
    const found = await results(toolkitOn(backend), "search_news", { query: "oslo", max_results: 4 });
    expect(found).toEqual(newsExpected("oslo", 4, backend !== "tavily"));
    const news = server.requests.filter((r) => r.kind === "news");
    expect(news).toHaveLength(1);
    if (backend === "duckduckgo") {
      // The vqd token from duckduckgo.com's page for the query goes with the news request.
      const vqdPage = server.requests.find((r) => r.kind === "vqd")!;
      expect(vqdPage.query.q).toBe("oslo");
      expect(news[0]!.query).toMatchObject({ q: "oslo", o: "json", l: "us-en", p: "-1", vqd: expect.stringMatching(/^4-\d+$/) });
    }
  });

  it("answers 5 results by default, and an empty list when the backend finds nothing", async () => {
    expect(await results(toolkitOn(backend), "web_search", { query: "tides" })).toHaveLength(5);
    server.web([]).news([]);
    for (const name of ["web_search", "search_news"]) {
      const done = await call(toolkitOn(backend), name, { query: "nothing at all" });
      expect(done).toMatchObject({ tool_call_error: false, result: "[]" });
    }
  });

  it("puts the modifier before web queries only, and fixedMaxResults wins over max_results", async () => {
    const toolkit = toolkitOn(backend, { modifier: "site:example.com", fixedMaxResults: 2 });
    expect(await results(toolkit, "web_search", { query: "fjords", max_results: 10 })).toEqual(webExpected("site:example.com fjords", 2));
    expect(await results(toolkit, "search_news", { query: "fjords", max_results: 10 })).toEqual(newsExpected("fjords", 2, backend !== "tavily"));
  });

  it("sends the time limit and region in the backend's own terms", async () => {
    const toolkit = toolkitOn(backend, { timelimit: "w", region: "de-de" });
    await results(toolkit, "web_search", { query: "berlin" });
    await results(toolkit, "search_news", { query: "berlin" });
    for (const kind of ["web", "news"] as const) {
      const request = server.requests.find((r) => r.kind === kind)!;
      const sent = { ...request.query, ...request.form, ...request.json };
      expect(sent).toMatchObject(
        {
          duckduckgo: { df: "w", l: "de-de" },
          brave: { freshness: "pw", country: "DE" },
          tavily: { time_range: "week" },
          searxng: { time_range: "week", language: "de-DE" },
        }[backend],
      );
    }
  });

  it("turns a rate limit into a tool error the model reads", async () => {
    server.fail({ backend, status: 429, headers: { "retry-after": "30" } });
    expect(await failure(toolkitOn(backend), "web_search")).toMatch(
      new RegExp(
        `^Error running web_search: ${{ duckduckgo: "DuckDuckGo", brave: "Brave", tavily: "Tavily", searxng: "SearXNG" }[backend]} is rate limiting these searches \\(HTTP 429\\) \\(it asks to wait 30 s\\); try again later`,
      ),
    );
    // The next search works again: nothing is stuck.
    expect(await results(toolkitOn(backend), "web_search", { query: "oslo", max_results: 1 })).toHaveLength(1);
  });

  it("turns a server error, a dropped connection and a timeout into tool errors", async () => {
    server.fail({ backend, kind: "news", status: 503, body: { message: "engine overloaded" } });
    expect(await failure(toolkitOn(backend), "search_news")).toMatch(/answered HTTP 503: engine overloaded\.$/);
    server.fail({ backend, drop: true });
    expect(await failure(toolkitOn(backend), "web_search")).toMatch(/could not be reached \(ECONNRESET: socket hang up\); try again later\.$/);
    server.fail({ backend, hold: new Promise(() => undefined) });
    expect(await failure(toolkitOn(backend, { timeout: 0.3 }), "web_search")).toMatch(/did not answer within 0\.3 s; try again later\.$/);
  });

  it("does not follow a redirect", async () => {
    server.fail({ backend, status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    expect(await failure(toolkitOn(backend), "web_search")).toMatch(/answered HTTP 302, a redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/, which is not followed/);
    expect(server.requests).toHaveLength(1);
  });

  it("is refused by the outbound address policy unless the host is allowed", async () => {
    const apiKey = backend === "brave" ? server.braveApiKey : backend === "tavily" ? server.tavilyApiKey : undefined;
    const refused = webSearchTools({ backend, ...(apiKey ? { apiKey } : {}), baseUrl: server.url });
    expect(await failure(refused, "web_search")).toMatch(/The outbound address policy refused .+: 127\.0\.0\.1 is a loopback address; an admin can allow the host/);
    // By name: the addresses the name resolves to are checked, and allowing the address is not allowing the name.
    const byName = webSearchTools({ backend, ...(apiKey ? { apiKey } : {}), baseUrl: `http://localhost:${server.port}`, allowHosts: ["127.0.0.1"] });
    expect(await failure(byName, "search_news")).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(server.requests).toEqual([]);
    const allowed = webSearchTools({ backend, ...(apiKey ? { apiKey } : {}), baseUrl: `http://localhost:${server.port}`, allowHosts: ["LOCALHOST"] });
    expect(await results(allowed, "web_search", { query: "oslo", max_results: 1 })).toHaveLength(1);
  });
});

describe("backend specifics", () => {
  it("DuckDuckGo reads pages until it has enough, 10 then 15 a page, without duplicates", async () => {
    const found = await results(toolkitOn("duckduckgo"), "web_search", { query: "lakes", max_results: 30 });
    expect(found).toEqual(webExpected("lakes", 30));
    expect(server.requests.map((r) => r.form?.s)).toEqual([undefined, "10", "25"]);
    // A page that adds nothing new ends the reading.
    server.reset();
    server.web(generatedWebHits("ponds", 12));
    expect(await results(toolkitOn("duckduckgo"), "web_search", { query: "ponds", max_results: 40 })).toHaveLength(12);
    expect(server.requests.map((r) => r.form?.s)).toEqual([undefined, "10", "25"]);
  });

  it("DuckDuckGo news reads a second page of 30 when more are asked for", async () => {
    const found = await results(toolkitOn("duckduckgo"), "search_news", { query: "elections", max_results: 40 });
    expect(found).toHaveLength(30);
    // The fixture generates 30 per query: the second page is empty and ends the reading.
    expect(server.requests.filter((r) => r.kind === "news").map((r) => r.query.s)).toEqual([undefined, "30"]);
  });

  it("DuckDuckGo's 202 anomaly page is a rate limit, and a page without a vqd token an error", async () => {
    server.fail({ backend: "duckduckgo", kind: "web", status: 202, body: "<html><body>anomaly-modal</body></html>" });
    expect(await failure(toolkitOn("duckduckgo"), "web_search")).toMatch(/DuckDuckGo is rate limiting these searches \(HTTP 202\); try again later/);
    server.fail({ backend: "duckduckgo", kind: "vqd", status: 200, body: "<html><body>nothing here</body></html>" });
    expect(await failure(toolkitOn("duckduckgo"), "search_news")).toMatch(/DuckDuckGo's news search could not start: its page for the query carried no vqd token/);
  });

  it("Brave caps a request at 20 web and 50 news results, and says when its key is refused", async () => {
    expect(await results(toolkitOn("brave"), "web_search", { query: "oslo", max_results: 30 })).toHaveLength(20);
    expect(server.requests.at(-1)!.query.count).toBe("20");
    expect(await results(toolkitOn("brave"), "search_news", { query: "oslo", max_results: 50 })).toHaveLength(30);
    expect(server.requests.at(-1)!.query.count).toBe("50");
    const wrongKey = webSearchTools({ backend: "brave", apiKey: "wrong", baseUrl: server.url, allowHosts: [server.host] });
    const message = await failure(wrongKey, "web_search");
    expect(message).toBe("Error running web_search: Brave answered HTTP 401: The provided subscription token is invalid.");
    expect(message).not.toContain("wrong");
    expect(server.requests.at(-1)!.headers["x-subscription-token"]).toBe("wrong");
  });

  it("Tavily caps a request at 20 results and sends its key as a bearer token", async () => {
    expect(await results(toolkitOn("tavily"), "web_search", { query: "oslo", max_results: 30 })).toHaveLength(20);
    expect(server.requests.at(-1)!.json).toMatchObject({ max_results: 20 });
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${server.tavilyApiKey}`);
    const wrongKey = webSearchTools({ backend: "tavily", apiKey: "tvly-wrong", baseUrl: server.url, allowHosts: [server.host] });
    expect(await failure(wrongKey, "web_search")).toBe("Error running web_search: Tavily answered HTTP 401: Unauthorized: missing or invalid API key.");
  });

  it("SearXNG reads pages of 10 and says when the instance refuses JSON", async () => {
    expect(await results(toolkitOn("searxng"), "web_search", { query: "oslo", max_results: 25 })).toEqual(webExpected("oslo", 25));
    expect(server.requests.map((r) => r.query.pageno)).toEqual([undefined, "2", "3"]);
    const noJson = await startSearchServer({ searxngJson: false });
    try {
      const toolkit = webSearchTools({ backend: "searxng", baseUrl: `${noJson.url}/searx/`, allowHosts: [noJson.host] });
      expect(await failure(toolkit, "web_search")).toBe("Error running web_search: SearXNG answered HTTP 403: 403 Forbidden.");
      // The instance's own path is kept.
      expect(noJson.requests[0]!.path).toBe("/searx/search");
    } finally {
      await noJson.close();
    }
  });

  it("a body in a compression guardedRequest cannot read is an error, not an empty answer", async () => {
    // DuckDuckGo's HTML page read as raw bytes would parse to no results at all.
    server.fail({ backend: "duckduckgo", status: 200, body: "<html>compressed twice</html>", headers: { "content-encoding": "gzip, br" } });
    expect(await failure(toolkitOn("duckduckgo"), "web_search")).toBe(
      "Error running web_search: DuckDuckGo answered with a compression that cannot be read (Content-Encoding: gzip, br); check the backend's URL.",
    );
  });

  it("a body that is not the backend's JSON is an error, not an empty answer", async () => {
    server.fail({ backend: "brave", status: 200, body: "<html>captive portal</html>" });
    expect(await failure(toolkitOn("brave"), "web_search")).toBe("Error running web_search: Brave answered with something other than its JSON results; check the backend's URL.");
  });

  it("the model's bad arguments are its error to read, before any request", async () => {
    const toolkit = toolkitOn("duckduckgo");
    expect(await failure(toolkit, "web_search", { query: "" })).toMatch(/^Invalid arguments for web_search: query: /);
    expect(await failure(toolkit, "web_search", { query: "x", max_results: 500 })).toMatch(/^Invalid arguments for web_search: max_results: /);
    expect(server.requests).toEqual([]);
  });
});

describe("guardedRequest (lib/net)", () => {
  it("refuses private, link-local and non-http targets before connecting", async () => {
    for (const [url, reason] of [
      ["http://10.1.2.3/", "10.1.2.3 is a private address"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"],
      ["http://[::1]:9/", "::1 is a loopback address"],
    ] as const) {
      const error = await guardedRequest({ method: "GET", url: new URL(url), timeoutMs: 2000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AddressRefusedError);
      expect((error as Error).message).toBe(`refused: ${reason}`);
    }
    const file = await guardedRequest({ method: "GET", url: new URL("file:///etc/passwd"), timeoutMs: 2000 }).catch((e: unknown) => e);
    expect((file as Error).message).toBe("refused: file:///etc/passwd uses file:; only http: and https: are requested");
  });

  it("refuses IPv4-translated spellings of internal addresses (::ffff:0:a.b.c.d)", async () => {
    const error = await guardedRequest({ method: "GET", url: new URL("http://[::ffff:0:169.254.169.254]/"), timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect((error as Error).message).toBe("refused: ::ffff:0:a9fe:a9fe is a link-local address (IPv4-translated)");
  });

  it("reads a Content-Encoding with spaces or capitals, and refuses one it cannot decode (stacked, unknown) instead of passing raw bytes", async () => {
    const local = createServer((request, response) => {
      const encoding = { "/spaced": " GZip ", "/stacked": "gzip, br", "/zstd": "zstd", "/empty": "" }[request.url ?? ""] ?? "identity";
      response.writeHead(200, { "content-encoding": encoding, "content-type": "text/plain" });
      response.end(encoding.trim().toLowerCase() === "gzip" ? gzipSync("compressed hello") : "plain hello");
    });
    await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
    const at = (path: string) => new URL(`http://127.0.0.1:${(local.address() as AddressInfo).port}${path}`);
    const get = (path: string) => guardedRequest({ method: "GET", url: at(path), allowHosts: ["127.0.0.1"], timeoutMs: 5000 });
    try {
      expect(await get("/spaced")).toMatchObject({ status: 200, text: "compressed hello" });
      expect(await get("/empty")).toMatchObject({ status: 200, text: "plain hello" });
      expect(await get("/identity")).toMatchObject({ status: 200, text: "plain hello" });
      for (const [path, encoding] of [
        ["/stacked", "gzip, br"],
        ["/zstd", "zstd"],
      ] as const) {
        const error = await get(path).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UnsupportedEncodingError);
        expect(error).toMatchObject({
          encoding,
          message: expect.stringMatching(new RegExp(`^127\\.0\\.0\\.1:\\d+ sent its answer with a compression that cannot be read \\(Content-Encoding: ${encoding}\\)$`)),
        });
      }
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });

  it("decompresses what the server compressed, and caps the body on either side of decompression", async () => {
    const bomb = gzipSync(Buffer.alloc(2_000_000, "a"));
    const local = createServer((request, response) => {
      const body = request.url === "/bomb" ? bomb : gzipSync("compressed hello");
      response.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
      response.end(body);
    });
    await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
    const at = (path: string) => new URL(`http://127.0.0.1:${(local.address() as AddressInfo).port}${path}`);
    try {
      const ok = await guardedRequest({ method: "GET", url: at("/hello"), allowHosts: ["127.0.0.1"], timeoutMs: 5000 });
      expect(ok).toMatchObject({ status: 200, text: "compressed hello" });
      const big = await guardedRequest({ method: "GET", url: at("/bomb"), allowHosts: ["127.0.0.1"], timeoutMs: 5000, maxBytes: 100_000 }).catch((e: unknown) => e);
      expect((big as Error).message).toMatch(/^127\.0\.0\.1:\d+ sent more than 100000 bytes$/);
      const raw = await guardedRequest({ method: "GET", url: at("/bomb"), allowHosts: ["127.0.0.1"], timeoutMs: 5000, maxBytes: 100 }).catch((e: unknown) => e);
      expect((raw as Error).message).toMatch(/sent more than 100 bytes$/);
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });
});
