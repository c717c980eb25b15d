import { isIP } from "node:net";
import { ConfigError } from "./define.ts";

/** A trusted reverse proxy: one address or a CIDR block, as `net.BlockList` takes it. */
export interface ProxyRange {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/**
 * Parses the trusted-proxy list (AGENTRY_TRUSTED_PROXIES, comma-separated, or `auth.trustedProxies`):
 * each entry an IPv4/IPv6 address or a CIDR block. Fails at start naming the entry that is neither.
 */
export function parseTrustedProxies(entries: readonly string[], source: string): ProxyRange[] {
  return entries
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [address, prefixText, extra] = entry.split("/");
      const version = isIP(address);
      const max = version === 6 ? 128 : 32;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (version === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) {
        throw new ConfigError(`${source}: '${entry}' is not an IP address or CIDR block (e.g. 10.0.0.1, 10.0.0.0/8, fd00::/8)`);
      }
      return { address, prefix, family: version === 6 ? "ipv6" : "ipv4" } as const;
    });
}
