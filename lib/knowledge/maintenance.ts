import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { knowledgeBasesOf } from "./knowledge-bases.ts";

/**
 * The knowledge vectors step of `npx agentry migrate`: each configured base's chunk table that was
 * created before per-user isolation (an Agno 2.x PgVector table, or an older Agentry one) gets its
 * `user_id` column and index; its existing chunks become shared (NULL owner), as in Agno's v2 → v3
 * vector migration. On PostgreSQL, a table without the stored keyword text (`content_tsv`: Agno's
 * tables, and Agentry's before it) gets it, so keyword search stops parsing every matching chunk.
 * Tables that do not exist yet are left to be created on first use.
 */
export async function migrateKnowledgeTables(db: Db, settings: Settings): Promise<{ table: string; addedOwnerColumn: boolean; addedKeywordColumn: boolean }[]> {
  const outcomes: { table: string; addedOwnerColumn: boolean; addedKeywordColumn: boolean }[] = [];
  for (const base of knowledgeBasesOf(db, settings).values()) {
    const addedOwnerColumn = await base.store.addOwnerColumn();
    outcomes.push({ table: base.store.table, addedOwnerColumn, addedKeywordColumn: await base.store.addKeywordColumn() });
  }
  return outcomes;
}

/** Chunks embedded per request while re-embedding. */
const REEMBED_BATCH = 96;

/**
 * `npx agentry knowledge reembed`: gives every chunk of every configured base a vector from the
 * configured embedder, re-typing the table for the embedder's length first (so a change of
 * embedder, or a base that had none, becomes searchable by meaning). Interrupted, it can simply be
 * run again: chunks keep their text, and vectors are written batch by batch.
 */
export async function reembedKnowledge(db: Db, settings: Settings, { log = () => undefined }: { log?: (message: string) => void } = {}): Promise<{ table: string; chunks: number }[]> {
  const outcomes: { table: string; chunks: number }[] = [];
  for (const base of knowledgeBasesOf(db, settings).values()) {
    if (!base.embedder) throw new Error("No embedder is configured: set OPENAI_EMBEDDING_MODEL (with OPENAI_API_KEY) or OPENAI_COMPATIBLE_EMBEDDING_MODEL with OPENAI_COMPATIBLE_BASE_URL first");
    const info = await base.store.info();
    if (!info.exists) {
      outcomes.push({ table: base.store.table, chunks: 0 });
      continue;
    }
    const dimensions = await base.embedder.dimensions();
    await base.store.resetVectors(dimensions);
    let chunks = 0;
    await base.store.eachChunk(REEMBED_BATCH, async (batch) => {
      const { embeddings } = await base.embedder!.embed(batch.map((c) => c.content));
      await base.store.setEmbeddings(batch.map((c, i) => ({ id: c.id, embedding: embeddings[i]! })));
      chunks += batch.length;
      log(`${base.store.table}: ${chunks}/${info.chunks} chunks embedded`);
    });
    outcomes.push({ table: base.store.table, chunks });
  }
  return outcomes;
}
