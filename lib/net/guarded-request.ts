/**
 * One outbound HTTP request under the address policy (address-policy.ts), for features that call a
 * service on the server's behalf (web search backends). The host's addresses are checked inside
 * the request's own DNS lookup, so the address connected to is the address that was checked; an
 * IP-literal host (which Node connects to without a lookup) is checked before anything is sent.
 * Every address the host resolves to must be public unless `allowHosts` names the host (exact
 * names, any case). Redirects are not followed: a 3xx comes back as it is, for the caller to
 * treat as an answer.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { promisify } from "node:util";
import { brotliDecompress, gunzip, inflate } from "node:zlib";
import { addressRefusal } from "./address-policy.ts";

/** The largest response body read by default (after decompression): 5 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface GuardedRequestOptions {
  method: "GET" | "POST";
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  /** Hosts connected to whatever they resolve to (exact names, any case), set by an admin. */
  allowHosts?: readonly string[];
  /** The whole request's time limit, the body included. */
  timeoutMs: number;
  maxBytes?: number;
  /** Whether a TLS certificate must verify (default true). */
  verifyTls?: boolean;
  signal?: AbortSignal;
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

/** A DNS lookup that fails with AddressRefusedError when any address of the host is not public. */
function checkingLookup(host: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses: LookupAddress[]) => {
      const answer = callback as (error: Error | null, address: string | LookupAddress[], family?: number) => void;
      if (error) return answer(error, []);
      for (const { address } of addresses) {
        const refused = refusedAddress(host, address);
        if (refused) return answer(refused, []);
      }
      if (options.all) return answer(null, addresses);
      return answer(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const DECOMPRESS: Record<string, (raw: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  "x-gzip": promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/** The whole body, decompressed as its Content-Encoding says; past `maxBytes` (either side of decompression) an error. */
async function readText(response: IncomingMessage, maxBytes: number, url: URL): Promise<string> {
  const tooLarge = () => new Error(`${url.host} sent more than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  const decompress = DECOMPRESS[String(response.headers["content-encoding"] ?? "").toLowerCase()];
  if (!decompress) return raw.toString("utf8");
  try {
    return (await decompress(raw, { maxOutputLength: maxBytes })).toString("utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw error;
  }
}

/**
 * Sends one request under the address policy (see the file's comment) and reads the whole answer.
 * Throws AddressRefusedError for a refused scheme or address, RequestTimeoutError when
 * `timeoutMs` passes, the caller's signal's reason when it aborts, and the network's error
 * otherwise (ECONNREFUSED, a reset, a TLS failure).
 */
export async function guardedRequest(options: GuardedRequestOptions): Promise<GuardedResponse> {
  const { url, timeoutMs, maxBytes = DEFAULT_MAX_RESPONSE_BYTES } = options;
  const host = normalizeHost(url.hostname);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AddressRefusedError(`refused: ${url.href} uses ${url.protocol}; only http: and https: are requested`, host);
  }
  const allowed = (options.allowHosts ?? []).some((h) => normalizeHost(h.trim()) === host);
  if (!allowed && isIP(host)) {
    const refused = refusedAddress(host, host);
    if (refused) throw refused;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const client = url.protocol === "https:" ? https : http;
  const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br", ...options.headers };
  if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = client.request(url, {
        method: options.method,
        headers,
        agent: false,
        signal,
        ...(allowed ? {} : { lookup: checkingLookup(host) }),
        ...(url.protocol === "https:" ? { rejectUnauthorized: options.verifyTls ?? true } : {}),
      });
      request.on("response", resolve);
      request.on("error", reject);
      request.end(options.body);
    });
    return { status: response.statusCode ?? 0, headers: response.headers, text: await readText(response, maxBytes, url) };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new RequestTimeoutError(`${url.host} did not answer within ${timeoutMs / 1000} s`);
    throw error;
  }
}
