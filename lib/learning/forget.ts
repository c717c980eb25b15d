import { deleteUserLearnings, deleteUserMemories } from "../db/index.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import type { KnowledgeBase } from "../knowledge/knowledge-base.ts";
import { LEARNED_KNOWLEDGE_TYPE } from "./stores/learned-knowledge.ts";

/** What "Forget everything about me" removed. */
export interface Forgotten {
  /** agno_learnings rows the user owned (profile, memories, user-namespace entities, decisions, session contexts). */
  learnings: number;
  /** agno_memories rows (updateMemoryOnRun, enableAgenticMemory). */
  memories: number;
  /** Learned-knowledge items the user owned (namespace `user`) in the knowledge bases given. */
  learnedKnowledge: number;
}

/**
 * Everything agents learned about `userId`, deleted within `scope` (a member's own scope reaches
 * only their own rows): their learnings, their memories and, in each of `knowledgeBases` (pass
 * every base the OS serves), their own learned-knowledge items. Shared rows (global entities and
 * learnings, any owner-less row) and their sessions stay.
 */
export async function forgetUser(db: Db, { scope, userId, knowledgeBases = [] }: { scope: DataScope; userId: string; knowledgeBases?: Iterable<KnowledgeBase> }): Promise<Forgotten> {
  const [learnings, memories] = await Promise.all([deleteUserLearnings(db, { scope, userId }), deleteUserMemories(db, { scope, userId })]);
  let learnedKnowledge = 0;
  // A member may forget only themselves; an admin anyone.
  if (scope.kind === "admin" || scope.userId === userId) {
    for (const base of knowledgeBases) {
      const ids = await base.store.contentIdsOf({ userId, filters: { learning_type: LEARNED_KNOWLEDGE_TYPE } });
      await base.store.deleteContents(ids);
      learnedKnowledge += ids.length;
    }
  }
  return { learnings, memories, learnedKnowledge };
}
