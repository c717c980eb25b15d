import { sessionJsonSql } from "../json.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";
import { hasLegacyRunsColumn } from "../sessions/legacy-runs.ts";
import type { Statement } from "../sql.ts";
import type { RunType } from "./run-type.ts";

export interface RunInput {
  runId: string;
  sessionId: string;
  runType: RunType;
  agentId?: string | null;
  teamId?: string | null;
  workflowId?: string | null;
  parentRunId?: string | null;
  status?: string | null;
  runData: Record<string, unknown>;
  /** Epoch seconds; default now. Only used when the row is first written. */
  createdAt?: number;
}

export interface RunInsertOptions {
  scope: DataScope;
  run: RunInput;
  /** Epoch seconds for updated_at (and created_at unless the run names one). */
  now: number;
  /**
   * `upsert` (default): an existing row of the same session has its status and data replaced.
   * `insert`: an existing run id is a unique violation, so a batch holding it rolls back whole.
   */
  onExisting?: "upsert" | "insert";
  /** One more condition the insert needs (`AND`ed to the session guard), e.g. a job row's presence. */
  extraGuard?: { clause: string; params: readonly unknown[] };
}

/**
 * The one statement that writes a run: a new row gets the next `run_index` of its session,
 * assigned inside the insert (UNIQUE(session_id, run_index) makes a concurrent loser fail with
 * `isRunIndexRace`, to be retried). The run's user_id is its session's owner; a non-admin may only
 * write into its own sessions, and a run id never moves to another session. Writes nothing (and
 * returns no row) when a guard fails. `RETURNING run_index`.
 */
export async function runInsertStatement(db: Db, { scope, run, now, onExisting = "upsert", extraGuard }: RunInsertOptions): Promise<Statement> {
  const sessionGuard = scope.kind === "user" ? "EXISTS (SELECT 1 FROM agno_sessions s WHERE s.session_id = ? AND s.user_id = ?)" : "EXISTS (SELECT 1 FROM agno_sessions s WHERE s.session_id = ?)";
  const guardParams = scope.kind === "user" ? [run.sessionId, scope.userId] : [run.sessionId];
  // A session written by a pre-v3 process may hold runs only in its legacy blob (double-encoded on
  // SQLite): new runs go after them.
  const legacyLength = (await hasLegacyRunsColumn(db))
    ? db.dialect === "postgres"
      ? "(SELECT CASE WHEN json_typeof(s.runs::json) = 'array' THEN json_array_length(s.runs::json) ELSE 0 END FROM agno_sessions s WHERE s.session_id = ?)"
      : `(SELECT json_array_length(${sessionJsonSql("sqlite", "s.runs")}) FROM agno_sessions s WHERE s.session_id = ?)`
    : null;
  const nextIndex = `COALESCE((SELECT MAX(r.run_index) FROM agno_runs r WHERE r.session_id = ?), -1) + 1`;
  const indexExpression = legacyLength ? `${db.dialect === "postgres" ? "GREATEST" : "MAX"}(${nextIndex}, COALESCE(${legacyLength}, 0))` : nextIndex;
  const onConflict =
    onExisting === "upsert"
      ? `ON CONFLICT (run_id) DO UPDATE SET
      status = excluded.status, run_data = excluded.run_data, parent_run_id = excluded.parent_run_id,
      updated_at = excluded.updated_at
    WHERE agno_runs.session_id = excluded.session_id`
      : "";
  const text = `INSERT INTO agno_runs
      (run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at)
    SELECT ?, ?, ?, ?, ?, ?, (SELECT s.user_id FROM agno_sessions s WHERE s.session_id = ?), ?, ?,
           ${indexExpression},
           ?, ?, ?
     WHERE ${sessionGuard}${extraGuard ? ` AND ${extraGuard.clause}` : ""}
    ${onConflict}
    RETURNING run_index`;
  const params = [
    run.runId,
    run.sessionId,
    run.runType,
    run.agentId ?? null,
    run.teamId ?? null,
    run.workflowId ?? null,
    run.sessionId,
    run.parentRunId ?? null,
    run.status ?? null,
    run.sessionId,
    ...(legacyLength ? [run.sessionId] : []),
    run.runData,
    run.createdAt ?? now,
    now,
    ...guardParams,
    ...(extraGuard?.params ?? []),
  ];
  return { text, params };
}

/** A PostgreSQL unique violation on (session_id, run_index): a concurrent insert took the index; retry. */
export function isRunIndexRace(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  return e?.code === "23505" && (e.constraint === "uq_agno_runs_session_id_run_index" || /run_index/.test(e.message ?? ""));
}
