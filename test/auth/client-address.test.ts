import { execFile } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildAuthConfig } from "@/lib/auth/dashboard/auth-config.ts";
import { authSecret } from "@/lib/auth/dashboard/auth-secret.ts";
import { PEER_ADDRESS_HEADER, clientAddressOf, normalizeAddress, throttleSubject } from "@/lib/auth/dashboard/client-address.ts";
import { ConfigError } from "@/lib/config/define.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { postToAuthJs } from "./auth-js-support.ts";
import { PASSWORD, createUser } from "./dashboard-support.ts";

const PEER_FLAG = Symbol.for("agentry.peerAddressHeader");
const flags = globalThis as Record<symbol, unknown>;
/** As in a server started by `agentry start`, whose HTTP server records each request's socket address. */
const recordPeers = () => {
  flags[PEER_FLAG] = true;
};
const forgetPeers = () => {
  delete flags[PEER_FLAG];
};

const proxies = (list: string) => testSettings({ env: { AGENTRY_TRUSTED_PROXIES: list } }).auth.trustedProxies;
const none = testSettings().auth.trustedProxies;
const request = (socket: string, forwardedFor?: string) => new Headers({ [PEER_ADDRESS_HEADER]: socket, ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }) });

describe("the client address of a sign-in", () => {
  beforeEach(recordPeers);
  afterEach(forgetPeers);

  it("is the socket's when no proxy is trusted (the default): a client's own X-Forwarded-For is ignored", () => {
    expect(none).toEqual([]);
    expect(clientAddressOf(request("198.51.100.7"), none)).toBe("198.51.100.7");
    expect(clientAddressOf(request("198.51.100.7", "203.0.113.1"), none)).toBe("198.51.100.7");
    expect(clientAddressOf(request("198.51.100.7", "203.0.113.1, 10.0.0.1"), none)).toBe("198.51.100.7");
  });

  it("behind a trusted proxy is the X-Forwarded-For entry that proxy appended; what a client wrote left of it is not believed", () => {
    const trusted = proxies("10.0.0.2");
    // The proxy at 10.0.0.2 appended the address it saw (203.0.113.9); the client forged the first entry.
    expect(clientAddressOf(request("10.0.0.2", "1.1.1.1, 203.0.113.9"), trusted)).toBe("203.0.113.9");
    expect(clientAddressOf(request("10.0.0.2", "203.0.113.9"), trusted)).toBe("203.0.113.9");
    // A client connecting directly (not through the proxy) cannot pretend to be anyone.
    expect(clientAddressOf(request("198.51.100.7", "10.0.0.2, 203.0.113.9"), trusted)).toBe("198.51.100.7");
    // The proxy's own request (no header) is the proxy.
    expect(clientAddressOf(request("10.0.0.2"), trusted)).toBe("10.0.0.2");
  });

  it("skips a chain of trusted proxies, given as addresses or CIDR blocks, IPv4 and IPv6", () => {
    const trusted = proxies("10.0.0.0/8, fd00::/8,192.0.2.1");
    expect(clientAddressOf(request("10.1.2.3", "198.51.100.4, 192.0.2.1, 10.9.9.9"), trusted)).toBe("198.51.100.4");
    expect(clientAddressOf(request("fd00::5", "2001:db8::1"), trusted)).toBe("2001:db8::1");
    // Every hop trusted: the leftmost is the best there is.
    expect(clientAddressOf(request("10.1.2.3", "10.4.5.6"), trusted)).toBe("10.4.5.6");
  });

  it("normalizes IPv4-mapped IPv6 sockets, ports and brackets, so one client is one address", () => {
    expect(clientAddressOf(request("::ffff:127.0.0.1"), none)).toBe("127.0.0.1");
    expect(clientAddressOf(request("::ffff:10.0.0.2", "[2001:DB8::1]:443"), proxies("10.0.0.2"))).toBe("2001:db8::1");
    expect(normalizeAddress(" 203.0.113.9:51234 ")).toBe("203.0.113.9");
    expect(normalizeAddress("x".repeat(500))).toHaveLength(100);
  });

  it("without a recorded socket address (a server not started by `agentry start`) falls back to the last X-Forwarded-For entry", () => {
    forgetPeers();
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "203.0.113.9, 127.0.0.1" }), none)).toBe("127.0.0.1");
    expect(clientAddressOf(new Headers({ [PEER_ADDRESS_HEADER]: "6.6.6.6", "x-forwarded-for": "127.0.0.1" }), none)).toBe("127.0.0.1");
    expect(clientAddressOf(new Headers(), none)).toBe("unknown");
  });
});

