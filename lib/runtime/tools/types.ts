import type { z } from "zod";

/** What a tool sees of the run calling it. */
export interface ToolContext {
  readonly runId: string;
  readonly sessionId: string;
  readonly agentId: string;
  /** The run's owner (null for runs without a user). */
  readonly userId: string | null;
  /** Aborted when the run is cancelled or times out. */
  readonly signal: AbortSignal;
}

/** A field the user fills in before a `requiresUserInput` tool runs (Agno's user_input_schema item). */
export interface UserInputField {
  readonly name: string;
  /** Agno's field_type: "str", "int", "float", "bool", "list", "dict". */
  readonly field_type: string;
  readonly description?: string;
}

/**
 * A function the model may call. `parameters` is a zod object schema; the model's arguments are
 * validated against it before `execute` runs. The human-in-the-loop flags pause the run before
 * execution (Agno's requires_confirmation / requires_user_input / external_execution).
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodType<Args>;
  /**
   * A JSON schema offered to the model instead of `parameters`' (an MCP server's tool, whose
   * schema is JSON to begin with); `parameters` still validates the arguments before `execute`.
   */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  execute?(args: Args, ctx: ToolContext): Promise<unknown> | unknown;
  readonly requiresConfirmation?: boolean;
  /** The user provides these fields (merged into the arguments) before the tool runs. */
  readonly userInputFields?: readonly UserInputField[];
  /** The tool is run outside Agentry; the client sends its result when continuing. */
  readonly externalExecution?: boolean;
  /** Stop the run after this tool's result instead of calling the model again. */
  readonly stopAfterToolCall?: boolean;
  /**
   * Agno's approval type. "required": a call writes a pending `agno_approvals` row and the run
   * pauses until an approver resolves it (a confirmation is implied when the tool has no other
   * human step). "audit": the person's decision on the tool's confirmation, input or external
   * result is recorded as a resolved approval; it never blocks.
   */
  readonly approval?: "required" | "audit";
  /** Seconds a required approval waits before it expires (none by default: approvals wait). */
  readonly approvalExpiresIn?: number;
}

/** A named group of tools with a stable id, so AgentOS can reference tools stably. */
export interface Toolkit {
  readonly id: string;
  readonly name: string;
  readonly tools: readonly ToolDefinition<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  /**
   * Set for a toolkit whose tools are known only at run time (an MCP server's, see
   * lib/runtime/tools/mcp/): called as each run is prepared, with the run's user, for the tools
   * that run offers. `tools` then holds the tools known so far (listings cached since). It never
   * rejects: a toolkit that cannot list offers what it last knew, and its calls report the error.
   */
  readonly loadTools?: (context: ToolkitLoadContext) => Promise<readonly ToolDefinition<unknown>[]>;
}

/** What a run-time toolkit learns of the run it lists tools for. */
export interface ToolkitLoadContext {
  readonly userId: string | null;
  readonly signal: AbortSignal;
}

export function defineTool<Args>(tool: ToolDefinition<Args>): ToolDefinition<Args> {
  if (tool.approval !== undefined && tool.approval !== "required" && tool.approval !== "audit") {
    throw new Error(`Tool '${tool.name}': invalid approval '${String(tool.approval)}'; it must be "required" or "audit"`);
  }
  if (tool.approval === "audit" && !tool.requiresConfirmation && !tool.userInputFields?.length && !tool.externalExecution) {
    throw new Error(`Tool '${tool.name}': approval "audit" records a person's decision, so it needs requiresConfirmation, userInputFields or externalExecution`);
  }
  if (tool.approvalExpiresIn !== undefined && (!Number.isFinite(tool.approvalExpiresIn) || tool.approvalExpiresIn <= 0)) {
    throw new Error(`Tool '${tool.name}': approvalExpiresIn must be a positive number of seconds`);
  }
  return tool;
}

export function defineToolkit(toolkit: Toolkit): Toolkit {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(toolkit.id)) {
    throw new Error(`Toolkit id '${toolkit.id}' must be letters, digits, '.', '_' or '-'`);
  }
  const names = toolkit.tools.map((t) => t.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new Error(`Toolkit '${toolkit.id}' has two tools named '${duplicate}'`);
  return toolkit;
}
