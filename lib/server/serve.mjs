// The one process `agentry start` leaves running: a node:http server that runs Next.js in-process
// (Next's custom-server API) and owns the server's `upgrade` event, which Next's route handlers
// cannot take. Plain JavaScript, so the serving process needs no TypeScript loader (tsx's, loaded
// beside Next, cost 16–75 MiB resident: bench/README.md); its types are in serve.d.mts. It imports
// nothing of the app: settings, databases and the durable-queue worker live inside Next's bundles
// (lib/server/app-context.ts, instrumentation.ts), so nothing of the app is loaded twice.
import { createServer, STATUS_CODES } from "node:http";
import { markPeerAddressesRecorded, recordPeerAddress } from "./peer-address.mjs";
import { isServerActionRequest, screenServerAction } from "./server-action-body.mjs";

/** The upgrade handlers by path, registered with lib/server/upgrade-handlers.ts (which owns this map). */
const UPGRADE_HANDLERS = Symbol.for("agentry.upgrade-handlers");

/** @param {string | undefined} target a request target, `/workflows/ws?x=1` */
function upgradeHandlerFor(target) {
  /** @type {Map<string, import("./upgrade-handlers.ts").UpgradeHandler> | undefined} */
  const handlers = globalThis[UPGRADE_HANDLERS];
  return handlers?.get((target ?? "/").split("?")[0]);
}

/**
 * Answers an upgrade request with a plain HTTP error (JSON `{"detail": …}`, as the API's errors)
 * and closes the socket.
 * @param {import("node:stream").Duplex} socket
 * @param {number} status
 */
function refuseUpgrade(socket, status) {
  const body = JSON.stringify({ detail: STATUS_CODES[status] ?? "Error" });
  socket.on("error", () => undefined); // the client may be gone already
  if (socket.writable) {
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** @param {unknown} error */
const describe = (error) => (error instanceof Error ? (error.stack ?? error.message) : String(error));

/**
 * Answers a request here, without Next.js (JSON `{"detail": …}`, as the API's errors).
 * @param {import("node:http").ServerResponse} response
 * @param {number} status
 * @param {string} detail
 */
function answer(response, status, detail) {
  const body = JSON.stringify({ detail });
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(body);
}

/**
 * @param {import("./serve.d.mts").ServeOptions} options
 * @returns {Promise<import("./serve.d.mts").RunningServer>}
 */
export async function serve({ dir, host, port, shutdownGraceSeconds, banner, log = console.log, app: given }) {
  let app = given;
  if (!app) {
    // Loaded here: a module that imports this one for its helpers loads no Next.js.
    const { default: next } = await import("next");
    app = next({ dev: false, dir, hostname: host, port });
  }
  await app.prepare();
  const handle = app.getRequestHandler();
  // Every request (and upgrade request) gets its socket's address: lib/server/peer-address.mjs.
  markPeerAddressesRecorded();

  let closing = false;
  /** @type {Set<import("node:http").ServerResponse>} */
  const inFlight = new Set();
  /** @type {Set<import("node:stream").Duplex>} */
  const upgraded = new Set();

  const server = createServer((request, response) => {
    recordPeerAddress(request);
    inFlight.add(response);
    response.once("close", () => inFlight.delete(response));
    if (closing) response.shouldKeepAlive = false;
    // While shutting down, a connection whose response is done closes rather than idling.
    response.once("finish", () => closing && server.closeIdleConnections());
    // A server action's body is read and checked here first: Next.js answers a body past its limit
    // or one it cannot decode with a 500 (lib/server/server-action-body.mjs).
    const handled = isServerActionRequest(request)
      ? screenServerAction(request).then((screened) => {
          if ("refusal" in screened) return answer(response, screened.refusal.status, screened.refusal.detail);
          if ("closed" in screened) return void response.destroy();
          return handle(screened.request, response);
        })
      : Promise.resolve(handle(request, response));
    handled.catch((error) => {
      log(`[server] ${request.method} ${request.url}: ${describe(error)}`);
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ detail: "Internal Server Error" }));
      } else response.destroy();
    });
  });

  /**
   * @param {import("node:http").IncomingMessage} request
   * @param {import("node:stream").Duplex} socket
   * @param {Buffer} head
   */
  const onUpgrade = (request, socket, head) => {
    recordPeerAddress(request);
    if (closing) return refuseUpgrade(socket, 503);
    const handler = upgradeHandlerFor(request.url);
    if (!handler) return refuseUpgrade(socket, 404);
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    try {
      handler(request, socket, head);
    } catch (error) {
      log(`[server] upgrade ${request.url}: ${describe(error)}`);
      refuseUpgrade(socket, 500);
    }
  };
  // This server's `upgrade` event has one listener, this one. Next's custom server adds its own on
  // the first request it handles (it ends the socket of any path that matches a page or a route,
  // so it would take a path before the handler registered here could); that listener is removed.
  server.on("newListener", (event, listener) => {
    if (event === "upgrade" && listener !== onUpgrade) queueMicrotask(() => server.off("upgrade", listener));
  });
  server.on("upgrade", onUpgrade);

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(undefined);
    });
  });
  if (banner) log(banner);

  /** @type {Promise<{ cutConnections: number }> | null} */
  let closed = null;
  /** @param {string} reason */
  const close = (reason) =>
    (closed ??= (async () => {
      closing = true;
      for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
      const drained = new Promise((resolve) => server.close(() => resolve("drained")));
      server.closeIdleConnections();
      // Said once it is true: the listening socket is closed.
      log(`[server] ${reason}: no new connections; in-flight requests and streams have ${shutdownGraceSeconds} s to finish`);
      let cutConnections = 0;
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const deadline = new Promise((resolve) => (timer = setTimeout(() => resolve("deadline"), shutdownGraceSeconds * 1000)));
      if ((await Promise.race([drained, deadline])) === "deadline") {
        cutConnections = inFlight.size + upgraded.size;
        for (const socket of upgraded) socket.destroy();
        server.closeAllConnections();
        await drained;
      }
      clearTimeout(timer);
      // Next's own cleanup once no request can come in (it may run work scheduled with `after`).
      await app.close();
      return { cutConnections };
    })());

  return { server, close };
}

