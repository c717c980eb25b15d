import type { ModelMessage } from "ai";
import type { AgnoMessage } from "./run-output.ts";

/**
 * Agno-format messages (what runs store) to the AI SDK's model messages (what providers get).
 * Assistant tool calls and tool results are paired by tool_call_id.
 */
export function toModelMessages(messages: readonly AgnoMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: textOf(message.content) });
        break;
      case "user":
        out.push({ role: "user", content: Array.isArray(message.content) ? (message.content as never) : textOf(message.content) });
        break;
      case "assistant": {
        const parts: Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string> = [];
        const text = textOf(message.content);
        if (text) parts.push({ type: "text", text });
        for (const call of message.tool_calls ?? []) {
          parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.function.name, input: safeParse(call.function.arguments) });
        }
        out.push({ role: "assistant", content: parts });
        break;
      }
      case "tool": {
        const value = message.content;
        out.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: message.tool_call_id ?? "",
              toolName: message.tool_name ?? "",
              output: typeof value === "string" ? { type: "text", value } : { type: "json", value: (value ?? null) as never },
            },
          ],
        });
        break;
      }
    }
  }
  return out;
}

function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
