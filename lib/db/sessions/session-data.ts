import { parseSessionJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";

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

/**
 * Adds one run's token counts to the session's `session_data.session_metrics` (and optionally
 * replaces `session_state`), keeping `session_name` and everything else. Optimistic: the update
 * applies only if the row is unchanged since it was read, and retries otherwise, so two runs
 * finishing at once in one session both count. Only session_data and updated_at are written,
 * single-encoded (an Agno-written, double-encoded session_data is decoded first). Returns false,
 * writing nothing, when the session does not exist for this scope or its session_data holds
 * something other than a JSON object (or null), which is left as it is rather than replaced.
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
    metrics: Partial<Record<(typeof METRIC_FIELDS)[number], number>>;
    sessionState?: Record<string, unknown> | null;
    /** The row as the caller read it earlier: the first attempt compares against it instead of reading again. */
    known?: SessionVersion;
  },
): Promise<boolean> {
  const owner = ownerSql(scope);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [row] =
      attempt === 0 && known
        ? [{ session_data: known.sessionData, updated_at: known.updatedAt }]
        : await db.sql.query<{ session_data: unknown; updated_at: number | null }>(`SELECT session_data, updated_at FROM agno_sessions WHERE session_id = ? AND ${owner.clause}`, [
            sessionId,
            ...owner.params,
          ]);
    if (!row) return false;
    const stored = parseSessionJson(row.session_data);
    if (stored !== null && (typeof stored !== "object" || Array.isArray(stored))) return false;
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
    const changed = await db.sql.exec(
      `UPDATE agno_sessions SET session_data = ?, updated_at = ?
        WHERE session_id = ? AND ${owner.clause} AND updated_at IS NOT DISTINCT FROM ? AND ${unchanged}`,
      [next, now, sessionId, ...owner.params, row.updated_at, db.dialect === "postgres" ? JSON.stringify(row.session_data ?? null) : (row.session_data ?? null)],
    );
    if (changed === 1) return true;
  }
  throw new Error(`Session ${sessionId} kept changing while its metrics were being updated`);
}
