import { EnvError, type Env, type WebSearchBackendName } from "./env.ts";

/** What the environment configures for web search: the options of `webSearchTools` (lib/runtime/tools/websearch/). */
export interface WebSearchFromEnv {
  backend: WebSearchBackendName;
  apiKey?: string;
  baseUrl?: string;
  allowHosts: string[];
}

/**
 * The web search the environment turns on: none unless AGENTRY_WEB_SEARCH names a backend (an
 * unknown name already failed in env.ts). Brave needs BRAVE_API_KEY, Tavily TAVILY_API_KEY and
 * SearXNG SEARXNG_URL; a missing one is an EnvError at start naming it.
 * AGENTRY_WEB_SEARCH_ALLOW_HOSTS (comma list) lets it reach hosts on private addresses.
 */
export function webSearchFromEnv(env: Env): WebSearchFromEnv | undefined {
  const backend = env.AGENTRY_WEB_SEARCH;
  if (!backend) return undefined;
  const allowHosts = (env.AGENTRY_WEB_SEARCH_ALLOW_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const required = (variable: "BRAVE_API_KEY" | "TAVILY_API_KEY" | "SEARXNG_URL"): string => {
    const value = env[variable];
    if (!value) throw new EnvError(`Invalid environment:\n  - AGENTRY_WEB_SEARCH=${backend} needs ${variable}`);
    return value;
  };
  switch (backend) {
    case "duckduckgo":
      return { backend, allowHosts };
    case "brave":
      return { backend, apiKey: required("BRAVE_API_KEY"), allowHosts };
    case "tavily":
      return { backend, apiKey: required("TAVILY_API_KEY"), allowHosts };
    case "searxng":
      return { backend, baseUrl: required("SEARXNG_URL"), allowHosts };
  }
}
