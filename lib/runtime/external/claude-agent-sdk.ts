import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Options, PermissionMode, SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import type { ExternalAgentAdapter, ExternalAgentEvent, ExternalRunInput } from "../../config/external-agent.ts";

export interface ClaudeAgentSdkAdapterOptions {
  /** The system prompt (default: the SDK's). */
  systemPrompt?: string;
  /** The Claude model (default: the SDK's). */
  model?: string;
  /**
   * The tools the agent has, each allowed without asking: permission rules such as "Read",
   * "Grep", "Bash(git status:*)" or an MCP tool's "mcp__server__tool". Default: none — the agent
   * has no built-in tool. A built-in tool's name (the rule before any "(…)") is what the binary
   * offers the model; the rule is what it allows.
   */
  allowedTools?: string[];
  disallowedTools?: string[];
  /**
   * Default "dontAsk": a tool call no `allowedTools` rule allows is denied (Claude Code still runs
   * Bash commands it counts as read-only, such as `echo`, when Bash is offered). "default",
   * "acceptEdits", "plan", "bypassPermissions", "auto" (a model classifier decides): the SDK's.
   */
  permissionMode?: PermissionMode;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /**
   * The agent's working directory. Default: an empty private directory made for each run and
   * removed after it (never the server's own directory).
   */
  cwd?: string;
  /**
   * Variables added to the environment the bundled `claude` binary runs with, e.g.
   * `{ ANTHROPIC_API_KEY: process.env.CLAUDE_KEY }`. The environment is otherwise built by the
   * adapter (see `binaryEnvironment`), never the server's whole environment.
   */
  env?: Record<string, string>;
  /** MCP servers the agent may use, in the SDK's shape (allow their tools with `allowedTools`). */
  mcpServers?: Options["mcpServers"];
  /**
   * Any other SDK option, passed as it is and winning over the above (Agno's `options_kwargs`):
   * `env` replaces the environment the adapter builds entirely (give PATH, ANTHROPIC_API_KEY or
   * ANTHROPIC_BASE_URL, HOME or CLAUDE_CONFIG_DIR), `tools`, `settingSources` (default [] here:
   * no settings file nor CLAUDE.md is loaded), `pathToClaudeCodeExecutable`, `hooks`, …. The
   * adapter's own `abortController` (the run's cancel) is never replaced.
   */
  options?: Partial<Options>;
}

/** Variables of the server's environment the binary gets (when `options.env` is not given). */
const INHERITED_ENV = ["PATH", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"] as const;

/** Turns off the binary's traffic other than the Messages API (telemetry, updates, error reports). */
const QUIET_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
} as const;

/** The private HOME directories this process made for the binary, removed when it exits. */
const privateHomes = new Set<string>();
let removeHomesOnExit = false;

/**
 * A private HOME for one adapter's binary (its CLAUDE_CONFIG_DIR is HOME/.claude), made on first
 * use and kept for the process so the session's next run finds the SDK transcript it resumes.
 */
function privateHome(): string {
  const home = mkdtempSync(join(tmpdir(), "agentry-claude-home-"));
  privateHomes.add(home);
  if (!removeHomesOnExit) {
    removeHomesOnExit = true;
    process.once("exit", () => {
      for (const dir of privateHomes) rmSync(dir, { recursive: true, force: true });
    });
  }
  return home;
}

/**
 * The environment the binary runs with unless `options.env` replaces it: PATH and the server's
 * ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN (when set), a private HOME and
 * CLAUDE_CONFIG_DIR, non-essential traffic off, then the adapter's `env`. Nothing else of the
 * server's environment (its database URL, keys, secrets) reaches the binary.
 */
export function binaryEnvironment(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return { ...env, HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), ...QUIET_ENV, ...extra };
}

/**
 * Whether the binary's config directory holds a session's transcript
 * (`projects/<project>/<session id>.jsonl`, where the SDK writes it).
 */
async function hasTranscript(configDir: string, sessionId: string): Promise<boolean> {
  if (!/^[A-Za-z0-9-]+$/.test(sessionId)) return false;
  const projects = join(configDir, "projects");
  const dirs = await readdir(projects).catch(() => [] as string[]);
  for (const dir of dirs) {
    if (existsSync(join(projects, dir, `${sessionId}.jsonl`))) return true;
  }
  return false;
}

