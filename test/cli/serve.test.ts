import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { serve, type NextApp, type RunningServer } from "../../lib/server/serve.mjs";
import { registerUpgradeHandler } from "../../lib/server/upgrade-handlers.ts";

/**
 * lib/server/serve.mjs around a stand-in for Next's custom server (the real one, in a real
 * `agentry start` process, is test/cli/start.test.ts): the socket address each request carries,
 * the upgrade hook and the drain on shutdown.
 */

type Handler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

function fakeNext(handler: Handler): NextApp & { closed: boolean } {
  const app = {
    closed: false,
    prepare: async () => undefined,
    getRequestHandler: () => handler,
    close: async () => {
      app.closed = true;
    },
  };
  return app;
}

const started: RunningServer[] = [];
afterEach(async () => {
  for (const running of started.splice(0)) {
    await running.close("test over");
  }
});

async function start(handler: Handler, shutdownGraceSeconds = 5): Promise<{ running: RunningServer; origin: string; port: number; app: ReturnType<typeof fakeNext>; lines: string[] }> {
  const app = fakeNext(handler);
  const lines: string[] = [];
  const running = await serve({ dir: ".", host: "127.0.0.1", port: 0, shutdownGraceSeconds, app, log: (line) => lines.push(line), banner: "listening" });
  started.push(running);
  const { port } = running.server.address() as { port: number };
  return { running, origin: `http://127.0.0.1:${port}`, port, app, lines };
}

/** Sends raw bytes and reads everything until the server closes the connection. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

const upgradeRequest = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

describe("lib/server/serve.mjs", () => {
  it("gives every request its socket's address, replacing a value the client sent, and says so on globalThis", async () => {
    const { origin, lines } = await start((request, response) => {
      response.end(JSON.stringify({ peer: request.headers["x-agentry-peer-address"], recorded: (globalThis as Record<symbol, unknown>)[Symbol.for("agentry.peerAddressHeader")] }));
    });
    const response = await fetch(`${origin}/`, { headers: { "x-agentry-peer-address": "6.6.6.6", "x-forwarded-for": "6.6.6.6" } });
    expect(await response.json()).toEqual({ peer: "127.0.0.1", recorded: true });
    expect(lines).toContain("listening");
  });

  it("answers an upgrade on a path with no handler with a 404 and closes it, whatever else listens; a registered path gets the socket", async () => {
    const { running, origin, port } = await start((_request, response) => void response.end("ok"));
    // Something else (Next's custom server does, on its first request) adding an upgrade listener is undone.
    running.server.on("upgrade", (_request: IncomingMessage, socket: Duplex) => socket.end("HTTP/1.1 200 OK\r\n\r\nnot ours"));
    const refused = await rawExchange(port, upgradeRequest("/workflows/ws?token=x"));
    expect(refused).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(refused).toContain('{"detail":"Not Found"}');
    expect(await (await fetch(`${origin}/health`)).text()).toBe("ok");

    const unregister = registerUpgradeHandler("/test/ws", (request, socket) => {
      socket.end(`HTTP/1.1 101 Switching Protocols\r\nx-peer: ${request.headers["x-agentry-peer-address"]}\r\n\r\n`);
    });
    try {
      expect(() => registerUpgradeHandler("/test/ws", () => undefined)).toThrow("registered already");
      const accepted = await rawExchange(port, upgradeRequest("/test/ws?x=1"));
      expect(accepted).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\nx-peer: 127\.0\.0\.1\r\n/);
    } finally {
      unregister();
    }
    expect(await rawExchange(port, upgradeRequest("/test/ws"))).toMatch(/^HTTP\/1\.1 404 /);
  });

  it("on close: refuses new connections, lets an in-flight response finish, then closes Next", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { running, origin, port, app } = await start(async (request, response) => {
      if (request.url === "/slow") {
        response.writeHead(200, { "content-type": "text/plain" });
        response.write("first ");
        await released;
      }
      response.end("done");
    });
    const slow = await fetch(`${origin}/slow`);
    const reader = slow.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first ");
    const closing = running.close("SIGTERM");
    await expect(rawExchange(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).rejects.toThrow(/ECONNREFUSED/);
    expect(app.closed).toBe(false);
    release();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("done");
    expect(await closing).toEqual({ cutConnections: 0 });
    expect(app.closed).toBe(true);
  });

  it("cuts what is still open after the grace period", async () => {
    const { running, origin } = await start((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n"); // and never ends
    }, 0.3);
    const stream = await fetch(`${origin}/events`);
    const reader = stream.body!.getReader();
    await reader.read();
    const t0 = performance.now();
    expect(await running.close("SIGTERM")).toEqual({ cutConnections: 1 });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
    await expect(reader.read()).rejects.toThrow();
  });
});
