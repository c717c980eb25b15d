import { ConflictError } from "../../errors/domain-errors.ts";
import { sessionJsonSql } from "../json.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, unsafeSystemScope, type DataScope } from "../scope.ts";
import { SESSION_INSERT, getSession, getSessionRow, sessionInsertValues, type SessionInput, type SessionType, type SessionWithRuns, type StoredSession } from "./sessions.ts";

/**
 * Creates a session that must not exist yet: one INSERT … ON CONFLICT DO NOTHING, so two creators
 * racing for an id cannot both win. An existing id (whoever owns it) is a ConflictError.
 */
export async function createSession(db: Db, { scope, session }: { scope: DataScope; session: SessionInput }): Promise<StoredSession> {
  const rows = await db.sql.query(`${SESSION_INSERT} ON CONFLICT (session_id) DO NOTHING RETURNING session_id`, sessionInsertValues(scope, session));
  if (rows.length === 0) throw new ConflictError(`Session with ID ${session.sessionId} already exists`);
  return (await getSessionRow(db, { scope: unsafeSystemScope("the row this insert just wrote"), sessionId: session.sessionId }))!;
}

export interface UpdateSessionOptions {
  scope: DataScope;
  sessionId: string;
  /** When given, a session of another type counts as missing. */
  sessionType?: SessionType;
  /** Stored as session_data.session_name. */
  sessionName?: string;
  /** Replaces session_data.session_state. */
  sessionState?: Record<string, unknown>;
  /** Replaces the metadata column. */
  metadata?: Record<string, unknown>;
  /** Replaces the summary column. */
  summary?: Record<string, unknown>;
}

/**
 * SQL for the session_data document to edit, and the condition under which editing it loses
 * nothing: session_data is SQL NULL, JSON null or a JSON object, single- or double-encoded
 * (sessionJsonSql). The edit writes the object back single-encoded. Anything else stored there
 * (text that is not JSON, an array, a scalar) is never replaced: the UPDATE does not apply.
 */
function sessionDataEdit(db: Db): { base: string; editable: string } {
  if (db.dialect === "postgres") {
    return {
      base: "(CASE WHEN jsonb_typeof(session_data) = 'object' THEN session_data ELSE '{}'::jsonb END)",
      editable: "(session_data IS NULL OR jsonb_typeof(session_data) IN ('object', 'null'))",
    };
  }
  const doc = sessionJsonSql("sqlite", "session_data");
  return {
    base: `(CASE WHEN json_type(${doc}) = 'object' THEN ${doc} ELSE '{}' END)`,
    editable: `(session_data IS NULL OR json_type(${doc}) IN ('object', 'null'))`,
  };
}

/**
 * Renames a session or replaces its state, metadata or summary in ONE scoped UPDATE: the other
 * keys of session_data are edited in place by the database (so a concurrent write of, say,
 * session_metrics is not lost) and the runs are never touched. Options left undefined stay as
 * they are. Returns the session with its runs, or null when it does not exist for this scope —
 * a non-admin can never change another user's (or a shared) session. A name or state edit of a
 * session whose session_data is not a JSON object is a ConflictError and changes nothing.
 */
export async function updateSession(db: Db, options: UpdateSessionOptions): Promise<SessionWithRuns | null> {
  const { scope, sessionId, sessionType } = options;
  const postgres = db.dialect === "postgres";
  const params: unknown[] = [];
  const edit = sessionDataEdit(db);
  let sessionData = edit.base;
  if (options.sessionName !== undefined) {
    sessionData = postgres ? `jsonb_set(${sessionData}, '{session_name}', to_jsonb(?::text))` : `json_set(${sessionData}, '$.session_name', ?)`;
    params.push(options.sessionName);
  }
  if (options.sessionState !== undefined) {
    sessionData = postgres ? `jsonb_set(${sessionData}, '{session_state}', ?::jsonb)` : `json_set(${sessionData}, '$.session_state', json(?))`;
    params.push(JSON.stringify(options.sessionState));
  }
  const sets = [`updated_at = ?`];
  const setParams: unknown[] = [Math.floor(Date.now() / 1000)];
  if (params.length > 0) {
    sets.push(`session_data = ${sessionData}`);
    setParams.push(...params);
  }
  for (const [column, value] of [
    ["metadata", options.metadata],
    ["summary", options.summary],
  ] as const) {
    if (value === undefined) continue;
    sets.push(`${column} = ${postgres ? "?::jsonb" : "json(?)"}`);
    setParams.push(JSON.stringify(value));
  }
  // Nothing to change: no write at all (updated_at included), just the scoped read.
  if (sets.length === 1) return getSession(db, { scope, sessionId, sessionType });
  const owner = ownerSql(scope);
  const where = [`session_id = ?`, owner.clause];
  const whereParams: unknown[] = [sessionId, ...owner.params];
  if (sessionType) {
    where.push("session_type = ?");
    whereParams.push(sessionType);
  }
  if (params.length > 0) where.push(edit.editable);
  const rows = await db.sql.query(`UPDATE agno_sessions SET ${sets.join(", ")} WHERE ${where.join(" AND ")} RETURNING session_id`, [...setParams, ...whereParams]);
  if (rows.length === 0) {
    if (params.length > 0 && (await getSessionRow(db, { scope, sessionId, sessionType }))) {
      throw new ConflictError(`Session ${sessionId} holds session_data that is not a JSON object, so its name and state cannot be edited; nothing was changed`);
    }
    return null;
  }
  return getSession(db, { scope, sessionId, sessionType });
}
