import { sessionJsonTextSql } from "../json.ts";
import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";

/** What a sessions table shows of a session. */
export interface SessionSummary {
  session_id: string;
  session_type: string;
  /** The agent, team or workflow the session belongs to. */
  component_id: string | null;
  session_name: string | null;
  user_id: string | null;
  run_count: number;
  total_tokens: number | null;
  created_at: number;
  updated_at: number;
}

export type SessionSummarySort = "updated_at" | "created_at";

export interface ListSessionSummariesOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  /** agent_id, team_id or workflow_id. */
  componentId?: string;
  /** Only sessions of this type (agent, team or workflow). */
  sessionType?: string;
  /** Case-insensitive substring of the session's name. */
  name?: string;
  sortBy?: SessionSummarySort;
  order?: "asc" | "desc";
}

/**
 * One page of the scope's sessions, most recently updated first by default, each with its run
 * count (one probe of the (session_id, run_index) key per row) and a count capped at COUNT_CAP.
 * Sessions with no updated_at (Agno rows) are given their created_at by the 3.0.0 migration.
 */
export async function listSessionSummaries(db: Db, options: ListSessionSummariesOptions): Promise<KeysetPage<SessionSummary> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const sortBy: SessionSummarySort = options.sortBy === "created_at" ? "created_at" : "updated_at";
  const owner = ownerSql(options.scope, "s.user_id");
  const where = [owner.clause];
  const params: unknown[] = [...owner.params];
  if (options.componentId) {
    where.push("(s.agent_id = ? OR s.team_id = ? OR s.workflow_id = ?)");
    params.push(options.componentId, options.componentId, options.componentId);
  }
  if (options.sessionType) {
    where.push("s.session_type = ?");
    params.push(options.sessionType);
  }
  const name = sessionJsonTextSql(db.dialect, "s.session_data", "session_name");
  if (options.name) {
    where.push(`LOWER(${name}) LIKE ? ESCAPE '\\'`);
    params.push(`%${options.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const seek = keysetQuery(request, { sortColumn: `s.${sortBy}`, idColumn: "s.session_id", sortKind: "number" });
  const filter = where.join(" AND ");
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(
      `SELECT s.session_id, s.session_type, COALESCE(s.agent_id, s.team_id, s.workflow_id) AS component_id, ${name} AS session_name,
              s.user_id, s.created_at, s.updated_at, ${sessionJsonTextSql(db.dialect, "s.session_data", "session_metrics.total_tokens")} AS total_tokens,
              (SELECT COUNT(*) FROM agno_runs r WHERE r.session_id = s.session_id) AS run_count
         FROM agno_sessions s WHERE ${filter} AND ${seek.clause}
        ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`,
      [...params, ...seek.params],
    ),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_sessions s", filter, seek.countOrderBy), params),
  ]);
  const summaries = rows.map(
    (row): SessionSummary => ({
      session_id: String(row.session_id),
      session_type: String(row.session_type),
      component_id: (row.component_id as string | null) ?? null,
      session_name: (row.session_name as string | null) ?? null,
      user_id: (row.user_id as string | null) ?? null,
      run_count: Number(row.run_count ?? 0),
      total_tokens: row.total_tokens === null || row.total_tokens === undefined ? null : Number(row.total_tokens),
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at ?? row.created_at),
    }),
  );
  return { ...keysetPage(summaries, request, seek, (s) => [s[sortBy], s.session_id]), total: cappedCount(counted[0]?.n) };
}
