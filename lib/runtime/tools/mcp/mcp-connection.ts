import { keepOutOfSpans } from "../../run-trace.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerSpec } from "./mcp-options.ts";

/** What the pool holds for one (server, user): the SDK client and the tools listed when it connected. */
export interface OpenConnection {
  readonly client: Client;
  /** The server's tools after include/exclude, listed as the connection opened (refreshed when the server says they changed). */
  tools: Tool[];
  /** Set when the server announced a changed tool list: the next use lists again. */
  stale: boolean;
  /** The process's last stderr lines (stdio), for error messages. */
  readonly stderrTail: () => string;
  close(): Promise<void>;
}

/** A failure the model should read as it is (the server refused our configuration, not a transport blip). */
export class McpToolkitError extends Error {
  override readonly name = "McpToolkitError";
}

const STDERR_TAIL_CHARS = 2000;

/** The user's credentials as HTTP headers: `authorization` as a bearer token, other services as `<name>_token`. */
async function authHeaders(spec: McpServerSpec, userId: string | null): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [service, getter] of Object.entries(spec.authTokenGetters)) {
    const token = await getter({ userId });
    if (token === null || token === undefined || token === "") continue;
    keepOutOfSpans(token);
    if (service.toLowerCase() === "authorization") headers.Authorization = /^\S+ \S/.test(token) ? token : `Bearer ${token}`;
    else headers[`${service}_token`] = token;
  }
  return headers;
}

/** The user's credentials as environment variables of their own stdio process. */
async function authEnv(spec: McpServerSpec, userId: string | null): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [service, getter] of Object.entries(spec.authTokenGetters)) {
    const token = await getter({ userId });
    if (token !== null && token !== undefined && token !== "") {
      keepOutOfSpans(token);
      env[service] = token;
    }
  }
  return env;
}

/** A transport to the server for one user; credentials are asked for on every HTTP request. */
async function transportFor(spec: McpServerSpec, userId: string | null): Promise<{ transport: Transport; stderrTail: () => string }> {
  if (spec.transport === "stdio") {
    const transport = new StdioClientTransport({
      command: spec.command!,
      args: [...spec.args],
      env: { ...spec.env, ...(await authEnv(spec, userId)) },
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      stderr: "pipe",
    });
    let tail = "";
    // Drained always: a full pipe would block the server.
    transport.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    return { transport, stderrTail: () => tail.trim() };
  }
  const fetchWithCredentials: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(spec.headers)) if (!headers.has(name)) headers.set(name, value);
    for (const [name, value] of Object.entries(await authHeaders(spec, userId))) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
  return { transport: new StreamableHTTPClientTransport(new URL(spec.url!), { fetch: fetchWithCredentials }), stderrTail: () => "" };
}

/** Every tool the server lists (following its pages). */
async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * The listed tools through include/exclude (on the server's own names). A name in either list the
 * server does not offer is an error naming it and what the server has, as Agno's
 * `_check_tools_filters`.
 */
export function filterTools(spec: McpServerSpec, listed: readonly Tool[]): Tool[] {
  const offered = new Set(listed.map((t) => t.name));
  for (const [option, names] of [
    ["include", spec.include],
    ["exclude", spec.exclude],
  ] as const) {
    const unknown = (names ?? []).filter((n) => !offered.has(n));
    if (unknown.length > 0) {
      throw new McpToolkitError(
        `MCP toolkit '${spec.id}': ${option} names ${unknown.map((n) => `'${n}'`).join(", ")}, which the server does not offer (it offers: ${[...offered].join(", ") || "no tools"})`,
      );
    }
  }
  return listed.filter((t) => (spec.include ? spec.include.includes(t.name) : true) && !spec.exclude?.includes(t.name));
}

/**
 * Connects to the server as this user, initializes the MCP session and lists its tools.
 * `onClose` runs when the connection ends by itself (the process exits, the transport fails).
 */
export async function openConnection(spec: McpServerSpec, userId: string | null, onClose: (reason: string) => void): Promise<OpenConnection> {
  const { transport, stderrTail } = await transportFor(spec, userId);
  const client = new Client({ name: "agentry", version: "1.0.0" });
  let closing = false;
  const connection: OpenConnection = {
    client,
    tools: [],
    stale: false,
    stderrTail,
    close: async () => {
      closing = true;
      await client.close().catch(() => undefined);
    },
  };
  client.onclose = () => {
    if (closing) return;
    const tail = stderrTail();
    onClose(spec.transport === "stdio" ? `the server process exited${tail ? ` (stderr: ${tail.split("\n").slice(-3).join(" | ")})` : ""}` : "the connection closed");
  };
  try {
    await client.connect(transport, { timeout: spec.timeoutMs });
    if (client.getServerCapabilities()?.tools?.listChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        connection.stale = true;
      });
    }
    connection.tools = filterTools(spec, await listAllTools(client, spec.timeoutMs));
    return connection;
  } catch (error) {
    await connection.close();
    const tail = stderrTail();
    if (tail && !(error instanceof McpToolkitError)) throw new Error(`${errorText(error)} (stderr: ${tail.split("\n").slice(-3).join(" | ")})`);
    throw error;
  }
}

/** Lists the tools again on an open connection (after the server said they changed). */
export async function relist(spec: McpServerSpec, connection: OpenConnection): Promise<void> {
  connection.stale = false;
  connection.tools = filterTools(spec, await listAllTools(connection.client, spec.timeoutMs));
}

/** An error's message, with its cause when the SDK wraps one (fetch failed → ECONNREFUSED). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}
