import { parseSessionJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import type { Statement } from "../sql.ts";

const METRIC_FIELDS = [
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "audio_input_tokens",
  "audio_output_tokens",
  "audio_total_tokens",
  // USD, summed only from runs that have one (Agno's SessionMetrics: a run without a cost adds none).
  "cost",
] as const;

const MAX_ATTEMPTS = 8;

/** A session row's session_data and updated_at as read (raw, as stored): what a compare-and-set compares against. */
export interface SessionVersion {
  readonly sessionData: unknown;
  readonly updatedAt: number | null;
}

const VERSION = Symbol.for("agentry.session-version");

/** Records on a session object the version of its row it was read from (not enumerable: never serialized). */
export function withSessionVersion<T extends object>(session: T, version: SessionVersion): T {
  Object.defineProperty(session, VERSION, { value: version, enumerable: false });
  return session;
}

/** The version of the row a session object was read from, if it records one. */
export function sessionVersionOf(session: object): SessionVersion | undefined {
  return (session as { [VERSION]?: SessionVersion })[VERSION];
}

type SessionMetrics = Partial<Record<(typeof METRIC_FIELDS)[number], number>>;

/**
 * A run's update of its session, made ready before the run's end is written so that a writer can
 * apply it in the same transaction (lib/db/jobs/unheld-run.ts): `statement(onlyIf)` is the
 * compare-and-set UPDATE against the row as the run read it, with one more condition, and
 * `RETURNING 1` (a row when it applied). `applied` is set by the writer that applied it; left false,
 * the caller adds the metrics itself (addSessionMetrics).
 */
export interface SessionUpdate {
  statement(onlyIf: string): Statement;
  applied: boolean;
}

/**
 * The compare-and-set UPDATE adding `metrics` to a session whose row was read as `row` (and
 * replacing its session_state when given), or null when its session_data is not a JSON object
 * (written by something else: left as it is). `RETURNING 1`: a row when nothing changed the row
 * since it was read.
 */
function metricsUpdate(
  db: Db,
  {
    scope,
    sessionId,
    metrics,
    sessionState,
    row,
    onlyIf,
  }: { scope: DataScope; sessionId: string; metrics: SessionMetrics; sessionState?: Record<string, unknown> | null; row: SessionVersion; onlyIf?: string },
): Statement | null {
  const owner = ownerSql(scope);
  const stored = parseSessionJson(row.sessionData);
  if (stored !== null && (typeof stored !== "object" || Array.isArray(stored))) return null;
  const data = (stored as Record<string, unknown> | null) ?? {};
  const current = (data.session_metrics as Record<string, number> | undefined) ?? {};
  const summed: Record<string, number> = { ...current };
  for (const field of METRIC_FIELDS) {
    if (metrics[field] !== undefined) summed[field] = (current[field] ?? 0) + (metrics[field] ?? 0);
  }
  const next = { ...data, session_metrics: summed, ...(sessionState !== undefined ? { session_state: sessionState } : {}) };
  const now = Math.floor(Date.now() / 1000);
  // Unchanged since read: SQLite compares the stored text; PostgreSQL the JSONB value (the
  // driver reads SQL NULL and JSON null both as null, so both compare as JSON null).
  const unchanged = db.dialect === "postgres" ? "COALESCE(session_data, 'null'::jsonb) = ?::jsonb" : "session_data IS NOT DISTINCT FROM ?";
  return {
    text: `UPDATE agno_sessions SET session_data = ?, updated_at = ?
            WHERE session_id = ? AND ${owner.clause} AND updated_at IS NOT DISTINCT FROM ? AND ${unchanged}${onlyIf ? ` AND ${onlyIf}` : ""}
            RETURNING 1`,
    params: [next, now, sessionId, ...owner.params, row.updatedAt, db.dialect === "postgres" ? JSON.stringify(row.sessionData ?? null) : (row.sessionData ?? null)],
  };
}

/**
 * A run's session update against the row as the run read it (`known`), for its writer to apply
 * with the run's end; undefined when there is no such read or the session_data is not an object.
 */
export function sessionUpdate(
  db: Db,
  args: { scope: DataScope; sessionId: string; metrics: SessionMetrics; sessionState?: Record<string, unknown> | null; known: SessionVersion | undefined },
): SessionUpdate | undefined {
  const { known, ...rest } = args;
  if (!known || metricsUpdate(db, { ...rest, row: known }) === null) return undefined;
  return { statement: (onlyIf) => metricsUpdate(db, { ...rest, row: known, onlyIf })!, applied: false };
}

/**
 * Adds one run's token counts to the session's `session_data.session_metrics` (and optionally
 * replaces `session_state`), keeping `session_name` and everything else. Optimistic: the update
 * applies only if the row is unchanged since it was read (else it reads again), so runs ending at
 * once in one session never lose each other's counts. False when the session does not exist for
 * this scope, or its session_data is not a JSON object (left as it is).
 */
export async function addSessionMetrics(
  db: Db,
  {
    scope,
    sessionId,
    metrics,
    sessionState,
    known,
  }: {
    scope: DataScope;
    sessionId: string;
    metrics: SessionMetrics;
    sessionState?: Record<string, unknown> | null;
    /** The row as the caller read it earlier: the first attempt compares against it instead of reading again. */
    known?: SessionVersion;
  },
): Promise<boolean> {
  const owner = ownerSql(scope);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [row] =
      attempt === 0 && known
        ? [known]
        : (
            await db.sql.query<{ session_data: unknown; updated_at: number | null }>(`SELECT session_data, updated_at FROM agno_sessions WHERE session_id = ? AND ${owner.clause}`, [
              sessionId,
              ...owner.params,
            ])
          ).map((r) => ({ sessionData: r.session_data, updatedAt: r.updated_at }));
    if (!row) return false;
    const update = metricsUpdate(db, { scope, sessionId, metrics, sessionState, row });
    if (!update) return false;
    const changed = await db.sql.query(update.text, update.params);
    if (changed.length === 1) return true;
  }
  throw new Error(`Session ${sessionId} kept changing while its metrics were being updated`);
}
