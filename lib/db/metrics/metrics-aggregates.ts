import { parseSessionJson, sessionJsonSql } from "../json.ts";
import type { Db, Dialect } from "../open-database.ts";
import { hasLegacyRunsColumn } from "../sessions/legacy-runs.ts";
import { TOKEN_FIELDS, type TokenField } from "./metrics.ts";

/**
 * The reads the metrics refresh is computed from, each one GROUP BY over a window of UTC days
 * ([from, to) in epoch seconds). Unscoped on purpose: metrics aggregate every user's sessions
 * and runs into per-user rows; only the refresh (lib/metrics) calls these. Days are
 * `created_at / 86400` (days since the epoch), as Agno buckets by the UTC date of `created_at`.
 * Run JSON is read single-encoded (as lib/db writes it); session JSON through sessionJsonSql.
 */

export interface Window {
  /** Epoch seconds, inclusive. */
  from: number;
  /** Epoch seconds, exclusive. */
  to: number;
}

const SESSION_TYPES = "('agent', 'team', 'workflow')";

/** A number at `key` of a JSON object expression, else 0 (Agno sums `session_metrics.get(field, 0)`). */
function numberAt(dialect: Dialect, object: string, key: string, otherwise = "0"): string {
  return dialect === "postgres"
    ? `(CASE WHEN jsonb_typeof(${object} -> '${key}') = 'number' THEN (${object} ->> '${key}')::numeric ELSE ${otherwise} END)`
    : `(CASE WHEN json_type(${object}, '$.${key}') IN ('integer', 'real') THEN json_extract(${object}, '$.${key}') ELSE ${otherwise} END)`;
}

const day = (dialect: Dialect, column: string) => `CAST(${column} / 86400 AS ${dialect === "postgres" ? "BIGINT" : "INTEGER"})`;

export interface SessionDayAggregate {
  day: number;
  /** '' for sessions without a user (the shared bucket). */
  user_id: string;
  session_type: "agent" | "team" | "workflow";
  sessions: number;
  tokens: Record<TokenField, number>;
}

/** Sessions created in the window per (day, user, session type), with their `session_metrics` token fields summed. */
export async function unsafeSessionDayAggregates(db: Db, window: Window): Promise<SessionDayAggregate[]> {
  const d = db.dialect;
  // session_metrics is read once per session (materialized), then each field from it.
  const metrics =
    d === "postgres"
      ? `(CASE WHEN jsonb_typeof(session_data -> 'session_metrics') = 'object' THEN session_data -> 'session_metrics' END)`
      : `(CASE WHEN json_type(${sessionJsonSql(d, "session_data")}, '$.session_metrics') = 'object' THEN json_extract(${sessionJsonSql(d, "session_data")}, '$.session_metrics') END)`;
  const rows = await db.sql.query(
    `WITH s AS MATERIALIZED (
       SELECT created_at, user_id, session_type, ${metrics} AS m FROM agno_sessions
        WHERE created_at >= ? AND created_at < ? AND session_type IN ${SESSION_TYPES})
     SELECT ${day(d, "created_at")} AS day, COALESCE(user_id, '') AS user_id, session_type, COUNT(*) AS sessions,
            ${TOKEN_FIELDS.map((f) => `SUM(${numberAt(d, "m", f)}) AS ${f}`).join(", ")}
       FROM s GROUP BY 1, 2, 3`,
    [window.from, window.to],
  );
  return rows.map((row) => ({
    day: Number(row.day),
    user_id: String(row.user_id ?? ""),
    session_type: row.session_type as SessionDayAggregate["session_type"],
    sessions: Number(row.sessions),
    tokens: Object.fromEntries(TOKEN_FIELDS.map((f) => [f, Number(row[f] ?? 0)])) as Record<TokenField, number>,
  }));
}

