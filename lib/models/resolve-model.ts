import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";
import type { ModelSpec } from "../config/define.ts";
import { MODEL_ENV_HINT } from "../config/model-from-env.ts";
import { ModelNotConfiguredError } from "./model-provider-error.ts";

const models = new WeakMap<ModelSpec, LanguageModel>();

/** The AI SDK model for a spec: OpenAI, Anthropic, or any OpenAI-compatible chat endpoint (one per spec). */
export function resolveModel(agentId: string, spec: ModelSpec | null): LanguageModel {
  if (!spec) throw new ModelNotConfiguredError(agentId, MODEL_ENV_HINT);
  let model = models.get(spec);
  if (!model) models.set(spec, (model = createModel(spec)));
  return model;
}

function createModel(spec: ModelSpec): LanguageModel {
  switch (spec.provider) {
    case "openai":
      return createOpenAI({ apiKey: spec.apiKey, baseURL: spec.baseUrl }).chat(spec.id);
    case "anthropic":
      return createAnthropic({ apiKey: spec.apiKey, baseURL: spec.baseUrl })(spec.id);
    case "openai-compatible":
      // Ollama, vLLM and LM Studio speak OpenAI's chat completions API.
      return createOpenAI({ apiKey: spec.apiKey ?? "not-needed", baseURL: spec.baseUrl, name: "openai-compatible" }).chat(spec.id);
  }
}

/**
 * Provider options (reasoning effort, service tier, verbosity, …) pass through as given: any
 * string is accepted, so new provider values work without a release.
 */
export function providerOptionsFor(spec: ModelSpec | null): Record<string, Record<string, never>> | undefined {
  if (!spec?.options) return undefined;
  const key = spec.provider === "anthropic" ? "anthropic" : "openai";
  return { [key]: spec.options as Record<string, never> };
}
