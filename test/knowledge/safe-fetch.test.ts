import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressRefusal } from "@/lib/net/address-policy.ts";
import { ReaderError } from "@/lib/knowledge/readers/reader.ts";
import { FetchRefusedError, safeFetch } from "@/lib/knowledge/readers/safe-fetch.ts";
import { readUrl } from "@/lib/knowledge/readers/url.ts";

/** A local server: each path is one behaviour the fetch must handle. */
const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  "/hello": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("hello, world"),
  "/host": (req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(req.headers.host),
  "/page": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><head><title>Local Page</title></head><body><p>Served locally for the test.</p></body></html>"),
  "/to-page": (_req, res) => res.writeHead(301, { location: "/page" }).end(),
  "/to-private": (_req, res) => res.writeHead(302, { location: "http://10.0.0.1/admin" }).end(),
  "/to-metadata": (_req, res) => res.writeHead(307, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
  "/to-file": (_req, res) => res.writeHead(302, { location: "file:///etc/passwd" }).end(),
  "/loop": (req, res) => res.writeHead(302, { location: `/loop?${Number(new URL(req.url!, "http://x").search.slice(1)) + 1}` }).end(),
  "/gzip": (_req, res) => res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(gzipSync("compressed hello")),
  "/missing": (_req, res) => res.writeHead(404, { "content-type": "text/plain" }).end("no such page"),
  "/big-declared": (_req, res) => res.writeHead(200, { "content-type": "text/plain", "content-length": "100000" }).end("x".repeat(100_000)),
  "/big-streamed": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    let sent = 0;
    const more = () => {
      while (sent < 1_000_000 && !res.destroyed) {
        sent += 4096;
        if (!res.write("y".repeat(4096))) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  },
  "/gzip-bomb": (_req, res) => res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(gzipSync("z".repeat(200_000))),
  "/stacked": (_req, res) => res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip, br" }).end("not what it says"),
  "/hang": () => {},
};

let server: http.Server;
let port: number;
const at = (path: string, host = "127.0.0.1") => `http://${host}:${port}${path}`;
const LOCAL = ["127.0.0.1"];

beforeAll(async () => {
  server = http.createServer((req, res) => (routes[new URL(req.url!, "http://x").pathname] ?? routes["/missing"]!)(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The error `promise` rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("safeFetch", () => {
  it("(a) refuses the loopback server by default, naming the host, why, and how an admin allows it", async () => {
    const error = await failure(safeFetch(at("/hello")));
    expect(error).toBeInstanceOf(FetchRefusedError);
    expect(error).toBeInstanceOf(ReaderError);
    expect(error.message).toBe("refused: 127.0.0.1 is a loopback address; an admin can allow the host with AGENTRY_KNOWLEDGE_ALLOW_HOSTS");
  });

  it("(b) fetches it when the host is allowed (any case), keeping the original host name in the Host header", async () => {
    expect(await safeFetch(at("/hello"), { allowHosts: LOCAL })).toEqual({
      url: at("/hello"),
      bytes: new Uint8Array(Buffer.from("hello, world")),
      mimeType: "text/plain",
      contentType: "text/plain; charset=utf-8",
      status: 200,
    });
    const viaName = await safeFetch(at("/host", "localhost"), { allowHosts: ["LOCALHOST"] });
    expect(Buffer.from(viaName.bytes).toString()).toBe(`localhost:${port}`);
    expect(Buffer.from((await safeFetch(at("/gzip"), { allowHosts: LOCAL })).bytes).toString()).toBe("compressed hello");
  });

  it("(c) follows redirects within allowed hosts, and refuses a hop to a private or metadata address", async () => {
    expect((await safeFetch(at("/to-page"), { allowHosts: LOCAL })).url).toBe(at("/page"));
    const toPrivate = await failure(safeFetch(at("/to-private"), { allowHosts: LOCAL }));
    expect(toPrivate).toBeInstanceOf(FetchRefusedError);
    expect(toPrivate.message).toMatch(/^refused: 10\.0\.0\.1 is a private address; an admin can allow the host/);
    const toMetadata = await failure(safeFetch(at("/to-metadata"), { allowHosts: LOCAL }));
    expect(toMetadata).toMatchObject({ name: "FetchRefusedError", host: "169.254.169.254", address: "169.254.169.254" });
    expect(toMetadata.message).toMatch(/a link-local address/);
    expect(await failure(safeFetch(at("/to-file"), { allowHosts: LOCAL }))).toBeInstanceOf(FetchRefusedError);
  });

  it("(d) stops a body past the size cap, declared or streamed, compressed or not, naming the cap", async () => {
    const declared = await failure(safeFetch(at("/big-declared"), { allowHosts: LOCAL, maxBytes: 10_000 }));
    expect(declared).toBeInstanceOf(ReaderError);
    expect(declared.message).toMatch(/is larger than the 9\.8 KiB cap/);
    expect((await failure(safeFetch(at("/big-streamed"), { allowHosts: LOCAL, maxBytes: 50_000 }))).message).toMatch(/larger than the 48\.8 KiB cap/);
    expect((await failure(safeFetch(at("/gzip-bomb"), { allowHosts: LOCAL, maxBytes: 50_000 }))).message).toMatch(/larger than the 48\.8 KiB cap/);
    expect((await safeFetch(at("/hello"), { allowHosts: LOCAL, maxBytes: 12 })).bytes.length).toBe(12);
  });

  it("(e) gives up after maxRedirects redirects", async () => {
    const error = await failure(safeFetch(at("/loop?0"), { allowHosts: LOCAL, maxRedirects: 3 }));
    expect(error).toBeInstanceOf(ReaderError);
    expect(error.message).toBe(`${at("/loop?0")} redirected more than 3 times (too many redirects); give the final address instead.`);
  });

  it("(f) refuses schemes other than http and https, and says when an address is not one", async () => {
    for (const url of ["file:///etc/passwd", "ftp://ftp.example.com/file.txt", "gopher://example.com/", "javascript:alert(1)"]) {
      const error = await failure(safeFetch(url));
      expect(error).toBeInstanceOf(FetchRefusedError);
      expect(error.message).toMatch(/only http: and https: addresses can be fetched/);
    }
    const invalid = await failure(safeFetch("not a url"));
    expect(invalid).toBeInstanceOf(ReaderError);
    expect(invalid).not.toBeInstanceOf(FetchRefusedError);
  });

  it("(g) refuses a host name that resolves to a loopback address unless that name is allowed", async () => {
    const error = await failure(safeFetch(at("/hello", "localhost"), { allowHosts: ["127.0.0.1"] }));
    expect(error).toBeInstanceOf(FetchRefusedError);
    expect(error.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; an admin can allow/);
  });

  it("(h) refuses IPv6 loopback, IPv4-mapped IPv6, and other spellings of internal addresses", async () => {
    expect((await failure(safeFetch(at("/hello", "[::1]")))).message).toMatch(/^refused: ::1 is a loopback address/);
    expect((await failure(safeFetch(at("/hello", "[::ffff:127.0.0.1]")))).message).toMatch(/^refused: ::ffff:7f00:1 is a loopback address \(IPv4-mapped\)/);
    expect((await failure(safeFetch(at("/hello", "[::ffff:0:127.0.0.1]")))).message).toMatch(/^refused: ::ffff:0:7f00:1 is a loopback address \(IPv4-translated\)/);
    for (const host of ["0.0.0.0", "2130706433", "0x7f.1", "[::]", "[fd00::1]", "100.64.1.1"]) {
      expect(await failure(safeFetch(at("/hello", host)))).toBeInstanceOf(FetchRefusedError);
    }
  });

  it("(i) times out a server that never answers, and stops at once when the caller aborts", async () => {
    const started = Date.now();
    const error = await failure(safeFetch(at("/hang"), { allowHosts: LOCAL, timeoutMs: 300 }));
    expect(error).toBeInstanceOf(ReaderError);
    expect(error.message).toBe(`Fetching ${at("/hang")} timed out after 0.3 s; try again later, or download the file and upload it.`);
    expect(Date.now() - started).toBeLessThan(5_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("upload cancelled")), 100);
    expect((await failure(safeFetch(at("/hang"), { allowHosts: LOCAL, signal: controller.signal }))).message).toBe("upload cancelled");
  });

  it("refuses a body in a compression it cannot decode, and names a host that does not resolve", async () => {
    const stacked = await failure(safeFetch(at("/stacked"), { allowHosts: LOCAL }));
    expect(stacked).toBeInstanceOf(ReaderError);
    expect(stacked.message).toBe(`${at("/stacked")} was sent with an unsupported compression (gzip, br); download it and upload the file.`);
    const unknown = await failure(safeFetch("http://agentry-test.invalid/", { timeoutMs: 10_000 }));
    expect(unknown).toBeInstanceOf(ReaderError);
    expect(unknown.message).toMatch(/^The host agentry-test\.invalid could not be found \((ENOTFOUND|EAI_AGAIN)\); check the address\.$/);
  });

  it("names the status of a 4xx or 5xx answer", async () => {
    const error = await failure(safeFetch(at("/missing"), { allowHosts: LOCAL }));
    expect(error.message).toBe(`${at("/missing")} answered 404 Not Found; check the address.`);
  });
});

describe("address policy", () => {
  it.each([
    ["8.8.8.8", undefined],
    ["2606:4700:4700::1111", undefined],
    ["::ffff:8.8.8.8", undefined],
    ["64:ff9b::808:808", undefined],
    ["127.0.0.53", "a loopback address"],
    ["10.20.30.40", "a private address"],
    ["172.16.0.1", "a private address"],
    ["192.168.0.1", "a private address"],
    ["100.100.100.100", "a carrier-grade NAT address"],
    ["169.254.169.254", "a link-local address"],
    ["fe80::1", "a link-local address"],
    ["fc00::1", "a private address"],
    ["239.255.255.250", "a multicast address"],
    ["ff02::1", "a multicast address"],
    ["255.255.255.255", "a broadcast address"],
    ["0.0.0.0", "an unspecified address"],
    ["::", "an unspecified address"],
    ["198.51.100.7", "a reserved address"],
    ["2001:db8::1", "a reserved address"],
    ["::ffff:192.168.1.1", "a private address (IPv4-mapped)"],
    ["64:ff9b::a9fe:a9fe", "a link-local address (through NAT64)"],
    ["::ffff:0:7f00:1", "a loopback address (IPv4-translated)"],
    ["::ffff:0:127.0.0.1", "a loopback address (IPv4-translated)"],
    ["::ffff:0:a9fe:a9fe", "a link-local address (IPv4-translated)"],
    ["::ffff:0:10.0.0.1", "a private address (IPv4-translated)"],
    ["::ffff:0:8.8.8.8", undefined],
  ])("%s → %s", (address, refusal) => {
    expect(addressRefusal(address)).toBe(refusal);
  });
});

describe("readUrl", () => {
  it("reads what the URL serves with the reader for its type, recording the final and the asked-for URL", async () => {
    const out = await readUrl(at("/to-page"), { allowHosts: LOCAL });
    expect(out).toMatchObject({ text: "Served locally for the test.", format: "markdown" });
    expect(out.metadata).toMatchObject({ title: "Local Page", url: at("/page"), source_url: at("/to-page"), reader: "html", content_type: "text/html" });
    expect((await readUrl(at("/hello"), { allowHosts: LOCAL })).metadata).toMatchObject({ reader: "text", url: at("/hello") });
    expect(await failure(readUrl(at("/page")))).toBeInstanceOf(FetchRefusedError);
  });
});
