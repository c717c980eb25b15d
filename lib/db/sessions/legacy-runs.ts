import { parseSessionJson } from "../json.ts";
import type { Db } from "../open-database.ts";

/**
 * The pre-v3 `agno_sessions.runs` blob: kept by the 3.0.0 migration as a backup, read (and merged
 * under agno_runs) so un-migrated sessions keep working, and dropped only by
 * cleanupLegacyRunsColumn({ force: true }).
 */
const legacyColumnPresence = new WeakMap<Db, Promise<boolean>>();

export function hasLegacyRunsColumn(db: Db): Promise<boolean> {
  let presence = legacyColumnPresence.get(db);
  if (!presence) {
    presence = (async () => {
      const rows =
        db.dialect === "postgres"
          ? await db.sql.query("SELECT 1 AS present FROM information_schema.columns WHERE table_schema = ? AND table_name = 'agno_sessions' AND column_name = 'runs'", [db.schema])
          : await db.sql.query("SELECT 1 AS present FROM pragma_table_info('agno_sessions') WHERE name = 'runs'");
      return rows.length > 0;
    })();
    legacyColumnPresence.set(db, presence);
    presence.catch(() => legacyColumnPresence.delete(db));
  }
  return presence;
}

/** The legacy runs of one session, in blob order ([] when there is no blob or no column). */
export async function readLegacyRuns(db: Db, sessionId: string): Promise<Record<string, unknown>[]> {
  if (!(await hasLegacyRunsColumn(db))) return [];
  const [row] = await db.sql.query<{ runs: unknown }>("SELECT runs FROM agno_sessions WHERE session_id = ?", [sessionId]);
  const runs = parseSessionJson(row?.runs);
  return Array.isArray(runs) ? runs.filter((r): r is Record<string, unknown> => !!r && typeof r === "object") : [];
}

export class LegacyCleanupRefusedError extends Error {
  override readonly name = "LegacyCleanupRefusedError";
}

/**
 * Drops the legacy `runs` column. Refuses without `force` (the blobs are the migration's backup);
 * with `force` it first checks that every legacy run exists in agno_runs (by run id, in the same
 * session — its content may have changed since, legitimately) and refuses, naming the missing
 * runs and the repair that copies them (`npx agentry migrate --repair-runs`), if any does not.
 */
export async function cleanupLegacyRunsColumn(db: Db, { force = false }: { force?: boolean } = {}): Promise<{ dropped: boolean; verifiedRuns: number }> {
  if (!force) {
    throw new LegacyCleanupRefusedError(
      "Refusing to drop agno_sessions.runs without force: the legacy blobs are the v3 migration's backup. " +
        "Verify the migration, then call cleanupLegacyRunsColumn({ force: true }) (or `npx agentry cleanup-legacy-runs --force`).",
    );
  }
  if (!(await hasLegacyRunsColumn(db))) return { dropped: false, verifiedRuns: 0 };
  const missing: string[] = [];
  let verified = 0;
  let after = "";
  for (;;) {
    const sessions = await db.sql.query<{ session_id: string; runs: unknown }>("SELECT session_id, runs FROM agno_sessions WHERE runs IS NOT NULL AND session_id > ? ORDER BY session_id LIMIT 200", [
      after,
    ]);
    if (sessions.length === 0) break;
    for (const session of sessions) {
      const runs = parseSessionJson(session.runs);
      if (!Array.isArray(runs)) continue;
      const stored = await db.sql.query<{ run_id: string; run_data: unknown }>("SELECT run_id, run_data FROM agno_runs WHERE session_id = ?", [session.session_id]);
      const byId = new Map(stored.map((row) => [row.run_id, row.run_data]));
      for (const run of runs) {
        const runId = run?.run_id as string | undefined;
        if (!runId) continue;
        if (!byId.has(runId)) missing.push(`${session.session_id}/${runId}`);
        else verified++;
      }
    }
    after = sessions[sessions.length - 1].session_id;
  }
  if (missing.length > 0) {
    throw new LegacyCleanupRefusedError(
      `Refusing to drop agno_sessions.runs: ${missing.length} legacy run(s) are not in agno_runs ` +
        `(${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}). ` +
        "Copy them with `npx agentry migrate --repair-runs` (runs written since move after them), then run the cleanup again.",
    );
  }
  await db.sql.exec("ALTER TABLE agno_sessions DROP COLUMN runs");
  legacyColumnPresence.delete(db);
  return { dropped: true, verifiedRuns: verified };
}

/**
 * Removes runs from their sessions' legacy blobs, so a run deleted from agno_runs does not come
 * back from the backup on the next read. Statements for `batch()`; none when there is no column.
 */
export async function legacyBlobRemovals(db: Db, runIds: readonly string[]): Promise<{ text: string; params: unknown[] }[]> {
  if (runIds.length === 0 || !(await hasLegacyRunsColumn(db))) return [];
  const wanted = new Set(runIds);
  const placeholders = runIds.map(() => "?").join(", ");
  const sessions = await db.sql.query<{ session_id: string; runs: unknown }>(
    `SELECT session_id, runs FROM agno_sessions WHERE runs IS NOT NULL
       AND session_id IN (SELECT session_id FROM agno_runs WHERE run_id IN (${placeholders}))`,
    [...runIds],
  );
  return sessions.flatMap((session) => {
    const runs = parseSessionJson(session.runs);
    if (!Array.isArray(runs)) return [];
    const kept = runs.filter((run) => !wanted.has(String((run as { run_id?: unknown })?.run_id)));
    return kept.length === runs.length ? [] : [{ text: "UPDATE agno_sessions SET runs = ? WHERE session_id = ?", params: [kept, session.session_id] }];
  });
}
