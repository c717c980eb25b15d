import { z } from "zod";
import { ConfigError } from "../../../config/define.ts";
import { defineTool, defineToolkit, type Toolkit, type ToolDefinition } from "../types.ts";
import { braveBackend } from "./brave.ts";
import { duckDuckGoBackend } from "./duckduckgo.ts";
import type { SearchBackend, Timelimit } from "./results.ts";
import { searxngBackend } from "./searxng.ts";
import type { SearchTransport } from "./search-http.ts";
import { tavilyBackend } from "./tavily.ts";

export type { NewsResult, TextResult, Timelimit } from "./results.ts";
export { SearchBackendError } from "./search-http.ts";

/** The search services the toolkit can use. */
export const WEB_SEARCH_BACKENDS = ["duckduckgo", "brave", "tavily", "searxng"] as const;
export type WebSearchBackend = (typeof WEB_SEARCH_BACKENDS)[number];

const LABELS: Record<WebSearchBackend, string> = { duckduckgo: "DuckDuckGo", brave: "Brave", tavily: "Tavily", searxng: "SearXNG" };
const TIMELIMITS: readonly string[] = ["d", "w", "m", "y"];
/** The most results one call may ask for. */
export const MAX_RESULTS_LIMIT = 50;

export interface WebSearchToolsOptions {
  /** Offer web_search (default true). */
  readonly enableSearch?: boolean;
  /** Offer search_news (default true). */
  readonly enableNews?: boolean;
  /**
   * The search service: "duckduckgo" (the default, no key), "brave" and "tavily" (with `apiKey`)
   * or "searxng" (with `baseUrl`). "auto" is accepted and means DuckDuckGo.
   */
  readonly backend?: WebSearchBackend | "auto";
  /** Brave's subscription token or Tavily's API key. */
  readonly apiKey?: string;
  /**
   * Where the service answers: a SearXNG instance's URL (required for it); for the others their
   * public API unless set (DuckDuckGo's HTML page, vqd page and news.js then all live under it).
   */
  readonly baseUrl?: string;
  /** Put before every web_search query ("site:example.com"); not before news searches. */
  readonly modifier?: string;
  /** Every call returns at most this many results, whatever the model asks for. */
  readonly fixedMaxResults?: number;
  /** Seconds one request to the service may take (default 10). */
  readonly timeout?: number;
  /** Only results from the last day ("d"), week ("w"), month ("m") or year ("y"). */
  readonly timelimit?: Timelimit;
  /**
   * A region as DuckDuckGo writes it, country then language ("us-en", "de-de"). DuckDuckGo uses
   * it as it is (us-en when unset), Brave takes its country, SearXNG its language; Tavily ignores it.
   */
  readonly region?: string;
  /** Whether the service's TLS certificate must verify (default true). */
  readonly verifySsl?: boolean;
  /**
   * Hosts searched although they resolve to loopback, private or link-local addresses (a SearXNG
   * on the local network); everything else must be public (lib/net/guarded-request.ts).
   */
  readonly allowHosts?: readonly string[];
  /** The toolkit's id (default "websearch"). */
  readonly id?: string;
}

const OPTION_NAMES = new Set(["enableSearch", "enableNews", "backend", "apiKey", "baseUrl", "modifier", "fixedMaxResults", "timeout", "timelimit", "region", "verifySsl", "allowHosts", "id"]);

function checkOptions(label: string, options: WebSearchToolsOptions): void {
  for (const key of Object.keys(options)) {
    if (key === "proxy") throw new ConfigError(`${label}: 'proxy' is not supported; the server's own network is used, under the outbound address policy`);
    if (!OPTION_NAMES.has(key)) throw new ConfigError(`${label}: unknown option '${key}'; the options are ${[...OPTION_NAMES].join(", ")}`);
  }
  const { backend, timelimit, fixedMaxResults, timeout, modifier, region, baseUrl } = options;
  if (backend !== undefined && backend !== "auto" && !WEB_SEARCH_BACKENDS.includes(backend)) {
    throw new ConfigError(`${label}: unknown backend '${String(backend)}'; use one of ${WEB_SEARCH_BACKENDS.join(", ")}`);
  }
  if (timelimit !== undefined && !TIMELIMITS.includes(timelimit)) {
    throw new ConfigError(`${label}: invalid timelimit '${String(timelimit)}'; use "d" (day), "w" (week), "m" (month) or "y" (year)`);
  }
  if (fixedMaxResults !== undefined && (!Number.isSafeInteger(fixedMaxResults) || fixedMaxResults < 1 || fixedMaxResults > MAX_RESULTS_LIMIT)) {
    throw new ConfigError(`${label}: fixedMaxResults must be a whole number from 1 to ${MAX_RESULTS_LIMIT}, got ${String(fixedMaxResults)}`);
  }
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0)) {
    throw new ConfigError(`${label}: timeout must be a positive number of seconds, got ${String(timeout)}`);
  }
  if (modifier !== undefined && typeof modifier !== "string") throw new ConfigError(`${label}: modifier must be a string`);
  if (region !== undefined && !/^[a-z]{2}-[a-z]{2,4}$/i.test(region)) {
    throw new ConfigError(`${label}: region must be a DuckDuckGo region code such as "us-en" or "de-de", got '${String(region)}'`);
  }
  if (baseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(baseUrl);
    } catch {
      // Reported below.
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new ConfigError(`${label}: baseUrl must be an http(s) URL, got '${baseUrl}'`);
  }
}

