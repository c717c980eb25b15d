import { randomUUID } from "node:crypto";
import { ConflictError } from "../../errors/domain-errors.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow, type PageRequest } from "../pagination.ts";
import { ownerForWrite, ownerSql, ownerWhere, unsafeSystemScope, type DataScope } from "../scope.ts";
import { anyTopicSql, topicsOf } from "./topics-sql.ts";

export interface StoredMemory {
  memory_id: string;
  memory: unknown;
  topics: string[];
  agent_id: string | null;
  team_id: string | null;
  user_id: string | null;
  input: string | null;
  feedback: string | null;
  created_at: number;
  updated_at: number | null;
}

export interface MemoryInput {
  memoryId?: string;
  memory: unknown;
  topics?: string[];
  agentId?: string | null;
  teamId?: string | null;
  input?: string | null;
  feedback?: string | null;
  /** Admins only: whose memory this is. */
  userId?: string | null;
}

type MemoryRow = Omit<StoredMemory, "topics" | "created_at" | "updated_at"> & {
  topics: unknown;
  created_at: bigint | number;
  updated_at: bigint | number | null;
};

function toStoredMemory(row: MemoryRow): StoredMemory {
  return {
    ...row,
    topics: topicsOf(row.topics),
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
  };
}

/** Creates or replaces a memory. A non-admin cannot overwrite another user's memory (ConflictError). */
export async function upsertMemory(db: Db, { scope, memory }: { scope: DataScope; memory: MemoryInput }): Promise<StoredMemory> {
  const owner = ownerForWrite(scope, memory.userId);
  const id = memory.memoryId ?? randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const guard = scope.kind === "user" ? "WHERE agno_memories.user_id IS NOT DISTINCT FROM excluded.user_id" : "";
  const rows = await db.sql.query(
    `INSERT INTO agno_memories (memory_id, memory, topics, agent_id, team_id, user_id, input, feedback, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (memory_id) DO UPDATE SET memory = excluded.memory, topics = excluded.topics, agent_id = excluded.agent_id,
       team_id = excluded.team_id, input = excluded.input, feedback = excluded.feedback, updated_at = excluded.updated_at
     ${guard}
     RETURNING memory_id`,
    [id, JSON.stringify(memory.memory), memory.topics ?? [], memory.agentId ?? null, memory.teamId ?? null, owner, memory.input ?? null, memory.feedback ?? null, now, now],
  );
  if (rows.length === 0) throw new ConflictError(`Memory ${id} belongs to another user`);
  return (await getMemory(db, { scope: unsafeSystemScope("the row this scoped write just wrote"), memoryId: id }))!;
}

export async function getMemory(db: Db, { scope, memoryId }: { scope: DataScope; memoryId: string }): Promise<StoredMemory | null> {
  const row = await db.prisma.memory.findFirst({ where: { memory_id: memoryId, ...ownerWhere(scope) } });
  return row ? toStoredMemory(row as MemoryRow) : null;
}

export interface ListMemoriesOptions extends PageRequest {
  scope: DataScope;
  agentId?: string;
  teamId?: string;
  /** Memories having any of these topics. */
  topics?: string[];
  /** Case-insensitive substring of the memory text. */
  searchContent?: string;
  sortBy?: "updated_at" | "created_at";
  sortOrder?: "asc" | "desc";
}

export async function listMemories(db: Db, options: ListMemoriesOptions): Promise<{ memories: StoredMemory[]; totalCount: number }> {
  const { take, skip } = pageWindow(options);
  const where: string[] = [];
  const params: unknown[] = [];
  const owner = ownerSql(options.scope);
  where.push(owner.clause);
  params.push(...owner.params);
  if (options.agentId) where.push("agent_id = ?"), params.push(options.agentId);
  if (options.teamId) where.push("team_id = ?"), params.push(options.teamId);
  if (options.topics?.length) {
    // Agno writes a memory without topics as JSON null: such a row (or any non-array) has none.
    where.push(anyTopicSql(db.dialect, options.topics));
    params.push(...options.topics);
  }
  if (options.searchContent) {
    where.push(`LOWER(CAST(memory AS TEXT)) LIKE ? ESCAPE '\\'`);
    params.push(`%${options.searchContent.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const whereSql = where.join(" AND ");
  const sortBy = options.sortBy ?? "updated_at";
  const order = options.sortOrder === "asc" ? "ASC" : "DESC";
  const [rows, counts] = await Promise.all([
    db.sql.query<MemoryRow & Record<string, unknown>>(
      `SELECT memory_id, memory, topics, agent_id, team_id, user_id, input, feedback, created_at, updated_at
         FROM agno_memories WHERE ${whereSql} ORDER BY ${sortBy} ${order}, memory_id ${order}
        ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      params,
    ),
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_memories WHERE ${whereSql}`, params),
  ]);
  return {
    memories: rows.map((row) => toStoredMemory({ ...row, memory: parseJson(row.memory), topics: parseJson(row.topics) })),
    totalCount: Number(counts[0]?.n ?? 0),
  };
}

/**
 * Changes an existing memory's text and topics in one scoped UPDATE; its owner, origin and
 * creation time stay. Returns whether it applied: false when it does not exist for this scope
 * (another user's, or deleted meanwhile — an edit never brings a deleted memory back).
 */
export async function updateMemoryContent(db: Db, { scope, memoryId, memory, topics }: { scope: DataScope; memoryId: string; memory: unknown; topics: string[] }): Promise<boolean> {
  const owner = ownerSql(scope);
  const changed = await db.sql.exec(`UPDATE agno_memories SET memory = ?, topics = ?, updated_at = ? WHERE memory_id = ? AND ${owner.clause}`, [
    JSON.stringify(memory),
    topics,
    Math.floor(Date.now() / 1000),
    memoryId,
    ...owner.params,
  ]);
  return changed === 1;
}

/** Deletes memories within the scope; returns how many went. */
export async function deleteMemories(db: Db, { scope, memoryIds }: { scope: DataScope; memoryIds: string[] }): Promise<number> {
  const result = await db.prisma.memory.deleteMany({ where: { memory_id: { in: memoryIds }, ...ownerWhere(scope) } });
  return result.count;
}

/** Deletes every memory `userId` owns, within the scope (a user scope reaches only its own); how many went. */
export async function deleteUserMemories(db: Db, { scope, userId }: { scope: DataScope; userId: string }): Promise<number> {
  const result = await db.prisma.memory.deleteMany({ where: { AND: [{ user_id: userId }, ownerWhere(scope)] } });
  return result.count;
}
