import { createOpenAI } from "@ai-sdk/openai";
import { embedMany, type EmbeddingModel } from "ai";
import type { EmbedderSpec } from "../config/define.ts";

/** Texts sent in one embeddings request. */
const BATCH = 96;

export interface EmbeddingsResult {
  embeddings: number[][];
  /** Tokens the provider counted for the batch (0 when it reports none). */
  tokens: number;
}

/** Turns texts into vectors through the AI SDK; one instance per configured embedder. */
export interface Embedder {
  readonly spec: EmbedderSpec;
  /** The vectors' length: configured, or asked of the provider once (one embedding of a probe). */
  dimensions(signal?: AbortSignal): Promise<number>;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingsResult>;
}

/** The provider answered with vectors of another length than the store holds, or none at all. */
export class EmbedderError extends Error {
  override readonly name = "EmbedderError";
}

function modelOf(spec: EmbedderSpec): EmbeddingModel {
  const provider =
    spec.provider === "openai" ? createOpenAI({ apiKey: spec.apiKey, baseURL: spec.baseUrl }) : createOpenAI({ apiKey: spec.apiKey ?? "not-needed", baseURL: spec.baseUrl, name: "openai-compatible" });
  return provider.embedding(spec.id);
}

/** An embedder for a spec (the AI SDK's OpenAI provider, for OpenAI and OpenAI-compatible servers alike). */
export function createEmbedder(spec: EmbedderSpec): Embedder {
  const model = modelOf(spec);
  let known = spec.dimensions;
  const call = async (values: string[], signal?: AbortSignal): Promise<EmbeddingsResult> => {
    const result = await embedMany({
      model,
      values,
      maxRetries: 2,
      abortSignal: signal,
      // The configured length is asked for (OpenAI's text-embedding-3 models shorten their vectors to it).
      ...(spec.dimensions ? { providerOptions: { openai: { dimensions: spec.dimensions } } } : {}),
    });
    return { embeddings: result.embeddings, tokens: result.usage?.tokens ?? 0 };
  };
  return {
    spec,
    async dimensions(signal) {
      if (known) return known;
      const probe = await call(["dimensions"], signal);
      const length = probe.embeddings[0]?.length ?? 0;
      if (length === 0) throw new EmbedderError(`Embedder '${spec.id}' answered without a vector`);
      known = length;
      return length;
    },
    async embed(texts, signal) {
      const embeddings: number[][] = [];
      let tokens = 0;
      for (let i = 0; i < texts.length; i += BATCH) {
        const batch = await call(texts.slice(i, i + BATCH), signal);
        embeddings.push(...batch.embeddings);
        tokens += batch.tokens;
      }
      if (embeddings.length !== texts.length) throw new EmbedderError(`Embedder '${spec.id}' answered ${embeddings.length} vectors for ${texts.length} texts`);
      const expected = known ?? embeddings[0]?.length;
      const wrong = embeddings.find((e) => e.length !== expected);
      if (wrong) throw new EmbedderError(`Embedder '${spec.id}' answered a ${wrong.length}-dimension vector where ${expected} were expected`);
      return { embeddings, tokens };
    },
  };
}
