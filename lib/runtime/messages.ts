import type { ModelMessage } from "ai";
import type { AgnoMessage } from "./run-output.ts";

/**
 * Agno-format messages (what runs store) to the AI SDK's model messages (what providers get).
 * Assistant tool calls and tool results are paired by tool_call_id.
 */
export function toModelMessages(messages: readonly AgnoMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (!message || typeof message !== "object") continue;
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: textOf(message.content) });
        break;
      case "user":
        out.push({ role: "user", content: Array.isArray(message.content) ? userParts(message.content) : textOf(message.content) });
        break;
      case "assistant": {
        const parts: Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string> = [];
        const text = textOf(message.content);
        if (text) parts.push({ type: "text", text });
        for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
          if (typeof call?.id !== "string" || typeof call.function?.name !== "string") continue;
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
              toolCallId: String(message.tool_call_id ?? ""),
              toolName: String(message.tool_name ?? ""),
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

type UserPart = Exclude<Extract<ModelMessage, { role: "user" }>["content"], string>[number];

/**
 * A stored user message's parts as the AI SDK takes them: text, and images and files whose data
 * is base64 text (or, as earlier releases stored it, a JSON object of byte values). A part of any
 * other shape (another client's) is left out rather than failing the run.
 */
function userParts(content: unknown[]): UserPart[] {
  const parts: UserPart[] = [];
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    const p = part as Record<string, unknown>;
    if (p.type === "text" && typeof p.text === "string") parts.push({ type: "text", text: p.text });
    const mediaType = typeof p.mediaType === "string" ? p.mediaType : undefined;
    if (p.type === "image") {
      const image = binaryData(p.image);
      if (image !== null) parts.push({ type: "image", image, ...(mediaType ? { mediaType } : {}) });
    }
    if (p.type === "file" && mediaType) {
      const data = binaryData(p.data);
      if (data !== null) parts.push({ type: "file", data, mediaType, ...(typeof p.filename === "string" ? { filename: p.filename } : {}) });
    }
  }
  return parts;
}

function binaryData(value: unknown): string | Uint8Array | null {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return value;
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const bytes = Object.values(value as Record<string, unknown>);
  return bytes.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255) ? Uint8Array.from(bytes as number[]) : null;
}

function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

function safeParse(text: unknown): unknown {
  if (typeof text !== "string") return text && typeof text === "object" ? text : {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