export interface SessionRunAggregate {
  /** The day its session was created. */
  day: number;
  user_id: string;
  session_type: "agent" | "team" | "workflow";
  /** run_data.model / model_provider as text (null when absent). */
  model: string | null;
  provider: string | null;
  runs: number;
}

/**
 * The runs (every agno_runs row, member runs included, whatever their status: what Agno v3
 * counts) of sessions created in the window, per (session day, user, session type, model, provider).
 */
export async function unsafeSessionRunAggregates(db: Db, window: Window): Promise<SessionRunAggregate[]> {
  const d = db.dialect;
  const text = (key: string) => (d === "postgres" ? `r.run_data ->> '${key}'` : `json_extract(r.run_data, '$.${key}')`);
  const rows = await db.sql.query(
    `SELECT ${day(d, "s.created_at")} AS day, COALESCE(s.user_id, '') AS user_id, s.session_type,
            ${text("model")} AS model, ${text("model_provider")} AS provider, COUNT(*) AS runs
       FROM agno_sessions s JOIN agno_runs r ON r.session_id = s.session_id
      WHERE s.created_at >= ? AND s.created_at < ? AND s.session_type IN ${SESSION_TYPES}
      GROUP BY 1, 2, 3, 4, 5`,
    [window.from, window.to],
  );
  return rows.map((row) => ({
    day: Number(row.day),
    user_id: String(row.user_id ?? ""),
    session_type: row.session_type as SessionRunAggregate["session_type"],
    model: row.model === null || row.model === undefined ? null : String(row.model),
    provider: row.provider === null || row.provider === undefined ? null : String(row.provider),
    runs: Number(row.runs),
  }));
}

export interface LegacyBlobSession {
  day: number;
  user_id: string;
  session_type: "agent" | "team" | "workflow";
  /** The blob's run dicts, in order. */
  runs: Record<string, unknown>[];
}

/**
 * Sessions created in the window with no agno_runs row but runs in the pre-v3 `runs` blob (not
 * migrated yet): Agno counts the blob's runs for them. Empty when the column is gone.
 */
export async function unsafeLegacyBlobSessions(db: Db, window: Window): Promise<LegacyBlobSession[]> {
  if (!(await hasLegacyRunsColumn(db))) return [];
  const rows = await db.sql.query(
    `SELECT s.created_at, COALESCE(s.user_id, '') AS user_id, s.session_type, s.runs FROM agno_sessions s
      WHERE s.created_at >= ? AND s.created_at < ? AND s.session_type IN ${SESSION_TYPES} AND s.runs IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM agno_runs r WHERE r.session_id = s.session_id)`,
    [window.from, window.to],
  );
  const sessions: LegacyBlobSession[] = [];
  for (const row of rows) {
    const runs = parseSessionJson(row.runs);
    if (!Array.isArray(runs) || runs.length === 0) continue;
    sessions.push({
      day: Math.floor(Number(row.created_at) / 86400),
      user_id: String(row.user_id ?? ""),
      session_type: row.session_type as LegacyBlobSession["session_type"],
      runs: runs.filter((r): r is Record<string, unknown> => !!r && typeof r === "object" && !Array.isArray(r)),
    });
  }
  return sessions;
}

export interface RunCostAggregate {
  /** The day the run was created. */
  day: number;
  user_id: string;
  run_type: string;
  component_id: string | null;
  model: string | null;
  provider: string | null;
  runs: number;
  priced_runs: number;
  /** USD summed over the priced runs (0 when none). */
  cost: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
}

const COST_TOKENS = ["input_tokens", "output_tokens", "total_tokens", "cache_read_tokens"] as const;

/**
 * Runs created in the window per (run day, owner, run type, component, model, provider): their
 * count, their metrics' token sums, and the cost stored with them (`run_data.metrics.cost`, a
 * number; runs without one count as unpriced). Each run's JSON is read once: on PostgreSQL
 * through jsonb_to_record (one detoast of a large run_data), on SQLite through one json_extract.
 */
