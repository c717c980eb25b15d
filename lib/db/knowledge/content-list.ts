import { parseJson } from "../json.ts";
import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";
import { CONTENT_STATUSES, KNOWLEDGE_JOB_TYPE, STALE_CONTENT_SECONDS, type ContentStatus, type StoredContent } from "./contents.ts";

/**
 * The dashboard's read of a knowledge base's contents (the API's page/limit list stays as Agno
 * has it, in contents.ts): a keyset list filtered by status and read through the caller's
 * DataScope, each row's status reported as contents.ts reports it (a processing content nothing
 * works on any more reads failed).
 */

export type ContentListSort = "created_at" | "name";
export const CONTENT_LIST_SORTS: readonly ContentListSort[] = ["created_at", "name"];

export interface ListContentPageOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  /** The knowledge base's name (the rows' `linked_to`). */
  linkedTo: string;
  /** Contents whose reported status is this one. */
  status?: ContentStatus;
  sortBy?: ContentListSort;
  order?: "asc" | "desc";
}

/** The message a content interrupted in processing reads (as contents.ts words it). */
const INTERRUPTED_MESSAGE = "Processing was interrupted (the server processing it stopped); upload the content again.";

/** True when a processing content has no queued or running job and its job ended or its row went stale (one `?`: the stale time). */
const INTERRUPTED_SQL = `(k.status = 'processing'
    AND NOT EXISTS (SELECT 1 FROM agno_jobs j WHERE j.component_type = '${KNOWLEDGE_JOB_TYPE}' AND j.component_id = k.id AND j.status IN ('queued', 'running'))
    AND (coalesce(k.updated_at, k.created_at, 0) < ?
      OR EXISTS (SELECT 1 FROM agno_jobs j WHERE j.component_type = '${KNOWLEDGE_JOB_TYPE}' AND j.component_id = k.id AND j.status IN ('failed', 'cancelled'))))`;

/** The status a read reports, one of CONTENT_STATUSES (one `?`: the stale time). Agno's rows may spell theirs in other cases. */
const REPORTED_STATUS_SQL = `(CASE WHEN ${INTERRUPTED_SQL} THEN 'failed'
    WHEN lower(coalesce(k.status, '')) LIKE '%fail%' THEN 'failed'
    WHEN lower(coalesce(k.status, '')) LIKE '%complet%' THEN 'completed'
    ELSE 'processing' END)`;

/** The rows a scope sees: a member its own and the shared ones; an admin everyone's (or one user's and the shared ones). */
function visibleSql(scope: DataScope): { clause: string; params: unknown[] } {
  const userId = scope.userId;
  if (scope.kind === "admin" && userId === undefined) return { clause: "1=1", params: [] };
  if (userId === null || userId === undefined) return { clause: "k.user_id IS NULL", params: [] };
  return { clause: "(k.user_id = ? OR k.user_id IS NULL)", params: [userId] };
}

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function toContent(row: Record<string, unknown>): StoredContent {
  const metadata = parseJson(row.metadata);
  const interrupted = Number(row.interrupted) === 1 || row.interrupted === true;
  const status = (CONTENT_STATUSES as readonly string[]).includes(String(row.reported_status)) ? (row.reported_status as ContentStatus) : "processing";
  return {
    id: String(row.id),
    user_id: (row.user_id as string | null) ?? null,
    name: String(row.name ?? ""),
    description: String(row.description ?? ""),
    metadata: metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : null,
    type: (row.type as string | null) ?? null,
    size: numberOrNull(row.size),
    linked_to: (row.linked_to as string | null) ?? null,
    access_count: numberOrNull(row.access_count),
    status,
    status_message: interrupted ? INTERRUPTED_MESSAGE : ((row.status_message as string | null) ?? null),
    created_at: numberOrNull(row.created_at),
    updated_at: numberOrNull(row.updated_at),
    external_id: (row.external_id as string | null) ?? null,
  };
}

/**
 * One page of a knowledge base's contents the scope sees (a member's own and the shared ones; an
 * admin's everyone's, or one user's and the shared ones), newest first by default or by name,
 * optionally only those in one status, with a count capped at COUNT_CAP. Keyset-paginated on
 * (created_at, id) or (name, id).
 */
export async function listContentPage(db: Db, options: ListContentPageOptions): Promise<KeysetPage<StoredContent> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const sortBy: ContentListSort = options.sortBy === "name" ? "name" : "created_at";
  const staleBefore = Math.floor(Date.now() / 1000) - STALE_CONTENT_SECONDS;
  const visible = visibleSql(options.scope);
  const where = ["k.linked_to = ?", visible.clause];
  const params: unknown[] = [options.linkedTo, ...visible.params];
  if (options.status) {
    where.push(`${REPORTED_STATUS_SQL} = ?`);
    params.push(staleBefore, options.status);
  }
  const seek =
    sortBy === "name"
      ? keysetQuery(request, { sortColumn: "COALESCE(k.name, '')", idColumn: "k.id", sortKind: "string" })
      : keysetQuery(request, { sortColumn: "COALESCE(k.created_at, 0)", idColumn: "k.id", sortKind: "number" });
  const filter = where.join(" AND ");
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(
      `SELECT k.id, k.user_id, k.name, k.description, k.metadata, k.type, k.size, k.linked_to, k.access_count, k.status_message, k.created_at, k.updated_at, k.external_id,
              ${REPORTED_STATUS_SQL} AS reported_status, CASE WHEN ${INTERRUPTED_SQL} THEN 1 ELSE 0 END AS interrupted
         FROM agno_knowledge k WHERE ${filter} AND ${seek.clause}
        ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`,
      [staleBefore, staleBefore, ...params, ...seek.params],
    ),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_knowledge k", filter, seek.countOrderBy), params),
  ]);
  const contents = rows.map(toContent);
  return { ...keysetPage(contents, request, seek, (c) => (sortBy === "name" ? [c.name, c.id] : [c.created_at ?? 0, c.id])), total: cappedCount(counted[0]?.n) };
}
