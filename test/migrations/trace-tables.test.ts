import { describe, expect, it } from "vitest";
import { readSchemaVersions, stampSchemaVersion } from "@/lib/db/index.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { getTrace, getTraceSpans, listTraces, traceSessionStats, writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { traceTime } from "@/lib/db/traces/trace-rows.ts";
import { columnsOf, indexExists } from "@/lib/migrations/introspect.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { SPANS, TRACES } from "@/lib/migrations/tables/specs.ts";
import { LATEST_VERSION } from "@/lib/migrations/types.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { v3ShapeProblems, withFreshDb } from "./helpers.ts";

/**
 * agno_traces / agno_spans as Agno (2.3 onwards, unchanged since) creates them through SQLAlchemy:
 * table-level primary keys, `idx_<table>_<column>` indexes, a plain foreign key from the spans.
 */
async function createAgnoTraceTables(db: Db): Promise<void> {
  const pg = db.dialect === "postgres";
  const statements = [
    `CREATE TABLE agno_traces (
      trace_id VARCHAR NOT NULL, name VARCHAR NOT NULL, status VARCHAR NOT NULL, start_time VARCHAR NOT NULL, end_time VARCHAR NOT NULL,
      duration_ms BIGINT NOT NULL, run_id VARCHAR, session_id VARCHAR, user_id VARCHAR, agent_id VARCHAR, team_id VARCHAR, workflow_id VARCHAR,
      created_at VARCHAR NOT NULL, PRIMARY KEY (trace_id))`,
    `CREATE TABLE agno_spans (
      span_id VARCHAR NOT NULL, trace_id VARCHAR NOT NULL, parent_span_id VARCHAR, name VARCHAR NOT NULL, span_kind VARCHAR NOT NULL,
      status_code VARCHAR NOT NULL, status_message ${pg ? "TEXT" : "VARCHAR"}, start_time VARCHAR NOT NULL, end_time VARCHAR NOT NULL,
      duration_ms BIGINT NOT NULL, attributes ${pg ? "JSONB" : "JSON"}, created_at VARCHAR NOT NULL,
      PRIMARY KEY (span_id), FOREIGN KEY(trace_id) REFERENCES agno_traces (trace_id))`,
    ...["status", "start_time", "run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id", "created_at"].map((c) => `CREATE INDEX idx_agno_traces_${c} ON agno_traces (${c})`),
    ...["trace_id", "parent_span_id", "start_time", "created_at"].map((c) => `CREATE INDEX idx_agno_spans_${c} ON agno_spans (${c})`),
  ];
  for (const text of statements) await db.sql.exec(text);
  // What Agno wrote: Python isoformat() times (no fraction on a whole second), JSON attributes.
  await db.sql.exec(
    `INSERT INTO agno_traces VALUES ('aaaa', 'Assistant.run', 'OK', '2025-12-03T10:00:00+00:00', '2025-12-03T10:00:01.500000+00:00', 1500,
      'run-1', 'sess-1', 'alice', 'assistant', NULL, NULL, '2025-12-03T10:00:01.600000+00:00')`,
  );
  await db.sql.exec(
    `INSERT INTO agno_spans VALUES
      ('s1', 'aaaa', NULL, 'Assistant.run', 'INTERNAL', 'OK', NULL, '2025-12-03T10:00:00+00:00', '2025-12-03T10:00:01.500000+00:00', 1500,
       '{"input.value": "what is up!", "openinference.span.kind": "AGENT"}', '2025-12-03T10:00:01.600000+00:00'),
      ('s2', 'aaaa', 's1', 'gpt-4o.invoke', 'INTERNAL', 'ERROR', 'rate limited', '2025-12-03T10:00:00.100000+00:00', '2025-12-03T10:00:01+00:00', 900,
       '{"openinference.span.kind": "LLM", "llm.token_count.prompt": 10}', '2025-12-03T10:00:01.600000+00:00')`,
  );
}

