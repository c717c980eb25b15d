import { ConflictError } from "../../errors/domain-errors.ts";
import { parseJson, parseSessionJson, sessionJsonTextSql } from "../json.ts";
import type { Db } from "../open-database.ts";
import { withSessionVersion } from "./session-data.ts";
import { pageWindow, type PageRequest } from "../pagination.ts";
import { toStoredRun, type StoredRun } from "../runs/runs.ts";
import { ownerForWrite, ownerSql, type DataScope } from "../scope.ts";
import { traceDeleteStatements } from "../traces/traces.ts";
import { readLegacyRuns } from "./legacy-runs.ts";

export type SessionType = "agent" | "team" | "workflow";

/** A stored session row (without its runs). */
export interface StoredSession {
  session_id: string;
  session_type: SessionType;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  user_id: string | null;
  session_data: Record<string, unknown> | null;
  agent_data: Record<string, unknown> | null;
  team_data: Record<string, unknown> | null;
  workflow_data: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  summary: Record<string, unknown> | null;
  created_at: number;
  updated_at: number | null;
}

/** A session with `runs` populated from agno_runs merged with any legacy blob (the row wins). */
export interface SessionWithRuns extends StoredSession {
  runs: Record<string, unknown>[];
}

export interface SessionInput {
  sessionId: string;
  sessionType: SessionType;
  agentId?: string | null;
  teamId?: string | null;
  workflowId?: string | null;
  sessionData?: Record<string, unknown> | null;
  agentData?: Record<string, unknown> | null;
  teamData?: Record<string, unknown> | null;
  workflowData?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  summary?: Record<string, unknown> | null;
  /** Admins only: the owner of a new session. */
  userId?: string | null;
  createdAt?: number;
}

type SessionRow = Omit<StoredSession, "created_at" | "updated_at" | "session_type"> & {
  session_type: string;
  created_at: bigint | number;
  updated_at: bigint | number | null;
};

const asObject = (value: unknown) => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

/** The session columns every read selects (the legacy `runs` blob is read separately). */
const SESSION_COLUMNS = `session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, agent_data, team_data,
              workflow_data, metadata, summary, created_at, updated_at`;

/** A raw row (JSON as text on SQLite, single- or double-encoded) as a StoredSession. */
function fromRawRow(row: Record<string, unknown>): StoredSession {
  const session = toStoredSession({
    ...(row as SessionRow),
    session_data: parseSessionJson(row.session_data),
    agent_data: parseSessionJson(row.agent_data),
    team_data: parseSessionJson(row.team_data),
    workflow_data: parseSessionJson(row.workflow_data),
    metadata: parseSessionJson(row.metadata),
    summary: parseSessionJson(row.summary),
  } as SessionRow);
  // A run's end updates the session with a compare-and-set against this read (addSessionMetrics).
  return withSessionVersion(session, { sessionData: row.session_data ?? null, updatedAt: (row.updated_at as number | null) ?? null });
}

function toStoredSession(row: SessionRow): StoredSession {
  return {
    session_id: row.session_id,
    session_type: row.session_type as SessionType,
    agent_id: row.agent_id,
    team_id: row.team_id,
    workflow_id: row.workflow_id,
    user_id: row.user_id,
    session_data: asObject(row.session_data),
    agent_data: asObject(row.agent_data),
    team_data: asObject(row.team_data),
    workflow_data: asObject(row.workflow_data),
    metadata: asObject(row.metadata),
    summary: asObject(row.summary),
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
  };
}

/** The INSERT head shared by every session write; its values come from sessionInsertValues. */
export const SESSION_INSERT = `INSERT INTO agno_sessions
       (session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, agent_data, team_data,
        workflow_data, metadata, summary, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The values for SESSION_INSERT: the owner comes from the scope, never from the request alone. */
export function sessionInsertValues(scope: DataScope, session: SessionInput): unknown[] {
  const now = Math.floor(Date.now() / 1000);
  return [
    session.sessionId,
    session.sessionType,
    session.agentId ?? null,
    session.teamId ?? null,
    session.workflowId ?? null,
    ownerForWrite(scope, session.userId),
    session.sessionData ?? null,
    session.agentData ?? null,
    session.teamData ?? null,
    session.workflowData ?? null,
    session.metadata ?? null,
    session.summary ?? null,
    session.createdAt ?? now,
    now,
  ];
}

/**
 * Creates or updates a session row — never its runs (those are rows of their own). A non-admin
 * cannot overwrite a session that belongs to someone else: ConflictError, and nothing changes.
 */
export async function upsertSession(db: Db, { scope, session }: { scope: DataScope; session: SessionInput }): Promise<StoredSession> {
  const guard = scope.kind === "user" ? "WHERE agno_sessions.user_id IS NOT DISTINCT FROM excluded.user_id" : "";
  const rows = await db.sql.query(
    `${SESSION_INSERT}
     ON CONFLICT (session_id) DO UPDATE SET
       session_type = excluded.session_type, agent_id = excluded.agent_id, team_id = excluded.team_id,
       workflow_id = excluded.workflow_id, session_data = excluded.session_data, agent_data = excluded.agent_data,
       team_data = excluded.team_data, workflow_data = excluded.workflow_data, metadata = excluded.metadata,
       summary = excluded.summary, updated_at = excluded.updated_at
     ${guard}
     RETURNING ${SESSION_COLUMNS}`,
    sessionInsertValues(scope, session),
  );
  if (rows.length === 0) throw new ConflictError(`Session ${session.sessionId} belongs to another user`);
  return fromRawRow(rows[0]);
}

/** One session row without its runs, or null when it does not exist for this scope (or type). */
export async function getSessionRow(db: Db, { scope, sessionId, sessionType }: { scope: DataScope; sessionId: string; sessionType?: SessionType }) {
  // Raw SQL on this hot path (every run reads its session): one indexed lookup, no query planning.
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${SESSION_COLUMNS} FROM agno_sessions WHERE session_id = ?${sessionType ? " AND session_type = ?" : ""} AND ${owner.clause}`, [
    sessionId,
    ...(sessionType ? [sessionType] : []),
    ...owner.params,
  ]);
  return row ? fromRawRow(row) : null;
}

