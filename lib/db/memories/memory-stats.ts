import type { Db } from "../open-database.ts";
import { pageWindow, type PageRequest } from "../pagination.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { topicElementsSql } from "./topics-sql.ts";

/** Every distinct topic of the memories this scope can see, sorted. */
export async function listMemoryTopics(db: Db, { scope }: { scope: DataScope }): Promise<string[]> {
  const owner = ownerSql(scope, "m.user_id");
  // Non-array topics (JSON null as Agno writes None, SQL NULL, …) count as none (topics-sql.ts).
  const t = topicElementsSql(db.dialect, "m.topics");
  const rows = await db.sql.query<{ topic: string }>(`SELECT DISTINCT ${t.topic} AS topic FROM agno_memories m, ${t.from} WHERE ${owner.clause} AND ${t.isTopic} ORDER BY topic`, owner.params);
  return rows.map((row) => row.topic);
}

export interface UserMemoryStats {
  user_id: string;
  total_memories: number;
  /** Epoch seconds of the user's most recently updated (or created) memory. */
  last_memory_updated_at: number;
}

/**
 * Per-user memory counts for this scope (a non-admin sees only its own line), most recently
 * active user first, one page at a time, with the number of users for pagination. Memories
 * without an owner are not a user's and are left out.
 */
export async function userMemoryStats(db: Db, options: PageRequest & { scope: DataScope }): Promise<{ stats: UserMemoryStats[]; totalCount: number }> {
  const { take, skip } = pageWindow(options);
  const owner = ownerSql(options.scope);
  const where = `user_id IS NOT NULL AND ${owner.clause}`;
  const [rows, counts] = await Promise.all([
    db.sql.query<{ user_id: string; total_memories: number | bigint; last_memory_updated_at: number | bigint }>(
      `SELECT user_id, COUNT(*) AS total_memories, MAX(COALESCE(updated_at, created_at)) AS last_memory_updated_at
         FROM agno_memories WHERE ${where}
        GROUP BY user_id
        ORDER BY last_memory_updated_at DESC, user_id ASC
        ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      owner.params,
    ),
    db.sql.query<{ n: number | bigint }>(`SELECT COUNT(DISTINCT user_id) AS n FROM agno_memories WHERE ${where}`, owner.params),
  ]);
  return {
    stats: rows.map((row) => ({
      user_id: row.user_id,
      total_memories: Number(row.total_memories),
      last_memory_updated_at: Number(row.last_memory_updated_at),
    })),
    totalCount: Number(counts[0]?.n ?? 0),
  };
}
