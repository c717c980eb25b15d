/**
 * Outbound HTTP requests under the address policy (address-policy.ts), for features that reach a
 * service or a page on a user's behalf (web search backends, the knowledge URL reader). The host's
 * addresses are resolved and checked inside the request's own DNS lookup, so the address connected
 * to is the address that was checked; an IP-literal host (which Node connects to without a lookup)
 * is checked before anything is sent. Every address the host resolves to must be public unless
 * `allowHosts` names the host (exact names, any case). Redirects are not followed: a 3xx comes back
 * as it is, for the caller to treat as an answer or to follow with another request.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { addressRefusal } from "./address-policy.ts";
import { readBody } from "./read-body.ts";

/** The largest response body read by default (after decompression): 5 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface SendGuardedOptions {
  method: "GET" | "POST";
  url: URL;
  /** Sent as given, after a default `accept-encoding: gzip, deflate, br` (what readBody decodes). */
  headers?: Record<string, string>;
  body?: string;
  /** Hosts connected to whatever they resolve to (exact names, any case), set by an admin. */
  allowHosts?: readonly string[];
  /** Whether a TLS certificate must verify (default true). */
  verifyTls?: boolean;
  signal?: AbortSignal;
}

export interface GuardedRequestOptions extends SendGuardedOptions {
  /** The whole request's time limit, the body included. */
  timeoutMs: number;
  maxBytes?: number;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body decoded as UTF-8. */
  text: string;
}

/** A request refused before anything was sent: its scheme, or an address its host is or resolves to. */
export class AddressRefusedError extends Error {
  override readonly name = "AddressRefusedError";
  constructor(
    message: string,
    readonly host: string,
    readonly address?: string,
  ) {
    super(message);
  }
}

/** The request's own time limit passed (not the caller's signal). */
export class RequestTimeoutError extends Error {
  override readonly name = "RequestTimeoutError";
}

/** The host's name did not resolve; `code` is the resolver's (ENOTFOUND, EAI_AGAIN), the message its own. */
export class HostNotFoundError extends Error {
  override readonly name = "HostNotFoundError";
  readonly code: string | undefined;
  constructor(
    readonly host: string,
    cause: NodeJS.ErrnoException,
  ) {
    super(cause.message, { cause });
    this.code = cause.code;
  }
}

/** A host as compared with the allowed hosts: lower case, without IPv6 brackets or a final dot. */
export function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

function refusedAddress(host: string, address: string): AddressRefusedError | undefined {
  const refusal = addressRefusal(address);
  if (!refusal) return undefined;
  const what = address === host ? `${host} is ${refusal}` : `${host} resolves to ${address}, ${refusal}`;
  return new AddressRefusedError(`refused: ${what}`, host, address);
}

/**
 * The request's DNS lookup: the host's addresses, failing with AddressRefusedError when any of them
 * is not public (unless the host is allowed), or with HostNotFoundError when it does not resolve.
 */
function checkingLookup(host: string, allowed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses: LookupAddress[]) => {
      const answer = callback as (error: Error | null, address: string | LookupAddress[], family?: number) => void;
      if (error) return answer(new HostNotFoundError(host, error), []);
      if (addresses.length === 0) return answer(new HostNotFoundError(host, Object.assign(new Error(`no address for ${host}`), { code: "ENOTFOUND" })), []);
      for (const { address } of allowed ? [] : addresses) {
        const refused = refusedAddress(host, address);
        if (refused) return answer(refused, []);
      }
      if (options.all) return answer(null, addresses);
      return answer(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Sends one request under the address policy (see the file's comment) and answers the response as
 * soon as its head arrives, for the caller to read (readBody) or destroy. Throws
 * AddressRefusedError for a refused scheme or address, HostNotFoundError when the host does not
 * resolve, an AbortError when `signal` aborts, and the network's error otherwise (ECONNREFUSED, a
 * reset, a TLS failure).
 */
export async function sendGuarded(options: SendGuardedOptions): Promise<IncomingMessage> {
  const { url } = options;
  const host = normalizeHost(url.hostname);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AddressRefusedError(`refused: ${url.href} uses ${url.protocol}; only http: and https: are requested`, host);
  }
  const allowed = (options.allowHosts ?? []).some((h) => normalizeHost(h.trim()) === host);
  if (!allowed && isIP(host)) {
    const refused = refusedAddress(host, host);
    if (refused) throw refused;
  }
  const client = url.protocol === "https:" ? https : http;
  const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br", ...options.headers };
  if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = client.request(url, {
      method: options.method,
      headers,
      agent: false,
      signal: options.signal,
      lookup: checkingLookup(host, allowed),
      ...(url.protocol === "https:" ? { rejectUnauthorized: options.verifyTls ?? true } : {}),
    });
    request.on("response", resolve);
    request.on("error", reject);
    request.end(options.body);
  });
}

/**
 * Sends one request under the address policy (sendGuarded) and reads the whole answer (readBody).
 * Throws what sendGuarded throws, RequestTimeoutError when `timeoutMs` passes, the caller's
 * signal's reason when it aborts, and readBody's ResponseTooLargeError or UnsupportedEncodingError.
 */
export async function guardedRequest(options: GuardedRequestOptions): Promise<GuardedResponse> {
  const { url, timeoutMs, maxBytes = DEFAULT_MAX_RESPONSE_BYTES } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await sendGuarded({ ...options, signal });
    return { status: response.statusCode ?? 0, headers: response.headers, text: (await readBody(response, url, maxBytes)).toString("utf8") };
  } catch (error) {
    if (error instanceof AddressRefusedError) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new RequestTimeoutError(`${url.host} did not answer within ${timeoutMs / 1000} s`);
    throw error;
  }
}