const SIGNALS = ["SIGTERM", "SIGINT"];

/**
 * Serves until SIGTERM or SIGINT, then shuts down gracefully (`RunningServer.close`) and ends the
 * process with 0. The server owns both signals: a listener other code in the process adds for them
 * is held back and called, in the order added, once the server has drained —
 * lib/queue/embedded-worker.ts adds one that releases the durable-queue worker's jobs and then ends
 * the process itself. A second signal ends the process at once (exit code 1).
 * @param {import("./serve.d.mts").ServeOptions} options
 * @returns {Promise<void>}
 */
export async function serveUntilSignalled(options) {
  const log = options.log ?? console.log;
  /** @type {{ signal: string; listener: (signal: string) => void }[]} */
  const heldBack = [];
  /** @type {NodeJS.Signals | null} */
  let received = null;
  /** @type {import("./serve.d.mts").RunningServer | null} */
  let running = null;

  /** @param {NodeJS.Signals} signal */
  const shutdown = async (signal) => {
    if (!running) return; // still starting: it shuts down once it listens
    const { cutConnections } = await running.close(signal);
    if (cutConnections > 0) log(`[server] cut ${cutConnections} request(s) or connection(s) still open after ${options.shutdownGraceSeconds} s`);
    const listeners = heldBack.filter((held) => held.signal === signal);
    if (listeners.length === 0) process.exit(0);
    // They may end the process themselves once their work is done; if they do not, this does.
    setTimeout(() => process.exit(0), Math.max(1, options.shutdownGraceSeconds) * 1000).unref();
    for (const { listener } of listeners) listener(signal);
  };
  /** @param {NodeJS.Signals} signal */
  const onSignal = (signal) => {
    if (received) {
      log(`[server] ${signal} again: stopping now`);
      process.exit(1);
    }
    received = signal;
    if (signal === "SIGINT") log("[server] SIGINT: shutting down (Ctrl-C again stops at once)");
    void shutdown(signal);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on("newListener", (event, listener) => {
    if (typeof event !== "string" || !SIGNALS.includes(event) || listener === onSignal) return;
    // Runs before the listener is added, so it is taken off right after; `once` listeners are found by their function too.
    queueMicrotask(() => {
      process.off(event, listener);
      heldBack.push({ signal: event, listener });
    });
  });

  running = await serve(options);
  if (received) void shutdown(received);
}
