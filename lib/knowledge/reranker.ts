import { generateText, Output } from "ai";
import { z } from "zod";
import type { ModelSpec } from "../config/define.ts";
import { log } from "../log.ts";
import { resolveModel } from "../models/resolve-model.ts";
import type { ChunkHit } from "./stores/vector-store.ts";

/** The first line of the reranker's instructions (the scripted test model recognises a rerank request by it). */
export const RERANK_INSTRUCTIONS = "You rank passages by how well they answer a search query.";

const Ranking = z.object({
  ranking: z.array(z.object({ passage: z.number().int().min(1), relevance: z.number().min(0).max(1) })),
});

/**
 * Reorders search hits by a model's judgement of their relevance to the query (one call with the
 * passages numbered; structured output). Each ranked hit's score becomes its relevance (0–1);
 * passages the model leaves out follow, in their earlier order. A reranker that fails (the
 * provider down, an answer that does not parse) leaves the order as it was: search still answers.
 */
export async function rerank({ model, query, hits, signal }: { model: ModelSpec; query: string; hits: ChunkHit[]; signal?: AbortSignal }): Promise<ChunkHit[]> {
  if (hits.length < 2) return hits;
  try {
    const { output } = await generateText({
      model: resolveModel("knowledge reranker", model),
      abortSignal: signal,
      maxRetries: 1,
      output: Output.object({ schema: Ranking }),
      system: `${RERANK_INSTRUCTIONS} Give every passage a relevance from 0 (unrelated) to 1 (answers it fully).`,
      prompt: `Query: ${query}\n\n${hits.map((hit, i) => `Passage ${i + 1}:\n${hit.content}`).join("\n\n")}`,
    });
    const relevance = new Map<number, number>();
    for (const { passage, relevance: r } of output.ranking) if (passage <= hits.length && !relevance.has(passage)) relevance.set(passage, r);
    const ranked = hits.map((hit, i) => ({ hit, i, r: relevance.get(i + 1) }));
    return [...ranked.filter((x) => x.r !== undefined).sort((a, b) => b.r! - a.r! || a.i - b.i), ...ranked.filter((x) => x.r === undefined)].map((x) =>
      x.r === undefined ? x.hit : { ...x.hit, score: x.r },
    );
  } catch (error) {
    if (signal?.aborted) throw error;
    log.warn(`[knowledge] reranker ${model.provider}/${model.id} failed, keeping the search order: ${error instanceof Error ? error.message : String(error)}`);
    return hits;
  }
}
