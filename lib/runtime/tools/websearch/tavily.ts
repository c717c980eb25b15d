/**
 * Tavily's search API (a key, sent as `Authorization: Bearer`): POST /search with `query`,
 * `max_results` (at most 20), `topic` "general" or "news", `time_range` day/week/month/year.
 * Tavily has no per-result image or source: a news result's `source` is its URL's host and its
 * `image` is empty.
 */
import { hostOf, isoDate, plainText, stringField, type SearchBackend, type SearchRequest, type Timelimit } from "./results.ts";
import { endpoint, jsonBody, objects, searchRequest, type SearchTransport } from "./search-http.ts";

const API_URL = "https://api.tavily.com";
const TIME_RANGE: Record<Timelimit, string> = { d: "day", w: "week", m: "month", y: "year" };

export function tavilyBackend(transport: SearchTransport, apiKey: string, baseUrl = API_URL): SearchBackend {
  async function search(topic: "general" | "news", request: SearchRequest): Promise<Record<string, unknown>[]> {
    const body = {
      query: request.query,
      topic,
      max_results: Math.min(request.maxResults, 20),
      ...(request.timelimit ? { time_range: TIME_RANGE[request.timelimit] } : {}),
    };
    const headers = { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${apiKey}` };
    const response = await searchRequest(transport, { method: "POST", url: endpoint(baseUrl, "search"), headers, body: JSON.stringify(body), signal: request.signal });
    return objects(jsonBody(transport, response).results).slice(0, request.maxResults);
  }

  return {
    label: transport.label,
    async text(request) {
      return (await search("general", request)).map((item) => ({ title: plainText(item.title), href: stringField(item.url), body: plainText(item.content) }));
    },
    async news(request) {
      return (await search("news", request)).map((item) => {
        const url = stringField(item.url);
        return { date: isoDate(item.published_date), title: plainText(item.title), body: plainText(item.content), url, image: "", source: hostOf(url) };
      });
    },
  };
}