function backendOf(label: string, name: WebSearchBackend, options: WebSearchToolsOptions, transport: SearchTransport): SearchBackend {
  const needsKey = (variable: string) => {
    if (!options.apiKey) throw new ConfigError(`${label}: the ${LABELS[name]} backend needs apiKey (the sample configuration reads ${variable})`);
    return options.apiKey;
  };
  switch (name) {
    case "duckduckgo":
      return duckDuckGoBackend(transport, options.baseUrl);
    case "brave":
      return braveBackend(transport, needsKey("BRAVE_API_KEY"), options.baseUrl);
    case "tavily":
      return tavilyBackend(transport, needsKey("TAVILY_API_KEY"), options.baseUrl);
    case "searxng":
      if (!options.baseUrl) throw new ConfigError(`${label}: the SearXNG backend needs baseUrl, the instance's URL (the sample configuration reads SEARXNG_URL)`);
      return searxngBackend(transport, options.baseUrl);
  }
}

const searchArguments = z.object({
  query: z.string().trim().min(1).describe("What to search for"),
  max_results: z.number().int().min(1).max(MAX_RESULTS_LIMIT).optional().describe("How many results to return (default 5)"),
});

/**
 * Agno's WebSearchTools: a toolkit named `websearch` with `web_search(query, max_results=5)`,
 * answering a JSON list of `{title, href, body}`, and `search_news(query, max_results=5)`,
 * answering `{date, title, body, url, image, source}` items (JSON text, indented, as Agno's tools
 * return it). A backend's failure, timeout or rate limit is the call's error result, which the
 * model reads; the run goes on. Invalid options throw a ConfigError here, at load.
 */
export function webSearchTools(options: WebSearchToolsOptions = {}): Toolkit {
  return buildToolkit(options, "webSearchTools");
}

function buildToolkit(options: WebSearchToolsOptions, label: string): Toolkit {
  checkOptions(label, options);
  const name: WebSearchBackend = options.backend === undefined || options.backend === "auto" ? "duckduckgo" : options.backend;
  const transport: SearchTransport = {
    label: LABELS[name],
    timeoutMs: (options.timeout ?? 10) * 1000,
    allowHosts: options.allowHosts ?? [],
    verifyTls: options.verifySsl ?? true,
  };
  const backend = backendOf(label, name, options, transport);
  const { modifier, fixedMaxResults, timelimit, region } = options;
  const request = (query: string, maxResults: number | undefined, signal: AbortSignal) => ({ query, maxResults: fixedMaxResults ?? maxResults ?? 5, timelimit, region, signal });

  const tools: ToolDefinition<z.infer<typeof searchArguments>>[] = [];
  if (options.enableSearch ?? true) {
    tools.push(
      defineTool({
        name: "web_search",
        description: `Search the web (${LABELS[name]}). Answers a JSON list of results, each with its title, href (the page's address) and body (a snippet of the page).`,
        parameters: searchArguments,
        execute: async ({ query, max_results }, ctx) => {
          const results = await backend.text(request(modifier ? `${modifier} ${query}` : query, max_results, ctx.signal));
          return JSON.stringify(results, null, 2);
        },
      }),
    );
  }
  if (options.enableNews ?? true) {
    tools.push(
      defineTool({
        name: "search_news",
        description: `Search recent news (${LABELS[name]}). Answers a JSON list of articles, each with its date, title, body (a snippet), url, image and source.`,
        parameters: searchArguments,
        execute: async ({ query, max_results }, ctx) => JSON.stringify(await backend.news(request(query, max_results, ctx.signal)), null, 2),
      }),
    );
  }
  return defineToolkit({ id: options.id ?? "websearch", name: "websearch", tools });
}

/** Agno's DuckDuckGoTools: webSearchTools on the DuckDuckGo backend (the same tool and toolkit names). */
export function duckDuckGoTools(options: Omit<WebSearchToolsOptions, "backend" | "apiKey"> & { readonly backend?: "duckduckgo" } = {}): Toolkit {
  if (options.backend !== undefined && options.backend !== "duckduckgo") {
    throw new ConfigError(`duckDuckGoTools: it always searches DuckDuckGo, not '${String(options.backend)}'; use webSearchTools({ backend }) for another backend`);
  }
  return buildToolkit({ ...options, backend: "duckduckgo" }, "duckDuckGoTools");
}
