/**
 * Fetching a URL for knowledge without letting it reach inside the server's network. On every hop
 * (the first request and each redirect) the host is resolved and refused when any of its addresses
 * is not public (address-policy.ts), unless an admin allowed that exact host; the connection then
 * goes to an address that was checked (the request's `lookup` answers with it), so a DNS answer
 * that changes between the check and the connect cannot point it elsewhere. TLS still verifies
 * the certificate for the host name, which is also the Host header.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { addressRefusal } from "../../net/address-policy.ts";
import { mimeEssence } from "./decode.ts";
import { readBody } from "./read-body.ts";
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
  "accept-encoding": "gzip, deflate, br",
};

/** A host as compared with the allowed hosts: lower case, without IPv6 brackets or a final dot. */
function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

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

/** The promise, or the signal's reason as soon as it aborts (a DNS lookup cannot be cancelled). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The host's addresses, each checked unless the host is allowed. */
async function checkedAddresses(url: URL, allowed: Set<string>, signal: AbortSignal): Promise<LookupAddress[]> {
  const host = normalizeHost(url.hostname);
  let addresses: LookupAddress[];
  try {
    addresses = await abortable(dnsLookup(host, { all: true }), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ReaderError(`The host ${host} could not be found (${(error as NodeJS.ErrnoException).code ?? "DNS error"}); check the address.`);
  }
  if (allowed.has(host)) return addresses;
  for (const { address } of addresses) {
    const refusal = addressRefusal(address);
    if (!refusal) continue;
    const what = address === host ? `${host} is ${refusal}` : `${host} resolves to ${address}, ${refusal}`;
    throw new FetchRefusedError(`refused: ${what}; ${ALLOW_HINT}`, host, address);
  }
  return addresses;
}

/** Sends the GET to the checked addresses only, resolving with the response's head. */
function request(url: URL, addresses: LookupAddress[], signal: AbortSignal): Promise<IncomingMessage> {
  const lookup: LookupFunction = (_host, options, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family) || 0;
    const fitting = family ? addresses.filter((a) => a.family === family) : addresses;
    const usable = fitting.length > 0 ? fitting : addresses;
    if (options.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: "GET", headers: HEADERS, lookup, agent: false, signal }, resolve);
    req.on("error", reject);
    req.end();
  });
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
  const allowed = new Set((options.allowHosts ?? []).map(normalizeHost).filter(Boolean));
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let current = parseUrl(url.trim());
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await request(current, await checkedAddresses(current, allowed, signal), signal);
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
      const bytes = await readBody(response, current, maxBytes);
      return { url: current.href, bytes, mimeType: mimeEssence(contentType), contentType, status };
    }
  } catch (error) {
    if (error instanceof ReaderError) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new ReaderError(`Fetching ${url} timed out after ${timeoutMs / 1000} s; try again later, or download the file and upload it.`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReaderError(`${current.href} could not be fetched (${code ? `${code}: ` : ""}${(error as Error).message}); check the address, or download the file and upload it.`);
  }
}
