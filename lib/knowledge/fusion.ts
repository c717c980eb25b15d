import type { ChunkHit } from "./stores/vector-store.ts";

/** The rank constant of reciprocal rank fusion (the value its authors found robust). */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each list gives a chunk 1 / (RRF_K + rank) (rank from 1), the sums
 * order the result. Scores from different searches (cosine similarity, BM25, ts_rank) are not on
 * one scale, and ranks are; a chunk both searches found rises above one only one found.
 */
export function reciprocalRankFusion(lists: readonly (readonly ChunkHit[])[], limit: number): ChunkHit[] {
  const fused = new Map<string, { hit: ChunkHit; score: number }>();
  for (const list of lists) {
    list.forEach((hit, index) => {
      const add = 1 / (RRF_K + index + 1);
      const entry = fused.get(hit.id);
      if (entry) entry.score += add;
      else fused.set(hit.id, { hit, score: add });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || (a.hit.id < b.hit.id ? -1 : 1))
    .slice(0, limit)
    .map(({ hit, score }) => ({ ...hit, score }));
}
