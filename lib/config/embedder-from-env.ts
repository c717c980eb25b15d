import type { EmbedderSpec } from "./define.ts";
import type { Env } from "./env.ts";

/** The variables that configure an embedder, for messages that tell the user what to set. */
export const EMBEDDER_ENV_HINT = "set OPENAI_EMBEDDING_MODEL (with OPENAI_API_KEY), or OPENAI_COMPATIBLE_EMBEDDING_MODEL with OPENAI_COMPATIBLE_BASE_URL (Ollama, vLLM, LM Studio)";

/** Vector lengths of OpenAI's embedding models (their defaults). */
const OPENAI_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/**
 * The embedder the environment configures, first match wins: an OpenAI-compatible server's model,
 * then OpenAI's. Null when neither is set (knowledge then searches by keyword only).
 */
export function embedderFromEnv(env: Env): EmbedderSpec | null {
  const dimensions = env.AGENTRY_EMBEDDING_DIMENSIONS;
  if (env.OPENAI_COMPATIBLE_EMBEDDING_MODEL && env.OPENAI_COMPATIBLE_BASE_URL) {
    return {
      provider: "openai-compatible",
      id: env.OPENAI_COMPATIBLE_EMBEDDING_MODEL,
      baseUrl: env.OPENAI_COMPATIBLE_BASE_URL,
      apiKey: env.OPENAI_COMPATIBLE_API_KEY,
      ...(dimensions ? { dimensions } : {}),
    };
  }
  if (env.OPENAI_EMBEDDING_MODEL) {
    const known = dimensions ?? OPENAI_DIMENSIONS[env.OPENAI_EMBEDDING_MODEL];
    return { provider: "openai", id: env.OPENAI_EMBEDDING_MODEL, apiKey: env.OPENAI_API_KEY, ...(known ? { dimensions: known } : {}) };
  }
  return null;
}
