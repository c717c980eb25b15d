/**
 * DuckDuckGo, no key needed (the default backend). Web results come from its HTML page (a POST to
 * html.duckduckgo.com/html/ with `q`, `b`, `l` the region, `df` the time limit, `s` the offset of
 * a later page), news from its news.js JSON, which needs the `vqd` token of the query that
 * duckduckgo.com's page for the query carries. DuckDuckGo rate limits by answering the HTML page
 * with HTTP 202 (an anomaly page) or 429: both are a rate-limit error for the model.
 */
import { parseHTML } from "linkedom";
import { isoDate, plainText, stringField, type NewsResult, type SearchBackend, type SearchRequest, type TextResult } from "./results.ts";
import { collectPages, endpoint, jsonBody, objects, rateLimited, SearchBackendError, searchRequest, type SearchTransport } from "./search-http.ts";

const HTML_URL = "https://html.duckduckgo.com";
const SITE_URL = "https://duckduckgo.com";
/** The region ddgs (Agno's search library) sends when none is set. */
const DEFAULT_REGION = "us-en";
const MAX_PAGES = 5;
/** Ads on the HTML page link through this address; they are not results. */
const AD_PREFIX = "https://duckduckgo.com/y.js?";
const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** A result link as the page gives it, unwrapped from DuckDuckGo's `/l/?uddg=` redirect. */
function resultHref(raw: string): string {
  const href = raw.startsWith("//") ? `https:${raw}` : raw;
  try {
    const url = new URL(href);
    if (url.hostname.endsWith("duckduckgo.com") && url.pathname === "/l/") return url.searchParams.get("uddg") ?? href;
  } catch {
    // Not absolute: kept as it is.
  }
  return href;
}

/** The results on one HTML page: each result's body holds an <h2> title and links to the page. */
export function parseResultsPage(html: string): TextResult[] {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const results: TextResult[] = [];
  for (const item of document.querySelectorAll('div[class*="body"]')) {
    const title = plainText(item.querySelector("h2")?.textContent ?? "");
    const link = item.querySelector("a.result__a") ?? item.querySelector("h2 a") ?? item.querySelector("a");
    const href = resultHref(link?.getAttribute("href") ?? "");
    if (!title || !href || href.startsWith(AD_PREFIX)) continue;
    const snippet = item.querySelector(".result__snippet")?.textContent ?? "";
    results.push({ title, href, body: plainText(snippet) });
  }
  return results;
}

/** The vqd token in duckduckgo.com's page for a query (`vqd="…"`, `vqd='…'` or `vqd=…&`). */
export function extractVqd(page: string): string | undefined {
  return /vqd=["']([^"']+)["']/.exec(page)?.[1] ?? /vqd=([^&"'\s]+)&/.exec(page)?.[1];
}

export function duckDuckGoBackend(transport: SearchTransport, baseUrl?: string): SearchBackend {
  const htmlUrl = baseUrl ?? HTML_URL;
  const siteUrl = baseUrl ?? SITE_URL;

  async function textPage(request: SearchRequest, page: number): Promise<TextResult[]> {
    const form = new URLSearchParams({ q: request.query, b: "", l: request.region ?? DEFAULT_REGION });
    if (page > 1) form.set("s", String(10 + (page - 2) * 15));
    if (request.timelimit) form.set("df", request.timelimit);
    const response = await searchRequest(transport, { method: "POST", url: endpoint(htmlUrl, "html/"), headers: FORM, body: form.toString(), signal: request.signal });
    if (response.status === 202) throw rateLimited(transport, 202, response.headers);
    return parseResultsPage(response.text);
  }

  async function vqdOf(request: SearchRequest): Promise<string> {
    const url = endpoint(siteUrl, "");
    url.searchParams.set("q", request.query);
    const response = await searchRequest(transport, { method: "GET", url, signal: request.signal });
    if (response.status === 202) throw rateLimited(transport, 202, response.headers);
    const vqd = extractVqd(response.text);
    if (!vqd) throw new SearchBackendError(`${transport.label}'s news search could not start: its page for the query carried no vqd token; try again later.`);
    return vqd;
  }

  async function newsPage(request: SearchRequest, vqd: string, page: number): Promise<NewsResult[]> {
    const url = endpoint(siteUrl, "news.js");
    const params: Record<string, string> = { l: request.region ?? DEFAULT_REGION, o: "json", noamp: "1", q: request.query, vqd, p: "-1" };
    if (request.timelimit) params.df = request.timelimit;
    if (page > 1) params.s = String((page - 1) * 30);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const response = await searchRequest(transport, { method: "GET", url, signal: request.signal });
    if (response.status === 202) throw rateLimited(transport, 202, response.headers);
    return objects(jsonBody(transport, response).results).map((item) => ({
      date: isoDate(item.date),
      title: plainText(item.title),
      body: plainText(item.excerpt),
      url: stringField(item.url),
      image: stringField(item.image),
      source: plainText(item.source),
    }));
  }

  return {
    label: transport.label,
    text: (request) => collectPages({ wanted: request.maxResults, maxPages: MAX_PAGES, page: (n) => textPage(request, n), key: (r) => r.href }),
    async news(request) {
      const vqd = await vqdOf(request);
      return collectPages({ wanted: request.maxResults, maxPages: MAX_PAGES, page: (n) => newsPage(request, vqd, n), key: (r) => r.url });
    },
  };
}
