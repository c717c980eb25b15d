import { parseJson } from "../json.ts";
import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { anyTopicSql, topicsOf } from "./topics-sql.ts";

/** What a memories table shows of a memory. */
export interface MemoryListItem {
  memory_id: string;
  /** The memory as text: Agno stores a JSON string; any other JSON value is shown as its JSON. */
  memory: string;
  topics: string[];
  agent_id: string | null;
  team_id: string | null;
  user_id: string | null;
  created_at: number;
  /** A memory never updated (an Agno row without updated_at) counts as updated when created. */
  updated_at: number;
}

export type MemoryListSort = "updated_at" | "created_at";

export interface ListMemoryPageOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  /** Memories having any of these topics. */
  topics?: readonly string[];
  /** Case-insensitive substring of the memory's text. */
  search?: string;
  sortBy?: MemoryListSort;
  order?: "asc" | "desc";
}

/**
 * The memory column as the text a person reads: a JSON string unquoted and unescaped, any other
 * JSON value as its JSON text, and (SQLite files Agno wrote) text that is not JSON as it is.
 */
function memoryTextSql(dialect: Db["dialect"]): string {
  return dialect === "postgres" ? "(memory #>> '{}')" : "(CASE WHEN json_valid(memory) THEN CAST(json_extract(memory, '$') AS TEXT) ELSE memory END)";
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/**
 * One page of the scope's memories, most recently updated first by default, with a count capped
 * at COUNT_CAP. Keyset-paginated on (sort time, memory_id). Sorting by updated_at seeks on
 * COALESCE(updated_at, created_at) so Agno rows without updated_at are listed too, not skipped.
 */
export async function listMemoryPage(db: Db, options: ListMemoryPageOptions): Promise<KeysetPage<MemoryListItem> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const sortBy: MemoryListSort = options.sortBy === "created_at" ? "created_at" : "updated_at";
  const owner = ownerSql(options.scope);
  const where = [owner.clause];
  const params: unknown[] = [...owner.params];
  if (options.topics && options.topics.length > 0) {
    where.push(anyTopicSql(db.dialect, options.topics));
    params.push(...options.topics);
  }
  const memoryText = memoryTextSql(db.dialect);
  if (options.search) {
    where.push(`LOWER(${memoryText}) LIKE ? ESCAPE '\\'`);
    params.push(`%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const sortColumn = sortBy === "created_at" ? "created_at" : "COALESCE(updated_at, created_at)";
  const seek = keysetQuery(request, { sortColumn, idColumn: "memory_id", sortKind: "number" });
  const filter = where.join(" AND ");
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(
      `SELECT memory_id, ${memoryText} AS memory_text, topics, agent_id, team_id, user_id, created_at, updated_at
         FROM agno_memories WHERE ${filter} AND ${seek.clause}
        ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`,
      [...params, ...seek.params],
    ),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_memories", filter, seek.countOrderBy), params),
  ]);
  const items = rows.map((row): MemoryListItem => {
    const createdAt = Number(row.created_at);
    return {
      memory_id: String(row.memory_id),
      memory: text(row.memory_text) ?? "",
      topics: topicsOf(parseJson(row.topics)),
      agent_id: text(row.agent_id),
      team_id: text(row.team_id),
      user_id: text(row.user_id),
      created_at: createdAt,
      updated_at: row.updated_at === null || row.updated_at === undefined ? createdAt : Number(row.updated_at),
    };
  });
  return { ...keysetPage(items, request, seek, (m) => [m[sortBy], m.memory_id]), total: cappedCount(counted[0]?.n) };
}
