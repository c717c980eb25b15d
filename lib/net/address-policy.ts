/**
 * Which IP addresses an outbound request made on a user's behalf may connect to: public unicast
 * only. Everything a server could reach that the internet cannot (loopback, private networks,
 * link-local and the cloud metadata address in it, carrier-grade NAT) is refused, with multicast,
 * broadcast, unspecified, documentation and reserved ranges. IPv6 addresses that carry an IPv4
 * address in their last 32 bits are judged by that IPv4 address: IPv4-mapped ones
 * (::ffff:a.b.c.d, ::ffff:0:0/96; net.BlockList applies IPv4 rules to them), IPv4-translated ones
 * (::ffff:0:a.b.c.d, ::ffff:0:0:0/96) and NAT64 ones (64:ff9b::/96).
 */
import { BlockList, isIP } from "node:net";

type Range = [network: string, prefix: number];

/** Refused ranges by what they are; the first category an address falls in names it. */
const CATEGORIES: [label: string, ranges: Range[]][] = [
  [
    "an unspecified address",
    [
      ["0.0.0.0", 8],
      ["::", 128],
    ],
  ],
  [
    "a loopback address",
    [
      ["127.0.0.0", 8],
      ["::1", 128],
    ],
  ],
  [
    "a private address",
    [
      ["10.0.0.0", 8],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16],
      ["fc00::", 7],
    ],
  ],
  ["a carrier-grade NAT address", [["100.64.0.0", 10]]],
  [
    "a link-local address",
    [
      ["169.254.0.0", 16],
      ["fe80::", 10],
    ],
  ],
  [
    "a multicast address",
    [
      ["224.0.0.0", 4],
      ["ff00::", 8],
    ],
  ],
  ["a broadcast address", [["255.255.255.255", 32]]],
  [
    "a reserved address",
    [
      ["240.0.0.0", 4],
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["192.88.99.0", 24],
      ["198.18.0.0", 15],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      // IPv4-compatible (deprecated), discard-only, IETF protocol assignments (Teredo among them),
      // documentation, 6to4 (reaches an embedded IPv4 address), site-local (deprecated), local NAT64.
      ["::", 96],
      ["100::", 64],
      ["2001::", 23],
      ["2001:db8::", 32],
      ["3fff::", 20],
      ["2002::", 16],
      ["fec0::", 10],
      ["64:ff9b:1::", 48],
    ],
  ],
];

const LISTS = CATEGORIES.map(([label, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIP(network) === 4 ? "ipv4" : "ipv6");
  return [label, list] as const;
});

function rangeList(network: string, prefix: number): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, "ipv6");
  return list;
}

const MAPPED = rangeList("::ffff:0:0", 96);
/** IPv6 ranges whose addresses embed an IPv4 address that net.BlockList does not look at, by what they are. */
const EMBEDDING: [label: string, list: BlockList][] = [
  ["NAT64", rangeList("64:ff9b::", 96)],
  ["IPv4-translated", rangeList("::ffff:0:0:0", 96)],
];

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lastIpv4(address: string): string {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) return dotted[1]!;
  const parts = address.split(":");
  const high = Number.parseInt(parts.at(-2) || "0", 16);
  const low = Number.parseInt(parts.at(-1) || "0", 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/**
 * Why the address may not be fetched ("a loopback address"), or undefined for a public address.
 * Anything that is not an IP address is refused as "not an IP address".
 */
export function addressRefusal(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return "not an IP address";
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const [embedding, list] of type === "ipv6" ? EMBEDDING : []) {
    if (!list.check(address, "ipv6")) continue;
    const refusal = addressRefusal(lastIpv4(address));
    return refusal && `${refusal} (${embedding === "NAT64" ? "through NAT64" : embedding})`;
  }
  for (const [label, list] of LISTS) {
    if (list.check(address, type)) return type === "ipv6" && MAPPED.check(address, "ipv6") ? `${label} (IPv4-mapped)` : label;
  }
  return undefined;
}
