import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ExternalAgentAdapter, ExternalAgentEvent, ExternalHistoryMessage, ExternalRunInput } from "../../config/external-agent.ts";

/** A LangGraph.js stream event (`streamEvents(..., { version: "v2" })`), as far as the adapter reads it. */
interface GraphStreamEvent {
  event: string;
  name?: string;
  run_id?: string;
  data?: { chunk?: { content?: unknown }; input?: unknown; output?: unknown };
}

/** A compiled LangGraph.js graph (`new StateGraph(...).compile()`), as far as the adapter uses it. */
export interface CompiledGraphLike {
  invoke(input: Record<string, unknown>, config?: Record<string, unknown>): Promise<unknown>;
  streamEvents(input: Record<string, unknown>, config: Record<string, unknown> & { version: "v2" }): AsyncIterable<GraphStreamEvent>;
}

export interface LangGraphAdapterOptions {
  /** The compiled graph. */
  graph: CompiledGraphLike;
  /** The state key the run's messages (history, then the user's) go in; default "messages". */
  inputKey?: string;
  /** The state key the answer is read from (its last AI message); default "messages". */
  outputKey?: string;
  /**
   * The graph's RunnableConfig for every run. `configurable.thread_id` is set to the run's
   * session id (so a graph compiled with a checkpointer keeps one thread per session), and the
   * run's abort signal is joined to any `signal` given here.
   */
  config?: Record<string, unknown>;
}

/**
 * Runs a compiled LangGraph.js graph as an external agent (`framework: "langgraph"`), as Agno's
 * LangGraphAgent does: the session's history and the user's message go into the graph's state as
 * LangChain messages; a run the client waits for answers with the last AI message's text; a
 * streamed run turns the graph's events into Agno's — chat-model text chunks into RunContent, tool
 * starts and ends into ToolCallStarted and ToolCallCompleted.
 */
export function langGraphAdapter({ graph, inputKey = "messages", outputKey = "messages", config }: LangGraphAdapterOptions): ExternalAgentAdapter {
  if (!graph || typeof graph.invoke !== "function" || typeof graph.streamEvents !== "function") {
    throw new TypeError("langGraphAdapter: graph must be a compiled LangGraph graph (StateGraph(...).compile())");
  }
  const inputOf = (run: ExternalRunInput) => ({ [inputKey]: messagesWithHistory(run.input, run.history) });
  return {
    framework: "langgraph",
    async invoke(run) {
      const result = (await graph.invoke(inputOf(run), configFor(config, run))) as Record<string, unknown> | null;
      const messages = result?.[outputKey];
      for (const message of Array.isArray(messages) ? [...messages].reverse() : []) {
        if (AIMessage.isInstance(message)) return textOf(message.content);
      }
      return JSON.stringify(result);
    },
    async *stream(run) {
      for await (const event of graph.streamEvents(inputOf(run), { ...configFor(config, run), version: "v2" })) {
        const mapped = eventOf(event);
        if (mapped) yield mapped;
      }
    },
  };
}

/** One graph event as the adapter's event, or null for those Agno's adapter passes over. */
function eventOf(event: GraphStreamEvent): ExternalAgentEvent | null {
  if (event.event === "on_chat_model_stream") {
    const text = textOf(event.data?.chunk?.content);
    return text ? { type: "content", content: text } : null;
  }
  if (event.event === "on_tool_start") {
    const input = event.data?.input;
    const args = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : { input };
    return { type: "tool_call_started", toolCallId: event.run_id ?? "", toolName: event.name ?? "unknown", toolArgs: args };
  }
  if (event.event === "on_tool_end") {
    const output = event.data?.output;
    const result = output && typeof output === "object" && "content" in output ? textOf((output as { content: unknown }).content) : typeof output === "string" ? output : JSON.stringify(output ?? "");
    return { type: "tool_call_completed", toolCallId: event.run_id ?? "", toolName: event.name, result };
  }
  return null;
}

/** A message's text: a string as it is, the text parts of a list of content blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (part && typeof part === "object" && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : "")).join("");
  return "";
}

/** The graph's config for one run: the configured one, the session as the thread, the run's abort signal. */
function configFor(config: Record<string, unknown> | undefined, run: ExternalRunInput): Record<string, unknown> {
  const configurable: Record<string, unknown> = { ...((config?.configurable as Record<string, unknown> | undefined) ?? {}), thread_id: run.sessionId };
  if (configurable.checkpoint_ns === undefined) configurable.checkpoint_ns = "";
  const own = config?.signal as AbortSignal | undefined;
  return { ...config, configurable, signal: own ? AbortSignal.any([own, run.signal]) : run.signal };
}

/** The history as LangChain messages (tool calls linked to their results), then the user's message. */
function messagesWithHistory(input: string, history: readonly ExternalHistoryMessage[]): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (const message of history) {
    if (message.role === "user") messages.push(new HumanMessage(message.content));
    else if (message.role === "tool") messages.push(new ToolMessage({ content: message.content, tool_call_id: message.tool_call_id }));
    else if (message.tool_calls?.length) {
      const toolCalls = message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, args: argumentsOf(call.function.arguments), type: "tool_call" as const }));
      messages.push(new AIMessage({ content: message.content, tool_calls: toolCalls }));
    } else messages.push(new AIMessage(message.content));
  }
  messages.push(new HumanMessage(input));
  return messages;
}

/** A stored call's arguments: its JSON object, else the text under `input`. */
function argumentsOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { input: parsed };
  } catch {
    return { input: text };
  }
}
