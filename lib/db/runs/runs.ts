import { NotFoundError } from "../../errors/domain-errors.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow, type PageRequest } from "../pagination.ts";
import { ownerSql, ownerWhere, type DataScope } from "../scope.ts";
import { legacyBlobRemovals } from "../sessions/legacy-runs.ts";
import { isRunIndexRace, runInsertStatement, type RunInput } from "./run-insert.ts";
import type { RunType } from "./run-type.ts";

/** One stored run: the agno_runs row with `run_data` holding the full RunOutput dict. */
export interface StoredRun {
  run_id: string;
  session_id: string;
  run_type: RunType;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  user_id: string | null;
  parent_run_id: string | null;
  status: string | null;
  run_index: number;
  run_data: Record<string, unknown>;
  created_at: number;
  updated_at: number | null;
}

export type { RunInput } from "./run-insert.ts";

const RUN_INDEX_RACE_RETRIES = 8;

/**
 * Writes one run: a new row gets the next `run_index` of its session, assigned inside the insert
 * (UNIQUE(session_id, run_index) makes a concurrent loser retry, so two runs saved at once both
 * land); an existing row has its status and data replaced. Never touches the session row.
 * A run belongs to its session's owner (user_id is copied from the session row); a non-admin may
 * only write runs into its own sessions, and a run id can never move to another session.
 */
export async function upsertRun(db: Db, { scope, run }: { scope: DataScope; run: RunInput }): Promise<{ runIndex: number }> {
  const statement = await runInsertStatement(db, { scope, run, now: Math.floor(Date.now() / 1000) });
  for (let attempt = 0; ; attempt++) {
    try {
      const rows = await db.sql.query<{ run_index: number }>(statement.text, statement.params);
      if (rows.length === 0) {
        throw new NotFoundError(`Run ${run.runId} was not saved: session ${run.sessionId} does not exist for this user, or the run belongs to another session or user`);
      }
      return { runIndex: Number(rows[0].run_index) };
    } catch (error) {
      if (!isRunIndexRace(error) || attempt >= RUN_INDEX_RACE_RETRIES) throw error;
    }
  }
}

type RunRow = {
  run_id: string;
  session_id: string;
  run_type: string;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  user_id: string | null;
  parent_run_id: string | null;
  status: string | null;
  run_index: bigint | number;
  run_data: unknown;
  created_at: bigint | number;
  updated_at: bigint | number | null;
};

export function toStoredRun(row: RunRow): StoredRun {
  return {
    ...row,
    run_type: row.run_type as RunType,
    run_index: Number(row.run_index),
    run_data: (row.run_data ?? {}) as Record<string, unknown>,
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
  };
}

/** One run by id, or null when it does not exist for this scope. */
export async function getRun(db: Db, { scope, runId, sessionId }: { scope: DataScope; runId: string; sessionId?: string }): Promise<StoredRun | null> {
  const row = await db.prisma.run.findFirst({
    where: { run_id: runId, ...(sessionId ? { session_id: sessionId } : {}), ...ownerWhere(scope) },
  });
  return row ? toStoredRun(row) : null;
}

/** The status of each of these runs the scope can see (one statement, however many; absent ids are left out). */
export async function getRunStatuses(db: Db, { scope, runIds }: { scope: DataScope; runIds: readonly string[] }): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const owner = ownerSql(scope);
  const rows = await db.sql.query<{ run_id: string; status: string }>(`SELECT run_id, status FROM agno_runs WHERE run_id IN (${runIds.map(() => "?").join(", ")}) AND ${owner.clause}`, [
    ...runIds,
    ...owner.params,
  ]);
  return new Map(rows.map((r) => [String(r.run_id), String(r.status)]));
}

export interface GetRunsOptions extends PageRequest {
  scope: DataScope;
  sessionId?: string;
  status?: string;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
}

/**
 * Runs for this scope: in session order (run_index) when a session is named, else newest first.
 * `page` needs `limit` and starts at 1 (PaginationError otherwise).
 */
