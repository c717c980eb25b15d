import { BlockList, isIP } from "node:net";
import type { ProxyRange } from "../../config/trusted-proxies.ts";
import { log } from "../../log.ts";

/**
 * The address a sign-in comes from, for throttling. Next.js exposes no socket address: it copies
 * the socket's into `X-Forwarded-For` only when the request has none, so a client that sends its
 * own header chooses the whole value. `agentry start` therefore loads bin/peer-address.mjs into
 * the server process, which sets {@link PEER_ADDRESS_HEADER} on every request from its socket
 * (replacing any value a client sent) and says so on `globalThis`.
 */
export const PEER_ADDRESS_HEADER = "x-agentry-peer-address";
const PEER_ADDRESS_ACTIVE = Symbol.for("agentry.peerAddressHeader");

/** Whether this process's HTTP server records socket addresses (it was started by `agentry start`). */
export function peerAddressRecorded(): boolean {
  return (globalThis as Record<symbol, unknown>)[PEER_ADDRESS_ACTIVE] === true;
}

const MAX_ADDRESS_LENGTH = 100;

/** `::ffff:10.0.0.1` → `10.0.0.1`, `[::1]:443` → `::1`, `10.0.0.1:5000` → `10.0.0.1`; other text as it is (trimmed, capped). */
export function normalizeAddress(raw: string): string {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address);
  if (mapped) address = mapped[1];
  return (isIP(address) === 6 ? address.toLowerCase() : address).slice(0, MAX_ADDRESS_LENGTH);
}

/**
 * The unit sign-ins are throttled per: an IPv4 address as it is; an IPv6 address by its /64, the
 * smallest block a network hands out (one client usually holds a whole /64, so counting single
 * IPv6 addresses would give it 2^64 fresh starts). Text that is no address is returned as it is.
 */
export function throttleSubject(address: string): string {
  const bare = address.split("%")[0];
  if (isIP(bare) !== 6) return address;
  const [head, tail] = bare.split("::") as [string, string | undefined];
  const groups = (part: string) => (part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

const blockLists = new WeakMap<readonly ProxyRange[], BlockList>();

function isTrustedProxy(address: string, trustedProxies: readonly ProxyRange[]): boolean {
  const version = isIP(address);
  if (version === 0 || trustedProxies.length === 0) return false;
  let list = blockLists.get(trustedProxies);
  if (!list) {
    list = new BlockList();
    for (const range of trustedProxies) list.addSubnet(range.address, range.prefix, range.family);
    blockLists.set(trustedProxies, list);
  }
  return list.check(address, version === 6 ? "ipv6" : "ipv4");
}

let warnedUnrecorded = false;

/**
 * The client's address: the socket's, unless the socket is a trusted proxy (AGENTRY_TRUSTED_PROXIES),
 * in which case `X-Forwarded-For` is read from the right, each entry having been appended by the
 * hop after it: trusted proxies are skipped, and the first address that is not one is the client.
 * Entries left of it were written by the client and are never believed. With no trusted proxies
 * (the default) `X-Forwarded-For` is ignored altogether.
 *
 * A server not started by `agentry start` (`next dev`, a bare `next start`) records no socket
 * address; the last `X-Forwarded-For` entry then stands in for it (Next.js's copy of the socket's
 * address when the client sent none), which a client can forge, and a warning says so once.
 */
export function clientAddressOf(headers: Headers, trustedProxies: readonly ProxyRange[]): string {
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const hops = forwarded.map(normalizeAddress);
  if (peerAddressRecorded()) {
    const socket = headers.get(PEER_ADDRESS_HEADER);
    if (!socket) return "unknown";
    hops.push(normalizeAddress(socket));
  } else if (!warnedUnrecorded) {
    warnedUnrecorded = true;
    log.warn("[auth] this server does not record socket addresses (it was not started with `agentry start`): sign-in throttling reads the client address from X-Forwarded-For, which a client can set");
  }
  for (let i = hops.length - 1; i >= 0; i--) {
    if (i === 0 || !isTrustedProxy(hops[i], trustedProxies)) return hops[i];
  }
  return "unknown";
}
