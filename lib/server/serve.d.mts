import type { Server } from "node:http";

/** What `serve` needs of Next's custom server (`next({ … })`); tests pass their own. */
export interface NextApp {
  prepare(): Promise<void>;
  getRequestHandler(): (request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) => Promise<void> | void;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** The project directory: next.config.ts and the build (`.next`, or AGENTRY_NEXT_DIST_DIR, which next.config.ts reads). */
  dir: string;
  host: string;
  port: number;
  /** How long in-flight requests, streams and upgraded connections get to finish after SIGTERM/SIGINT. */
  shutdownGraceSeconds: number;
  /** Printed once the server listens. */
  banner?: string;
  /** `[server] …` lines; console.log by default. */
  log?: (line: string) => void;
  /** Next.js in production mode for `dir` unless given. */
  app?: NextApp;
}

export interface RunningServer {
  server: Server;
  /**
   * Stops accepting connections, lets in-flight requests, streams and upgraded connections finish
   * (they are cut after the grace period), then closes Next; resolves with how many were cut.
   */
  close(reason: string): Promise<{ cutConnections: number }>;
}

export function serve(options: ServeOptions): Promise<RunningServer>;

export function serveUntilSignalled(options: ServeOptions): Promise<void>;
