import { createAnthropic } from "@ai-sdk/anthropic";
import { createCerebras } from "@ai-sdk/cerebras";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createGroq } from "@ai-sdk/groq";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";
import type { ModelSpec } from "../config/define.ts";
import { MODEL_ENV_HINT } from "../config/model-from-env.ts";
import { ModelNotConfiguredError } from "./model-provider-error.ts";
import { fetchAddingBodyFields, splitOpenAIOptions } from "./openai-body-options.ts";

const models = new WeakMap<ModelSpec, LanguageModel>();

/**
 * The AI SDK model for a spec (one per spec): OpenAI, Anthropic, any OpenAI-compatible chat
 * endpoint, Mistral, Cerebras, Groq or Google Gemini.
 */
export function resolveModel(agentId: string, spec: ModelSpec | null): LanguageModel {
  if (!spec) throw new ModelNotConfiguredError(agentId, MODEL_ENV_HINT);
  let model = models.get(spec);
  if (!model) models.set(spec, (model = createModel(spec)));
  return model;
}

function createModel(spec: ModelSpec): LanguageModel {
  const settings = { apiKey: spec.apiKey, baseURL: spec.baseUrl };
  switch (spec.provider) {
    case "openai":
      return createOpenAI({ ...settings, fetch: fetchAddingBodyFields(splitOpenAIOptions(spec.options).bodyFields) }).chat(spec.id);
    case "openai-compatible":
      // Ollama, vLLM and LM Studio speak OpenAI's chat completions API.
      return createOpenAI({
        ...settings,
        apiKey: spec.apiKey ?? "not-needed",
        name: "openai-compatible",
        fetch: fetchAddingBodyFields(splitOpenAIOptions(spec.options).bodyFields),
      }).chat(spec.id);
    case "anthropic":
      return createAnthropic(settings)(spec.id);
    case "mistral":
      return createMistral(settings)(spec.id);
    case "cerebras":
      return createCerebras(settings)(spec.id);
    case "groq":
      return createGroq(settings)(spec.id);
    case "google":
      return createGoogleGenerativeAI(settings)(spec.id);
  }
}

/** The AI SDK's provider-options key of each provider (`providerOptions.<key>`). */
const OPTIONS_KEY: Record<ModelSpec["provider"], string> = {
  openai: "openai",
  "openai-compatible": "openai",
  anthropic: "anthropic",
  mistral: "mistral",
  cerebras: "cerebras",
  groq: "groq",
  google: "google",
};

/**
 * A spec's options as the AI SDK's provider options, under the provider's key. OpenAI's
 * reasoning effort, reasoning summary, service tier and verbosity are not among them: the model's
 * fetch sends those as body fields, any string accepted (./openai-body-options.ts). The other
 * providers' options are their AI SDK's, checked by it.
 */
export function providerOptionsFor(spec: ModelSpec | null): Record<string, Record<string, never>> | undefined {
  if (!spec?.options) return undefined;
  const options = spec.provider === "openai" || spec.provider === "openai-compatible" ? splitOpenAIOptions(spec.options).sdkOptions : spec.options;
  if (Object.keys(options).length === 0) return undefined;
  return { [OPTIONS_KEY[spec.provider]]: options as Record<string, never> };
}
