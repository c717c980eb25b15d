import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Settings } from "../config/settings.ts";
import { dispatch, notFound } from "./dispatch.ts";
import { errorResponse } from "./errors.ts";
import { routesFor, templateForPath } from "./route-table.ts";
import type { AnyRoute } from "./route.ts";

/**
 * The API on a plain node:http server: the same route table and dispatcher the Next route
 * handlers call, for processes that serve the API without Next (the multi-process tests, the
 * benchmarks). Production serves through Next (`npm start`).
 */

/** IncomingMessage → Fetch Request, the body as a stream; aborted when the client goes away. */
export function toFetchRequest(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const method = req.method ?? "GET";
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const hasBody = method !== "GET" && method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = {
    method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  };
  return new Request(new URL(req.url ?? "/", origin), init);
}

/** Resolves on 'drain' or 'close', removing both listeners (no listener piles up over a long stream). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((ok) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      ok();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Fetch Response → ServerResponse, streamed chunk by chunk (SSE flushed at once), with backpressure. */
export async function sendFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (!response.body) {
    res.end();
    return;
  }
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    res.flushHeaders();
    res.socket?.setNoDelay(true);
  }
  const reader = response.body.getReader();
  let gone = false;
  res.once("close", () => {
    if (!res.writableFinished) {
      gone = true;
      // Cancelling the body is how the route learns that the client went away (an inline run is cancelled).
      reader.cancel().catch(() => undefined);
    }
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      if (!res.write(value)) await drained(res);
    }
  } finally {
    if (!gone) res.end();
  }
}

const templateCache = new Map<string, string | null>();
const routeCache = new Map<string, AnyRoute[]>();

/** The route template serving a pathname (what Next's file-system router resolves), memoized. */
export function cachedTemplateFor(pathname: string): string | null {
  let template = templateCache.get(pathname);
  if (template === undefined) {
    template = templateForPath(pathname);
    if (templateCache.size > 10_000) templateCache.clear();
    templateCache.set(pathname, template);
  }
  return template;
}

/** The routes of a template, memoized. */
export function cachedRoutesFor(template: string): AnyRoute[] {
  let routes = routeCache.get(template);
  if (!routes) routeCache.set(template, (routes = routesFor(template)));
  return routes;
}

/**
 * Serves the API on `host:port` (port 0: any free one). `intercept` may answer a request itself
 * (a benchmark's baseline route) by returning true.
 */
export async function serveApi({
  settings,
  port = 0,
  host = "127.0.0.1",
  intercept,
  mounts = {},
}: {
  settings: Settings;
  port?: number;
  host?: string;
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /**
   * Endpoints served beside the route table, by exact path (what an app/ route file outside the
   * table serves through Next: `/mcp` → lib/mcp-server's handler). lib/http cannot import them.
   */
  mounts?: Record<string, (request: Request) => Promise<Response>>;
}): Promise<{ server: Server; origin: string }> {
  let origin = "";
  const server = createServer((req, res) => {
    const handle = async () => {
      if (intercept && (await intercept(req, res))) return;
      const pathname = (req.url ?? "/").split("?")[0];
      const request = toFetchRequest(req, res, origin);
      const mounted = Object.hasOwn(mounts, pathname) ? mounts[pathname] : undefined;
      const template = mounted ? null : cachedTemplateFor(pathname);
      let response: Response;
      try {
        response = mounted ? await mounted(request) : template ? await dispatch(request, template, { settings, routes: cachedRoutesFor(template) }) : notFound(request, settings);
      } catch (error) {
        response = errorResponse(error);
      }
      await sendFetchResponse(res, response);
    };
    handle().catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ detail: "Internal server error" }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => ok());
  });
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { server, origin };
}
