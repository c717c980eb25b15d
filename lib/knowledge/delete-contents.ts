import { deleteContents } from "../db/knowledge/contents.ts";
import type { DataScope } from "../db/scope.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";

/**
 * Deletes contents the scope may delete (all of them when `ids` is absent) and their chunks: the
 * rows go first, so a search never returns a chunk of a content that is gone for longer than it
 * takes to drop them.
 */
export async function deleteStoredContents(base: KnowledgeBase, { scope, ids }: { scope: DataScope; ids?: readonly string[] }): Promise<string[]> {
  const deleted = await deleteContents(base.db, { scope, ids, linkedTo: base.name });
  if (deleted.length > 0 && (await base.store.info()).exists) await base.store.deleteContents(deleted);
  return deleted;
}
