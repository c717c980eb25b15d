import { Output, generateText, jsonSchema, streamText, tool, type FlexibleSchema, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { z } from "zod";
import { ModelProviderError } from "../models/model-provider-error.ts";
import { RunCancelledSignal } from "../live-runs/run-registry.ts";
import type { ToolDefinition } from "./tools/types.ts";

export interface ToolCallRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export interface StepUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export interface StepResult {
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  usage: StepUsage;
  /** Seconds from the request to the first streamed token, when any was streamed. */
  timeToFirstToken: number | null;
  /** The parsed structured output, when an output schema was given and the model answered. */
  output?: unknown;
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 20_000 };

/** The tool set the model is offered: schemas only — Agentry runs tools itself (HITL, events, cancellation). */
export function modelTools(tools: readonly ToolDefinition<unknown>[]): ToolSet {
  // A JSON schema (an MCP server's tool) is offered as it is; zod schemas are converted by the SDK.
  return Object.fromEntries(
    tools.map((t) => [
      t.name,
      tool({ description: t.description, inputSchema: t.inputSchema ? jsonSchema<Record<string, unknown>>(t.inputSchema as never) : (t.parameters as z.ZodType<Record<string, unknown>>) }),
    ]),
  );
}

export function outputSpec(schema: z.ZodType | Record<string, unknown> | undefined) {
  if (!schema) return undefined;
  const flexible: FlexibleSchema<unknown> = schema instanceof z.ZodType ? (schema as FlexibleSchema<unknown>) : jsonSchema(schema as never);
  return Output.object({ schema: flexible });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One model call, streamed: text deltas go to `onDelta` as they arrive. Retryable provider
 * failures (rate limits, server errors, network) are retried with exponential backoff and jitter
 * (honouring Retry-After), but only while nothing has been streamed for this step — a retry must
 * never repeat text the client already has.
 */
export async function callModelStep(options: {
  model: LanguageModel;
  /** Instructions, passed as the SDK's `system` option (not as a message). */
  system?: string;
  messages: ModelMessage[];
  tools: ToolSet;
  signal: AbortSignal;
  onDelta: (text: string) => void;
  onRetry?: (error: ModelProviderError, attempt: number, delayMs: number) => void;
  output?: ReturnType<typeof outputSpec>;
  providerOptions?: Record<string, Record<string, never>>;
  retry?: RetryPolicy;
  /** false: one non-streamed request (a client that asked for stream=false needs no deltas). */
  stream?: boolean;
}): Promise<StepResult> {
  const retry = options.retry ?? DEFAULT_RETRY;
  for (let attempt = 1; ; attempt++) {
    let streamed = false;
    try {
      return options.stream === false ? await generateOnce(options) : await streamOnce(options, () => (streamed = true));
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new RunCancelledSignal();
      const classified = ModelProviderError.classify(error);
      if (!classified.retryable || streamed || attempt >= retry.attempts) throw classified;
      const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
      const delay = Math.min(retry.maxDelayMs, Math.max(backoff * (0.5 + Math.random() / 2), (classified.retryAfterSeconds ?? 0) * 1000));
      options.onRetry?.(classified, attempt, delay);
      await sleep(delay, options.signal);
    }
  }
}

/** What both call styles pass the SDK: retries are ours (maxRetries 0), tools are offered as schemas only. */
function sdkCall(options: Parameters<typeof callModelStep>[0]) {
  return {
    model: options.model,
    system: options.system,
    messages: options.messages,
    tools: Object.keys(options.tools).length > 0 ? options.tools : undefined,
    abortSignal: options.signal,
    maxRetries: 0,
    output: options.output,
    providerOptions: options.providerOptions,
  };
}

async function generateOnce(options: Parameters<typeof callModelStep>[0]): Promise<StepResult> {
  const started = performance.now();
  const result = await generateText(sdkCall(options));
  const usage = result.usage;
  const toolCalls = result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input }));
  let output: unknown;
  if (options.output && toolCalls.length === 0 && result.text) {
    try {
      output = result.output;
    } catch {
      output = undefined;
    }
  }
  if (result.text) options.onDelta(result.text);
  return {
    text: result.text,
    reasoning: result.reasoningText ?? "",
    toolCalls,
    usage: {
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      cacheReadTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
      cacheWriteTokens: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
      reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? 0,
    },
    timeToFirstToken: result.text ? (performance.now() - started) / 1000 : null,
    output,
  };
}

async function streamOnce(options: Parameters<typeof callModelStep>[0], markStreamed: () => void): Promise<StepResult> {
  const started = performance.now();
  let text = "";
  let reasoning = "";
  let timeToFirstToken: number | null = null;
  const toolCalls: ToolCallRequest[] = [];
  const usage: StepUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  const result = streamText({
    ...sdkCall(options), // Errors arrive as `error` parts below; without this the SDK also logs each one.
    onError: () => undefined,
  });
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        if (!part.text) break;
        if (timeToFirstToken === null) timeToFirstToken = (performance.now() - started) / 1000;
        markStreamed();
        text += part.text;
        options.onDelta(part.text);
        break;
      case "reasoning-delta":
        reasoning += part.text;
        break;
      case "tool-call":
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish-step":
        usage.inputTokens += part.usage.inputTokens ?? 0;
        usage.outputTokens += part.usage.outputTokens ?? 0;
        usage.cacheReadTokens += part.usage.inputTokenDetails?.cacheReadTokens ?? 0;
        usage.cacheWriteTokens += part.usage.inputTokenDetails?.cacheWriteTokens ?? 0;
        usage.reasoningTokens += part.usage.outputTokenDetails?.reasoningTokens ?? 0;
        break;
      case "error":
        throw part.error;
      case "abort":
        throw options.signal.reason instanceof Error ? options.signal.reason : new RunCancelledSignal();
    }
  }
  let output: unknown;
  if (options.output && toolCalls.length === 0 && text) {
    try {
      output = await result.output;
    } catch {
      output = undefined;
    }
  }
  return { text, reasoning, toolCalls, usage, timeToFirstToken, output };
}
