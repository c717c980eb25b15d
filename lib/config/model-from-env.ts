import type { Env } from "./env.ts";
import type { ModelSpec } from "./define.ts";

/** The variables that configure a model provider, for messages that tell the user what to set. */
export const MODEL_ENV_HINT =
  "set OPENAI_API_KEY (and optionally OPENAI_MODEL), ANTHROPIC_API_KEY (and optionally ANTHROPIC_MODEL), " +
  "or OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_MODEL for an OpenAI-compatible server (Ollama, vLLM, LM Studio)";

/**
 * The model the environment configures, first match wins: an OpenAI-compatible URL, then OpenAI,
 * then Anthropic. Null when none is set.
 */
export function modelFromEnv(env: Env): ModelSpec | null {
  if (env.OPENAI_COMPATIBLE_BASE_URL) {
    return {
      provider: "openai-compatible",
      id: env.OPENAI_COMPATIBLE_MODEL ?? "llama3.1",
      baseUrl: env.OPENAI_COMPATIBLE_BASE_URL,
      apiKey: env.OPENAI_COMPATIBLE_API_KEY,
    };
  }
  if (env.OPENAI_API_KEY) return { provider: "openai", id: env.OPENAI_MODEL ?? "gpt-4.1-mini", apiKey: env.OPENAI_API_KEY };
  if (env.ANTHROPIC_API_KEY) {
    return { provider: "anthropic", id: env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5", apiKey: env.ANTHROPIC_API_KEY };
  }
  return null;
}
