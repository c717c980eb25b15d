import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/config/env.ts";
import { webSearchFromEnv } from "@/lib/config/web-search-from-env.ts";
import { getRun } from "@/lib/db/index.ts";
import { webSearchTools } from "@/lib/runtime/tools/websearch/websearch.ts";
import { generatedNewsHits, startSearchServer, type SearchServer } from "../../e2e/fixtures/search-server.ts";
import { messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
type Json = any;

const form = (fields: Record<string, string>) => ({ form: { stream: "false", ...fields } });

describe.each(DIALECTS)("web search in agent runs on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let model: ModelServer;
    let search: SearchServer;
    let app: TestApp;

    beforeAll(async () => {
      model = await startModelServer();
      search = await startSearchServer();
      const webSearch = webSearchTools({ backend: "brave", apiKey: search.braveApiKey, baseUrl: search.url, allowHosts: [search.host] });
      const scripted = { provider: "openai-compatible" as const, id: "scripted", baseUrl: model.url, apiKey: "t" };
      app = await startTestApp({
        dialect,
        agents: [{ id: "researcher", name: "Researcher", model: scripted, instructions: "Search before answering.", tools: [webSearch] }],
        env: { OPENAI_COMPATIBLE_BASE_URL: model.url, OPENAI_COMPATIBLE_MODEL: "scripted", OPENAI_COMPATIBLE_API_KEY: "t" },
        registry: { toolkits: [webSearch] },
      });
    });
    afterAll(async () => {
      await app?.close();
      await search?.close();
      await model?.close();
    });
    beforeEach(() => {
      model.reset();
      search.reset();
    });

    it("a rate-limited search is a tool error the model reads, and the run completes", async () => {
      search.fail({ backend: "brave", status: 429 });
      model.script([{ toolCalls: [{ name: "web_search", arguments: { query: "oslo weather" } }] }, { text: "Searching is rate limited just now." }]);
      const response = await app.call("POST", "/agents/researcher/runs", form({ message: "Weather in Oslo?" }));
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: "Searching is rate limited just now." });
      const message = "Error running web_search: Brave is rate limiting these searches (HTTP 429); try again later, or search less often.";
      expect(output.tools).toEqual([expect.objectContaining({ tool_name: "web_search", tool_args: { query: "oslo weather" }, tool_call_error: true, result: message })]);
      // The model was sent the error as the tool's result.
      const toolMessage = model.requests[1]!.body.messages.at(-1)!;
      expect(toolMessage.role).toBe("tool");
      expect(messageText(toolMessage)).toBe(message);
      expect(search.requests).toHaveLength(1);
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: output.run_id });
      expect(stored?.status).toBe("COMPLETED");
      expect((stored!.run_data.tools as Json[])[0]).toMatchObject({ tool_name: "web_search", tool_call_error: true, result: message });
    });

    it("a failing backend streams ToolCallError, then the model's answer and RunCompleted", async () => {
      search.fail({ backend: "brave", kind: "news", status: 500, body: { type: "ErrorResponse", error: { detail: "Upstream index unavailable." } } });
      model.script([{ toolCalls: [{ name: "search_news", arguments: { query: "elections", max_results: 3 } }] }, { text: "News search failed; I cannot say." }]);
      const events = await readSse(await app.call("POST", "/agents/researcher/runs", { form: { message: "Latest on the elections?" } }));
      const failed = events.find((e) => e.event === "ToolCallError") as Json;
      expect(failed.error).toBe("Error running search_news: Brave answered HTTP 500: Upstream index unavailable.");
      expect(failed.tool).toMatchObject({ tool_name: "search_news", tool_call_error: true });
      expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "News search failed; I cannot say." });
      expect(events.some((e) => e.event === "RunError")).toBe(false);
    });

    it("a search that works gives the model Agno's result shape", async () => {
      model.script([{ toolCalls: [{ name: "search_news", arguments: { query: "tides", max_results: 2 } }] }, { text: "Two stories." }]);
      const output = (await (await app.call("POST", "/agents/researcher/runs", form({ message: "Tide news?" }))).json()) as Json;
      expect(output.status).toBe("COMPLETED");
      const sent = JSON.parse(messageText(model.requests[1]!.body.messages.at(-1)!)) as Json[];
      expect(sent).toEqual(
        generatedNewsHits("tides")
          .slice(0, 2)
          .map((h) => ({ date: h.date.replace("Z", "+00:00"), title: h.title, body: h.body, url: h.url, image: h.image, source: h.source })),
      );
      expect(search.requests[0]!.query).toMatchObject({ q: "tides", count: "2" });
    });

    it("the registry offers the toolkit to Studio, and a stored agent searches with it", async () => {
      const listed = (await (await app.call("GET", "/registry?resource_type=tool&name=websearch")).json()) as Json;
      expect(listed.data).toHaveLength(1);
      expect(listed.data[0]).toMatchObject({ name: "websearch", type: "tool", id: "websearch", metadata: { is_toolkit: true } });
      expect(listed.data[0].metadata.functions.map((f: Json) => [f.name, Object.keys(f.parameters.properties)])).toEqual([
        ["web_search", ["query", "max_results"]],
        ["search_news", ["query", "max_results"]],
      ]);
      const created = await app.call("POST", "/components", {
        json: {
          name: "Studio searcher",
          component_type: "agent",
          stage: "published",
          config: { model: { provider: "openai-compatible", id: "scripted" }, tools: [{ name: "web_search", toolkit: "websearch" }] },
        },
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as Json).component_id as string;
      model.script([{ toolCalls: [{ name: "web_search", arguments: { query: "fjords", max_results: 1 } }] }, { text: "Found it." }]);
      const output = (await (await app.call("POST", `/agents/${encodeURIComponent(id)}/runs`, form({ message: "Fjords?" }))).json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: "Found it." });
      expect(output.tools[0]).toMatchObject({ tool_name: "web_search", tool_call_error: false });
      expect(JSON.parse(output.tools[0].result)).toEqual([{ title: "Result 1 for fjords", href: "https://site1.example/fjords", body: "Snippet 1 about fjords." }]);
      // The stored agent was offered web_search alone, not the toolkit's news search.
      expect(model.requests[0]!.body.tools?.map((t) => t.function.name)).toEqual(["web_search"]);
    });
  });
});

