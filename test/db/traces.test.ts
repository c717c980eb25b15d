import { describe, expect, it } from "vitest";
import { deleteSessions, upsertSession, type DataScope } from "@/lib/db/index.ts";
import { PaginationError } from "@/lib/errors/domain-errors.ts";
import { parseTraceFilter } from "@/lib/db/traces/trace-filter.ts";
import { traceTime, type SpanRow, type TraceRow } from "@/lib/db/traces/trace-rows.ts";
import {
  addDroppedSpans,
  getSpan,
  getTrace,
  getTraceOfRun,
  getTraceSpans,
  listTraceRowsForDashboard,
  listTraces,
  normalizeTraceTime,
  searchTraceSessionStats,
  searchTraces,
  sumDroppedSpans,
  traceLevel,
  traceSessionStats,
  TraceTimeError,
  unsafeDeleteTracesBefore,
  writeTraceBatch,
} from "@/lib/db/traces/traces.ts";
import { DIALECTS, openMigrated, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}-${Math.random().toString(36).slice(2, 6)}`;
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");

/** A base time of its own per test (whole seconds since 2026-01-01, spread apart). */
let bases = 0;
const newBase = () => Date.UTC(2026, 0, 1) + ++bases * 86_400_000;

function trace(overrides: Partial<TraceRow> & { trace_id: string }, startMs: number, endMs: number): TraceRow {
  return {
    name: "Agent.run",
    status: "OK",
    start_time: traceTime(startMs),
    end_time: traceTime(endMs),
    duration_ms: Math.floor(endMs - startMs),
    run_id: null,
    session_id: null,
    user_id: null,
    agent_id: null,
    team_id: null,
    workflow_id: null,
    created_at: traceTime(startMs),
    ...overrides,
  };
}

function span(overrides: Partial<SpanRow> & { trace_id: string }, startMs: number, endMs: number): SpanRow {
  return {
    span_id: hex(16),
    parent_span_id: null,
    name: "span",
    span_kind: "INTERNAL",
    status_code: "OK",
    status_message: null,
    start_time: traceTime(startMs),
    end_time: traceTime(endMs),
    duration_ms: Math.floor(endMs - startMs),
    attributes: {},
    created_at: traceTime(startMs),
    ...overrides,
  };
}

/** A trace with a root span (carrying `input`) and `children` child spans, `errors` of them errored. */
async function seedTrace(
  db: TestDb,
  {
    startMs,
    durationMs = 1000,
    input = "hello",
    children = 2,
    errors = 0,
    ...row
  }: Partial<TraceRow> & { startMs: number; durationMs?: number; input?: string | null; children?: number; errors?: number },
): Promise<TraceRow> {
  const traceId = row.trace_id ?? hex(32);
  const t = trace({ ...row, trace_id: traceId, status: errors > 0 ? "ERROR" : "OK" }, startMs, startMs + durationMs);
  const root = span({ trace_id: traceId, name: t.name, attributes: input === null ? {} : { "input.value": input, "openinference.span.kind": "AGENT" } }, startMs, startMs + durationMs);
  const kids = Array.from({ length: children }, (_, i) =>
    span({ trace_id: traceId, parent_span_id: root.span_id, name: `child-${i}`, status_code: i < errors ? "ERROR" : "OK" }, startMs + 10 + i, startMs + 20 + i),
  );
  await writeTraceBatch(db, { traces: [t], spans: [root, ...kids] });
  return t;
}

describe("trace levels and times (pure)", () => {
  it("ranks run spans of a workflow, team and agent above anything else", () => {
    const ids = { agent_id: null, team_id: null, workflow_id: null };
    expect(traceLevel({ ...ids, name: "Flow.run", workflow_id: "w", team_id: "t", agent_id: "a" })).toBe(3);
    expect(traceLevel({ ...ids, name: "Crew.arun", team_id: "t", agent_id: "a" })).toBe(2);
    expect(traceLevel({ ...ids, name: "Agent.run", agent_id: "a" })).toBe(1);
    expect(traceLevel({ ...ids, name: "Agent.run" })).toBe(0);
    expect(traceLevel({ ...ids, name: "gpt-4o.invoke", agent_id: "a", workflow_id: "w" })).toBe(0);
    // Case matters, as in Agno's PostgreSQL LIKE.
    expect(traceLevel({ ...ids, name: "Agent.RUN", agent_id: "a" })).toBe(0);
  });

  it("normalizes an ISO 8601 time with any offset to the stored UTC format, and refuses anything else", () => {
    expect(normalizeTraceTime("2026-12-07T10:22:15.5+05:00")).toBe("2026-12-07T05:22:15.500000+00:00");
    expect(normalizeTraceTime("2026-12-07T05:22:15Z")).toBe("2026-12-07T05:22:15.000000+00:00");
    expect(normalizeTraceTime("2026-12-07T05:22:15.1234567-01:30")).toBe("2026-12-07T06:52:15.123456+00:00");
    expect(normalizeTraceTime("2026-12-07")).toBe("2026-12-07T00:00:00.000000+00:00");
    expect(normalizeTraceTime(traceTime(1796620935923.456))).toBe(traceTime(1796620935923.456));
    for (const bad of ["yesterday", "2026-02-29T00:00:00Z", "2026-12-07T25:00:00Z", "2026-12-07T05:22:15+24:00", ""]) {
      expect(() => normalizeTraceTime(bad), bad).toThrow(TraceTimeError);
    }
  });
});

describe.each(DIALECTS)("traces on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    describe("writeTraceBatch", () => {
      it("merges batches: ERROR is sticky, a higher-level root renames, context is kept where set, start and end widen", async () => {
        const base = newBase();
        const traceId = hex(32);
        // Batch 1: an errored child alone (no root: no name level, no context).
        const child = span({ trace_id: traceId, parent_span_id: hex(16), name: "gpt-4o.invoke", status_code: "ERROR" }, base + 100, base + 300);
        await writeTraceBatch(db, { traces: [trace({ trace_id: traceId, name: "gpt-4o.invoke", status: "ERROR" }, base + 100, base + 300)], spans: [child] });
        let stored = await getTrace(db, { scope: adminScope(), traceId });
        expect(stored).toMatchObject({ name: "gpt-4o.invoke", status: "ERROR", duration_ms: 200, session_id: null });
        const createdAt = stored!.created_at;

        // Batch 2: the OK agent root, wider on both ends, with the context.
        const context = { run_id: "run-1", session_id: "sess-1", user_id: "alice", agent_id: "agent-1" };
        const root = span({ trace_id: traceId, name: "Assistant.run" }, base, base + 1000);
        await writeTraceBatch(db, { traces: [trace({ trace_id: traceId, name: "Assistant.run", ...context, created_at: traceTime(base + 5000) }, base, base + 1000)], spans: [root] });
        stored = await getTrace(db, { scope: adminScope(), traceId });
        expect(stored).toMatchObject({ name: "Assistant.run", status: "ERROR", ...context, start_time: traceTime(base), end_time: traceTime(base + 1000), duration_ms: 1000 });
        expect(stored!.created_at).toBe(createdAt);

        // Batch 3: a team root with other context: renamed (team > agent), context kept, end widens.
        await writeTraceBatch(db, {
          traces: [trace({ trace_id: traceId, name: "Crew.arun", run_id: "run-2", session_id: "sess-2", user_id: "bob", team_id: "team-1", agent_id: "agent-2" }, base + 50, base + 2500)],
          spans: [],
        });
        stored = await getTrace(db, { scope: adminScope(), traceId });
        expect(stored).toMatchObject({ name: "Crew.arun", status: "ERROR", ...context, team_id: "team-1", start_time: traceTime(base), duration_ms: 2500 });

        // Batch 4: a lower-level root (an agent's) and an OK status: neither changes anything.
        await writeTraceBatch(db, { traces: [trace({ trace_id: traceId, name: "Other.run", agent_id: "agent-3" }, base + 10, base + 20)], spans: [] });
        stored = await getTrace(db, { scope: adminScope(), traceId });
        expect(stored).toMatchObject({ name: "Crew.arun", status: "ERROR", agent_id: "agent-1", duration_ms: 2500 });

        // A workflow root outranks the team.
        await writeTraceBatch(db, { traces: [trace({ trace_id: traceId, name: "Flow.run", workflow_id: "wf-1" }, base + 10, base + 20)], spans: [] });
        expect((await getTrace(db, { scope: adminScope(), traceId }))!.name).toBe("Flow.run");

        const spans = await getTraceSpans(db, { traceId });
        expect(spans.map((s) => s.span_id)).toEqual([root.span_id, child.span_id]);
      });

      it("recomputes the duration from the merged times to the microsecond (floored to ms)", async () => {
        const base = newBase();
        const traceId = hex(32);
        const start = `${new Date(base).toISOString().slice(0, 19)}.000500+00:00`;
        const end = `${new Date(base + 1000).toISOString().slice(0, 19)}.000400+00:00`;
        const row = trace({ trace_id: traceId }, base, base);
        await writeTraceBatch(db, { traces: [{ ...row, start_time: start, end_time: start, duration_ms: 0 }], spans: [] });
        await writeTraceBatch(db, { traces: [{ ...row, start_time: end, end_time: end, duration_ms: 0 }], spans: [] });
        expect(await getTrace(db, { scope: adminScope(), traceId })).toMatchObject({ start_time: start, end_time: end, duration_ms: 999 });

        // Across an offset-free Agno time (no fraction) and a day boundary.
        const agnoId = hex(32);
        const midnight = Date.UTC(2026, 5, 30, 23, 59, 59);
        await writeTraceBatch(db, {
          traces: [{ ...row, trace_id: agnoId, start_time: `${new Date(midnight).toISOString().slice(0, 19)}+00:00`, end_time: `${new Date(midnight).toISOString().slice(0, 19)}+00:00` }],
          spans: [],
        });
        await writeTraceBatch(db, { traces: [{ ...row, trace_id: agnoId, start_time: traceTime(midnight + 1500.25), end_time: traceTime(midnight + 1500.25) }], spans: [] });
        expect((await getTrace(db, { scope: adminScope(), traceId: agnoId }))!.duration_ms).toBe(1500);
      });

      it("merges rows of one trace within a batch, and keeps a span already stored", async () => {
        const base = newBase();
        const traceId = hex(32);
        const first = span({ trace_id: traceId, name: "first", attributes: { n: 1 } }, base, base + 10);
        await writeTraceBatch(db, {
          traces: [
            trace({ trace_id: traceId, name: "x.invoke", status: "ERROR" }, base + 100, base + 200),
            trace({ trace_id: traceId, name: "Assistant.run", agent_id: "a", session_id: "s" }, base, base + 150),
            trace({ trace_id: traceId, name: "y.invoke", session_id: "other" }, base + 150, base + 400),
          ],
          spans: [first],
        });
        expect(await getTrace(db, { scope: adminScope(), traceId })).toMatchObject({
          name: "Assistant.run",
          status: "ERROR",
          agent_id: "a",
          session_id: "s",
          start_time: traceTime(base),
          end_time: traceTime(base + 400),
          duration_ms: 400,
        });
        await writeTraceBatch(db, { traces: [], spans: [{ ...first, name: "changed", attributes: { n: 2 } }] });
        expect(await getSpan(db, { spanId: first.span_id })).toMatchObject({ name: "first", attributes: { n: 1 } });
      });

      it("stores attributes as JSON objects and reads them back as objects", async () => {
        const base = newBase();
        const traceId = hex(32);
        const attributes = {
          "input.value": 'héllo 👋 "quoted" 50% _x_',
          "llm.token_count.prompt": 12,
          "agno.tools": ["search", "fetch"],
          nested: { a: [1, 2, { b: null }], flag: true },
          "with\u0000nul": "a\u0000b",
        };
        const root = span({ trace_id: traceId, attributes, status_message: "boom" }, base, base + 5);
        await writeTraceBatch(db, { traces: [trace({ trace_id: traceId }, base, base + 5)], spans: [root] });
        const [read] = await getTraceSpans(db, { traceId });
        expect(read.attributes).toEqual({ ...attributes, "with\ufffdnul": "a\ufffdb", "with\u0000nul": undefined });
        expect(read).toMatchObject({ span_id: root.span_id, parent_span_id: null, status_message: "boom", duration_ms: 5, start_time: traceTime(base) });
        expect(await getSpan(db, { spanId: "nope" })).toBeNull();
      });

      it("writes a batch of 600 spans over 40 traces in one go", async () => {
        const base = newBase();
        const traces = Array.from({ length: 40 }, (_, i) => trace({ trace_id: hex(32), user_id: "bulk" }, base + i, base + i + 100));
        const spans = traces.flatMap((t, i) => Array.from({ length: 15 }, (_, k) => span({ trace_id: t.trace_id, attributes: { k, text: "x".repeat(200) } }, base + i + k, base + i + k + 1)));
        const started = performance.now();
        await writeTraceBatch(db, { traces, spans });
        const elapsed = performance.now() - started;
        expect(elapsed).toBeLessThan(2000);
        const { rows, totalCount } = await listTraces(db, { scope: userScope("bulk"), page: 1, limit: 100 });
        expect(totalCount).toBe(40);
        expect(rows.every((r) => r.total_spans === 15)).toBe(true);
      });

      it("merges concurrent batches of one trace (two connections on PostgreSQL) into the same row as one after another", async () => {
        const base = newBase();
        const traceId = hex(32);
        const batches = Array.from({ length: 24 }, (_, i) => {
          const start = base + ((i * 37) % 24) * 10;
          const row = trace({ trace_id: traceId, name: i === 17 ? "Crew.run" : `step-${i}.invoke`, status: i === 5 ? "ERROR" : "OK", team_id: i === 17 ? "crew" : null }, start, start + 15);
          return { traces: [row], spans: [span({ trace_id: traceId }, start, start + 15)] };
        });
        await Promise.all(batches.map((batch) => writeTraceBatch(db, batch)));
        expect(await getTrace(db, { scope: adminScope(), traceId })).toMatchObject({
          name: "Crew.run",
          status: "ERROR",
          team_id: "crew",
          start_time: traceTime(base),
          end_time: traceTime(base + 245),
          duration_ms: 245,
        });
        expect(await getTraceSpans(db, { traceId })).toHaveLength(24);
      });

      it("refuses spans of a trace that is neither in the batch nor stored (the foreign key), writing nothing", async () => {
        const base = newBase();
        const orphan = span({ trace_id: hex(32) }, base, base + 1);
        const traceId = hex(32);
        await expect(writeTraceBatch(db, { traces: [trace({ trace_id: traceId }, base, base + 1)], spans: [orphan] })).rejects.toThrow();
        expect(await getTrace(db, { scope: adminScope(), traceId })).toBeNull();
      });
    });

    describe("listTraces", () => {
      it("lists newest first with span and error counts and the root span's input, paged, with the total", async () => {
        const base = newBase();
        const user = uid("lister");
        const a = await seedTrace(db, { user_id: user, startMs: base + 1000, input: "first question", children: 3, errors: 2 });
        const b = await seedTrace(db, { user_id: user, startMs: base + 3000, input: "second", children: 0 });
        const c = await seedTrace(db, { user_id: user, startMs: base + 2000, input: null, children: 1 });
        // Two traces starting at once: the trace id breaks the tie (descending).
        const tieIds = [hex(32), hex(32)].sort();
        await seedTrace(db, { trace_id: tieIds[0], user_id: user, startMs: base });
        await seedTrace(db, { trace_id: tieIds[1], user_id: user, startMs: base });
        // A trace no span was stored for yet.
        const bare = trace({ trace_id: hex(32), user_id: user }, base - 1000, base - 500);
        await writeTraceBatch(db, { traces: [bare], spans: [] });

        const scope = userScope(user);
        const all = await listTraces(db, { scope, page: 1, limit: 20 });
        expect(all.totalCount).toBe(6);
        expect(all.rows.map((r) => r.trace_id)).toEqual([b.trace_id, c.trace_id, a.trace_id, tieIds[1], tieIds[0], bare.trace_id]);
        expect(all.rows[0]).toEqual({ ...b, total_spans: 1, error_count: 0, input: "second" });
        expect(all.rows[1]).toMatchObject({ total_spans: 2, error_count: 0, input: null });
        expect(all.rows[2]).toMatchObject({ status: "ERROR", total_spans: 4, error_count: 2, input: "first question" });
        expect(all.rows[5]).toMatchObject({ total_spans: 0, error_count: 0, input: null });

        const page2 = await listTraces(db, { scope, page: 2, limit: 2 });
        expect(page2.totalCount).toBe(6);
        expect(page2.rows.map((r) => r.trace_id)).toEqual([a.trace_id, tieIds[1]]);
        expect((await listTraces(db, { scope, page: 4, limit: 2 })).rows).toEqual([]);
        await expect(listTraces(db, { scope, page: 0, limit: 2 })).rejects.toThrow(PaginationError);
      });

      it("takes the input of the earliest parentless span", async () => {
        const base = newBase();
        const traceId = hex(32);
        const user = uid("roots");
        await writeTraceBatch(db, {
          traces: [trace({ trace_id: traceId, user_id: user }, base, base + 100)],
          spans: [
            span({ trace_id: traceId, attributes: { "input.value": "later root" } }, base + 50, base + 60),
            span({ trace_id: traceId, parent_span_id: hex(16), attributes: { "input.value": "child" } }, base - 10, base),
            span({ trace_id: traceId, attributes: { "input.value": "earliest root" } }, base, base + 100),
          ],
        });
        const { rows } = await listTraces(db, { scope: userScope(user), page: 1, limit: 5 });
        expect(rows[0]).toMatchObject({ total_spans: 3, input: "earliest root" });
      });

      it("filters by the context columns, status and the time range (inclusive bounds)", async () => {
        const base = newBase();
        const user = uid("filters");
        const one = await seedTrace(db, { user_id: user, run_id: "r1", session_id: "s1", agent_id: "ag1", startMs: base, durationMs: 100 });
        const two = await seedTrace(db, { user_id: user, run_id: "r2", session_id: "s1", team_id: "tm1", startMs: base + 1000, durationMs: 100, errors: 1 });
        const three = await seedTrace(db, { user_id: user, run_id: "r3", session_id: "s2", workflow_id: "wf1", startMs: base + 2000, durationMs: 100 });
        const scope = userScope(user);
        const ids = async (filters: Parameters<typeof listTraces>[1]["filters"]) => (await listTraces(db, { scope, filters, page: 1, limit: 10 })).rows.map((r) => r.trace_id);
        expect(await ids({ session_id: "s1" })).toEqual([two.trace_id, one.trace_id]);
        expect(await ids({ run_id: "r3" })).toEqual([three.trace_id]);
        expect(await ids({ agent_id: "ag1" })).toEqual([one.trace_id]);
        expect(await ids({ team_id: "tm1" })).toEqual([two.trace_id]);
        expect(await ids({ workflow_id: "wf1" })).toEqual([three.trace_id]);
        expect(await ids({ status: "ERROR" })).toEqual([two.trace_id]);
        expect(await ids({ user_id: user, status: "OK" })).toEqual([three.trace_id, one.trace_id]);
        expect(await ids({ start_time: two.start_time })).toEqual([three.trace_id, two.trace_id]);
        expect(await ids({ end_time: two.end_time })).toEqual([two.trace_id, one.trace_id]);
        expect(await ids({ start_time: two.start_time, end_time: two.end_time })).toEqual([two.trace_id]);
        expect(await ids({ start_time: normalizeTraceTime(new Date(base + 500).toISOString().replace("Z", "+00:00")) })).toEqual([three.trace_id, two.trace_id]);
        expect((await listTraces(db, { scope, filters: { session_id: "s1" }, page: 1, limit: 1 })).totalCount).toBe(2);
      });
    });

    describe("scope", () => {
      it("a member sees only its own traces (never owner-less ones); an admin sees all, or one user's", async () => {
        const base = newBase();
        const [alice, bob] = [uid("alice"), uid("bob")];
        const session = uid("shared-session");
        const mine = await seedTrace(db, { user_id: alice, run_id: uid("run"), session_id: session, startMs: base });
        const theirs = await seedTrace(db, { user_id: bob, run_id: uid("run"), session_id: session, startMs: base + 1 });
        const nobodys = await seedTrace(db, { user_id: null, run_id: uid("run"), session_id: session, startMs: base + 2 });
        const a = userScope(alice);

        expect((await listTraces(db, { scope: a, page: 1, limit: 50 })).rows.map((r) => r.trace_id)).toEqual([mine.trace_id]);
        expect((await listTraces(db, { scope: a, filters: { user_id: bob }, page: 1, limit: 50 })).totalCount).toBe(0);
        expect((await listTraces(db, { scope: a, filters: { session_id: session }, page: 1, limit: 50 })).totalCount).toBe(1);
        expect(await getTrace(db, { scope: a, traceId: mine.trace_id })).toMatchObject({ trace_id: mine.trace_id });
        expect(await getTrace(db, { scope: a, traceId: theirs.trace_id })).toBeNull();
        expect(await getTrace(db, { scope: a, traceId: nobodys.trace_id })).toBeNull();
        expect(await getTraceOfRun(db, { scope: a, runId: theirs.run_id! })).toBeNull();
        expect(await getTraceOfRun(db, { scope: a, runId: nobodys.run_id! })).toBeNull();
        expect((await searchTraces(db, { scope: a, filter: parseTraceFilter({ op: "EQ", key: "session_id", value: session }), page: 1, limit: 50 })).rows.map((r) => r.trace_id)).toEqual([
          mine.trace_id,
        ]);
        expect((await searchTraces(db, { scope: a, filter: parseTraceFilter({ op: "EQ", key: "user_id", value: bob }), page: 1, limit: 50 })).totalCount).toBe(0);
        expect((await traceSessionStats(db, { scope: a, page: 1, limit: 50 })).rows).toEqual([expect.objectContaining({ session_id: session, user_id: alice, total_traces: 1 })]);
        expect((await searchTraceSessionStats(db, { scope: a, page: 1, limit: 50 })).rows).toEqual([expect.objectContaining({ session_id: session, total_traces: 1 })]);
        expect((await listTraceRowsForDashboard(db, { scope: a, page: 1, limit: 50 })).rows.map((r) => r.trace_id)).toEqual([mine.trace_id]);

        const bySession = (scope: DataScope) => listTraces(db, { scope, filters: { session_id: session }, page: 1, limit: 50 });
        expect((await bySession(adminScope())).rows.map((r) => r.trace_id)).toEqual([nobodys.trace_id, theirs.trace_id, mine.trace_id]);
        expect((await bySession(adminScope(bob))).rows.map((r) => r.trace_id)).toEqual([theirs.trace_id]);
        expect((await bySession(adminScope(null))).rows.map((r) => r.trace_id)).toEqual([nobodys.trace_id]);
        expect(await getTrace(db, { scope: adminScope(), traceId: nobodys.trace_id })).not.toBeNull();
        expect(await getTraceOfRun(db, { scope: adminScope(), runId: theirs.run_id! })).toMatchObject({ trace_id: theirs.trace_id });
        const stats = await traceSessionStats(db, { scope: adminScope(), filters: { agent_id: undefined }, page: 1, limit: 500 });
        expect(stats.rows.find((r) => r.session_id === session)).toMatchObject({ total_traces: 3 });
      });

      it("getTraceOfRun returns the run's latest trace", async () => {
        const base = newBase();
        const user = uid("runner");
        const runId = uid("run");
        await seedTrace(db, { user_id: user, run_id: runId, startMs: base });
        const later = await seedTrace(db, { user_id: user, run_id: runId, startMs: base + 5000 });
        await seedTrace(db, { user_id: user, run_id: uid("other-run"), startMs: base + 9000 });
        expect(await getTraceOfRun(db, { scope: userScope(user), runId })).toMatchObject({ trace_id: later.trace_id });
        expect(await getTraceOfRun(db, { scope: userScope(user), runId: "nope" })).toBeNull();
      });
    });

    describe("session stats", () => {
      it("groups traces with a session by session, latest activity first, with counts and first/last times", async () => {
        const base = newBase();
        const user = uid("stats");
        const [s1, s2, s3] = [uid("s1"), uid("s2"), uid("s3")];
        await seedTrace(db, { user_id: user, session_id: s1, agent_id: "a1", startMs: base, created_at: traceTime(base) });
        await seedTrace(db, { user_id: user, session_id: s1, team_id: "t1", startMs: base + 100, created_at: traceTime(base + 5000) });
        await seedTrace(db, { user_id: user, session_id: s2, agent_id: "a2", startMs: base + 200, created_at: traceTime(base + 3000) });
        await seedTrace(db, { user_id: user, session_id: s3, workflow_id: "w1", startMs: base + 300, created_at: traceTime(base + 1000) });
        await seedTrace(db, { user_id: user, session_id: s3, workflow_id: "w1", agent_id: "a9", startMs: base + 400, created_at: traceTime(base + 2000) });
        await seedTrace(db, { user_id: user, session_id: null, startMs: base + 500, created_at: traceTime(base + 9000) });
        const scope = userScope(user);

        const { rows, totalCount } = await traceSessionStats(db, { scope, page: 1, limit: 10 });
        expect(totalCount).toBe(3);
        expect(rows).toEqual([
          { session_id: s1, user_id: user, agent_id: "a1", team_id: "t1", workflow_id: null, total_traces: 2, first_trace_at: traceTime(base), last_trace_at: traceTime(base + 5000) },
          { session_id: s2, user_id: user, agent_id: "a2", team_id: null, workflow_id: null, total_traces: 1, first_trace_at: traceTime(base + 3000), last_trace_at: traceTime(base + 3000) },
          { session_id: s3, user_id: user, agent_id: "a9", team_id: null, workflow_id: "w1", total_traces: 2, first_trace_at: traceTime(base + 1000), last_trace_at: traceTime(base + 2000) },
        ]);
        const page2 = await traceSessionStats(db, { scope, page: 2, limit: 2 });
        expect([page2.totalCount, page2.rows.map((r) => r.session_id)]).toEqual([3, [s3]]);
        expect((await traceSessionStats(db, { scope, filters: { workflow_id: "w1" }, page: 1, limit: 10 })).rows.map((r) => r.session_id)).toEqual([s3]);
        // start/end compare created_at, inclusive.
        const windowed = await traceSessionStats(db, { scope, filters: { start_time: traceTime(base + 2000), end_time: traceTime(base + 3000) }, page: 1, limit: 10 });
        expect(windowed.rows.map((r) => [r.session_id, r.total_traces])).toEqual([
          [s2, 1],
          [s3, 1],
        ]);
        const searched = await searchTraceSessionStats(db, { scope, filter: parseTraceFilter({ op: "IN", key: "session_id", values: [s1, s2] }), page: 1, limit: 10 });
        expect([searched.totalCount, searched.rows.map((r) => r.session_id)]).toEqual([2, [s1, s2]]);
      });
    });

    describe("the dashboard list", () => {
      it("adds each trace's LLM prompt and completion tokens and searches names case-insensitively", async () => {
        const base = newBase();
        const user = uid("dash");
        const traceId = hex(32);
        const llm = (prompt: unknown, completion: unknown, kind = "LLM") => ({ "openinference.span.kind": kind, "llm.token_count.prompt": prompt, "llm.token_count.completion": completion });
        await writeTraceBatch(db, {
          traces: [trace({ trace_id: traceId, user_id: user, name: "Research_Agent.run" }, base, base + 100)],
          spans: [
            span({ trace_id: traceId, attributes: { "input.value": "q" } }, base, base + 100),
            span({ trace_id: traceId, parent_span_id: hex(16), attributes: llm(100, 20) }, base + 1, base + 2),
            span({ trace_id: traceId, parent_span_id: hex(16), attributes: llm(50, 5) }, base + 3, base + 4),
            span({ trace_id: traceId, parent_span_id: hex(16), attributes: llm(1000, 1000, "TOOL") }, base + 5, base + 6),
            span({ trace_id: traceId, parent_span_id: hex(16), attributes: llm("lots", null) }, base + 7, base + 8),
          ],
        });
        const other = await seedTrace(db, { user_id: user, name: "Writer_100%_Agent.run", startMs: base + 1000 });
        const scope = userScope(user);
        const { rows, totalCount } = await listTraceRowsForDashboard(db, { scope, page: 1, limit: 10 });
        expect(totalCount).toBe(2);
        expect(rows[1]).toMatchObject({ trace_id: traceId, total_spans: 5, input: "q", input_tokens: 150, output_tokens: 25 });
        expect(rows[0]).toMatchObject({ trace_id: other.trace_id, input_tokens: 0, output_tokens: 0 });
        const named = await listTraceRowsForDashboard(db, { scope, filters: { name: "research_" }, page: 1, limit: 10 });
        expect(named.rows.map((r) => r.trace_id)).toEqual([traceId]);
        expect((await listTraceRowsForDashboard(db, { scope, filters: { name: "100%" }, page: 1, limit: 10 })).rows.map((r) => r.trace_id)).toEqual([other.trace_id]);
        expect((await listTraceRowsForDashboard(db, { scope, filters: { name: "0%_a" }, page: 1, limit: 10 })).totalCount).toBe(1);
        expect((await listTraceRowsForDashboard(db, { scope, filters: { name: "r_agent" }, page: 1, limit: 10 })).totalCount).toBe(0);
      });
    });

    describe("deleting", () => {
      it("deleteSessions deletes the traces of the sessions it deleted, with their spans, and no others", async () => {
        const base = newBase();
        const [alice, bob] = [uid("del-alice"), uid("del-bob")];
        const mineSession = await upsertSession(db, { scope: userScope(alice), session: { sessionId: uid("s"), sessionType: "agent", agentId: "a" } });
        const keptSession = await upsertSession(db, { scope: userScope(alice), session: { sessionId: uid("s"), sessionType: "agent", agentId: "a" } });
        const theirSession = await upsertSession(db, { scope: userScope(bob), session: { sessionId: uid("s"), sessionType: "agent", agentId: "a" } });
        const doomed = [
          await seedTrace(db, { user_id: alice, session_id: mineSession.session_id, startMs: base, children: 3 }),
          await seedTrace(db, { user_id: alice, session_id: mineSession.session_id, startMs: base + 1 }),
        ];
        const kept = await seedTrace(db, { user_id: alice, session_id: keptSession.session_id, startMs: base + 2 });
        const theirs = await seedTrace(db, { user_id: bob, session_id: theirSession.session_id, startMs: base + 3 });
        const noSession = await seedTrace(db, { user_id: alice, session_id: null, startMs: base + 4 });
        const spansOf = async (traceId: string) => (await getTraceSpans(db, { traceId })).length;

        // Alice asking to delete Bob's session deletes nothing, traces included.
        expect(await deleteSessions(db, { scope: userScope(alice), sessionIds: [theirSession.session_id] })).toBe(0);
        expect(await getTrace(db, { scope: adminScope(), traceId: theirs.trace_id })).not.toBeNull();

        expect(await deleteSessions(db, { scope: userScope(alice), sessionIds: [mineSession.session_id, theirSession.session_id] })).toBe(1);
        for (const t of doomed) {
          expect(await getTrace(db, { scope: adminScope(), traceId: t.trace_id })).toBeNull();
          expect(await spansOf(t.trace_id)).toBe(0);
        }
        for (const t of [kept, theirs, noSession]) {
          expect(await getTrace(db, { scope: adminScope(), traceId: t.trace_id })).not.toBeNull();
          expect(await spansOf(t.trace_id)).toBe(3);
        }
      });

      it("retention deletes traces that started before the cut-off with their spans, a batch at a time", async () => {
        const fresh = await openMigrated(dialect);
        try {
          const base = Date.UTC(2025, 0, 1);
          const old = [];
          for (let i = 0; i < 7; i++) old.push(await seedTrace(fresh, { startMs: base + i * 1000, user_id: i % 2 ? "x" : null }));
          const cutoff = traceTime(base + 7000);
          const recent = [await seedTrace(fresh, { startMs: base + 7000 }), await seedTrace(fresh, { startMs: base + 60_000 })];

          expect(await unsafeDeleteTracesBefore(fresh, { before: cutoff, batchSize: 3 })).toBe(3);
          // The oldest went first.
          expect(await getTrace(fresh, { scope: adminScope(), traceId: old[0].trace_id })).toBeNull();
          expect(await getTrace(fresh, { scope: adminScope(), traceId: old[3].trace_id })).not.toBeNull();
          expect(await unsafeDeleteTracesBefore(fresh, { before: cutoff, batchSize: 3 })).toBe(3);
          expect(await unsafeDeleteTracesBefore(fresh, { before: cutoff, batchSize: 3 })).toBe(1);
          expect(await unsafeDeleteTracesBefore(fresh, { before: cutoff })).toBe(0);
          for (const t of old) expect(await getTraceSpans(fresh, { traceId: t.trace_id })).toEqual([]);
          const [{ n }] = await fresh.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_spans");
          expect(Number(n)).toBe(6);
          expect((await listTraces(fresh, { scope: adminScope(), page: 1, limit: 10 })).rows.map((r) => r.trace_id)).toEqual([recent[1].trace_id, recent[0].trace_id]);
        } finally {
          await fresh.destroy();
        }
      });
    });

    describe("dropped spans", () => {
      it("adds per process and day, and sums since a day or ever", async () => {
        const fresh = await openMigrated(dialect);
        try {
          expect(await sumDroppedSpans(fresh)).toBe(0);
          await addDroppedSpans(fresh, { processId: "p1", day: "2026-03-01", count: 5 });
          await addDroppedSpans(fresh, { processId: "p1", day: "2026-03-01", count: 7 });
          await addDroppedSpans(fresh, { processId: "p2", day: "2026-03-01", count: 1 });
          await addDroppedSpans(fresh, { processId: "p1", day: "2026-03-02", count: 10 });
          await addDroppedSpans(fresh, { processId: "p1", day: "2026-03-03", count: 0 });
          expect(await sumDroppedSpans(fresh)).toBe(23);
          expect(await sumDroppedSpans(fresh, { since: "2026-03-02" })).toBe(10);
          expect(await sumDroppedSpans(fresh, { since: "2026-03-04" })).toBe(0);
          const rows = await fresh.sql.query<{ process_id: string; day: string; dropped: number }>("SELECT process_id, day, dropped FROM agentry_trace_drops ORDER BY process_id, day");
          expect(rows.map((r) => [r.process_id, r.day, Number(r.dropped)])).toEqual([
            ["p1", "2026-03-01", 12],
            ["p1", "2026-03-02", 10],
            ["p2", "2026-03-01", 1],
          ]);
          await expect(addDroppedSpans(fresh, { processId: "p1", day: "March 3", count: 1 })).rejects.toThrow(TypeError);
        } finally {
          await fresh.destroy();
        }
      });
    });
  });
});
