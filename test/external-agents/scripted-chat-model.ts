import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";

type OpenAiTool = ReturnType<typeof convertToOpenAITool>;

interface ScriptedCallOptions extends BaseChatModelCallOptions {
  tools?: OpenAiTool[];
}

interface ChatCompletionMessage {
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/**
 * A LangChain chat model over the scripted model server (e2e/fixtures/model-server.ts), speaking
 * OpenAI's chat completions with plain fetch: a LangGraph.js graph in a test calls the same
 * scripted model the rest of the suite does. Streaming (which LangGraph's `streamEvents` asks
 * for) yields the server's text deltas as they arrive and its tool calls as tool-call chunks.
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedCallOptions> {
  constructor(private readonly baseUrl: string) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: BindToolsInput[]) {
    return this.withConfig({ tools: tools.map((tool) => convertToOpenAITool(tool)) } as Partial<ScriptedCallOptions>);
  }

  private request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): Promise<Response> {
    return fetch(`${this.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test" },
      body: JSON.stringify({ model: "scripted", messages: messages.map(openAiMessage), stream, ...(options.tools?.length ? { tools: options.tools } : {}) }),
      signal: options.signal,
    });
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const response = await this.request(messages, options, false);
    if (!response.ok) throw new Error(`scripted model answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { choices: { message: ChatCompletionMessage }[] };
    const answer = body.choices[0]!.message;
    const message = new AIMessage({
      content: answer.content ?? "",
      tool_calls: (answer.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments), type: "tool_call" as const })),
    });
    return { generations: [{ text: answer.content ?? "", message }] };
  }

  async *_streamResponseChunks(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const response = await this.request(messages, options, true);
    if (!response.ok || !response.body) throw new Error(`scripted model answered ${response.status}: ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(bytes, { stream: true });
      const frames = buffered.split("\n\n");
      buffered = frames.pop() ?? "";
      for (const frame of frames) {
        const data = frame.startsWith("data: ") ? frame.slice(6) : "";
        if (!data || data === "[DONE]") continue;
        const delta = (JSON.parse(data) as { choices: { delta: { content?: string; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[] }).choices[0]
          ?.delta;
        if (delta?.content) {
          yield new ChatGenerationChunk({ text: delta.content, message: new AIMessageChunk({ content: delta.content }) });
          await runManager?.handleLLMNewToken(delta.content);
        }
        for (const call of delta?.tool_calls ?? []) {
          const chunk = { index: call.index, id: call.id, name: call.function?.name, args: call.function?.arguments ?? "", type: "tool_call_chunk" as const };
          yield new ChatGenerationChunk({ text: "", message: new AIMessageChunk({ content: "", tool_call_chunks: [chunk] }) });
        }
      }
    }
  }
}

/** A LangChain message as OpenAI's chat completions take it. */
function openAiMessage(message: BaseMessage): Record<string, unknown> {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  switch (message.getType()) {
    case "human":
      return { role: "user", content };
    case "system":
      return { role: "system", content };
    case "tool":
      return { role: "tool", content, tool_call_id: (message as unknown as { tool_call_id: string }).tool_call_id };
    default: {
      const calls = (message as AIMessage).tool_calls ?? [];
      return {
        role: "assistant",
        content,
        ...(calls.length > 0 ? { tool_calls: calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } })) } : {}),
      };
    }
  }
}
