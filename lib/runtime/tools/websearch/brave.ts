/**
 * Brave Search's API (a key: `X-Subscription-Token`): GET /res/v1/web/search (at most 20 results a
 * request) and /res/v1/news/search (at most 50), `freshness` pd/pw/pm/py for the time limit,
 * `country` from the region's country part, `safesearch=moderate` (the level Agno's searches use).
 */
import { hostOf, isoDate, plainText, stringField, type SearchBackend, type SearchRequest, type Timelimit } from "./results.ts";
import { endpoint, jsonBody, objects, searchRequest, type SearchTransport } from "./search-http.ts";

const API_URL = "https://api.search.brave.com";
const FRESHNESS: Record<Timelimit, string> = { d: "pd", w: "pw", m: "pm", y: "py" };

/** The country of a DuckDuckGo region code ("us-en" → "US"), or undefined for none ("wt-wt"). */
function countryOf(region: string | undefined): string | undefined {
  const country = region?.split("-")[0]?.toUpperCase();
  return country && /^[A-Z]{2}$/.test(country) && country !== "WT" ? country : undefined;
}

function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

export function braveBackend(transport: SearchTransport, apiKey: string, baseUrl = API_URL): SearchBackend {
  async function search(path: string, request: SearchRequest, most: number): Promise<Record<string, unknown>> {
    const url = endpoint(baseUrl, path);
    url.searchParams.set("q", request.query);
    url.searchParams.set("count", String(Math.min(request.maxResults, most)));
    url.searchParams.set("safesearch", "moderate");
    if (request.timelimit) url.searchParams.set("freshness", FRESHNESS[request.timelimit]);
    const country = countryOf(request.region);
    if (country) url.searchParams.set("country", country);
    const headers = { accept: "application/json", "x-subscription-token": apiKey };
    return jsonBody(transport, await searchRequest(transport, { method: "GET", url, headers, signal: request.signal }));
  }

  return {
    label: transport.label,
    async text(request) {
      const body = await search("res/v1/web/search", request, 20);
      return objects(field(body.web, "results"))
        .map((item) => ({ title: plainText(item.title), href: stringField(item.url), body: plainText(item.description) }))
        .slice(0, request.maxResults);
    },
    async news(request) {
      const body = await search("res/v1/news/search", request, 50);
      return objects(body.results)
        .map((item) => {
          const url = stringField(item.url);
          return {
            date: isoDate(item.page_age),
            title: plainText(item.title),
            body: plainText(item.description),
            url,
            image: stringField(field(item.thumbnail, "src")),
            source: stringField(field(item.meta_url, "hostname")) || hostOf(url),
          };
        })
        .slice(0, request.maxResults);
    },
  };
}
