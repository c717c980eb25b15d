import { parseSessionJson } from "../../db/json.ts";
import { runTypeOf } from "../../db/runs/run-type.ts";
import type { Statement } from "../../db/sql.ts";
import { hasColumn, tableExists } from "../introspect.ts";
import type { MigrationContext, MigrationStep } from "../types.ts";
import { addIndexIfMissing } from "./helpers.ts";

const SESSION_BATCH = 200;
const ROWS_PER_INSERT = 50;
const RUN_COLUMNS = [
  "run_id",
  "session_id",
  "run_type",
  "agent_id",
  "team_id",
  "workflow_id",
  "user_id",
  "parent_run_id",
  "status",
  "run_index",
  "run_data",
  "created_at",
  "updated_at",
] as const;

interface LegacySession {
  session_id: string;
  session_type: string | null;
  user_id: string | null;
  created_at: number | null;
  runs: unknown;
}

const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const epoch = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : null);

/**
 * The agno_runs row values for one legacy run at `position` in its session's blob. The owner is
 * the session's: a run inside a user's session belongs to that user, whatever user_id the run
 * dict carries (owner-scoped reads and isolation go by the session).
 */
export function legacyRunRow(session: LegacySession, run: Record<string, unknown>, position: number): unknown[] {
  const createdAt = epoch(run.created_at) ?? session.created_at ?? Math.floor(Date.now() / 1000);
  return [
    String(run.run_id),
    session.session_id,
    runTypeOf(run, session.session_type),
    str(run.agent_id),
    str(run.team_id),
    str(run.workflow_id),
    session.user_id,
    str(run.parent_run_id),
    str(run.status),
    position,
    run,
    createdAt,
    epoch(run.updated_at) ?? createdAt,
  ];
}

function insertStatements(rows: unknown[][]): Statement[] {
  const statements: Statement[] = [];
  const placeholders = `(${RUN_COLUMNS.map(() => "?").join(", ")})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    statements.push({
      // No conflict target: an already-copied run (same run_id or same slot) is left as it is.
      text: `INSERT INTO agno_runs (${RUN_COLUMNS.join(", ")}) VALUES ${chunk.map(() => placeholders).join(", ")} ON CONFLICT DO NOTHING`,
      params: chunk.flat(),
    });
  }
  return statements;
}

/**
 * Copies every run of every legacy `agno_sessions.runs` blob into agno_runs (run_index = position
 * in the blob). Only the blob's top-level runs become rows; a team run's `member_responses` stay
 * nested in its run_data. The blob is read single- or double-encoded (Agno 2.x on SQLite stores it
 * double-encoded). Idempotent: reruns skip what is there. The blob column stays as the backup.
 * Returns how many rows it inserted.
 */
export async function backfillRunsFromLegacyBlobs(ctx: MigrationContext): Promise<number> {
  const { db } = ctx;
  if (!(await tableExists(db, "agno_sessions")) || !(await hasColumn(db, "agno_sessions", "runs"))) return 0;
  let copied = 0;
  let found = 0;
  let unreadable = 0;
  let after = "";
  for (;;) {
    const sessions = await db.sql.query<LegacySession & Record<string, unknown>>(
      `SELECT session_id, session_type, user_id, created_at, runs FROM agno_sessions
        WHERE runs IS NOT NULL AND session_id > ? ORDER BY session_id LIMIT ${SESSION_BATCH}`,
      [after],
    );
    if (sessions.length === 0) break;
    const rows: unknown[][] = [];
    for (const session of sessions) {
      const runs = parseSessionJson(session.runs);
      if (!Array.isArray(runs)) {
        if (runs !== null) unreadable++;
        continue;
      }
      runs.forEach((run, position) => {
        if (run && typeof run === "object" && (run as { run_id?: unknown }).run_id) {
          rows.push(legacyRunRow(session, run as Record<string, unknown>, position));
        }
      });
    }
    if (rows.length > 0) {
      found += rows.length;
      const inserted = await db.sql.batch(insertStatements(rows));
      copied += inserted.reduce((sum, n) => sum + n, 0);
    }
    after = sessions[sessions.length - 1].session_id;
  }
  const skipped = found - copied;
  ctx.log(
    `agno_runs: copied ${copied} legacy runs` +
      (skipped > 0 ? ` (${skipped} already there, skipped)` : "") +
      (unreadable > 0 ? `; ${unreadable} sessions' runs column holds no run list and was left as it is` : ""),
  );
  return copied;
}

/** The indexes the runs lists (newest first) seek on: a member's own, and everyone's by status. */
const USER_CREATED_INDEX = { name: "idx_agno_runs_user_id_created_at", columns: ["user_id", "created_at"] };
const STATUS_CREATED_INDEX = { name: "idx_agno_runs_status_created_at", columns: ["status", "created_at"] };

export const runsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "one row per run in agno_runs, filled from the legacy session blobs; the (user_id, created_at) and (status, created_at) indexes for run lists",
    async up(ctx) {
      await backfillRunsFromLegacyBlobs(ctx);
      await addIndexIfMissing(ctx, "agno_runs", USER_CREATED_INDEX);
      await addIndexIfMissing(ctx, "agno_runs", STATUS_CREATED_INDEX);
    },
    irreversibleBecause:
      "runs written since the migration live only in agno_runs; keep the table (the legacy blob column is still there as the pre-v3 backup)",
  },
];
