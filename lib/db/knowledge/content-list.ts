import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";
import { CONTENT_COLUMNS_SQL, contentVisibleSql, REPORTED_STATUS_SQL, staleBefore as staleTime, toStoredContent, type ContentStatus, type StoredContent } from "./contents.ts";

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

/**
 * One page of a knowledge base's contents the scope sees (a member's own and the shared ones; an
 * admin's everyone's, or one user's and the shared ones), newest first by default or by name,
 * optionally only those in one status, with a count capped at COUNT_CAP. Keyset-paginated on
 * (created_at, id) or (name, id).
 */
export async function listContentPage(db: Db, options: ListContentPageOptions): Promise<KeysetPage<StoredContent> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const sortBy: ContentListSort = options.sortBy === "name" ? "name" : "created_at";
  const staleBefore = staleTime();
  const visible = contentVisibleSql(options.scope);
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
      `SELECT ${CONTENT_COLUMNS_SQL}
         FROM agno_knowledge k WHERE ${filter} AND ${seek.clause}
        ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`,
      [staleBefore, staleBefore, ...params, ...seek.params],
    ),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_knowledge k", filter, seek.countOrderBy), params),
  ]);
  const contents = rows.map(toStoredContent);
  return { ...keysetPage(contents, request, seek, (c) => (sortBy === "name" ? [c.name, c.id] : [c.created_at ?? 0, c.id])), total: cappedCount(counted[0]?.n) };
}
