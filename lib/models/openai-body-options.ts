import type { ModelSpec } from "../config/define.ts";

/**
 * OpenAI's request options that Agentry sends itself, as top-level fields of the chat-completions
 * body, whatever their value: the AI SDK's chat model checks them against fixed lists (a
 * `serviceTier` of `scale` throws) or has no such option (`reasoningSummary` is dropped), while
 * OpenAI adds values between SDK releases. `textVerbosity` is the AI SDK's name for `verbosity`.
 */
const BODY_FIELDS: Readonly<Record<string, string>> = {
  reasoningEffort: "reasoning_effort",
  reasoningSummary: "reasoning_summary",
  serviceTier: "service_tier",
  verbosity: "verbosity",
  textVerbosity: "verbosity",
};

/** A spec's options split in two: the chat-completions body fields Agentry adds, and the rest (the AI SDK's provider options). */
export function splitOpenAIOptions(options: ModelSpec["options"]): { bodyFields: Record<string, string>; sdkOptions: Record<string, unknown> } {
  const bodyFields: Record<string, string> = {};
  const sdkOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    const field = BODY_FIELDS[key];
    if (field === undefined) sdkOptions[key] = value;
    else if (typeof value === "string") bodyFields[field] = value;
  }
  return { bodyFields, sdkOptions };
}

/**
 * A fetch that adds `fields` to the JSON body of every chat-completions request (streamed or
 * not), over what the AI SDK put there; any other request passes unchanged. Undefined (the
 * SDK's own fetch) when there are no fields.
 */
export function fetchAddingBodyFields(fields: Record<string, string>): typeof fetch | undefined {
  if (Object.keys(fields).length === 0) return undefined;
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (typeof init?.body !== "string" || !new URL(url).pathname.endsWith("/chat/completions")) return globalThis.fetch(input, init);
    const body = JSON.parse(init.body) as Record<string, unknown>;
    return globalThis.fetch(input, { ...init, body: JSON.stringify({ ...body, ...fields }) });
  };
}