/** The built-in tool names the allowed rules name ("Bash(git status:*)" → "Bash"), MCP tools left out. */
function builtInTools(rules: readonly string[]): string[] {
  const names = rules.map((rule) => rule.replace(/\(.*$/s, "").trim()).filter((name) => name && !name.startsWith("mcp__"));
  return [...new Set(names)];
}

/** The run state key holding the SDK session a session's runs resume. */
const SDK_SESSION = "claude_agent_sdk_session_id";

/**
 * Runs an agent through the Claude Agent SDK (`framework: "claude-agent-sdk"`), as Agno's
 * ClaudeAgent does: each run is one `query()` of the SDK's bundled `claude` binary with the
 * user's message, resuming the SDK session the session's last run left (its transcript is in the
 * SDK's config directory on the machine that ran it; the history is not sent again). A run the
 * client waits for answers with the SDK's result; a streamed run sends the SDK's text deltas as
 * RunContent and its tool uses and results as ToolCallStarted and ToolCallCompleted. A result the
 * SDK marks as an error (or a subtype other than success) fails the run with its text.
 *
 * Left to its defaults the binary has no built-in tool, denies what no rule allows ("dontAsk"),
 * loads no settings file nor CLAUDE.md, runs in an empty private directory made for the run, and
 * gets an environment built here (binaryEnvironment) with a private HOME kept for the process; a
 * session whose SDK transcript is not in that HOME starts a new SDK session.
 */
export function claudeAgentSdkAdapter(settings: ClaudeAgentSdkAdapterOptions = {}): ExternalAgentAdapter {
  let home: string | undefined;
  // options.env replaces the environment the adapter builds, and with it the private HOME.
  const environment = () => (settings.options?.env ? undefined : binaryEnvironment((home ??= privateHome()), settings.env));
  const query = (run: ExternalRunInput, streaming: boolean) => sdkQuery(settings, environment(), run, streaming);
  return {
    framework: "claude-agent-sdk",
    async invoke(run) {
      let text = "";
      let result = "";
      for await (const message of query(run, false)) {
        keepSession(run, message);
        if (message.type === "assistant") {
          for (const block of message.message.content) if (block.type === "text") text += block.text;
        } else if (message.type === "result") {
          refuseFailedResult(message);
          if (message.subtype === "success" && message.result) result = message.result;
        }
      }
      return result || text;
    },
    async *stream(run) {
      let streamed = false;
      const started = new Map<string, { name: string; args: Record<string, unknown> }>();
      for await (const message of query(run, true)) {
        keepSession(run, message);
        if (message.type === "stream_event") {
          streamed = true;
          const event = message.event;
          if (event.type === "content_block_delta" && event.delta.type === "text_delta" && event.delta.text) yield { type: "content", content: event.delta.text };
        } else if (message.type === "assistant") {
          yield* assistantEvents(message.message.content, { streamed, started });
        } else if (message.type === "user") {
          yield* toolResults(message.message.content, started);
        } else if (message.type === "result") {
          refuseFailedResult(message);
        }
      }
    },
  };
}

type AssistantBlock = Extract<SDKMessage, { type: "assistant" }>["message"]["content"][number];

/** An assistant message's tool uses (each once), and its text when no text deltas came before it. */
function* assistantEvents(
  blocks: readonly AssistantBlock[],
  { streamed, started }: { streamed: boolean; started: Map<string, { name: string; args: Record<string, unknown> }> },
): Generator<ExternalAgentEvent> {
  for (const block of blocks) {
    if (block.type === "text" && !streamed && block.text) yield { type: "content", content: block.text };
    if (block.type === "tool_use" && !started.has(block.id)) {
      const args = block.input && typeof block.input === "object" && !Array.isArray(block.input) ? (block.input as Record<string, unknown>) : { input: block.input };
      started.set(block.id, { name: block.name, args });
      yield { type: "tool_call_started", toolCallId: block.id, toolName: block.name, toolArgs: args };
    }
  }
}

/** The tool results a user message carries, each completing the tool use it answers. */
function* toolResults(content: unknown, started: Map<string, { name: string; args: Record<string, unknown> }>): Generator<ExternalAgentEvent> {
  if (!Array.isArray(content)) return;
  for (const block of content as { type?: string; tool_use_id?: string; content?: unknown }[]) {
    if (block?.type !== "tool_result" || !block.tool_use_id) continue;
    const result = Array.isArray(block.content)
      ? block.content.map((item: { text?: unknown }) => (typeof item?.text === "string" ? item.text : JSON.stringify(item))).join(" ")
      : typeof block.content === "string"
        ? block.content
        : "";
    const use = started.get(block.tool_use_id);
    yield { type: "tool_call_completed", toolCallId: block.tool_use_id, toolName: use?.name ?? "", toolArgs: use?.args, result };
  }
}

/** Keeps the SDK session the run ran in, for the session's next run to resume. */
function keepSession(run: ExternalRunInput, message: SDKMessage): void {
  if ((message.type === "system" && message.subtype === "init") || message.type === "result") {
    if (message.session_id) run.state[SDK_SESSION] = message.session_id;
  }
}

/** Throws for a result the SDK marks as an error, with what it says went wrong. */
function refuseFailedResult(message: Extract<SDKMessage, { type: "result" }>): void {
  if (!message.is_error && message.subtype === "success") return;
  const detail = message.subtype === "success" ? message.result : message.errors?.length ? message.errors.join("; ") : message.stop_reason;
  throw new Error(`Claude Agent SDK error (is_error=${message.is_error}, subtype=${message.subtype}): ${detail ?? "no detail"}`);
}

/**
 * One SDK query for a run: the configured options over the adapter's defaults (no built-in tool
 * but those allowed, "dontAsk", no settings files, the built environment, a private empty working
 * directory), partial messages when streaming, the session to resume, the run's abort.
 */
async function* sdkQuery(settings: ClaudeAgentSdkAdapterOptions, env: Record<string, string> | undefined, run: ExternalRunInput, streaming: boolean): AsyncGenerator<SDKMessage> {
  // Loaded on first use: the SDK (and its binary) only matter to servers that run such an agent.
  const sdk = await import("@anthropic-ai/claude-agent-sdk");
  const abortController = new AbortController();
  const abort = () => abortController.abort(run.signal.reason);
  if (run.signal.aborted) abort();
  else run.signal.addEventListener("abort", abort, { once: true });
  let resume = typeof run.state[SDK_SESSION] === "string" ? (run.state[SDK_SESSION] as string) : undefined;
  // The private config directory lasts as long as this process: after a restart the transcript
  // is gone, and the binary would fail the run ("No conversation found"), so a new SDK session starts.
  if (resume && env?.CLAUDE_CONFIG_DIR && !(await hasTranscript(env.CLAUDE_CONFIG_DIR, resume))) resume = undefined;
  const workDir = settings.cwd || settings.options?.cwd ? undefined : await mkdtemp(join(tmpdir(), "agentry-claude-work-"));
  const options: Options = {
    tools: builtInTools(settings.allowedTools ?? []),
    permissionMode: settings.permissionMode ?? "dontAsk",
    settingSources: [],
    cwd: settings.cwd || workDir,
    ...(env ? { env } : {}),
    ...(settings.systemPrompt ? { systemPrompt: settings.systemPrompt } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.allowedTools?.length ? { allowedTools: settings.allowedTools } : {}),
    ...(settings.disallowedTools?.length ? { disallowedTools: settings.disallowedTools } : {}),
    ...(settings.maxTurns !== undefined ? { maxTurns: settings.maxTurns } : {}),
    ...(settings.maxBudgetUsd !== undefined ? { maxBudgetUsd: settings.maxBudgetUsd } : {}),
    ...(settings.mcpServers ? { mcpServers: settings.mcpServers } : {}),
    ...(streaming ? { includePartialMessages: true } : {}),
    ...(resume ? { resume } : {}),
    ...settings.options,
    abortController,
  };
  try {
    yield* sdk.query({ prompt: run.input, options });
  } finally {
    run.signal.removeEventListener("abort", abort);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
}
