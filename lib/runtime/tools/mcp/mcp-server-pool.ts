import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../../log.ts";
import { errorText, McpToolkitError, openConnection, relist, type OpenConnection } from "./mcp-connection.ts";
import type { McpServerSpec } from "./mcp-options.ts";

/** connected: open; connecting: opening; failed: its last attempt or call failed; idle: closed (never opened, or unused for a while). */
export type McpConnectionState = "connected" | "connecting" | "failed" | "idle";

/** One pooled (server, user) connection as the admin page shows it. */
export interface McpConnectionStatus {
  readonly userId: string | null;
  readonly state: McpConnectionState;
  readonly toolCount: number | null;
  readonly inFlight: number;
  readonly connectedAt: number | null;
  readonly lastUsedAt: number | null;
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
}

/** A server's state: connected while any user's connection is open. Times are epoch milliseconds. */
export interface McpServerStatus {
  readonly id: string;
  readonly name: string;
  readonly transport: "stdio" | "streamable-http";
  /** The command line (stdio) or the endpoint without credentials or query (HTTP). */
  readonly target: string;
  readonly state: McpConnectionState;
  /** The tools the last listing offered (after include/exclude); null until one succeeds. */
  readonly tools: readonly { name: string; description: string | null }[] | null;
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
  /** Open connections (one per user with a recent run). */
  readonly openConnections: number;
  readonly connections: readonly McpConnectionStatus[];
}

interface Slot {
  readonly userId: string | null;
  open: OpenConnection | null;
  opening: Promise<OpenConnection> | null;
  /** Failed connection attempts in a row: the next waits `backoffMs(failures)` after the last. */
  failures: number;
  retryAt: number;
  connectedAt: number | null;
  lastUsedAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  inFlight: number;
  idleTimer: ReturnType<typeof setTimeout> | null;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;

/** How long after its n-th failed attempt in a row a connection is tried again. */
export function backoffMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (failures - 1));
}

/**
 * An error the SDK raises for the connection rather than for the call: the transport closed or
 * failed (a crashed process, a refused or reset socket, an HTTP session the server forgot). The
 * server's own JSON-RPC errors (unknown tool, invalid params) leave the connection as it is.
 */
function connectionLost(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  return true;
}

const userLabel = (userId: string | null) => (userId === null ? "no user" : `user ${userId}`);

/**
 * The connections to one MCP server, one per user (credentials are per user, and a user's stdio
 * process holds only their token): opened lazily by the first run that needs the server's tools,
 * its listing cached with it, reopened after a failure with exponential backoff (0.5 s doubling
 * to 30 s between failed attempts; the first attempt after a lost connection is immediate), and
 * closed after `idleTimeoutMs` unused. Calls never retry: a tool may not be idempotent.
 */
export class McpServerPool {
  private readonly slots = new Map<string, Slot>();
  /** The tools the last successful listing offered (any user's): what a run offers while its own listing fails. */
  knownTools: Tool[] | null = null;
  private lastError: string | null = null;
  private lastErrorAt: number | null = null;
  private lastSuccessAt: number | null = null;

  constructor(public spec: McpServerSpec) {}

  /** The server's tools for this user's runs (after include/exclude), connecting if needed. */
  async listTools(userId: string | null): Promise<Tool[]> {
    return this.using(userId, async (slot) => {
      const open = await this.acquire(slot);
      if (open.stale) await relist(this.spec, open);
      this.knownTools = open.tools;
      return open.tools;
    });
  }

  /**
   * Calls one of the server's tools as this user. Rejects with an error the model can read when
   * the server cannot be reached or the connection breaks during the call (the next call
   * reconnects); the tool's own error result is returned, not thrown.
   */
  async callTool({ userId, name, args, signal }: { userId: string | null; name: string; args: Record<string, unknown>; signal: AbortSignal }): Promise<CallToolResult> {
    return this.using(userId, async (slot) => {
      const open = await this.acquire(slot);
      try {
        const result = (await open.client.callTool({ name, arguments: args }, undefined, { signal, timeout: this.spec.timeoutMs })) as CallToolResult;
        this.lastSuccessAt = Date.now();
        return result;
      } catch (error) {
        if (signal.aborted) throw error;
        const text = errorText(error);
        if (!connectionLost(error)) throw new Error(`MCP server '${this.spec.name}' refused the call: ${text}`);
        this.dropConnection(slot, open, `the connection broke during a call to '${name}': ${text}`);
        throw new Error(`MCP server '${this.spec.name}' failed during the call to '${name}' (${slot.lastError}); the next call reconnects`);
      }
    });
  }