describe("the trusted-proxy setting", () => {
  it("takes IPs and CIDR blocks; env wins over agentry.config.ts", () => {
    expect(proxies(" 10.0.0.0/8 , ::1")).toEqual([
      { address: "10.0.0.0", prefix: 8, family: "ipv4" },
      { address: "::1", prefix: 128, family: "ipv6" },
    ]);
    const both = testSettings({ env: { AGENTRY_TRUSTED_PROXIES: "10.0.0.1" }, file: { auth: { trustedProxies: ["192.0.2.1"] } } });
    expect(both.auth.trustedProxies.map((p) => p.address)).toEqual(["10.0.0.1"]);
    expect(testSettings({ file: { auth: { trustedProxies: ["192.0.2.1"] } } }).auth.trustedProxies.map((p) => p.address)).toEqual(["192.0.2.1"]);
  });

  it("fails at start naming an entry that is neither", () => {
    for (const bad of ["proxy.internal", "10.0.0.0/33", "10.0.0.1/8/2", "::1/129", "10.0.0.0/x"]) {
      expect(() => proxies(bad), bad).toThrow(ConfigError);
      expect(() => proxies(bad)).toThrow(`env:AGENTRY_TRUSTED_PROXIES: '${bad}' is not an IP address or CIDR block`);
    }
  });
});

describe("bin/peer-address.mjs (loaded into the server by `agentry start`)", () => {
  it("gives every request its socket's address, replacing any value the client sent, and says so", async () => {
    const preload = pathToFileURL(join(process.cwd(), "bin", "peer-address.mjs")).href;
    const script = `
      import http from "node:http";
      const server = http.createServer((req, res) => res.end(JSON.stringify({
        peer: req.headers["${PEER_ADDRESS_HEADER}"],
        recorded: globalThis[Symbol.for("agentry.peerAddressHeader")] === true,
      })));
      server.listen(0, "127.0.0.1", async () => {
        const response = await fetch("http://127.0.0.1:" + server.address().port + "/", {
          headers: { "${PEER_ADDRESS_HEADER}": "6.6.6.6", "x-forwarded-for": "6.6.6.6" },
        });
        console.log(await response.text());
        server.close();
      });`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", preload, "--input-type=module", "-e", script], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ peer: "127.0.0.1", recorded: true });
  });
});

describe.each(DIALECTS)("a sign-in through Auth.js on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openMigrated(dialect);
      recordPeers();
    });
    afterAll(async () => {
      forgetPeers();
      await db?.destroy();
    });

    it("is counted against the socket's address, not a forged X-Forwarded-For, and a trusted proxy's entry when behind one", async () => {
      const user = await createUser(db);
      const signIn = async (settings: ReturnType<typeof testSettings>, headers: Record<string, string>) => {
        const config = buildAuthConfig({ settings, db, secret: await authSecret(settings, db), secure: false });
        await postToAuthJs(config, "callback/credentials", { headers, form: { email: user.email, password: PASSWORD } });
      };
      const addresses = async () =>
        (await db.sql.query<{ client_address: string }>("SELECT client_address FROM agentry_login_attempts WHERE account = ? ORDER BY at", [user.email])).map((r) => r.client_address);
      await signIn(testSettings(), { [PEER_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-for": "203.0.113.1" });
      expect(await addresses()).toEqual(["198.51.100.7"]);
      await signIn(testSettings({ env: { AGENTRY_TRUSTED_PROXIES: "10.0.0.2" } }), { [PEER_ADDRESS_HEADER]: "10.0.0.2", "x-forwarded-for": "1.1.1.1, 203.0.113.9" });
      expect(await addresses()).toEqual(["198.51.100.7", "203.0.113.9"]);
    });
  });
});

describe("throttleSubject", () => {
  it("is the address for IPv4 and the /64 for IPv6, however the IPv6 address is written", () => {
    expect(throttleSubject("10.0.0.7")).toBe("10.0.0.7");
    expect(throttleSubject("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(throttleSubject("2001:0db8:0001:0002::1")).toBe("2001:db8:1:2::/64");
    expect(throttleSubject("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(throttleSubject("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(throttleSubject("::1")).toBe("0:0:0:0::/64");
    expect(throttleSubject("::ffff:1.2.3.4")).toBe("0:0:0:0::/64");
    expect(throttleSubject("unknown")).toBe("unknown");
  });
});
