import { parseSessionJson } from "../../db/json.ts";
import { runTypeOf } from "../../db/runs/run-type.ts";
import { stampSchemaVersion } from "../../db/schema-versions/schema-versions.ts";
import type { Db } from "../../db/open-database.ts";
import type { Statement } from "../../db/sql.ts";
import { hasColumn, tableExists } from "../introspect.ts";
import { LATEST_VERSION, MigrationError, type LegacyRunsRepair, type MigrationContext } from "../types.ts";
import { planLegacyRuns, type LegacyRunsPlan, type StoredPlace } from "./legacy-runs-plan.ts";

/**
 * The `agno_schema_versions` row recording that every legacy blob of this database has been
 * checked against agno_runs. Not a table: Agno reads that table by table name only, and
 * MigrationManager by the names of the tables it manages. Its presence is what lets startup skip
 * the check (one primary-key read instead of reading every blob).
 */
export const LEGACY_RUNS_CHECKED = "agno_runs:legacy_runs_checked";

export type { LegacyRunsRepair } from "../types.ts";

const SESSION_BATCH = 100;
const ROWS_PER_INSERT = 50;
const SESSION_ATTEMPTS = 5;
const RUN_COLUMNS = ["run_id", "session_id", "run_type", "agent_id", "team_id", "workflow_id", "user_id", "parent_run_id", "status", "run_index", "run_data", "created_at", "updated_at"] as const;

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
 * The agno_runs row values for one legacy run at `runIndex`. The owner is the session's: a run
 * inside a user's session belongs to that user, whatever user_id the run dict carries
 * (owner-scoped reads and isolation go by the session). run_data is the legacy run as it is.
 */
function legacyRunRow(session: LegacySession, run: Record<string, unknown>, runIndex: number): unknown[] {
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
    runIndex,
    run,
    createdAt,
    epoch(run.updated_at) ?? createdAt,
  ];
}

/** One session's plan, with what statements need to address it. */
interface SessionWork {
  session: LegacySession;
  plan: LegacyRunsPlan;
  /** Below every run_index the session holds: moving rows park at `base - to`, which no row uses. */
  base: number;
}

/**
 * The statements applying `work`, meant for one transaction: (1) each moving row parks at a
 * negative index of its own, guarded by the index it was planned from; (2) the missing legacy
 * runs are inserted (a run_id stored anywhere already is left alone; a taken slot is a unique
 * violation that rolls the whole transaction back); (3) the parked rows take their new index.
 * Every single-row step lands on an index no row holds, so UNIQUE(session_id, run_index) holds
 * after every row, as PostgreSQL checks a non-deferrable constraint.
 */
