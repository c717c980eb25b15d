import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import type { KnowledgeBase } from "../../knowledge/knowledge-base.ts";
import { knowledgeBasesOf } from "../../knowledge/knowledge-bases.ts";
import type { SearchType } from "../../knowledge/stores/vector-store.ts";

/**
 * The Knowledge page's reads that are not rows: which of the OS's knowledge bases the page (and
 * its forms) act on, and what that base can search by. Every base is on the OS's database.
 */

export interface KnowledgeBaseChoice {
  id: string;
  name: string;
}

/** What the page knows of the base it shows: its id and name, and what its search can do. */
export interface KnowledgeBaseView extends KnowledgeBaseChoice {
  description: string | null;
  searchTypes: SearchType[];
  defaultSearchType: SearchType;
  /** The embedder's model, or null when none is configured (keyword search only). */
  embedder: string | null;
}

/** The OS's knowledge bases as a selector lists them, in configuration order. */
export function knowledgeBaseChoices(db: Db, settings: Settings): KnowledgeBaseChoice[] {
  return [...knowledgeBasesOf(db, settings).values()].map((base) => ({ id: base.id, name: base.name }));
}

/**
 * The knowledge base a page or form names by id, or the first one when it names none; null for an
 * id no base has (the page says so, an action refuses).
 */
export function dashboardKnowledgeBase(db: Db, settings: Settings, id: string | undefined): KnowledgeBase | null {
  const bases = knowledgeBasesOf(db, settings);
  if (id) return bases.get(id) ?? null;
  return bases.values().next().value ?? null;
}

/** The plain description of a base the page renders (it crosses to client components). */
export function knowledgeBaseView(base: KnowledgeBase): KnowledgeBaseView {
  return {
    id: base.id,
    name: base.name,
    description: base.description ?? null,
    searchTypes: base.searchTypes(),
    defaultSearchType: base.defaultSearchType(),
    embedder: base.embedder ? base.embedder.spec.id : null,
  };
}