describe.each(DIALECTS)("Agno's trace tables on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    describe.each([
      { name: "stamped 2.3.0 by Agno 2.x", stamp: "2.3.0" },
      { name: "unstamped", stamp: null },
      { name: "stamped 3.0.0 by Agno 3", stamp: LATEST_VERSION },
    ])("a database whose trace tables Agno made ($name)", ({ stamp }) => {
      it("keeps them and their rows, adds a missing index, stamps them 3.0.0, and Agentry reads and merges into them", async () => {
        await withFreshDb(dialect, async (db) => {
          await new MigrationManager(db).up({ tables: ["sessions"] }); // agno_schema_versions, and something else there
          await createAgnoTraceTables(db);
          if (stamp) {
            await stampSchemaVersion(db, "agno_traces", stamp);
            await stampSchemaVersion(db, "agno_spans", stamp);
          }
          // An index lost along the way comes back.
          await db.sql.exec("DROP INDEX idx_agno_spans_trace_id");

          const outcomes = await new MigrationManager(db).up();
          const byTable = new Map(outcomes.map((o) => [o.table, o]));
          // Even stamped 3.0.0, each lacks an index of the spec (Agentry's list indexes; the dropped one), so its step runs again.
          for (const table of ["agno_traces", "agno_spans"]) expect(byTable.get(table), table).toMatchObject({ action: "migrated", from: stamp, to: LATEST_VERSION });
          expect(byTable.get("agentry_trace_drops")).toMatchObject({ action: "created" });
          expect(await v3ShapeProblems(db)).toEqual([]);
          for (const spec of [TRACES, SPANS]) for (const index of spec.indexes) expect(await indexExists(db, index.name), index.name).toBe(true);
          const versions = await readSchemaVersions(db);
          expect([versions.get("agno_traces"), versions.get("agno_spans")]).toEqual([LATEST_VERSION, LATEST_VERSION]);
          if (db.dialect === "postgres") expect((await columnsOf(db, "agno_spans")).get("attributes")?.type).toBe("jsonb");

          const admin = adminScope();
          const { rows } = await listTraces(db, { scope: admin, page: 1, limit: 10 });
          expect(rows).toEqual([
            {
              trace_id: "aaaa",
              name: "Assistant.run",
              status: "OK",
              start_time: "2025-12-03T10:00:00+00:00",
              end_time: "2025-12-03T10:00:01.500000+00:00",
              duration_ms: 1500,
              run_id: "run-1",
              session_id: "sess-1",
              user_id: "alice",
              agent_id: "assistant",
              team_id: null,
              workflow_id: null,
              created_at: "2025-12-03T10:00:01.600000+00:00",
              total_spans: 2,
              error_count: 1,
              input: "what is up!",
            },
          ]);
          expect((await getTraceSpans(db, { traceId: "aaaa" })).map((s) => [s.span_id, s.attributes["openinference.span.kind"]])).toEqual([
            ["s1", "AGENT"],
            ["s2", "LLM"],
          ]);
          expect((await traceSessionStats(db, { scope: admin, page: 1, limit: 10 })).rows).toMatchObject([{ session_id: "sess-1", total_traces: 1 }]);

          // A later batch of the same trace (Agentry's time format) merges with Agno's row.
          await writeTraceBatch(db, {
            traces: [
              {
                trace_id: "aaaa",
                name: "late.invoke",
                status: "ERROR",
                start_time: traceTime(Date.UTC(2025, 11, 3, 10, 0, 1)),
                end_time: traceTime(Date.UTC(2025, 11, 3, 10, 0, 2, 250)),
                duration_ms: 1250,
                run_id: null,
                session_id: null,
                user_id: null,
                agent_id: null,
                team_id: null,
                workflow_id: null,
                created_at: traceTime(Date.UTC(2025, 11, 3, 10, 0, 3)),
              },
            ],
            spans: [],
          });
          expect(await getTrace(db, { scope: admin, traceId: "aaaa" })).toMatchObject({
            name: "Assistant.run",
            status: "ERROR",
            start_time: "2025-12-03T10:00:00+00:00",
            end_time: "2025-12-03T10:00:02.250000+00:00",
            duration_ms: 2250,
            session_id: "sess-1",
            created_at: "2025-12-03T10:00:01.600000+00:00",
          });

          // A rerun changes nothing; going back to 2.5.6 keeps the tables and their rows.
          const again = await new MigrationManager(db).up();
          expect(again.filter((o) => o.action !== "unchanged")).toEqual([]);
          await new MigrationManager(db).down({ targetVersion: "2.5.6", tables: ["traces", "spans", "trace_drops"] });
          expect((await listTraces(db, { scope: admin, page: 1, limit: 10 })).totalCount).toBe(1);
        });
      });
    });
  });
});
