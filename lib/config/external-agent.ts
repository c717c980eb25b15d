import { z } from "zod";

/**
 * Agents made with another framework (Agno's external-framework agents): a LangGraph.js graph, a
 * Claude Agent SDK agent, or anything an adapter wraps. Listed under `agents` in
 * agentry.config.ts beside defineAgent's, served on the agents' routes, their runs stored as runs
 * of their sessions. The adapters are in lib/runtime/external/; this file holds only what the
 * configuration declares, so it imports nothing but zod.
 */

/** One message of a session's earlier runs with the agent, as an adapter receives them (oldest first). */
export type ExternalHistoryMessage =
  | {
      readonly role: "user" | "assistant";
      readonly content: string;
      /** An assistant's tool calls, in OpenAI's shape. */
      readonly tool_calls?: readonly { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { readonly role: "tool"; readonly content: string; readonly tool_call_id: string };

/** What an adapter is given for one run. */
export interface ExternalRunInput {
  /** The user's message. */
  readonly input: string;
  /** The user, assistant and tool messages of the session's earlier runs of this agent. */
  readonly history: readonly ExternalHistoryMessage[];
  readonly runId: string;
  readonly sessionId: string;
  readonly userId: string | null;
  /** Aborted when the run is cancelled (a streamed run's client went away): stop, and throw. */
  readonly signal: AbortSignal;
  /**
   * What the adapter kept after the session's last run of this agent (the Claude Agent SDK's
   * session id, to resume), stored with each run; change it in place to keep something for the
   * next run. Never written by a caller.
   */
  readonly state: Record<string, unknown>;
}

/** What a streamed adapter run yields: answer text as it comes, and the tool calls its framework makes. */
export type ExternalAgentEvent =
  | { readonly type: "content"; readonly content: string }
  | { readonly type: "tool_call_started"; readonly toolCallId: string; readonly toolName: string; readonly toolArgs: Record<string, unknown> }
  | { readonly type: "tool_call_completed"; readonly toolCallId: string; readonly toolName?: string; readonly toolArgs?: Record<string, unknown>; readonly result: string };

/** Runs one framework's agent. An exception ends the run ERROR with its text as the run's content. */
export interface ExternalAgentAdapter {
  /** The framework, as `/agents` and `/config` report it in `metadata.framework` ("langgraph", "claude-agent-sdk"). */
  readonly framework: string;
  /** A run the client waits for whole: the answer. */
  invoke(run: ExternalRunInput): Promise<unknown>;
  /** A streamed run: text and tool calls as they happen; the answer is the text they add up to. */
  stream(run: ExternalRunInput): AsyncIterable<ExternalAgentEvent>;
}

/** An external agent as declared (defineExternalAgent). */
export interface ExternalAgentDefinition {
  readonly kind: "external";
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly framework: string;
  readonly adapter: ExternalAgentAdapter;
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Whether a value is an external agent's definition (what defineExternalAgent returns). */
export function isExternalAgentDefinition(value: unknown): value is ExternalAgentDefinition {
  const v = value as Partial<ExternalAgentDefinition> | null;
  return !!v && typeof v === "object" && v.kind === "external" && typeof v.id === "string" && typeof v.adapter?.stream === "function" && typeof v.adapter.invoke === "function";
}

/** An entry of `agents` that defineExternalAgent made. */
export const ExternalAgentDefinitionSchema = z.custom<ExternalAgentDefinition>(isExternalAgentDefinition, "not an external agent (defineExternalAgent)");

/**
 * Declares an agent another framework runs, with its adapter (lib/runtime/external/:
 * `langGraphAdapter`, `claudeAgentSdkAdapter`). The id defaults to the name lower-cased with
 * spaces and underscores as hyphens, as Agno derives it. Throws for a missing name, an id that is
 * not letters, digits, '.', '_' or '-', or an adapter without a framework, invoke and stream.
 */
export function defineExternalAgent({ id, name, description, adapter }: { id?: string; name: string; description?: string; adapter: ExternalAgentAdapter }): ExternalAgentDefinition {
  if (typeof name !== "string" || name.trim() === "") throw new TypeError("defineExternalAgent: name is required");
  const agentId = id ?? name.toLowerCase().replace(/[ _]/g, "-");
  if (!AGENT_ID.test(agentId)) throw new TypeError(`defineExternalAgent '${name}': id '${agentId}' must be letters, digits, '.', '_' or '-' (set id)`);
  if (!adapter || typeof adapter.framework !== "string" || typeof adapter.invoke !== "function" || typeof adapter.stream !== "function") {
    throw new TypeError(`defineExternalAgent '${name}': adapter must have a framework, invoke and stream (lib/runtime/external/)`);
  }
  return { kind: "external", id: agentId, name, ...(description ? { description } : {}), framework: adapter.framework, adapter };
}
