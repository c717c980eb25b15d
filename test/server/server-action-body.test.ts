import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { serve, type RunningServer } from "@/lib/server/serve.mjs";
import { BODY_TOO_LARGE_DETAIL, mayBeServerAction, SERVER_ACTION_BODY_LIMIT_BYTES, serverActionBodyProblem } from "@/lib/server/server-action-body.mjs";
import { proxy } from "@/proxy.ts";

/**
 * Server action bodies Next.js would answer with a 500 (lib/server/server-action-body.mjs): past
 * its 1 MiB limit a 413, one it cannot decode a 400, each with a `detail`, answered by `agentry
 * start` (serve.mjs) before Next reads the body, and by the proxy when `content-length` says so;
 * what a browser's dashboard sends reaches Next byte for byte. The real process is checked in
 * test/cli/start.test.ts.
 */

const ACTION_ID = "7f".padEnd(42, "0");
const LIMIT = SERVER_ACTION_BODY_LIMIT_BYTES;

/** React's encoding of a server action's arguments, as the dashboard's pages send them (Next's own copy of React). */
const { encodeReply } = createRequire(import.meta.url)("next/dist/compiled/react-server-dom-turbopack/client.edge") as {
  encodeReply: (value: unknown) => Promise<string | FormData>;
};

/** A request body and its content type, as fetch sends them. */
async function encoded(body: string | FormData): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const request = new Request("http://127.0.0.1/", { method: "POST", body });
  return { body: new Uint8Array(await request.arrayBuffer()), contentType: request.headers.get("content-type")! };
}

/** A multipart body as a browser builds it from a FormData, with its content type. */
function multipart(fields: Record<string, string>): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return encoded(form);
}

/** The dashboard's call of an action with these arguments: text/plain JSON or multipart, as React encodes them. */
async function actionCall(...args: unknown[]) {
  return encoded(await encodeReply(args));
}

const loginForm = () => {
  const form = new FormData();
  form.set("email", "a@example.com");
  form.set("password", "secret");
  return form;
};

const encode = (text: string) => new TextEncoder().encode(text);
const problem = (body: Uint8Array | string, contentType: string, hasActionHeader = true) =>
  serverActionBodyProblem({ contentType, hasActionHeader, body: typeof body === "string" ? encode(body) : body });

describe("which requests are screened as server actions", () => {
  it("a POST with Next-Action anywhere, and a multipart POST to a dashboard page", () => {
    const shape = { method: "POST", path: "/dashboard/setup", contentType: "text/plain;charset=UTF-8", hasActionHeader: true };
    expect(mayBeServerAction(shape)).toBe(true);
    expect(mayBeServerAction({ ...shape, path: "/_not-found" })).toBe(true);
    expect(mayBeServerAction({ ...shape, method: "GET" })).toBe(false);
    expect(mayBeServerAction({ ...shape, hasActionHeader: false })).toBe(false);
    expect(mayBeServerAction({ ...shape, hasActionHeader: false, contentType: "multipart/form-data; boundary=x" })).toBe(true);
    expect(mayBeServerAction({ ...shape, path: "/dashboard", hasActionHeader: false, contentType: "multipart/form-data; boundary=x" })).toBe(true);
    // The API's uploads keep their own limits.
    expect(mayBeServerAction({ ...shape, path: "/knowledge/content", hasActionHeader: false, contentType: "multipart/form-data; boundary=x" })).toBe(false);
    expect(mayBeServerAction({ ...shape, path: "/dashboardx", hasActionHeader: false, contentType: "multipart/form-data; boundary=x" })).toBe(false);
  });

  it("keeps Next.js's default server actions body limit, 1 MiB", () => {
    expect(LIMIT).toBe(1024 * 1024);
    expect(BODY_TOO_LARGE_DETAIL).toBe("Server action request body too large: the limit is 1048576 bytes (1 MiB)");
  });
});