/**
 * One session with its runs, or null when it does not exist for this scope. Runs come from
 * agno_runs merged with any legacy blob by run_id (the row wins), in run_index order, so sessions
 * that were never migrated keep working.
 */
export async function getSession(db: Db, options: { scope: DataScope; sessionId: string; sessionType?: SessionType }): Promise<SessionWithRuns | null> {
  const session = await getSessionRow(db, options);
  if (!session) return null;
  const [rows, legacy] = await Promise.all([
    db.sql.query<Parameters<typeof toStoredRun>[0] & Record<string, unknown>>(
      `SELECT run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at
         FROM agno_runs WHERE session_id = ? ORDER BY run_index`,
      [session.session_id],
    ),
    readLegacyRuns(db, session.session_id),
  ]);
  return {
    ...session,
    runs: mergeRuns(
      legacy,
      rows.map((row) => toStoredRun({ ...row, run_data: parseJson(row.run_data) })),
    ),
  };
}

/** Legacy blob runs (position = index) overlaid by stored rows with the same run_id. */
export function mergeRuns(legacy: Record<string, unknown>[], rows: StoredRun[]): Record<string, unknown>[] {
  const byId = new Map<string, { index: number; order: number; run: Record<string, unknown> }>();
  legacy.forEach((run, position) => {
    const id = String(run.run_id ?? `legacy-${position}`);
    byId.set(id, { index: position, order: 0, run });
  });
  for (const row of rows) byId.set(row.run_id, { index: row.run_index, order: 1, run: row.run_data });
  return [...byId.values()].sort((a, b) => a.index - b.index || a.order - b.order).map((entry) => entry.run);
}

export type SessionSortField = "created_at" | "updated_at" | "session_id";

export interface ListSessionsOptions extends PageRequest {
  scope: DataScope;
  sessionType?: SessionType;
  /** agent_id, team_id or workflow_id, per `sessionType` (any of them when no type is given). */
  componentId?: string;
  /** Case-insensitive substring of session_data.session_name. */
  sessionName?: string;
  sortBy?: SessionSortField;
  sortOrder?: "asc" | "desc";
}

/** Sessions for this scope, one page, with the total count for pagination. */
export async function listSessions(db: Db, options: ListSessionsOptions): Promise<{ sessions: StoredSession[]; totalCount: number }> {
  const { take, skip } = pageWindow(options);
  const where: string[] = [];
  const params: unknown[] = [];
  const owner = ownerSql(options.scope);
  where.push(owner.clause);
  params.push(...owner.params);
  if (options.sessionType) {
    where.push("session_type = ?");
    params.push(options.sessionType);
  }
  if (options.componentId) {
    const column = options.sessionType ? `${options.sessionType}_id` : null;
    if (column) {
      where.push(`${column} = ?`);
      params.push(options.componentId);
    } else {
      where.push("(agent_id = ? OR team_id = ? OR workflow_id = ?)");
      params.push(options.componentId, options.componentId, options.componentId);
    }
  }
  if (options.sessionName) {
    const nameExpr = sessionJsonTextSql(db.dialect, "session_data", "session_name");
    where.push(`LOWER(${nameExpr}) LIKE ?`);
    params.push(`%${options.sessionName.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const sortBy = options.sortBy ?? "created_at";
  const sortOrder = options.sortOrder === "asc" ? "ASC" : "DESC";
  const whereSql = where.join(" AND ");
  const escapeClause = options.sessionName ? " ESCAPE '\\'" : "";
  const [rows, counts] = await Promise.all([
    db.sql.query<SessionRow & Record<string, unknown>>(
      `SELECT ${SESSION_COLUMNS}
         FROM agno_sessions WHERE ${whereSql}${escapeClause}
        ORDER BY ${sortBy} ${sortOrder}, session_id ${sortOrder}
        ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      params,
    ),
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_sessions WHERE ${whereSql}${escapeClause}`, params),
  ]);
  const sessions = rows.map(fromRawRow);
  return { sessions, totalCount: Number(counts[0]?.n ?? 0) };
}

/**
 * Deletes sessions with their runs and their traces (and the traces' spans), atomically, within
 * the scope; returns how many sessions went. Only the traces of the sessions deleted go (Agno
 * keeps them; Agentry does not leave a deleted conversation's inputs behind in its traces).
 */
export async function deleteSessions(db: Db, { scope, sessionIds }: { scope: DataScope; sessionIds: string[] }): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const owner = ownerSql(scope);
  const inList = sessionIds.map(() => "?").join(", ");
  const owned = `SELECT session_id FROM agno_sessions WHERE session_id IN (${inList}) AND ${owner.clause}`;
  const ownedParams = [...sessionIds, ...owner.params];
  // Runs are deleted explicitly: an Agno-made SQLite file may lack the cascading foreign key.
  const results = await db.sql.batch([
    ...traceDeleteStatements(owned, ownedParams),
    { text: `DELETE FROM agno_runs WHERE session_id IN (${owned})`, params: ownedParams },
    { text: `DELETE FROM agno_sessions WHERE session_id IN (${inList}) AND ${owner.clause}`, params: ownedParams },
  ]);
  return results[results.length - 1];
}
