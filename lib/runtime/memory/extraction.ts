import { generateText, stepCountIs, tool, type LanguageModel, type LanguageModelUsage, type ToolSet } from "ai";
import type { z } from "zod";

/** A function an extraction model may call to change what is stored. */
export interface ExtractionTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodType<Record<string, unknown>>;
  execute(args: Record<string, unknown>): Promise<string> | string;
}

/**
 * One extraction, as Agno's memory and learning stores run theirs: the model reads the system
 * prompt and the material, and changes what is stored only through `tools`, at most
 * `maxToolCalls` calls (Agno's `tool_call_limit`; further calls are answered, not executed).
 * Tool calls run one at a time. Returns the model's last text, the usage of all its calls and how many tool calls ran.
 */
export async function runExtraction({
  model,
  system,
  prompt,
  tools,
  maxToolCalls,
  signal,
}: {
  model: LanguageModel;
  system: string;
  prompt: string;
  tools: readonly ExtractionTool[];
  maxToolCalls: number;
  signal: AbortSignal;
}): Promise<{ text: string; usage: LanguageModelUsage; calls: number }> {
  let calls = 0;
  // The calls of one step run one after another, in the model's order: each reads what the one
  // before it stored.
  let queue: Promise<unknown> = Promise.resolve();
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = tool({
      description: t.description,
      inputSchema: t.parameters,
      execute: (args: Record<string, unknown>) => {
        if (calls >= maxToolCalls) return `Not done: at most ${maxToolCalls} updates per run.`;
        calls += 1;
        const result = queue.then(() => t.execute(args));
        queue = result.catch(() => undefined);
        return result;
      },
    });
  }
  const result = await generateText({ model, system, prompt, tools: set, stopWhen: stepCountIs(maxToolCalls + 1), abortSignal: signal });
  return { text: result.text, usage: result.totalUsage, calls };
}
