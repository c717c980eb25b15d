import type { Statement } from "../../db/sql.ts";
import { storableJsonText } from "../../db/storable-text.ts";
import { columnsOf } from "../introspect.ts";
import type { MigrationContext } from "../types.ts";

/** The agno_sessions JSON columns that hold one document each (the `runs` backup is not one of them). */
export const SESSION_DOCUMENT_COLUMNS = ["session_data", "agent_data", "team_data", "workflow_data", "metadata", "summary"] as const;

const BATCH = 500;

/**
 * PostgreSQL only: a session JSON column holding a JSON *string* whose content is a JSON object or
 * array (a double-encoded value, as Agno 2.x's SQLite adapter writes them, copied into PostgreSQL) is
 * replaced by that document, so SQL on PostgreSQL may assume one layer. Decoded in TypeScript —
 * PostgreSQL 15 has no safe cast, and `(x #>> '{}')::jsonb` would throw on the first string that
 * is not JSON; other strings are left as they are. The `runs` backup is never rewritten (its
 * readers decode both encodings). Idempotent. No-op on SQLite, whose readers see through both
 * encodings in SQL as well. Returns how many values it decoded.
 */
export async function decodeStringSessionColumns(ctx: MigrationContext): Promise<number> {
  const { db } = ctx;
  if (db.dialect !== "postgres") return 0;
  const live = await columnsOf(db, "agno_sessions");
  let decoded = 0;
  let kept = 0;
  let replaced = 0;
  for (const column of SESSION_DOCUMENT_COLUMNS) {
    const type = live.get(column)?.type;
    if (!type) continue;
    // Agno 2.0 made these JSON, later versions JSONB; each is read with its own functions (a cast
    // of JSON to JSONB would throw on a value JSONB cannot hold, such as a \u0000 escape).
    const typeOf = type === "json" ? "json_typeof" : "jsonb_typeof";
    let after = "";
    for (;;) {
      const rows = await db.sql.query<{ session_id: string; content: string }>(
        `SELECT session_id, ("${column}" #>> '{}') AS content FROM agno_sessions
          WHERE ${typeOf}("${column}") = 'string' AND session_id > ? ORDER BY session_id LIMIT ${BATCH}`,
        [after],
      );
      if (rows.length === 0) break;
      const updates: Statement[] = [];
      for (const row of rows) {
        let document: unknown = null;
        try {
          document = JSON.parse(row.content);
        } catch {
          // not JSON: kept below
        }
        // Agno double-encodes only dicts and lists; any other string stays the string it is.
        if (document === null || typeof document !== "object") {
          kept++;
          continue;
        }
        // The stored text itself goes in (not a re-serialisation, which would round numbers such
        // as 12345678901234567890), with only what JSONB cannot hold written as U+FFFD.
        const storable = storableJsonText(row.content);
        if (storable !== row.content) replaced++;
        updates.push({ text: `UPDATE agno_sessions SET "${column}" = ? WHERE session_id = ?`, params: [storable, row.session_id] });
      }
      if (updates.length > 0) {
        await db.sql.batch(updates);
        decoded += updates.length;
      }
      after = rows[rows.length - 1].session_id;
    }
  }
  if (decoded > 0 || kept > 0) {
    ctx.log(
      `agno_sessions: decoded ${decoded} double-encoded JSON values` +
        (replaced > 0 ? ` (${replaced} held NUL or a lone surrogate, now U+FFFD)` : "") +
        (kept > 0 ? `; ${kept} strings holding no JSON object or array left as they are` : ""),
    );
  }
  return decoded;
}
