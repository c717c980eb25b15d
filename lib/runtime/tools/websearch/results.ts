/**
 * What web_search and search_news return, whichever backend answered: Agno's keys, every value a
 * string ("" when the backend gave none), text without markup, dates as Python's isoformat in UTC
 * ("2025-05-01T10:00:00+00:00", as Agno's DuckDuckGo news dates read).
 */

/** One web result: `{title, href, body}`. */
export interface TextResult {
  title: string;
  href: string;
  body: string;
}

/** One news result: `{date, title, body, url, image, source}`. */
export interface NewsResult {
  date: string;
  title: string;
  body: string;
  url: string;
  image: string;
  source: string;
}

/** The day, week, month or year a search is limited to (Agno's `timelimit`). */
export type Timelimit = "d" | "w" | "m" | "y";

/** A search as a backend receives it. */
export interface SearchRequest {
  query: string;
  maxResults: number;
  timelimit?: Timelimit;
  /** A DuckDuckGo region code, country then language ("us-en", "de-de"; "wt-wt" for none). */
  region?: string;
  signal: AbortSignal;
}

/** One search service: its web and news searches. */
export interface SearchBackend {
  /** Its name in messages the model reads ("DuckDuckGo"). */
  readonly label: string;
  text(request: SearchRequest): Promise<TextResult[]>;
  news(request: SearchRequest): Promise<NewsResult[]>;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Text without tags and entities, its whitespace collapsed (backends put `<strong>` in snippets). */
export function plainText(value: unknown): string {
  if (typeof value !== "string") return "";
  return value
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] === "#") {
        const code = name[1]?.toLowerCase() === "x" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** A string field as it is ("" when absent or not a string). */
export function stringField(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

/** The host name of a URL ("" when it is not one). */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/**
 * A date as Python's isoformat in UTC, whole seconds: a Unix time in seconds, or a date string
 * (an ISO date without a zone is taken as UTC). What cannot be read is kept as it came.
 */
export function isoDate(value: unknown): string {
  let date: Date | undefined;
  if (typeof value === "number" && Number.isFinite(value)) date = new Date(value * 1000);
  else if (typeof value === "string" && value.trim() !== "") {
    const text = value.trim();
    const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
    date = new Date(zoneless ? `${text}Z` : text);
    if (Number.isNaN(date.getTime())) return text;
  }
  if (!date || Number.isNaN(date.getTime())) return "";
  return `${date.toISOString().slice(0, 19)}+00:00`;
}
