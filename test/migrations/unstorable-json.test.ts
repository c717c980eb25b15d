import { describe, expect, it } from "vitest";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { columnsOf } from "@/lib/migrations/introspect.ts";
import { createAgnoV2Tables, stampAgnoV2Versions } from "../fixtures/agno-v2.ts";
import { postgresDialect } from "../support/databases.ts";
import { withFreshDb } from "./helpers.ts";

/**
 * Agno 2.0 on PostgreSQL made JSON (not JSONB) columns, which hold whatever text Python's
 * json.dumps wrote — `\u0000` escapes included, which JSONB refuses. The 3.0.0 steps that convert
 * those columns (and decode double-encoded session values) must not fail on them or round the
 * numbers they hold.
 */
describe.skipIf(postgresDialect.skipReason !== null)("PostgreSQL JSON values JSONB cannot hold", () => {
  it("migrate: \\u0000 and lone surrogate escapes become U+FFFD, escaped pairs and exact numbers stay, nothing else changes", async () => {
    await withFreshDb(postgresDialect, async (db) => {
      await createAgnoV2Tables(db, { memories: "2.0" });
      await stampAgnoV2Versions(db, "2.0.0");
      expect((await columnsOf(db, "agno_memories")).get("memory")?.type).toBe("json");
      // Raw JSON text as Python writes it (ensure_ascii: astral characters as escaped pairs).
      const memory = '{"memory": "tab\\u0000le \\ud83d\\ude00 half \\udc00", "n": 12345678901234567890}';
      await db.sql.exec(`INSERT INTO agno_memories (memory_id, memory, user_id, updated_at) VALUES ('m1', ?::json, 'u1', 1)`, [memory]);
      // A double-encoded session value (a JSON string holding the document), with a NUL escape inside.
      const sessionData = JSON.stringify('{"session_name": "n\\u0000", "total": 1.10, "big": 12345678901234567890}');
      await db.sql.exec(`INSERT INTO agno_sessions (session_id, session_type, user_id, session_data, created_at) VALUES ('s1', 'agent', 'u1', ?::json, 1)`, [sessionData]);

      // It throws a MigrationError on the first table that fails; JSONB refused these values before.
      const outcome = await new MigrationManager(db, { log: () => undefined }).up();
      expect(outcome.find((t) => t.table === "agno_memories")?.to).toBe("3.0.0");

      expect((await columnsOf(db, "agno_memories")).get("memory")?.type).toBe("jsonb");
      const [m] = await db.sql.query<{ memory: string; n: string }>(`SELECT memory ->> 'memory' AS memory, (memory -> 'n')::text AS n FROM agno_memories`);
      expect(m).toEqual({ memory: "tab\ufffdle \u{1F600} half \ufffd", n: "12345678901234567890" });
      const [s] = await db.sql.query<{ name: string; total: string; big: string; kind: string }>(
        `SELECT session_data ->> 'session_name' AS name, (session_data -> 'total')::text AS total, (session_data -> 'big')::text AS big, jsonb_typeof(session_data) AS kind FROM agno_sessions`,
      );
      expect(s).toEqual({ name: "n\ufffd", total: "1.10", big: "12345678901234567890", kind: "object" });
    });
  });
});
