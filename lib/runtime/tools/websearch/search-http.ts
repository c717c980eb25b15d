import { AddressRefusedError, guardedRequest, type GuardedResponse, RequestTimeoutError } from "../../../net/guarded-request.ts";
import { UnsupportedEncodingError } from "../../../net/read-body.ts";

/**
 * A backend's failure as the model reads it (the tool's error result): what happened and what can
 * be done, never a stack. Thrown by the backends; lib/runtime/tools/run-tool.ts turns it into the
 * call's result, and the run goes on.
 */
export class SearchBackendError extends Error {
  override readonly name = "SearchBackendError";
}

/** How a backend reaches its service. */
export interface SearchTransport {
  /** The backend's name in messages ("Brave"). */
  readonly label: string;
  readonly timeoutMs: number;
  /** Hosts requested although they resolve to private or loopback addresses (lib/net). */
  readonly allowHosts: readonly string[];
  readonly verifyTls: boolean;
}

const USER_AGENT = "Agentry-WebSearch/1.0";

/** A URL under a base URL's path: `endpoint("https://h/searx", "search")` is https://h/searx/search. */
export function endpoint(base: string, path: string): URL {
  const url = new URL(base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL(path.replace(/^\//, ""), url);
}

/**
 * A short reason from an error body: the message of a JSON error (Brave nests it as
 * `{error: {detail}}`, Tavily as `{detail: {error}}`, others say `message`), else the text's first
 * 200 characters without markup.
 */
function reasonOf(text: string): string {
  let reason: unknown = text;
  try {
    reason = JSON.parse(text);
  } catch {
    // Not JSON: the text itself.
  }
  for (let depth = 0; depth < 3 && reason && typeof reason === "object"; depth++) {
    const body = reason as Record<string, unknown>;
    reason = body.detail ?? body.message ?? body.error ?? JSON.stringify(body);
  }
  const line = String(reason ?? "")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\.+$/, "");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The rate-limit failure, with the wait the service asked for when it said. */
export function rateLimited(transport: SearchTransport, status: number, headers: GuardedResponse["headers"]): SearchBackendError {
  const retryAfter = Number(headers["retry-after"]);
  const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? ` (it asks to wait ${retryAfter} s)` : "";
  return new SearchBackendError(`${transport.label} is rate limiting these searches (HTTP ${status})${wait}; try again later, or search less often.`);
}

/**
 * One request to a backend's service through the outbound address policy. Answers a 2xx
 * response; every other outcome is a SearchBackendError the model can read: a refused address, a
 * timeout, a network failure, a body in a compression it cannot read, a 429 (rate limit), a
 * redirect (never followed) or an error status with the service's reason. The run's signal
 * aborting propagates as it is.
 */
export async function searchRequest(
  transport: SearchTransport,
  request: { method: "GET" | "POST"; url: URL; headers?: Record<string, string>; body?: string; signal: AbortSignal },
): Promise<GuardedResponse> {
  let response: GuardedResponse;
  try {
    response = await guardedRequest({
      method: request.method,
      url: request.url,
      headers: { "user-agent": USER_AGENT, ...request.headers },
      body: request.body,
      allowHosts: transport.allowHosts,
      timeoutMs: transport.timeoutMs,
      verifyTls: transport.verifyTls,
      signal: request.signal,
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    if (error instanceof AddressRefusedError) {
      const what = error.message.replace(/^refused: /, "");
      throw new SearchBackendError(`The outbound address policy refused ${transport.label}: ${what}; an admin can allow the host (the toolkit's allowHosts, AGENTRY_WEB_SEARCH_ALLOW_HOSTS).`);
    }
    if (error instanceof RequestTimeoutError) throw new SearchBackendError(`${transport.label} did not answer within ${transport.timeoutMs / 1000} s; try again later.`);
    if (error instanceof UnsupportedEncodingError) {
      throw new SearchBackendError(`${transport.label} answered with a compression that cannot be read (Content-Encoding: ${error.encoding}); check the backend's URL.`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    throw new SearchBackendError(`${transport.label} could not be reached (${code ? `${code}: ` : ""}${(error as Error).message}); try again later.`);
  }
  const { status } = response;
  if (status === 429) throw rateLimited(transport, status, response.headers);
  if (status >= 300 && status < 400) {
    throw new SearchBackendError(`${transport.label} answered HTTP ${status}, a redirect to ${response.headers.location ?? "nowhere"}, which is not followed; check the backend's URL.`);
  }
  if (status < 200 || status >= 300) {
    const reason = reasonOf(response.text);
    throw new SearchBackendError(`${transport.label} answered HTTP ${status}${reason ? `: ${reason}` : ""}.`);
  }
  return response;
}

/** A response body as JSON, or a SearchBackendError saying the service answered something else. */
export function jsonBody(transport: SearchTransport, response: GuardedResponse): Record<string, unknown> {
  try {
    const body = JSON.parse(response.text) as unknown;
    if (body && typeof body === "object" && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new SearchBackendError(`${transport.label} answered with something other than its JSON results; check the backend's URL.`);
}

/** The objects of a JSON array field (anything else in it skipped). */
export function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v)) : [];
}

/**
 * Results gathered page after page until `wanted` are found, a page adds nothing new (by `key`),
 * or `maxPages` pages were read.
 */
export async function collectPages<T>({ wanted, maxPages, page, key }: { wanted: number; maxPages: number; page: (number: number) => Promise<T[]>; key: (item: T) => string }): Promise<T[]> {
  const found: T[] = [];
  const seen = new Set<string>();
  for (let number = 1; number <= maxPages && found.length < wanted; number++) {
    let added = 0;
    for (const item of await page(number)) {
      const k = key(item);
      if (seen.has(k)) continue;
      seen.add(k);
      found.push(item);
      added++;
    }
    if (added === 0) break;
  }
  return found.slice(0, wanted);
}
