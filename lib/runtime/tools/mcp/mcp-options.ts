import { z } from "zod";
import { ConfigError } from "../../../config/define.ts";

/**
 * Gets the run's user's token for one auth service (Agno's `auth_token_getters`). Called for every
 * HTTP request a user's connection makes (tokens may rotate), and when a user's stdio process is
 * started. null or undefined: no credential is sent.
 */
export type AuthTokenGetter = (user: { readonly userId: string | null }) => string | null | undefined | Promise<string | null | undefined>;

/** What `mcpTools()` takes: one MCP server, reached over stdio (a command) or Streamable HTTP (a url). */
export interface McpToolsOptions {
  /** The toolkit's stable id (letters, digits, '.', '_' or '-'): the OS references its tools by it. */
  readonly id: string;
  /** Display name (default: the id). */
  readonly name?: string;
  /** stdio: the command to spawn; without `args`, split on spaces (double quotes group). */
  readonly command?: string;
  readonly args?: readonly string[];
  /** stdio: environment variables, over the SDK's safe defaults (PATH, HOME, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** stdio: the working directory of the spawned process. */
  readonly cwd?: string;
  /** Streamable HTTP: the server's MCP endpoint. */
  readonly url?: string;
  /** Inferred from `command` / `url`; "sse" is refused (deprecated: use Streamable HTTP). */
  readonly transport?: "stdio" | "streamable-http";
  /** Only these of the server's tools (its own names, before the prefix). */
  readonly include?: readonly string[];
  /** All of the server's tools but these. */
  readonly exclude?: readonly string[];
  /** The agent sees `<prefix>_<tool>` (default: the server's names verbatim). */
  readonly toolNamePrefix?: string;
  /**
   * Per-user credentials, by auth service. HTTP: `authorization` becomes `Authorization: Bearer
   * <token>` (a token already naming its scheme, e.g. "Basic …", is sent as it is); any other
   * name `<name>` the header `<name>_token` (MCP Toolbox's convention). stdio: each name is an
   * environment variable of the user's own process.
   */
  readonly authTokenGetters?: Readonly<Record<string, AuthTokenGetter>>;
  /** Streamable HTTP: headers sent with every request (the same for every user). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Seconds to connect, list tools, or answer one call (Agno's default: 10). */
  readonly timeoutSeconds?: number;
  /** Seconds a user's connection stays open unused before it is closed (default 300). */
  readonly idleTimeoutSeconds?: number;
}

/** Options Agno v3 removed, and what replaces each. */
const REMOVED_OPTIONS: Record<string, string> = {
  authTokens: "authTokenGetters (a function per auth service returning the run's user's token)",
  authHeaders: "authTokenGetters (a function per auth service returning the run's user's token)",
};

const NAME_LIST = z.array(z.string().min(1)).readonly();

const OptionsSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "id: letters, digits, '.', '_' or '-'"),
    name: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).readonly().optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    transport: z.enum(["stdio", "streamable-http"]).optional(),
    include: NAME_LIST.optional(),
    exclude: NAME_LIST.optional(),
    toolNamePrefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, "toolNamePrefix: letters, digits, '_' or '-'")
      .optional(),
    authTokenGetters: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]+$/, "auth service names: letters, digits, '_' or '-'"),
        z.custom<AuthTokenGetter>((f) => typeof f === "function", "a function"),
      )
      .optional(),
    headers: z.record(z.string(), z.string()).optional(),
    timeoutSeconds: z.number().positive().max(3600).optional(),
    idleTimeoutSeconds: z.number().positive().optional(),
  })
  .strict();

/** A server as the pool reaches it: checked options with their defaults. */
export interface McpServerSpec {
  readonly id: string;
  readonly name: string;
  readonly transport: "stdio" | "streamable-http";
  readonly command: string | null;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | null;
  readonly url: string | null;
  readonly include: readonly string[] | null;
  readonly exclude: readonly string[] | null;
  readonly toolNamePrefix: string | null;
  readonly authTokenGetters: Readonly<Record<string, AuthTokenGetter>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** Splits a command line on spaces; double quotes group words ("my server" --flag). */
export function splitCommand(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/**
 * Checks `mcpTools()`'s options: removed options (`authTokens`, `authHeaders`) and unknown keys
 * fail naming their replacement or path, as `defineAgent` does; the transport follows from
 * `command` or `url`, and exactly one of them is given.
 */
export function mcpServerSpec(options: McpToolsOptions & Record<string, unknown>): McpServerSpec {
  const label = `MCP toolkit '${String(options.id)}'`;
  for (const [old, replacement] of Object.entries(REMOVED_OPTIONS)) {
    if (old in options) throw new ConfigError(`${label}: option '${old}' was removed in v3; use ${replacement}`);
  }
  if ((options.transport as string | undefined) === "sse") {
    throw new ConfigError(`${label}: the SSE transport is deprecated; give the server's Streamable HTTP endpoint as 'url'`);
  }
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
    throw new ConfigError(`${label} is invalid: ${issues}`);
  }
  const o = parsed.data;
  if (o.command && o.url) throw new ConfigError(`${label}: give 'command' (stdio) or 'url' (Streamable HTTP), not both`);
  if (!o.command && !o.url) throw new ConfigError(`${label}: give 'command' (a stdio server to spawn) or 'url' (a Streamable HTTP endpoint)`);
  const transport = o.url ? "streamable-http" : "stdio";
  if (o.transport && o.transport !== transport) throw new ConfigError(`${label}: transport '${o.transport}' needs ${o.transport === "stdio" ? "'command'" : "'url'"}`);
  if (transport === "stdio" && o.headers) throw new ConfigError(`${label}: 'headers' are sent over HTTP only; a stdio server takes 'env'`);
  if (transport === "streamable-http" && (o.args || o.env || o.cwd)) throw new ConfigError(`${label}: 'args', 'env' and 'cwd' are for a spawned (stdio) server, not a 'url'`);
  const both = (o.include ?? []).filter((n) => o.exclude?.includes(n));
  if (both.length > 0) throw new ConfigError(`${label}: ${both.map((n) => `'${n}'`).join(", ")} both included and excluded`);
  const words = o.command ? (o.args ? [o.command] : splitCommand(o.command)) : [];
  return {
    id: o.id,
    name: o.name ?? o.id,
    transport,
    command: words[0] ?? null,
    args: o.args ?? words.slice(1),
    env: o.env ?? {},
    cwd: o.cwd ?? null,
    url: o.url ?? null,
    include: o.include ?? null,
    exclude: o.exclude ?? null,
    toolNamePrefix: o.toolNamePrefix ?? null,
    authTokenGetters: (o.authTokenGetters ?? {}) as Record<string, AuthTokenGetter>,
    headers: o.headers ?? {},
    timeoutMs: (o.timeoutSeconds ?? 10) * 1000,
    idleTimeoutMs: (o.idleTimeoutSeconds ?? 300) * 1000,
  };
}

/** Two specs reach the same server the same way (a config module evaluated again yields equal specs). */
export function sameServer(a: McpServerSpec, b: McpServerSpec): boolean {
  const shape = (s: McpServerSpec) =>
    JSON.stringify([s.transport, s.command, s.args, s.env, s.cwd, s.url, s.include, s.exclude, s.toolNamePrefix, Object.keys(s.authTokenGetters).sort(), s.headers, s.timeoutMs]);
  return shape(a) === shape(b);
}
