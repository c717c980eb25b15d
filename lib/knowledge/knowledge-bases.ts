import type { EmbedderSpec, KnowledgeDefinition } from "../config/define.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { KnowledgeBase } from "./knowledge-base.ts";

/** A knowledge base a request named that does not exist, or a request that must name one: Agno's texts and statuses. */
export class KnowledgeSelectionError extends Error {
  override readonly name = "KnowledgeSelectionError";
  constructor(
    message: string,
    readonly status: 400 | 404,
  ) {
    super(message);
  }
}

const CACHE = Symbol.for("agentry.knowledge.bases");
type Cache = WeakMap<Db, Map<string, KnowledgeBase>>;

function cacheFor(db: Db): Map<string, KnowledgeBase> {
  const holder = globalThis as unknown as Record<symbol, Cache | undefined>;
  const cache = (holder[CACHE] ??= new WeakMap());
  let bases = cache.get(db);
  if (!bases) cache.set(db, (bases = new Map()));
  return bases;
}

/**
 * The knowledge base of a definition on a database, made once per process and database (on
 * globalThis: route handlers, server actions, workers and the runtime are separate module graphs
 * in one Next process) and shared by the API, the dashboard and agents' search tools.
 */
export function knowledgeBaseOf(db: Db, definition: KnowledgeDefinition, embedder: EmbedderSpec | null): KnowledgeBase {
  const bases = cacheFor(db);
  let base = bases.get(definition.id);
  if (!base || JSON.stringify([base.definition, base.embedder?.spec ?? null]) !== JSON.stringify([definition, embedder])) {
    base = new KnowledgeBase(db, definition, embedder);
    bases.set(definition.id, base);
  }
  return base;
}

/** The OS's knowledge bases on a database, by id. */
export function knowledgeBasesOf(db: Db, settings: Settings): Map<string, KnowledgeBase> {
  return new Map(settings.knowledge.bases.map((definition) => [definition.id, knowledgeBaseOf(db, definition, settings.knowledge.embedder)]));
}

/**
 * The knowledge base a request names by `knowledge_id` or `db_id`, as Agno's `get_knowledge_instance`
 * chooses it: the only one when it names none; a 404 for an unknown id; a 400 when several could be meant.
 */
export function selectKnowledgeBase(bases: Map<string, KnowledgeBase>, { knowledgeId, dbId }: { knowledgeId?: string; dbId?: string }): KnowledgeBase {
  const all = [...bases.values()];
  if (knowledgeId !== undefined) {
    const base = bases.get(knowledgeId);
    if (!base) throw new KnowledgeSelectionError(`Knowledge base '${knowledgeId}' not found`, 404);
    return base;
  }
  const ids = `[${all.map((b) => `'${b.id}'`).join(", ")}]`;
  if (dbId !== undefined) {
    const onDb = all.filter((b) => b.db.id === dbId);
    if (onDb.length === 0) throw new KnowledgeSelectionError(`Knowledge instance with db_id '${dbId}' not found`, 404);
    if (onDb.length > 1) throw new KnowledgeSelectionError(`Multiple knowledge instances found for db_id '${dbId}'. Please specify knowledge_id parameter. Available IDs: ${ids}`, 400);
    return onDb[0]!;
  }
  if (all.length === 1) return all[0]!;
  throw new KnowledgeSelectionError(`db_id or knowledge_id query parameter is required when using multiple knowledge bases. Available IDs: ${ids}`, 400);
}
