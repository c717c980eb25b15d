/**
 * Fetching a URL for knowledge without letting it reach inside the server's network. Every hop (the
 * first request and each redirect) is one request through lib/net's sendGuarded: the host is
 * resolved inside the connection's own lookup and refused when any of its addresses is not public
 * (lib/net/address-policy.ts), unless an admin allowed that exact host, so a DNS answer that changes
 * between the check and the connect cannot point it elsewhere. TLS still verifies the certificate
 * for the host name, which is also the Host header. The body is read by lib/net's readBody.
 */
import { AddressRefusedError, HostNotFoundError, normalizeHost, sendGuarded } from "../../net/guarded-request.ts";
import { ResponseTooLargeError, readBody, UnsupportedEncodingError } from "../../net/read-body.ts";
import { mimeEssence } from "./decode.ts";
import { formatBytes } from "./format-bytes.ts";
import { ReaderError } from "./reader.ts";

export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface SafeFetchOptions {
  /** Hosts fetched whatever they resolve to (exact names, any case), set by an admin. */
  allowHosts?: readonly string[];
  /** The largest body accepted, in bytes after decompression (default 20 MiB). */
  maxBytes?: number;
  /** The whole fetch's time limit, redirects and body included (default 30 s). */
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface SafeFetchResult {
  /** The URL the body came from, after redirects. */
  url: string;
  bytes: Uint8Array;
  /** The Content-Type's media type without parameters ("text/html"). */
  mimeType?: string;
  /** The Content-Type header as sent, parameters (a charset) included. */
  contentType?: string;
  status: number;
}

/** A URL refused before anything was requested from it: its scheme, or an address its host resolves to. */
export class FetchRefusedError extends ReaderError {
  override readonly name = "FetchRefusedError";
  constructor(
    message: string,
    readonly host: string,
    readonly address?: string,
  ) {
    super(message);
  }
}

const ALLOW_HINT = "an admin can allow the host with AGENTRY_KNOWLEDGE_ALLOW_HOSTS";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  "user-agent": "Agentry-Knowledge/1.0",
  accept: "text/html,application/xhtml+xml,application/pdf,text/markdown,text/plain,application/json,text/csv;q=0.9,*/*;q=0.8",
};

function parseUrl(href: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    throw new ReaderError(`"${href}" is not a valid web address; give a full address starting with http:// or https://.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchRefusedError(`refused: ${url.href} uses ${url.protocol}, and only http: and https: addresses can be fetched`, normalizeHost(url.hostname));
  }
  return url;
}

/** What a person can do about an HTTP status that is neither success nor redirect. */
function statusAdvice(status: number): string {
  if (status === 401 || status === 403) return "the page needs a login or is not public, and cannot be fetched: download it and upload the file";
  if (status === 429 || status >= 500) return "the server is busy or failing; try again later";
  if (status >= 400) return "check the address";
  return "give an address that serves the document itself";
}

/**
 * GETs an http(s) URL, following redirects, refusing non-public addresses on every hop (see the
 * file's comment). Throws FetchRefusedError for a refused scheme or address, ReaderError for
 * everything else that stops the fetch (status, size, time, network), and the caller's signal's
 * reason when that signal aborts.
 */
export async function safeFetch(url: string, options: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const { maxBytes = DEFAULT_MAX_BYTES, timeoutMs = DEFAULT_TIMEOUT_MS, maxRedirects = DEFAULT_MAX_REDIRECTS } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let current = parseUrl(url.trim());
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await sendGuarded({ method: "GET", url: current, headers: HEADERS, allowHosts: options.allowHosts, signal });
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new ReaderError(`${current.href} answered ${status} (a redirect) without saying where to; check the address.`);
        if (redirects >= maxRedirects) throw new ReaderError(`${url} redirected more than ${maxRedirects} times (too many redirects); give the final address instead.`);
        current = parseUrl(location, current);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        const answer = [status, response.statusMessage].filter(Boolean).join(" ");
        throw new ReaderError(`${current.href} answered ${answer}; ${statusAdvice(status)}.`);
      }
      const contentType = response.headers["content-type"];
      const body = await readBody(response, current, maxBytes);
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      return { url: current.href, bytes, mimeType: mimeEssence(contentType), contentType, status };
    }
  } catch (error) {
    throw fetchError(error, { url, current, maxBytes, timeoutMs, signal: options.signal, timedOut: timeout.aborted });
  }
}

/** What stopped a fetch, as safeFetch throws it (see its comment). */
function fetchError(error: unknown, at: { url: string; current: URL; maxBytes: number; timeoutMs: number; signal?: AbortSignal; timedOut: boolean }): unknown {
  const { current } = at;
  if (error instanceof ReaderError) return error;
  if (error instanceof AddressRefusedError) return new FetchRefusedError(`${error.message}; ${ALLOW_HINT}`, error.host, error.address);
  if (at.signal?.aborted) return at.signal.reason;
  if (at.timedOut) return new ReaderError(`Fetching ${at.url} timed out after ${at.timeoutMs / 1000} s; try again later, or download the file and upload it.`);
  if (error instanceof HostNotFoundError) return new ReaderError(`The host ${error.host} could not be found (${error.code ?? "DNS error"}); check the address.`);
  if (error instanceof ResponseTooLargeError) {
    return new ReaderError(`${current.href} is larger than the ${formatBytes(at.maxBytes)} cap; download it and upload a smaller part, or ask an admin to raise the limit.`);
  }
  if (error instanceof UnsupportedEncodingError) return new ReaderError(`${current.href} was sent with an unsupported compression (${error.encoding}); download it and upload the file.`);
  const code = (error as NodeJS.ErrnoException).code;
  return new ReaderError(`${current.href} could not be fetched (${code ? `${code}: ` : ""}${(error as Error).message}); check the address, or download the file and upload it.`);
}
