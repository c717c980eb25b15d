import type { Options, PermissionMode, SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import type { ExternalAgentAdapter, ExternalAgentEvent, ExternalRunInput } from "../../config/external-agent.ts";

export interface ClaudeAgentSdkAdapterOptions {
  /** The system prompt (default: the SDK's). */
  systemPrompt?: string;
  /** The Claude model (default: the SDK's). */
  model?: string;
  /** Tools the agent may use without asking, e.g. ["Read", "Grep"]. */
  allowedTools?: string[];
  disallowedTools?: string[];
  /** "default", "acceptEdits", "plan", "bypassPermissions", …: the SDK's permission modes. */
  permissionMode?: PermissionMode;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** The agent's working directory (default: the server's). */
  cwd?: string;
  /** MCP servers the agent may use, in the SDK's shape. */
  mcpServers?: Options["mcpServers"];
  /**
   * Any other SDK option, passed as it is and winning over the above (Agno's `options_kwargs`):
   * `env` (the environment the bundled `claude` binary runs with — ANTHROPIC_API_KEY,
   * ANTHROPIC_BASE_URL, CLAUDE_CONFIG_DIR; it replaces the server's environment, so give PATH
   * too), `pathToClaudeCodeExecutable`, `settingSources`, `hooks`, ….
   */
  options?: Partial<Options>;
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
 */
export function claudeAgentSdkAdapter(settings: ClaudeAgentSdkAdapterOptions = {}): ExternalAgentAdapter {
  return {
    framework: "claude-agent-sdk",
    async invoke(run) {
      let text = "";
      let result = "";
      for await (const message of query(settings, run, false)) {
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
      for await (const message of query(settings, run, true)) {
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

/** One SDK query for a run: the configured options, partial messages when streaming, the session to resume, the run's abort. */
async function* query(settings: ClaudeAgentSdkAdapterOptions, run: ExternalRunInput, streaming: boolean): AsyncGenerator<SDKMessage> {
  // Loaded on first use: the SDK (and its binary) only matter to servers that run such an agent.
  const sdk = await import("@anthropic-ai/claude-agent-sdk");
  const abortController = new AbortController();
  const abort = () => abortController.abort(run.signal.reason);
  if (run.signal.aborted) abort();
  else run.signal.addEventListener("abort", abort, { once: true });
  const resume = typeof run.state[SDK_SESSION] === "string" ? (run.state[SDK_SESSION] as string) : undefined;
  const options: Options = {
    ...(settings.systemPrompt ? { systemPrompt: settings.systemPrompt } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.allowedTools?.length ? { allowedTools: settings.allowedTools } : {}),
    ...(settings.disallowedTools?.length ? { disallowedTools: settings.disallowedTools } : {}),
    ...(settings.permissionMode ? { permissionMode: settings.permissionMode } : {}),
    ...(settings.maxTurns !== undefined ? { maxTurns: settings.maxTurns } : {}),
    ...(settings.maxBudgetUsd !== undefined ? { maxBudgetUsd: settings.maxBudgetUsd } : {}),
    ...(settings.cwd ? { cwd: settings.cwd } : {}),
    ...(settings.mcpServers ? { mcpServers: settings.mcpServers } : {}),
    ...(streaming ? { includePartialMessages: true } : {}),
    ...(resume ? { resume } : {}),
    abortController,
    ...settings.options,
  };
  try {
    yield* sdk.query({ prompt: run.input, options });
  } finally {
    run.signal.removeEventListener("abort", abort);
  }
}
