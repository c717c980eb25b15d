import type { Db } from "../open-database.ts";
import { toStoredRun } from "../runs/runs.ts";
import type { DataScope } from "../scope.ts";
import { readLegacyRuns } from "./legacy-runs.ts";
import { getSessionRow, mergeRuns, type SessionType, type SessionWithRuns } from "./sessions.ts";

export interface GetSessionRunsOptions {
  scope: DataScope;
  sessionId: string;
  /** When given, a session of another type counts as missing. */
  sessionType?: SessionType;
  /** Epoch seconds, inclusive: only runs created at or after it. */
  createdAfter?: number;
  /** Epoch seconds, inclusive: only runs created at or before it. */
  createdBefore?: number;
}

const inWindow = (createdAt: unknown, { createdAfter, createdBefore }: GetSessionRunsOptions) => {
  if (createdAfter === undefined && createdBefore === undefined) return true;
  if (typeof createdAt !== "number") return false;
  return (createdAfter === undefined || createdAt >= createdAfter) && (createdBefore === undefined || createdAt <= createdBefore);
};

/**
 * A session with the runs created in a time window (session order), or null when the session
 * does not exist for this scope. Stored runs are filtered by their `created_at` column in SQL;
 * runs only in a legacy blob by the dict's `created_at`. A legacy run whose id also has a row is
 * always the row's (in or out of the window), so a stale blob copy never reappears.
 */
export async function getSessionRuns(db: Db, options: GetSessionRunsOptions): Promise<SessionWithRuns | null> {
  const { scope, sessionId, sessionType, createdAfter, createdBefore } = options;
  const session = await getSessionRow(db, { scope, sessionId, sessionType });
  if (!session) return null;
  const unfiltered = createdAfter === undefined && createdBefore === undefined;
  const [rows, legacy, allRowIds] = await Promise.all([
    db.prisma.run.findMany({
      where: {
        session_id: sessionId,
        ...(unfiltered ? {} : { created_at: { ...(createdAfter !== undefined ? { gte: createdAfter } : {}), ...(createdBefore !== undefined ? { lte: createdBefore } : {}) } }),
      },
      orderBy: { run_index: "asc" },
    }),
    readLegacyRuns(db, sessionId),
    unfiltered ? Promise.resolve(null) : db.prisma.run.findMany({ where: { session_id: sessionId }, select: { run_id: true } }),
  ]);
  const shadowed = new Set((allRowIds ?? []).map((r) => r.run_id));
  const legacyInWindow = legacy.filter((run) => !shadowed.has(String(run.run_id)) && inWindow(run.created_at, options));
  return { ...session, runs: mergeRuns(legacyInWindow, rows.map(toStoredRun)) };
}
