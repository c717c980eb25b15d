import { z } from "zod";
import type { EmbedderSpec, KnowledgeDefinition } from "../../config/define.ts";
import type { Db } from "../../db/open-database.ts";
import { unsafeSystemScope } from "../../db/scope.ts";
import type { ChunkHit } from "../stores/vector-store.ts";
import { knowledgeBaseOf } from "../knowledge-bases.ts";
import type { RunOutput } from "../../runtime/run-output.ts";
import { defineTool, type ToolDefinition } from "../../runtime/tools/types.ts";
import type { RunExtension } from "../../runtime/run-extensions.ts";
import type { RunState } from "../../runtime/run-state.ts";
import { log } from "../../log.ts";
import { endRetrieverSpan, startRetrieverSpan } from "../../runtime/run-trace.ts";

/** One search's record on its run (Agno's MessageReferences): the query, the chunks used, and how long it took in seconds. */
export interface KnowledgeReferences {
  query: string;
  references: { name?: string; meta_data?: Record<string, unknown>; content: string }[];
  time: number;
}

/** What the system prompt says about the knowledge base when the agent has the search tool. */
export const KNOWLEDGE_TOOL_INSTRUCTIONS =
  "You have a knowledge base. Use the search_knowledge_base tool to look up facts in it before you answer, and rely on what it returns; when it returns nothing relevant, say so rather than guessing.";

const asReference = (hit: ChunkHit) => ({ name: hit.name ?? undefined, meta_data: { ...hit.metadata, similarity_score: hit.score }, content: hit.content });

/**
 * Searches the agent's knowledge base as the run's user (its own chunks and the shared ones; a run
 * without a user sees only the shared ones) and records the chunks on the run's `references`. The
 * owner filter comes from the run, never from the model's arguments.
 */
export async function searchKnowledgeForRun({
  db,
  knowledge,
  embedder,
  output,
  query,
  signal,
}: {
  db: Db;
  knowledge: KnowledgeDefinition;
  embedder: EmbedderSpec | null;
  output: RunOutput;
  query: string;
  signal?: AbortSignal;
}): Promise<KnowledgeReferences> {
  const base = knowledgeBaseOf(db, knowledge, embedder);
  const scope = unsafeSystemScope("an agent's knowledge search runs as the run's user", { actingAs: output.user_id });
  const started = performance.now();
  const span = startRetrieverSpan(knowledge, query);
  const searched = await base.search({ scope, query, signal }).catch((error: unknown) => {
    endRetrieverSpan(span, null, error);
    throw error;
  });
  endRetrieverSpan(span, searched);
  const { hits } = searched;
  const record: KnowledgeReferences = { query, references: hits.map(asReference), time: Math.round(performance.now() - started) / 1000 };
  if (record.references.length > 0) output.references = [...(output.references ?? []), record];
  return record;
}

/** The agent's `search_knowledge_base(query)` tool (Agno's name and argument). */
export function knowledgeSearchTool({
  db,
  knowledge,
  embedder,
  output,
}: {
  db: Db;
  knowledge: KnowledgeDefinition;
  embedder: EmbedderSpec | null;
  output: RunOutput;
}): ToolDefinition<{ query: string }> {
  return defineTool({
    name: "search_knowledge_base",
    description: `Search the knowledge base "${knowledge.name}" for information about a query. Returns the most relevant passages as JSON.`,
    parameters: z.object({ query: z.string().describe("What to look up") }),
    async execute({ query }, ctx) {
      const record = await searchKnowledgeForRun({ db, knowledge, embedder, output, query, signal: ctx.signal });
      return record.references.length > 0 ? JSON.stringify(record.references, null, 2) : "No documents found";
    },
  });
}

/**
 * `addKnowledgeToContext`: the chunks the run's input finds, added to the prompt before the model
 * is called (and recorded on the run's references). A failed search adds nothing and is logged.
 */
async function knowledgeContext(state: RunState): Promise<string> {
  const { agent, db, output } = state;
  // A continuation prepares again: the references found at the start stand.
  const earlier = output.references?.[0];
  if (earlier) return `Use the following references from the knowledge base if they help:\n<references>\n${JSON.stringify(earlier.references, null, 2)}\n</references>`;
  const input = output.input.input_content;
  const query = typeof input === "string" ? input : JSON.stringify(input ?? "");
  try {
    const record = await searchKnowledgeForRun({ db, knowledge: agent.definition.knowledge!, embedder: agent.embedder ?? null, output, query });
    if (record.references.length === 0) return "";
    return `Use the following references from the knowledge base if they help:\n<references>\n${JSON.stringify(record.references, null, 2)}\n</references>`;
  } catch (error) {
    log.warn(`[run ${output.run_id}] knowledge context skipped: ${error instanceof Error ? error.message : String(error)}`);
    return "";
  }
}

/**
 * Knowledge in an agent's runs: for an agent with a knowledge base, the search tool and its
 * instructions (unless `searchKnowledge: false`) and, with `addKnowledgeToContext`, the chunks the
 * run's input finds in the prompt.
 */
export const knowledgeRunExtension: RunExtension = {
  name: "knowledge",
  async promptContext(state) {
    const definition = state.agent.definition;
    if (!definition.knowledge) return [];
    return [definition.searchKnowledge !== false ? KNOWLEDGE_TOOL_INSTRUCTIONS : "", definition.addKnowledgeToContext ? await knowledgeContext(state) : ""];
  },
  tools({ db, agent, output }) {
    const { knowledge, searchKnowledge } = agent.definition;
    if (!knowledge || searchKnowledge === false) return [];
    return [knowledgeSearchTool({ db, knowledge, embedder: agent.embedder ?? null, output }) as ToolDefinition<unknown>];
  },
};
