import type { ModelSpec } from "../config/define.ts";

/**
 * Agno's provider and model class names (and other spellings: "OpenAIChat", "Ollama", "LM Studio",
 * "MistralChat", "CerebrasOpenAI", "Gemini") for Agentry's providers.
 */
const PROVIDER_ALIASES: Record<string, ModelSpec["provider"]> = {
  openai: "openai",
  openaichat: "openai",
  openairesponses: "openai",
  anthropic: "anthropic",
  claude: "anthropic",
  "openai-compatible": "openai-compatible",
  openai_compatible: "openai-compatible",
  openailike: "openai-compatible",
  ollama: "openai-compatible",
  vllm: "openai-compatible",
  lmstudio: "openai-compatible",
  mistral: "mistral",
  mistralchat: "mistral",
  cerebras: "cerebras",
  cerebrasopenai: "cerebras",
  groq: "groq",
  google: "google",
  gemini: "google",
};

/** Agentry's provider for a provider name a request or a stored config carries, case and spaces ignored; undefined when none is. */
export function providerOf(name: string): ModelSpec["provider"] | undefined {
  return PROVIDER_ALIASES[name.trim().toLowerCase().replace(/\s+/g, "")];
}