  /** This server's state and its connections. */
  status(): McpServerStatus {
    const connections = [...this.slots.values()].map((slot) => ({
      userId: slot.userId,
      state: slotState(slot),
      toolCount: slot.open?.tools.length ?? null,
      inFlight: slot.inFlight,
      connectedAt: slot.open ? slot.connectedAt : null,
      lastUsedAt: slot.lastUsedAt,
      lastError: slot.lastError,
      lastErrorAt: slot.lastErrorAt,
    }));
    const state: McpConnectionState = connections.some((c) => c.state === "connected")
      ? "connected"
      : connections.some((c) => c.state === "connecting")
        ? "connecting"
        : this.lastErrorAt !== null && this.lastErrorAt >= (this.lastSuccessAt ?? 0)
          ? "failed"
          : "idle";
    const { spec } = this;
    return {
      id: spec.id,
      name: spec.name,
      transport: spec.transport,
      target: spec.transport === "stdio" ? [spec.command, ...spec.args].join(" ") : redactUrl(spec.url!),
      state,
      tools: this.knownTools?.map((t) => ({ name: t.name, description: t.description ?? null })) ?? null,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
      openConnections: connections.filter((c) => c.state === "connected").length,
      connections,
    };
  }

  /** Closes every connection (a replaced configuration, shutdown, tests). */
  async close(): Promise<void> {
    const slots = [...this.slots.values()];
    this.slots.clear();
    await Promise.all(
      slots.map(async (slot) => {
        if (slot.idleTimer) clearTimeout(slot.idleTimer);
        const open = slot.open ?? (await slot.opening?.catch(() => null));
        slot.open = null;
        await open?.close();
      }),
    );
  }

  private async using<T>(userId: string | null, work: (slot: Slot) => Promise<T>): Promise<T> {
    const key = userId ?? "";
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { userId, open: null, opening: null, failures: 0, retryAt: 0, connectedAt: null, lastUsedAt: null, lastError: null, lastErrorAt: null, inFlight: 0, idleTimer: null };
      this.slots.set(key, slot);
    }
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    slot.inFlight++;
    try {
      return await work(slot);
    } finally {
      slot.inFlight--;
      slot.lastUsedAt = Date.now();
      if (slot.inFlight === 0) this.scheduleIdleClose(key, slot);
    }
  }

  /** The slot's open connection, opening it (once, however many callers wait) unless it is backing off. */
  private acquire(slot: Slot): Promise<OpenConnection> {
    if (slot.open) return Promise.resolve(slot.open);
    if (slot.opening) return slot.opening;
    const now = Date.now();
    if (now < slot.retryAt) {
      const wait = Math.ceil((slot.retryAt - now) / 1000);
      return Promise.reject(new Error(`MCP server '${this.spec.name}' is unreachable (${slot.lastError}); the next attempt is in ${wait} s`));
    }
    let opened: OpenConnection | null = null;
    slot.opening = openConnection(this.spec, slot.userId, (reason) => {
      if (opened && slot.open === opened) this.dropConnection(slot, opened, reason);
    }).then(
      (connection) => {
        opened = connection;
        slot.open = connection;
        slot.opening = null;
        slot.failures = 0;
        slot.retryAt = 0;
        slot.connectedAt = Date.now();
        this.lastSuccessAt = slot.connectedAt;
        log.info(`[mcp ${this.spec.id}] connected for ${userLabel(slot.userId)} (${connection.tools.length} tools)`);
        return connection;
      },
      (error: unknown) => {
        slot.opening = null;
        slot.failures++;
        slot.retryAt = Date.now() + backoffMs(slot.failures);
        const text = error instanceof McpToolkitError ? error.message : `could not connect: ${errorText(error)}`;
        this.recordError(slot, text);
        log.warn(`[mcp ${this.spec.id}] ${text} (${userLabel(slot.userId)}; attempt ${slot.failures}, next in ${backoffMs(slot.failures)} ms)`);
        throw error instanceof McpToolkitError ? error : new Error(`MCP server '${this.spec.name}' is unreachable: ${errorText(error)}`);
      },
    );
    return slot.opening;
  }

  /** Forgets a broken connection (closing what is left of it): the next use reconnects at once. */
  private dropConnection(slot: Slot, open: OpenConnection, reason: string): void {
    if (slot.open === open) slot.open = null;
    this.recordError(slot, reason);
    log.warn(`[mcp ${this.spec.id}] ${reason} (${userLabel(slot.userId)})`);
    void open.close();
  }

  private recordError(slot: Slot, text: string): void {
    slot.lastError = text;
    slot.lastErrorAt = Date.now();
    this.lastError = text;
    this.lastErrorAt = slot.lastErrorAt;
  }

  private scheduleIdleClose(key: string, slot: Slot): void {
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      if (slot.inFlight > 0) return;
      const open = slot.open;
      slot.open = null;
      // An idle slot without an error leaves nothing to report; a failed one keeps its backoff.
      if (slot.failures === 0 && this.slots.get(key) === slot && !slot.opening) this.slots.delete(key);
      if (open) {
        log.debug(`[mcp ${this.spec.id}] closed the idle connection of ${userLabel(slot.userId)}`);
        void open.close();
      }
    }, this.spec.idleTimeoutMs);
    slot.idleTimer.unref?.();
  }
}

function slotState(slot: Slot): McpConnectionState {
  if (slot.open) return "connected";
  if (slot.opening) return "connecting";
  return slot.lastErrorAt !== null && slot.lastErrorAt >= (slot.connectedAt ?? 0) ? "failed" : "idle";
}

/** An endpoint without user info or query, which may carry credentials. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  parsed.search = "";
  return parsed.toString();
}