export async function unsafeRunCostAggregates(db: Db, window: Window): Promise<RunCostAggregate[]> {
  const d = db.dialect;
  const component = "CASE r.run_type WHEN 'team' THEN r.team_id WHEN 'workflow' THEN r.workflow_id ELSE r.agent_id END";
  const from =
    d === "postgres"
      ? `FROM agno_runs r CROSS JOIN LATERAL jsonb_to_record(r.run_data) AS x(model text, model_provider text, metrics jsonb)`
      : `FROM (SELECT r.*, json_extract(r.run_data, '$.model') AS model, json_extract(r.run_data, '$.model_provider') AS model_provider,
                      (CASE WHEN json_type(r.run_data, '$.metrics') = 'object' THEN json_extract(r.run_data, '$.metrics') END) AS metrics
                 FROM agno_runs r WHERE r.created_at >= ? AND r.created_at < ?) r`;
  const m = d === "postgres" ? "x.metrics" : "r.metrics";
  const cost = numberAt(d, m, "cost", "NULL");
  const rows = await db.sql.query(
    `SELECT ${day(d, "r.created_at")} AS day, COALESCE(r.user_id, '') AS user_id, r.run_type, ${component} AS component_id,
            ${d === "postgres" ? "x.model" : "r.model"} AS model, ${d === "postgres" ? "x.model_provider" : "r.model_provider"} AS provider,
            COUNT(*) AS runs, COUNT(${cost}) AS priced_runs, COALESCE(SUM(${cost}), 0) AS cost,
            ${COST_TOKENS.map((f) => `SUM(${numberAt(d, m, f)}) AS ${f}`).join(", ")}
       ${from}
      ${d === "postgres" ? "WHERE r.created_at >= ? AND r.created_at < ?" : ""}
      GROUP BY 1, 2, 3, 4, 5, 6`,
    [window.from, window.to],
  );
  return rows.map((row) => ({
    day: Number(row.day),
    user_id: String(row.user_id ?? ""),
    run_type: String(row.run_type ?? "agent"),
    component_id: row.component_id === null || row.component_id === undefined ? null : String(row.component_id),
    model: row.model === null || row.model === undefined ? null : String(row.model),
    provider: row.provider === null || row.provider === undefined ? null : String(row.provider),
    runs: Number(row.runs),
    priced_runs: Number(row.priced_runs),
    cost: Number(row.cost ?? 0),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    total_tokens: Number(row.total_tokens ?? 0),
    cache_read_tokens: Number(row.cache_read_tokens ?? 0),
  }));
}

/**
 * Where an incremental refresh resumes, as Agno decides it: the newest completed day, and the
 * earliest incomplete day after it (YYYY-MM-DD, or null).
 */
export async function unsafeMetricsResumePoint(db: Db): Promise<{ latestCompleted: string | null; earliestIncomplete: string | null }> {
  const [completed] = await db.sql.query<{ d: unknown }>(`SELECT MAX(date) AS d FROM agno_metrics WHERE completed = ?`, [true]);
  const latestCompleted = completed?.d === null || completed?.d === undefined ? null : String(completed.d).slice(0, 10);
  const [incomplete] = await db.sql.query<{ d: unknown }>(
    `SELECT MIN(date) AS d FROM agno_metrics WHERE completed = ?${latestCompleted ? " AND date > ?" : ""}`,
    latestCompleted ? [false, latestCompleted] : [false],
  );
  return { latestCompleted, earliestIncomplete: incomplete?.d === null || incomplete?.d === undefined ? null : String(incomplete.d).slice(0, 10) };
}

/** The created_at of the first session (epoch seconds), or null with none. */
export async function unsafeFirstSessionAt(db: Db): Promise<number | null> {
  const [row] = await db.sql.query<{ at: unknown }>(`SELECT MIN(created_at) AS at FROM agno_sessions`);
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
