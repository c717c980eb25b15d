import { jsonTextSql } from "../json.ts";
import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import type { StoredRun } from "./runs.ts";

/** What a runs table shows of a run: its row's columns and a few fields of its data. */
export type RunSummary = Pick<StoredRun, "run_id" | "session_id" | "run_type" | "agent_id" | "team_id" | "workflow_id" | "user_id" | "status" | "created_at" | "updated_at"> & {
  total_tokens: number | null;
  /** Seconds, as the run's metrics record it. */
  duration: number | null;
  /** The start of the run's input (at most 160 characters). */
  input_preview: string | null;
};

export interface ListRunSummariesOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  statuses?: readonly string[];
  /** The agent, team or workflow the run belongs to. */
  agentId?: string;
  /** Only runs of this type (agent, team or workflow). */
  runType?: string;
  /** Epoch seconds, inclusive. */
  createdFrom?: number;
  /** Epoch seconds, exclusive. */
  createdTo?: number;
  order?: "asc" | "desc";
}

const PREVIEW_CHARS = 160;

const num = (value: unknown): number | null => (value === null || value === undefined || value === "" ? null : Number(value));

/**
 * One page of the scope's runs across sessions, newest first by default, with a count capped at
 * COUNT_CAP. Keyset-paginated on (created_at, run_id), which the (user_id, created_at) and
 * (created_at) indexes serve for members and admins alike.
 */
export async function listRunSummaries(db: Db, options: ListRunSummariesOptions): Promise<KeysetPage<RunSummary> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const owner = ownerSql(options.scope);
  const where = [owner.clause];
  const params: unknown[] = [...owner.params];
  if (options.statuses && options.statuses.length > 0) {
    where.push(`status IN (${options.statuses.map(() => "?").join(", ")})`);
    params.push(...options.statuses);
  }
  if (options.agentId) {
    where.push("(agent_id = ? OR team_id = ? OR workflow_id = ?)");
    params.push(options.agentId, options.agentId, options.agentId);
  }
  if (options.runType) {
    where.push("run_type = ?");
    params.push(options.runType);
  }
  if (options.createdFrom !== undefined) {
    where.push("created_at >= ?");
    params.push(options.createdFrom);
  }
  if (options.createdTo !== undefined) {
    where.push("created_at < ?");
    params.push(options.createdTo);
  }
  const seek = keysetQuery(request, { sortColumn: "created_at", idColumn: "run_id", sortKind: "number" });
  const text = (path: string) => jsonTextSql(db.dialect, "run_data", path);
  // An agent's or team's input is `input.input_content`; a workflow's is `input` itself.
  const input = `COALESCE(${text("input.input_content")}, CASE WHEN run_type = 'workflow' THEN ${text("input")} END)`;
  const preview = db.dialect === "postgres" ? `left(${input}, ${PREVIEW_CHARS})` : `substr(${input}, 1, ${PREVIEW_CHARS})`;
  const filter = where.join(" AND ");
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(
      `SELECT run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, status, created_at, updated_at,
              ${text("metrics.total_tokens")} AS total_tokens, ${text("metrics.duration")} AS duration, ${preview} AS input_preview
         FROM agno_runs WHERE ${filter} AND ${seek.clause}
        ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`,
      [...params, ...seek.params],
    ),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_runs", filter, seek.countOrderBy), params),
  ]);
  const summaries = rows.map(
    (row): RunSummary => ({
      run_id: String(row.run_id),
      session_id: String(row.session_id),
      run_type: row.run_type as StoredRun["run_type"],
      agent_id: (row.agent_id as string | null) ?? null,
      team_id: (row.team_id as string | null) ?? null,
      workflow_id: (row.workflow_id as string | null) ?? null,
      user_id: (row.user_id as string | null) ?? null,
      status: (row.status as string | null) ?? null,
      created_at: Number(row.created_at),
      updated_at: num(row.updated_at),
      total_tokens: num(row.total_tokens),
      duration: num(row.duration),
      input_preview: row.input_preview === null || row.input_preview === undefined ? null : String(row.input_preview),
    }),
  );
  return { ...keysetPage(summaries, request, seek, (r) => [r.created_at, r.run_id]), total: cappedCount(counted[0]?.n) };
}