describe("the sample assistant's AGENTRY_WEB_SEARCH switch", () => {
  it("reads the backend, its key or URL, and the allowed hosts from the environment", () => {
    expect(webSearchFromEnv(parseEnv({}))).toBeUndefined();
    expect(webSearchFromEnv(parseEnv({ AGENTRY_WEB_SEARCH: "DuckDuckGo" }))).toEqual({ backend: "duckduckgo", allowHosts: [] });
    expect(webSearchFromEnv(parseEnv({ AGENTRY_WEB_SEARCH: "brave", BRAVE_API_KEY: "bk" }))).toEqual({ backend: "brave", apiKey: "bk", allowHosts: [] });
    expect(webSearchFromEnv(parseEnv({ AGENTRY_WEB_SEARCH: "tavily", TAVILY_API_KEY: "tk" }))).toEqual({ backend: "tavily", apiKey: "tk", allowHosts: [] });
    expect(webSearchFromEnv(parseEnv({ AGENTRY_WEB_SEARCH: "searxng", SEARXNG_URL: "http://searx.lan:8080", AGENTRY_WEB_SEARCH_ALLOW_HOSTS: " Searx.LAN , " }))).toEqual({
      backend: "searxng",
      baseUrl: "http://searx.lan:8080",
      allowHosts: ["searx.lan"],
    });
    expect(() => parseEnv({ AGENTRY_WEB_SEARCH: "google" })).toThrow("AGENTRY_WEB_SEARCH must be one of duckduckgo, brave, tavily, searxng (or unset, for no web search), got 'google'");
    for (const [backend, variable] of [
      ["brave", "BRAVE_API_KEY"],
      ["tavily", "TAVILY_API_KEY"],
      ["searxng", "SEARXNG_URL"],
    ]) {
      expect(() => webSearchFromEnv(parseEnv({ AGENTRY_WEB_SEARCH: backend }))).toThrow(new EnvError(`Invalid environment:\n  - AGENTRY_WEB_SEARCH=${backend} needs ${variable}`));
    }
  });

  /** agentry.config.ts loaded in its own process with `env`; prints what the script after it computes. */
  async function loadSample(env: Record<string, string>, then: string): Promise<{ ok: boolean; out: string }> {
    const script = `import("./agentry.config.ts").then(async ({ default: config }) => { ${then} }).catch((e) => { console.log("LOAD-ERROR " + e.message); });`;
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(AGENTRY_WEB_SEARCH|BRAVE_|TAVILY_|SEARXNG_)/.test(k)));
    try {
      const { stdout } = await promisify(execFile)(join("node_modules", ".bin", "tsx"), ["-e", script], { env: { ...base, ...env } as NodeJS.ProcessEnv, timeout: 60_000 });
      return { ok: !stdout.includes("LOAD-ERROR"), out: stdout.trim() };
    } catch (error) {
      return { ok: false, out: `${(error as { stdout?: string }).stdout ?? ""}${(error as Error).message}` };
    }
  }

  const toolsAndRegistry = `
    const assistant = config.agents.find((a) => a.id === "assistant");
    console.log(JSON.stringify({ tools: assistant.tools.map((t) => t.name), registry: config.registry.toolkits.map((t) => (t.toolkit ?? t).name) }));`;

  it("leaves the assistant without web search unless the variable names a backend", async () => {
    const { ok, out } = await loadSample({}, toolsAndRegistry);
    expect(ok, out).toBe(true);
    const loaded = JSON.parse(out) as { tools: string[]; registry: string[] };
    expect(loaded.tools).not.toContain("websearch");
    expect(loaded.registry).not.toContain("websearch");
  });

  it("gives the assistant and the registry the configured backend, which searches through the address policy", async () => {
    const search = await startSearchServer();
    try {
      const env = { AGENTRY_WEB_SEARCH: "searxng", SEARXNG_URL: `${search.url}/searx`, AGENTRY_WEB_SEARCH_ALLOW_HOSTS: search.host };
      const { ok, out } = await loadSample(
        env,
        `${toolsAndRegistry}
        const kit = config.agents.find((a) => a.id === "assistant").tools.find((t) => t.name === "websearch");
        const web = kit.tools.find((t) => t.name === "web_search");
        console.log(await web.execute({ query: "oslo", max_results: 2 }, { signal: new AbortController().signal }));`,
      );
      expect(ok, out).toBe(true);
      const [first, ...rest] = out.split("\n");
      expect(JSON.parse(first!)).toMatchObject({ tools: expect.arrayContaining(["websearch"]), registry: expect.arrayContaining(["websearch"]) });
      expect(JSON.parse(rest.join("\n"))).toHaveLength(2);
      expect(search.requests).toEqual([expect.objectContaining({ backend: "searxng", path: "/searx/search", query: expect.objectContaining({ q: "oslo", format: "json" }) })]);
    } finally {
      await search.close();
    }
  });

  it("fails at start naming the allowed values, or the missing key", async () => {
    const [unknown, keyless] = await Promise.all([loadSample({ AGENTRY_WEB_SEARCH: "bing" }, toolsAndRegistry), loadSample({ AGENTRY_WEB_SEARCH: "brave" }, toolsAndRegistry)]);
    expect(unknown.ok).toBe(false);
    expect(unknown.out).toContain("AGENTRY_WEB_SEARCH must be one of duckduckgo, brave, tavily, searxng (or unset, for no web search), got 'bing'");
    expect(keyless.ok).toBe(false);
    expect(keyless.out).toContain("AGENTRY_WEB_SEARCH=brave needs BRAVE_API_KEY");
  });
});
