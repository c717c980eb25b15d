import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listJobs } from "@/lib/db/jobs/index.ts";
import { traceTime, type SpanRow, type TraceRow } from "@/lib/db/traces/trace-rows.ts";
import { writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { dailyTraceRetentionTask, TRACE_RETENTION_JOB_TYPE } from "@/lib/tracing/retention.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

const DAY = 86_400_000;

function trace(id: string, startMs: number): { trace: TraceRow; span: SpanRow } {
  const start = traceTime(startMs);
  const end = traceTime(startMs + 5);
  return {
    trace: {
      trace_id: id,
      name: "A.run",
      status: "OK",
      start_time: start,
      end_time: end,
      duration_ms: 5,
      run_id: null,
      session_id: null,
      user_id: null,
      agent_id: "a",
      team_id: null,
      workflow_id: null,
      created_at: start,
    },
    span: {
      span_id: id.slice(16),
      trace_id: id,
      parent_span_id: null,
      name: "A.run",
      span_kind: "INTERNAL",
      status_code: "OK",
      status_message: null,
      start_time: start,
      end_time: end,
      duration_ms: 5,
      attributes: {},
      created_at: start,
    },
  };
}

const ids = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${String(i).padStart(31 - tag.length, "0")}`.padEnd(32, "0").slice(0, 32));

describe.each(DIALECTS)("trace retention ($name)", (dialect) => {
  for (const durable of [false, true]) {
    describe(durable ? "with the durable queue: a daily job" : "in process", () => {
      let app: TestApp;
      beforeAll(async () => {
        app = await startTestApp({ dialect, agents: [], scheduler: false, env: durable ? { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false" } : {} });
        await app.db();
      });
      afterAll(async () => app?.close());

      it("does nothing while no trace is older than the retention, then deletes the old ones (and their spans) once a day", async () => {
        const db = await app.db();
        const now = Date.parse("2026-12-07T12:00:00Z");
        const task = dailyTraceRetentionTask(db, { ...app.settings, tracing: { ...app.settings.tracing, retentionDays: 14 } });
        const fresh = ids(3, "f").map((id) => trace(id, now - DAY));
        await writeTraceBatch(db, { traces: fresh.map((t) => t.trace), spans: fresh.map((t) => t.span) });
        await task.run(now / 1000);
        const jobs = async () => (await listJobs(db, { scope: adminScope(), kinds: { jobTypes: [TRACE_RETENTION_JOB_TYPE] } })).jobs;
        if (durable) expect(await jobs()).toHaveLength(0);
        const old = ids(3, "o").map((id) => trace(id, now - 20 * DAY));
        await writeTraceBatch(db, { traces: old.map((t) => t.trace), spans: old.map((t) => t.span) });
        // Already done today: the next day's first loop acts.
        await task.run(now / 1000 + 60);
        expect((await db.sql.query("SELECT trace_id FROM agno_traces")).length).toBe(6);
        await task.run(now / 1000 + 86_400);
        if (durable) {
          expect((await jobs()).map((j) => j.component_id)).toEqual(["2026-12-08"]);
        } else {
          for (let i = 0; i < 100 && (await db.sql.query("SELECT trace_id FROM agno_traces")).length > 3; i++) await new Promise((r) => setTimeout(r, 20));
          expect((await db.sql.query<{ trace_id: string }>("SELECT trace_id FROM agno_traces ORDER BY trace_id")).map((r) => r.trace_id)).toEqual(fresh.map((t) => t.trace.trace_id).sort());
          expect((await db.sql.query("SELECT span_id FROM agno_spans")).length).toBe(3);
        }
      });
    });
  }
});
