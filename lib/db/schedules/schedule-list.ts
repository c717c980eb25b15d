import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { toStoredSchedule, toStoredScheduleRun, type StoredSchedule, type StoredScheduleRun } from "./schedules.ts";

/**
 * The dashboard's keyset lists of schedules and of one schedule's runs (the API's page/limit lists
 * stay as Agno has them, in schedules.ts). Both read through the caller's DataScope.
 */

/** The latest schedule run of a schedule, as its list row shows it ("last result"). */
export interface ScheduleLastRun {
  id: string;
  status: string;
  triggered_at: number | null;
  completed_at: number | null;
  run_id: string | null;
  session_id: string | null;
  error: string | null;
}

/** A schedule as a schedules table shows it: the stored schedule and its latest run (null: never fired). */
export type ScheduleListItem = StoredSchedule & { last_run: ScheduleLastRun | null };

export type ScheduleListSort = "created_at" | "name";
export const SCHEDULE_LIST_SORTS: readonly ScheduleListSort[] = ["created_at", "name"];

export interface ListSchedulePageOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  /** Only enabled (true) or disabled (false) schedules; a row with enabled NULL counts as enabled, as Agno reads it. */
  enabled?: boolean;
  /** Case-insensitive substring of the name. */
  search?: string;
  sortBy?: ScheduleListSort;
  order?: "asc" | "desc";
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** `%text%` for a LIKE with `ESCAPE '\'`: the text's own %, _ and \ match themselves. */
const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The id of a schedule's latest run (newest created first, then the highest attempt), as a
 * correlated subquery on `s.id`. NULL created_at counts as 0 so both dialects agree on the order.
 */
const LATEST_RUN_ID = "(SELECT r2.id FROM agno_schedule_runs r2 WHERE r2.schedule_id = s.id ORDER BY COALESCE(r2.created_at, 0) DESC, COALESCE(r2.attempt, 1) DESC, r2.id DESC LIMIT 1)";

/**
 * One page of the scope's schedules (a member's own; an admin's everyone's, or one user's when the
 * scope names one), newest first by default or by name, with a count capped at COUNT_CAP. Each
 * carries its latest run's status and times. Keyset-paginated on (created_at, id) or (name, id);
 * the created_at and name indexes serve the seek.
 */
export async function listSchedulePage(db: Db, options: ListSchedulePageOptions): Promise<KeysetPage<ScheduleListItem> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const sortBy: ScheduleListSort = options.sortBy === "name" ? "name" : "created_at";
  const owner = ownerSql(options.scope, "s.user_id");
  const where = [owner.clause];
  const params: unknown[] = [...owner.params];
  if (options.enabled !== undefined) {
    where.push(options.enabled ? "(s.enabled = ? OR s.enabled IS NULL)" : "s.enabled = ?");
    params.push(options.enabled);
  }
  if (options.search) {
    where.push("LOWER(s.name) LIKE ? ESCAPE '\\'");
    params.push(containsPattern(options.search));
  }
  const seek =
    sortBy === "name"
      ? keysetQuery(request, { sortColumn: "s.name", idColumn: "s.id", sortKind: "string" })
      : keysetQuery(request, { sortColumn: "COALESCE(s.created_at, 0)", idColumn: "s.id", sortKind: "number" });
  const filter = where.join(" AND ");
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(
      `SELECT s.*, r.id AS last_run_row_id, r.status AS last_run_status, r.triggered_at AS last_run_triggered_at, r.completed_at AS last_run_completed_at,
              r.run_id AS last_run_run_id, r.session_id AS last_run_session_id, r.error AS last_run_error
         FROM agno_schedules s LEFT JOIN agno_schedule_runs r ON r.id = ${LATEST_RUN_ID}
        WHERE ${filter} AND ${seek.clause}
        ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`,
      [...params, ...seek.params],
    ),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_schedules s", filter, seek.countOrderBy), params),
  ]);
  const items = rows.map(
    (row): ScheduleListItem => ({
      ...toStoredSchedule(row),
      last_run:
        row.last_run_row_id === null || row.last_run_row_id === undefined
          ? null
          : {
              id: String(row.last_run_row_id),
              status: str(row.last_run_status) ?? "running",
              triggered_at: num(row.last_run_triggered_at),
              completed_at: num(row.last_run_completed_at),
              run_id: str(row.last_run_run_id),
              session_id: str(row.last_run_session_id),
              error: str(row.last_run_error),
            },
    }),
  );
  return { ...keysetPage(items, request, seek, (s) => (sortBy === "name" ? [s.name, s.id] : [s.created_at ?? 0, s.id])), total: cappedCount(counted[0]?.n) };
}

export interface ListScheduleRunPageOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  scheduleId: string;
  order?: "asc" | "desc";
}

/**
 * One page of a schedule's runs in the scope (a run belongs to its schedule's owner), newest first
 * by default, with a count capped at COUNT_CAP. Keyset-paginated on (created_at, id).
 */
export async function listScheduleRunPage(db: Db, options: ListScheduleRunPageOptions): Promise<KeysetPage<StoredScheduleRun> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const owner = ownerSql(options.scope);
  const filter = `schedule_id = ? AND ${owner.clause}`;
  const params: unknown[] = [options.scheduleId, ...owner.params];
  const seek = keysetQuery(request, { sortColumn: "COALESCE(created_at, 0)", idColumn: "id", sortKind: "number" });
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(`SELECT * FROM agno_schedule_runs WHERE ${filter} AND ${seek.clause} ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`, [...params, ...seek.params]),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_schedule_runs", filter, seek.countOrderBy), params),
  ]);
  return { ...keysetPage(rows.map(toStoredScheduleRun), request, seek, (r) => [r.created_at ?? 0, r.id]), total: cappedCount(counted[0]?.n) };
}
