/**
 * A SearXNG instance (its URL; no key): GET <url>/search with `format=json` (the instance must
 * have the JSON format enabled in its settings, else it answers 403), `categories` general or
 * news, `time_range` day/week/month/year, `language` from the region ("us-en" → "en-US"),
 * `pageno` for later pages.
 */
import { hostOf, isoDate, plainText, stringField, type SearchBackend, type SearchRequest, type Timelimit } from "./results.ts";
import { collectPages, endpoint, jsonBody, objects, searchRequest, type SearchTransport } from "./search-http.ts";

const TIME_RANGE: Record<Timelimit, string> = { d: "day", w: "week", m: "month", y: "year" };
const MAX_PAGES = 5;

/** A SearXNG language from a DuckDuckGo region code ("us-en" → "en-US"), or undefined for none. */
function languageOf(region: string | undefined): string | undefined {
  const [country, language] = region?.toLowerCase().split("-") ?? [];
  if (!language || !/^[a-z]{2}$/.test(language) || language === "wt") return undefined;
  return country && /^[a-z]{2}$/.test(country) && country !== "wt" ? `${language}-${country.toUpperCase()}` : language;
}

export function searxngBackend(transport: SearchTransport, baseUrl: string): SearchBackend {
  async function page(category: "general" | "news", request: SearchRequest, number: number): Promise<Record<string, unknown>[]> {
    const url = endpoint(baseUrl, "search");
    url.searchParams.set("q", request.query);
    url.searchParams.set("format", "json");
    url.searchParams.set("categories", category);
    if (request.timelimit) url.searchParams.set("time_range", TIME_RANGE[request.timelimit]);
    const language = languageOf(request.region);
    if (language) url.searchParams.set("language", language);
    if (number > 1) url.searchParams.set("pageno", String(number));
    const response = await searchRequest(transport, { method: "GET", url, headers: { accept: "application/json" }, signal: request.signal });
    return objects(jsonBody(transport, response).results);
  }

  return {
    label: transport.label,
    text: (request) =>
      collectPages({
        wanted: request.maxResults,
        maxPages: MAX_PAGES,
        page: async (n) => (await page("general", request, n)).map((item) => ({ title: plainText(item.title), href: stringField(item.url), body: plainText(item.content) })),
        key: (r) => r.href,
      }),
    news: (request) =>
      collectPages({
        wanted: request.maxResults,
        maxPages: MAX_PAGES,
        page: async (n) =>
          (await page("news", request, n)).map((item) => {
            const url = stringField(item.url);
            return {
              date: isoDate(item.publishedDate),
              title: plainText(item.title),
              body: plainText(item.content),
              url,
              image: stringField(item.img_src) || stringField(item.thumbnail),
              source: hostOf(url),
            };
          }),
        key: (r) => r.url,
      }),
  };
}
