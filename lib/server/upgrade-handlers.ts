import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Takes over the connection of an HTTP upgrade request (a WebSocket handshake) on its path. The
 * request carries `x-agentry-peer-address` like every request `agentry start` serves.
 */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The upgrade handlers of this process, by exact path (the query is not part of it). Next.js
 * route handlers cannot accept an upgrade, so `agentry start` (lib/server/serve.mjs) owns the
 * server's `upgrade` event and hands each request to the handler registered for its path; a path
 * with none gets a 404. The map lives on `globalThis` under this key, where serve.mjs reads it:
 * code inside Next's bundles (each with its own copy of this module) registers into the one map.
 */
const key = Symbol.for("agentry.upgrade-handlers");
type Holder = { [key]?: Map<string, UpgradeHandler> };

function handlers(): Map<string, UpgradeHandler> {
  const holder = globalThis as Holder;
  return (holder[key] ??= new Map());
}

/** Registers the handler of `path` (e.g. `/workflows/ws`); returns a function that removes it. */
export function registerUpgradeHandler(path: string, handler: UpgradeHandler): () => void {
  if (!path.startsWith("/")) throw new Error(`an upgrade path starts with '/', got '${path}'`);
  const registry = handlers();
  if (registry.has(path)) throw new Error(`an upgrade handler for ${path} is registered already`);
  registry.set(path, handler);
  return () => {
    if (registry.get(path) === handler) registry.delete(path);
  };
}