describe("serverActionBodyProblem", () => {
  it("passes what a browser's dashboard sends: the arguments' JSON array as text/plain, or multipart form data", async () => {
    const plain = await actionCall({ name: "x" }, undefined, 3, new Date(0));
    expect(plain.contentType).toBe("text/plain;charset=UTF-8");
    expect(await problem(plain.body, plain.contentType)).toBeNull();
    expect(await problem("[]", "text/plain")).toBeNull();
    const form = await actionCall({}, loginForm());
    expect(form.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(await problem(form.body, form.contentType)).toBeNull();
    const beforeHydration = await multipart({ [`$ACTION_ID_${ACTION_ID}`]: "", email: "a@example.com" });
    expect(await problem(beforeHydration.body, beforeHydration.contentType, false)).toBeNull();
    // Next.js answers an urlencoded Next-Action POST itself: no action, a 404.
    expect(await problem("a=1", "application/x-www-form-urlencoded")).toBeNull();
  });

  it("names what is wrong with a text body that is not the arguments' JSON array", async () => {
    const cases: [string | Uint8Array, string, RegExp][] = [
      ["this is not JSON", "text/plain;charset=UTF-8", /its arguments are not JSON$/],
      ['{"a":1}', "text/plain;charset=UTF-8", /its arguments are not a JSON array$/],
      ["", "text/plain;charset=UTF-8", /its arguments are not JSON$/],
      [JSON.stringify(Array.from({ length: 1001 }, () => 0)), "text/plain;charset=UTF-8", /more than 1000 arguments/],
      [new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]), "text/plain;charset=UTF-8", /its body is not UTF-8 text/],
      ["[]", "application/json", /unsupported content type "application\/json"/],
      ["[]", "", /unsupported content type ""/],
      // Next.js compares content types as sent: these are decoded as arguments, not as forms.
      ["[]", "Multipart/Form-Data; boundary=x", /unsupported content type/],
      ["a=1", "application/x-www-form-urlencoded; charset=UTF-8", /unsupported content type/],
    ];
    for (const [body, contentType, detail] of cases) {
      const found = await problem(body, contentType);
      expect(found, contentType).toMatch(/^Malformed server action request: /);
      expect(found, contentType).toMatch(detail);
    }
  });

  it("names what is wrong with a multipart body: no boundary, one it does not use, no arguments field", async () => {
    const form = await multipart({ "0": "[1]" });
    expect(await problem(form.body, "multipart/form-data")).toBe("Malformed server action request: its multipart content type has no boundary");
    expect(await problem(form.body, "multipart/form-data; boundary=not-the-one-used")).toBe(
      "Malformed server action request: its multipart body does not parse with the boundary its content type names",
    );
    expect(await problem("garbage", form.contentType)).toMatch(/does not parse/);
    const withoutRoot = await multipart({ "1": "[1]" });
    expect(await problem(withoutRoot.body, withoutRoot.contentType)).toMatch(/no field 0/);
    const notArray = await multipart({ "0": '"x"' });
    expect(await problem(notArray.body, notArray.contentType)).toMatch(/not a JSON array/);
    // Before hydration, too, a multipart body must parse.
    expect(await problem(form.body, "multipart/form-data; boundary=other", false)).toMatch(/does not parse/);
  });
});

describe("the dashboard proxy", () => {
  const at = (headers: Record<string, string>, path = "/dashboard") =>
    proxy(new NextRequest(`http://127.0.0.1:7777${path}`, { method: "POST", headers: { host: "127.0.0.1:7777", origin: "http://127.0.0.1:7777", ...headers } }));

  it("answers 413 with a detail to a server action whose content-length passes the limit, and passes one at the limit", async () => {
    const over = at({ "next-action": ACTION_ID, "content-type": "text/plain;charset=UTF-8", "content-length": "2000000" });
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ detail: BODY_TOO_LARGE_DETAIL });
    expect(at({ "content-type": "multipart/form-data; boundary=x", "content-length": String(LIMIT + 1) }).status).toBe(413);
    expect(at({ "next-action": ACTION_ID, "content-type": "text/plain;charset=UTF-8", "content-length": String(LIMIT) }).headers.get("x-middleware-next")).toBe("1");
    // Not a server action: Auth.js's forms.
    expect(at({ "content-type": "application/x-www-form-urlencoded", "content-length": "2000000" }, "/dashboard/auth/signout").headers.get("x-middleware-next")).toBe("1");
  });
});