function statementsFor(work: readonly SessionWork[]): { statements: Statement[]; inserts: Set<number>; settles: Set<number> } {
  const statements: Statement[] = [];
  for (const { session, plan, base } of work) {
    for (const move of plan.moves) {
      statements.push({
        text: "UPDATE agno_runs SET run_index = ? WHERE session_id = ? AND run_id = ? AND run_index = ?",
        params: [base - move.to, session.session_id, move.runId, move.from],
      });
    }
  }
  const rows = work.flatMap(({ session, plan }) => plan.inserts.map((insert) => legacyRunRow(session, insert.run, insert.runIndex)));
  const inserts = new Set<number>();
  const placeholders = `(${RUN_COLUMNS.map(() => "?").join(", ")})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    inserts.add(statements.length);
    statements.push({
      text: `INSERT INTO agno_runs (${RUN_COLUMNS.join(", ")}) VALUES ${chunk.map(() => placeholders).join(", ")} ON CONFLICT (run_id) DO NOTHING`,
      params: chunk.flat(),
    });
  }
  const settles = new Set<number>();
  for (const { session, plan, base } of work) {
    if (plan.moves.length === 0) continue;
    settles.add(statements.length);
    statements.push({
      text: "UPDATE agno_runs SET run_index = ? - run_index WHERE session_id = ? AND run_index <= ?",
      params: [base, session.session_id, base],
    });
  }
  return { statements, inserts, settles };
}

const SESSION_COLUMNS = "session_id, session_type, user_id, created_at, runs";

/** Where agno_runs holds each run of these sessions (one statement text whatever the count). */
async function storedPlaces(db: Db, sessionIds: readonly string[]): Promise<Map<string, StoredPlace[]>> {
  const padded = Array.from({ length: SESSION_BATCH }, (_, k) => sessionIds[Math.min(k, sessionIds.length - 1)]);
  const rows = await db.sql.query<{ session_id: string; run_id: string; run_index: number | bigint }>(
    `SELECT session_id, run_id, run_index FROM agno_runs WHERE session_id IN (${padded.map(() => "?").join(", ")})`,
    padded,
  );
  const places = new Map<string, StoredPlace[]>(sessionIds.map((id) => [id, []]));
  for (const row of rows) places.get(row.session_id)?.push({ runId: row.run_id, runIndex: Number(row.run_index) });
  return places;
}

interface Tally {
  sessions: number;
  copied: number;
  moved: number;
  kept: number;
  /** Inserts planned: those that inserted nothing found their run_id stored in another session. */
  planned: number;
  unreadable: number;
}

const emptyTally = (): Tally => ({ sessions: 0, copied: 0, moved: 0, kept: 0, planned: 0, unreadable: 0 });

/** Plans each session, counting those with a run list; sessions needing nothing are not work. */
async function plan(db: Db, sessions: readonly LegacySession[], tally: Tally): Promise<SessionWork[]> {
  if (sessions.length === 0) return [];
  const places = await storedPlaces(
    db,
    sessions.map((s) => s.session_id),
  );
  const work: SessionWork[] = [];
  for (const session of sessions) {
    const legacy = parseSessionJson(session.runs);
    if (!Array.isArray(legacy)) {
      if (legacy !== null) tally.unreadable++;
      continue;
    }
    tally.sessions++;
    const rows = places.get(session.session_id) ?? [];
    const planned = planLegacyRuns(legacy, rows);
    if (planned.inserts.length === 0 && planned.moves.length === 0) {
      tally.kept += planned.kept;
      continue;
    }
    const lowest = rows.reduce((min, row) => Math.min(min, row.runIndex), 0);
    work.push({ session, plan: planned, base: lowest - 1 });
  }
  return work;
}

/** Applies the work in one transaction; counts it only once it has committed. */
async function apply(db: Db, work: readonly SessionWork[], tally: Tally): Promise<void> {
  if (work.length === 0) return;
  const { statements, inserts, settles } = statementsFor(work);
  const counts = await db.sql.batch(statements);
  counts.forEach((count, k) => {
    if (inserts.has(k)) tally.copied += count;
    if (settles.has(k)) tally.moved += count;
  });
  for (const { plan: planned } of work) {
    tally.planned += planned.inserts.length;
    tally.kept += planned.kept;
  }
}

/**
 * One session again, read afresh, when its batch's transaction failed (a run written or a
 * session deleted meanwhile): a few attempts, then a MigrationError naming it.
 */
async function repairSession(db: Db, sessionId: string, tally: Tally): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const sessions = await db.sql.query<LegacySession & Record<string, unknown>>(`SELECT ${SESSION_COLUMNS} FROM agno_sessions WHERE session_id = ? AND runs IS NOT NULL`, [sessionId]);
      const counted = emptyTally(); // the session itself was counted with its batch
      const work = await plan(db, sessions, counted);
      await apply(db, work, tally);
      tally.kept += counted.kept;
      return;
    } catch (error) {
      if (attempt >= SESSION_ATTEMPTS) {
        throw new MigrationError(`agno_runs: the legacy runs of session ${sessionId} could not be copied: ${(error as Error).message}`, "agno_runs", LATEST_VERSION);
      }
    }
  }
}

/**
 * Makes agno_runs hold every run of every legacy `agno_sessions.runs` blob (single- or
 * double-encoded), as planLegacyRuns orders them: a missing legacy run is inserted with run_data
 * equal to the legacy run, run_index its blob position and user_id its session's owner (a team
 * run's member runs stay nested in it); rows written meanwhile at those positions move after the
 * legacy runs, in their order. A run id stored both ways keeps its row. Never deletes a row or
 * changes its content, and never edits the blob (it stays as the backup). Sessions go in
 * batches, each in one transaction; a batch that fails (a concurrent write took a slot, a session
 * was deleted) is redone session by session from a fresh read. Idempotent: a second pass changes
 * nothing. Stamps LEGACY_RUNS_CHECKED when done. Null when there is no legacy column. Cost: reads
 * every blob once.
 */
export async function repairLegacyRuns(ctx: MigrationContext): Promise<LegacyRunsRepair | null> {
  const { db } = ctx;
  if (!(await tableExists(db, "agno_sessions")) || !(await hasColumn(db, "agno_sessions", "runs"))) return null;
  const tally = emptyTally();
  let after = "";
  for (;;) {
    const sessions = await db.sql.query<LegacySession & Record<string, unknown>>(
      `SELECT ${SESSION_COLUMNS} FROM agno_sessions WHERE runs IS NOT NULL AND session_id > ? ORDER BY session_id LIMIT ${SESSION_BATCH}`,
      [after],
    );
    if (sessions.length === 0) break;
    const work = await plan(db, sessions, tally);
    await ctx.beforeLegacyRunsWrite?.(work.map((w) => w.session.session_id));
    try {
      await apply(db, work, tally);
    } catch {
      for (const { session } of work) await repairSession(db, session.session_id, tally);
    }
    after = sessions[sessions.length - 1].session_id;
  }
  await stampSchemaVersion(db, LEGACY_RUNS_CHECKED, LATEST_VERSION);
  const repair: LegacyRunsRepair = {
    sessions: tally.sessions,
    copied: tally.copied,
    moved: tally.moved,
    kept: tally.kept,
    skipped: tally.planned - tally.copied,
    unreadable: tally.unreadable,
  };
  ctx.log(`agno_runs: ${describeLegacyRunsRepair(repair)}`);
  ctx.reportLegacyRuns?.(repair);
  return repair;
}

/** What a pass did, in words: `copied N legacy runs`, then what else it did or left. */
export function describeLegacyRunsRepair(repair: LegacyRunsRepair): string {
  return (
    `copied ${repair.copied} legacy runs` +
    (repair.moved > 0 ? `, moved ${repair.moved} runs written since after them` : "") +
    (repair.kept > 0 ? ` (${repair.kept} already there, skipped)` : "") +
    (repair.skipped > 0 ? `; ${repair.skipped} legacy runs left in the blob only: their run_id is stored in another session` : "") +
    (repair.unreadable > 0 ? `; ${repair.unreadable} sessions' runs column holds no run list and was left as it is` : "")
  );
}