export async function getRuns(db: Db, options: GetRunsOptions): Promise<StoredRun[]> {
  const { take, skip } = pageWindow(options);
  const rows = await db.prisma.run.findMany({
    where: {
      ...ownerWhere(options.scope),
      ...(options.sessionId ? { session_id: options.sessionId } : {}),
      ...(options.status ? { status: options.status } : {}),
      ...(options.agentId ? { agent_id: options.agentId } : {}),
      ...(options.teamId ? { team_id: options.teamId } : {}),
      ...(options.workflowId ? { workflow_id: options.workflowId } : {}),
    },
    orderBy: options.sessionId ? { run_index: "asc" } : [{ created_at: "desc" }, { run_id: "asc" }],
    take,
    skip,
  });
  return rows.map(toStoredRun);
}

/** The runs made for a run (a team's member runs), in its session's order. */
export async function getChildRuns(db: Db, { scope, sessionId, parentRunId }: { scope: DataScope; sessionId: string; parentRunId: string }): Promise<StoredRun[]> {
  const rows = await db.prisma.run.findMany({
    where: { ...ownerWhere(scope), session_id: sessionId, parent_run_id: parentRunId },
    orderBy: { run_index: "asc" },
  });
  return rows.map(toStoredRun);
}

/**
 * Deletes runs by id within the scope; returns how many went. Runs still in a session's legacy
 * blob are removed from it in the same transaction, so they do not come back on the next read.
 */
export async function deleteRuns(db: Db, { scope, runIds }: { scope: DataScope; runIds: string[] }): Promise<number> {
  if (runIds.length === 0) return 0;
  const owned = (await db.prisma.run.findMany({ where: { run_id: { in: runIds }, ...ownerWhere(scope) }, select: { run_id: true } })).map((r) => r.run_id);
  if (owned.length === 0) return 0;
  const blobEdits = await legacyBlobRemovals(db, owned);
  const counts = await db.sql.batch([...blobEdits, { text: `DELETE FROM agno_runs WHERE run_id IN (${owned.map(() => "?").join(", ")})`, params: owned }]);
  return counts[counts.length - 1];
}

/**
 * Moves a run from one status to another only if it is in `from` — a compare-and-set, so two
 * clients continuing the same paused run cannot both win. Returns whether it applied.
 */
export async function transitionRunStatus(db: Db, { scope, runId, sessionId, from, to }: { scope: DataScope; runId: string; sessionId?: string; from: string; to: string }): Promise<boolean> {
  const owner = ownerSql(scope);
  const setStatus = db.dialect === "postgres" ? "jsonb_set(run_data, '{status}', to_jsonb(?::text))" : "json_set(run_data, '$.status', ?)";
  const changed = await db.sql.exec(
    `UPDATE agno_runs SET status = ?, run_data = ${setStatus}, updated_at = ?
      WHERE run_id = ? AND status = ? AND ${owner.clause}${sessionId ? " AND session_id = ?" : ""}`,
    [to, to, Math.floor(Date.now() / 1000), runId, from, ...owner.params, ...(sessionId ? [sessionId] : [])],
  );
  return changed === 1;
}

/**
 * The last `limit` runs of a session with this status, oldest first — what a run replays as
 * history. One indexed read of just those rows, however long the session is.
 */
export async function getRecentRuns(
  db: Db,
  {
    scope,
    sessionId,
    status,
    limit,
    excludeRunId,
    component,
  }: {
    scope: DataScope;
    sessionId: string;
    status: string;
    limit: number;
    excludeRunId?: string;
    /** Only this agent's or team's runs (`topLevel`: not those run for another run). */
    component?: { column: "agent_id" | "team_id"; id: string; topLevel?: boolean };
  },
): Promise<StoredRun[]> {
  if (limit <= 0) return [];
  const owner = ownerSql(scope);
  const componentClause = component ? ` AND ${component.column} = ?${component.topLevel ? " AND parent_run_id IS NULL" : ""}` : "";
  const rows = await db.sql.query<Parameters<typeof toStoredRun>[0] & Record<string, unknown>>(
    `SELECT run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at
       FROM agno_runs WHERE session_id = ? AND status = ? AND ${owner.clause}${excludeRunId ? " AND run_id <> ?" : ""}${componentClause}
      ORDER BY run_index DESC LIMIT ${Math.floor(limit)}`,
    [sessionId, status, ...owner.params, ...(excludeRunId ? [excludeRunId] : []), ...(component ? [component.id] : [])],
  );
  return rows.reverse().map((row) => toStoredRun({ ...row, run_data: parseJson(row.run_data) }));
}
