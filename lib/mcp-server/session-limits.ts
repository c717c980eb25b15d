import type { Settings } from "../config/settings.ts";
import { type McpSession, openSessions } from "./sessions.ts";

/**
 * At most this many sessions are open in the process at once (about 200 KiB each). Past it a new
 * session is refused; no open session is ever closed to make room for another caller's.
 */
export const MAX_SESSIONS = 10_000;

/** Why a new session may not open: the answer's status, its `detail` and its Retry-After (seconds). */
export interface SessionRefusal {
  status: 429 | 503;
  detail: string;
  retryAfterSeconds: number;
}

/** When a session closes unless something happens first: at its unused deadline, or when idle too long. */
function closesAt(session: McpSession): number {
  const idleAt = session.lastUsed + session.settings.mcp.sessionIdleSeconds * 1000;
  return session.used ? idleAt : Math.min(idleAt, session.unusedUntil);
}

/** Seconds until the first of these sessions closes by itself (at least 1). */
function secondsUntilOneCloses(sessions: McpSession[], now: number): number {
  let first = Number.POSITIVE_INFINITY;
  for (const session of sessions) first = Math.min(first, closesAt(session));
  return Number.isFinite(first) ? Math.max(1, Math.ceil((first - now) / 1000)) : 1;
}

/**
 * Whether a caller may open one more session under these settings: null when it may, else why not
 * — 429 when its bucket already holds `mcp.maxSessionsPerUser` sessions, 503 when the process holds
 * `maxSessions`. Counts sessions still opening, so a caller must register its session before it
 * next awaits, or concurrent opens could all pass.
 */
export function refuseNewSession({
  settings,
  bucket,
  maxSessions = MAX_SESSIONS,
  now = Date.now(),
}: {
  settings: Settings;
  bucket: string;
  /** The process-wide limit (MAX_SESSIONS unless a test lowers it). */
  maxSessions?: number;
  now?: number;
}): SessionRefusal | null {
  const all = [...openSessions()];
  const limit = settings.mcp.maxSessionsPerUser;
  const mine = all.filter((s) => s.settings === settings && s.bucket === bucket);
  if (mine.length >= limit) {
    return {
      status: 429,
      detail: `You have ${mine.length} open MCP sessions, the most one user may have (mcp.maxSessionsPerUser = ${limit}); close one (DELETE /mcp with its Mcp-Session-Id) or wait for an idle one to expire`,
      retryAfterSeconds: secondsUntilOneCloses(mine, now),
    };
  }
  if (all.length >= maxSessions) {
    return {
      status: 503,
      detail: `The MCP server holds the most open sessions one process may have (${maxSessions}); try again once some have closed`,
      retryAfterSeconds: secondsUntilOneCloses(all, now),
    };
  }
  return null;
}