describe("agentry start's server (serve.mjs) and server action bodies", () => {
  const started: RunningServer[] = [];
  afterEach(async () => {
    for (const running of started.splice(0)) await running.close("test over");
  });

  /** serve.mjs around a stand-in for Next that answers with what it read of each request. */
  async function start() {
    const seen: { url: string; body: Buffer }[] = [];
    const handler = async (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      seen.push({ url: request.url ?? "", body: Buffer.concat(chunks) });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ method: request.method, url: request.url, action: request.headers["next-action"] ?? null, bytes: Buffer.concat(chunks).length }));
    };
    const app = { prepare: async () => undefined, getRequestHandler: () => handler, close: async () => undefined };
    const running = await serve({ dir: ".", host: "127.0.0.1", port: 0, shutdownGraceSeconds: 5, app, log: () => undefined });
    started.push(running);
    const { port } = running.server.address() as { port: number };
    return { origin: `http://127.0.0.1:${port}`, port, seen };
  }

  const actionPost = (body: BodyInit, contentType: string) => ({
    method: "POST",
    headers: { "next-action": ACTION_ID, "content-type": contentType },
    body,
    duplex: "half" as const,
  });

  it("hands Next a server action's body byte for byte, and every other request untouched", async () => {
    const { origin, seen } = await start();
    const text = `["${"é".repeat(1000)}"]`;
    const passed = await fetch(`${origin}/dashboard/setup?x=1`, actionPost(text, "text/plain;charset=UTF-8"));
    expect(await passed.json()).toEqual({ method: "POST", url: "/dashboard/setup?x=1", action: ACTION_ID, bytes: encode(text).byteLength });
    const form = await actionCall({}, loginForm());
    expect((await fetch(`${origin}/dashboard/setup`, actionPost(form.body, form.contentType))).status).toBe(200);
    // A body of exactly the limit passes.
    const full = `["${"x".repeat(LIMIT - 4)}"]`;
    expect(encode(full).byteLength).toBe(LIMIT);
    expect(await (await fetch(`${origin}/dashboard`, actionPost(full, "text/plain;charset=UTF-8"))).json()).toMatchObject({ bytes: LIMIT });
    // An API upload is not screened: it may pass the server action limit.
    const upload = await multipart({ file: "x".repeat(LIMIT + 10) });
    expect(await (await fetch(`${origin}/knowledge/content`, { method: "POST", headers: { "content-type": upload.contentType }, body: upload.body })).json()).toMatchObject({
      bytes: upload.body.byteLength,
    });
    expect(seen.map((s) => s.body.toString("utf8")).slice(0, 2)).toEqual([text, Buffer.from(form.body).toString("utf8")]);
  });

  it("answers 413 to a body announced or streamed past the limit, and 400 to one Next could not decode, without calling Next", async () => {
    const { origin, port, seen } = await start();
    const announced = await fetch(`${origin}/dashboard`, actionPost(new Uint8Array(2_000_000), "text/plain;charset=UTF-8"));
    expect(announced.status).toBe(413);
    expect(announced.headers.get("content-type")).toBe("application/json");
    expect(await announced.json()).toEqual({ detail: BODY_TOO_LARGE_DETAIL });
    // Chunked, with no content-length.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1.5 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const streamed = await fetch(`${origin}/dashboard`, actionPost(stream, "text/plain;charset=UTF-8"));
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({ detail: BODY_TOO_LARGE_DETAIL });
    const malformed = await fetch(`${origin}/dashboard`, actionPost("not JSON", "text/plain;charset=UTF-8"));
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ detail: "Malformed server action request: its arguments are not JSON" });
    const form = await multipart({ "0": "[]" });
    const broken = await fetch(`${origin}/dashboard`, actionPost(form.body, "multipart/form-data; boundary=nope"));
    expect(broken.status).toBe(400);
    expect(seen).toEqual([]);
    // The connection that sent the oversized body is still good for the next request (keep-alive).
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        const big = "x".repeat(LIMIT + 1);
        socket.write(`POST /dashboard HTTP/1.1\r\nHost: 127.0.0.1\r\nNext-Action: ${ACTION_ID}\r\nContent-Type: text/plain\r\nContent-Length: ${big.length}\r\n\r\n${big}`);
        socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      });
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString("latin1")));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 413 /);
    expect(raw).toMatch(/HTTP\/1\.1 200 OK[\s\S]*"url":"\/health"/);
  });
});
