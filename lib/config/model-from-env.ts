import type { Env } from "./env.ts";
import type { ModelSpec } from "./define.ts";

/** The model each provider preset uses when its `*_MODEL` variable is unset. */
export const DEFAULT_MODEL_IDS = {
  "openai-compatible": "llama3.1",
  openai: "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
  mistral: "mistral-small-latest",
  cerebras: "gpt-oss-120b",
  groq: "openai/gpt-oss-120b",
  google: "gemini-3.7-flash",
} as const satisfies Record<ModelSpec["provider"], string>;

/** The variables that configure a model provider, for messages that tell the user what to set. */
export const MODEL_ENV_HINT =
  "set OPENAI_API_KEY (and optionally OPENAI_MODEL), ANTHROPIC_API_KEY (and optionally ANTHROPIC_MODEL), " +
  "OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_MODEL for an OpenAI-compatible server (Ollama, vLLM, LM Studio), " +
  "MISTRAL_API_KEY (and optionally MISTRAL_MODEL), CEREBRAS_API_KEY (and optionally CEREBRAS_MODEL), " +
  "GROQ_API_KEY (and optionally GROQ_MODEL), or GOOGLE_GENERATIVE_AI_API_KEY or GOOGLE_API_KEY (and optionally GOOGLE_MODEL)";

/**
 * Every model the environment configures, one per provider preset whose key (or URL) is set, in
 * the order they are checked: an OpenAI-compatible URL, OpenAI, Anthropic, Mistral, Cerebras,
 * Groq, Google Gemini.
 */
export function modelsFromEnv(env: Env): ModelSpec[] {
  const models: ModelSpec[] = [];
  if (env.OPENAI_COMPATIBLE_BASE_URL) {
    models.push({
      provider: "openai-compatible",
      id: env.OPENAI_COMPATIBLE_MODEL ?? DEFAULT_MODEL_IDS["openai-compatible"],
      baseUrl: env.OPENAI_COMPATIBLE_BASE_URL,
      apiKey: env.OPENAI_COMPATIBLE_API_KEY,
    });
  }
  const keyed: [ModelSpec["provider"], string | undefined, string | undefined][] = [
    ["openai", env.OPENAI_API_KEY, env.OPENAI_MODEL],
    ["anthropic", env.ANTHROPIC_API_KEY, env.ANTHROPIC_MODEL],
    ["mistral", env.MISTRAL_API_KEY, env.MISTRAL_MODEL],
    ["cerebras", env.CEREBRAS_API_KEY, env.CEREBRAS_MODEL],
    ["groq", env.GROQ_API_KEY, env.GROQ_MODEL],
    ["google", env.GOOGLE_GENERATIVE_AI_API_KEY ?? env.GOOGLE_API_KEY, env.GOOGLE_MODEL],
  ];
  for (const [provider, apiKey, id] of keyed) {
    if (apiKey) models.push({ provider, id: id ?? DEFAULT_MODEL_IDS[provider], apiKey });
  }
  return models;
}

/** The model the environment configures: the first of `modelsFromEnv`, null when none is set. */
export function modelFromEnv(env: Env): ModelSpec | null {
  return modelsFromEnv(env)[0] ?? null;
}
