import { beforeAll, describe, expect, it } from "vitest";
import { traceTime, type SpanRow, type TraceRow } from "@/lib/db/traces/trace-rows.ts";
import { addDroppedSpans, writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { readFilters } from "@/lib/http/dashboard/list-filters.ts";
import {
  componentChoices,
  droppedSpansRecently,
  loadRunTrace,
  loadTraceTimeline,
  TRACE_EXPORT_WAIT_SECONDS,
  TRACE_RUN_FILTERS,
  traceRunPage,
  traceSessionPage,
  traceTimeBounds,
  type TraceRunFilters,
} from "@/lib/http/dashboard/trace-views.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";

const NOW = Date.now();
const MIN = 60_000;
const HOUR = 60 * MIN;
const A = "trace-user-a";
const B = "trace-user-b";

let spanSeq = 0;
const spanId = () => (++spanSeq).toString(16).padStart(16, "0");
let traceSeq = 0;
const traceId = () => (++traceSeq).toString(16).padStart(32, "0");

function span(traceIdValue: string, name: string, startMs: number, endMs: number, extra: Partial<SpanRow> = {}): SpanRow {
  return {
    span_id: spanId(),
    trace_id: traceIdValue,
    parent_span_id: null,
    name,
    span_kind: "INTERNAL",
    status_code: "OK",
    status_message: null,
    start_time: traceTime(startMs),
    end_time: traceTime(endMs),
    duration_ms: Math.floor(endMs - startMs),
    attributes: {},
    created_at: traceTime(endMs),
    ...extra,
  };
}

function traceRow(id: string, name: string, startMs: number, endMs: number, context: Partial<TraceRow>): TraceRow {
  return {
    trace_id: id,
    name,
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
    ...context,
  };
}

interface Seeded {
  traceId: string;
  rootId: string;
  llmId: string;
  toolId: string;
}

/**
 * An agent run's trace as the runtime records it: the run span (AGENT), a model call that asks
 * for a tool (LLM), the tool call (TOOL), the model call that answers (LLM).
 */
async function seedAgentTrace(
  db: TestDb,
  {
    user,
    startMs,
    runId,
    sessionId,
    input = "add 2 and 3",
    model = "gpt-4o-mini",
    status = "OK" as "OK" | "ERROR",
    name = "Assistant.run",
    team,
  }: {
    user: string | null;
    startMs: number;
    runId: string;
    sessionId: string;
    input?: string;
    model?: string;
    status?: "OK" | "ERROR";
    name?: string;
    team?: string;
  },
): Promise<Seeded> {
  const id = traceId();
  const ids = team ? { team_id: team } : { agent_id: "assistant" };
  const root = span(id, name, startMs, startMs + 900, {
    status_code: status,
    status_message: status === "ERROR" ? "the model failed" : null,
    attributes: {
      "openinference.span.kind": "AGENT",
      "input.value": input,
      "output.value": "The result is 5.",
      "agno.run.id": runId,
      ...(team ? { "agno.team.id": team } : { "agno.agent.id": "assistant" }),
      ...(user ? { "user.id": user } : {}),
      "session.id": sessionId,
    },
  });
  const llm = (offset: number, prompt: number, completion: number) =>
    span(id, "OpenAIChat.invoke", startMs + offset, startMs + offset + 200, {
      parent_span_id: root.span_id,
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": model,
        "llm.provider": "openai",
        "llm.token_count.prompt": prompt,
        "llm.token_count.completion": completion,
        "input.value": '{"messages":[]}',
        "output.value": "ok",
      },
    });
  const first = llm(10, 100, 20);
  const tool = span(id, "add", startMs + 250, startMs + 300, {
    parent_span_id: root.span_id,
    attributes: { "openinference.span.kind": "TOOL", "tool.name": "add", "tool.parameters": '{"a":2,"b":3}', "input.value": '{"a":2,"b":3}', "output.value": '{"result":5}' },
  });
  const second = llm(400, 150, 10);
  await writeTraceBatch(db, {
    traces: [traceRow(id, name, startMs, startMs + 900, { status, run_id: runId, session_id: sessionId, user_id: user, ...ids })],
    spans: [root, first, tool, second],
  });
  return { traceId: id, rootId: root.span_id, llmId: first.span_id, toolId: tool.span_id };
}

const NO_FILTERS: TraceRunFilters = {};

describe("the Traces pages' filters (pure)", () => {
  it("reads the component filter as the trace column it filters on; anything else is a problem", () => {
    const read = readFilters(TRACE_RUN_FILTERS, { component: "team:desk", since: "24h", status: "ERROR", name: "  Assist " });
    expect(read.problems).toEqual([]);
    expect(read.values).toEqual({ component: { team_id: "desk" }, since: "24h", status: "ERROR", name: "Assist" });
    expect(read.shown.component).toBe("team:desk");
    const bad = readFilters(TRACE_RUN_FILTERS, { component: "robot:x", since: "2y", status: "OK" });
    expect(bad.problems).toEqual([expect.stringMatching(/^component must name an agent, a team or a workflow/), expect.stringMatching(/^since must be one of 1h, 24h, 7d/)]);
    expect(bad.values).toEqual({ status: "OK" });
  });

  it("offers the configured agents (external ones after them), teams and workflows; bounds the time by the later of the preset and the from day", () => {
    const configured = {
      agents: [{ id: "assistant", name: "Assistant" }],
      externalAgents: [{ id: "tide-graph", name: "Tide Graph" }],
      teams: [{ id: "desk", name: "Desk" }],
      workflows: [{ id: "brief" }],
    };
    expect(componentChoices(configured as never)).toEqual([
      { value: "agent:assistant", label: "Agent: Assistant" },
      { value: "agent:tide-graph", label: "Agent: Tide Graph" },
      { value: "team:desk", label: "Team: Desk" },
      { value: "workflow:brief", label: "Workflow: brief" },
    ]);
    const now = Date.UTC(2026, 11, 7, 12, 0, 0);
    expect(traceTimeBounds({ since: "1h" }, now)).toEqual({ start_time: "2026-12-07T11:00:00.000000+00:00" });
    // A from day later than the preset's start wins; to is the next midnight.
    expect(traceTimeBounds({ since: "7d", from: Date.UTC(2026, 11, 5) / 1000, to: Date.UTC(2026, 11, 7) / 1000 }, now)).toEqual({
      start_time: "2026-12-05T00:00:00.000000+00:00",
      end_time: "2026-12-07T00:00:00.000000+00:00",
    });
    expect(traceTimeBounds({}, now)).toEqual({});
  });
});

describe.each(DIALECTS)("the Traces pages' loaders on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let recent: Seeded;
    let failed: Seeded;
    let others: Seeded;
    let continued: string;

    beforeAll(async () => {
      recent = await seedAgentTrace(db, { user: A, startMs: NOW - 30 * MIN, runId: "run-recent", sessionId: "session-1", input: "x".repeat(500) });
      failed = await seedAgentTrace(db, { user: A, startMs: NOW - 3 * HOUR, runId: "run-failed", sessionId: "session-2", status: "ERROR", name: "Desk.run", team: "desk" });
      await seedAgentTrace(db, { user: A, startMs: NOW - 3 * 24 * HOUR, runId: "run-old", sessionId: "session-1", model: "scripted" });
      others = await seedAgentTrace(db, { user: B, startMs: NOW - 10 * MIN, runId: "run-b", sessionId: "session-b", input: "b's secret question" });
      await seedAgentTrace(db, { user: null, startMs: NOW - 5 * MIN, runId: "run-nobody", sessionId: "session-nobody" });
      // A paused run continued an hour later: one trace, two roots.
      continued = traceId();
      const start = NOW - 2 * HOUR;
      const first = span(continued, "Assistant.run", start, start + 100, {
        attributes: { "openinference.span.kind": "AGENT", "agno.run.id": "run-paused", "input.value": "show me the server details" },
      });
      const second = span(continued, "Assistant.run", start + HOUR, start + HOUR + 50, {
        attributes: { "openinference.span.kind": "AGENT", "agno.run.id": "run-paused", "agentry.run.continuation": true, "output.value": "done" },
      });
      const tool = span(continued, "server_details", start + HOUR + 10, start + HOUR + 20, {
        parent_span_id: second.span_id,
        attributes: { "openinference.span.kind": "TOOL", "tool.name": "server_details" },
      });
      await writeTraceBatch(db, {
        traces: [traceRow(continued, "Assistant.run", start, start + HOUR + 50, { run_id: "run-paused", session_id: "session-3", user_id: A, agent_id: "assistant" })],
        spans: [first, second, tool],
      });
    });

    it("by run: a member's list holds its own traces only, whatever it filters on", async () => {
      const page = await traceRunPage({ db, scope: userScope(A), filters: NO_FILTERS, page: 1, limit: 25 });
      expect(page.totalCount).toBe(4);
      expect(page.rows.map((r) => r.run_id)).toEqual(["run-recent", "run-paused", "run-failed", "run-old"]);
      expect(page.rows.every((r) => r.user_id === A)).toBe(true);
      // Filtering on another user's session or run finds nothing of theirs.
      expect((await traceRunPage({ db, scope: userScope(A), filters: { session: "session-b" }, page: 1, limit: 25 })).rows).toEqual([]);
      expect((await traceRunPage({ db, scope: userScope(A), filters: { run: "run-b" }, page: 1, limit: 25 })).rows).toEqual([]);
      expect((await traceRunPage({ db, scope: userScope(A), filters: { run: "run-nobody" }, page: 1, limit: 25 })).rows).toEqual([]);
      const bs = await traceRunPage({ db, scope: userScope(B), filters: NO_FILTERS, page: 1, limit: 25 });
      expect(bs.rows.map((r) => r.input)).toEqual(["b's secret question"]);
    });

    it("by run: each row's counts, tokens and a bounded input preview; filters by status, component, session, run, name and time", async () => {
      const scope = userScope(A);
      const list = async (filters: TraceRunFilters) => (await traceRunPage({ db, scope, filters, page: 1, limit: 25 })).rows.map((r) => r.run_id);
      const [row] = (await traceRunPage({ db, scope, filters: { run: "run-recent" }, page: 1, limit: 25 })).rows;
      expect(row).toMatchObject({ name: "Assistant.run", status: "OK", total_spans: 4, error_count: 0, input_tokens: 250, output_tokens: 30, duration_ms: 900 });
      expect(Array.from(row!.input!)).toHaveLength(200);
      expect(row!.input!.endsWith("…")).toBe(true);
      expect(await list({ status: "ERROR" })).toEqual(["run-failed"]);
      expect(await list({ component: { team_id: "desk" } })).toEqual(["run-failed"]);
      expect(await list({ component: { agent_id: "assistant" } })).toEqual(["run-recent", "run-paused", "run-old"]);
      expect(await list({ session: "session-1" })).toEqual(["run-recent", "run-old"]);
      expect(await list({ name: "desk" })).toEqual(["run-failed"]);
      expect(await list({ since: "1h" })).toEqual(["run-recent"]);
      expect(await list({ since: "24h" })).toEqual(["run-recent", "run-paused", "run-failed"]);
      expect(await list({ since: "7d", to: Math.floor((NOW - 2 * 24 * HOUR) / 1000) })).toEqual(["run-old"]);
      // Numbered pages.
      const second = await traceRunPage({ db, scope, filters: NO_FILTERS, page: 2, limit: 3 });
      expect([second.totalCount, second.rows.map((r) => r.run_id)]).toEqual([4, ["run-old"]]);
    });

    it("by run: an admin sees everyone's traces, or one user's", async () => {
      const all = await traceRunPage({ db, scope: adminScope(), filters: NO_FILTERS, page: 1, limit: 25 });
      expect(all.rows.map((r) => r.run_id)).toEqual(["run-nobody", "run-b", "run-recent", "run-paused", "run-failed", "run-old"]);
      expect((await traceRunPage({ db, scope: adminScope(B), filters: NO_FILTERS, page: 1, limit: 25 })).rows.map((r) => r.run_id)).toEqual(["run-b"]);
    });

    it("by session: a member's sessions with traces only, latest first", async () => {
      const page = await traceSessionPage({ db, scope: userScope(A), filters: {}, page: 1, limit: 25 });
      expect(page.rows.map((r) => [r.session_id, r.total_traces])).toEqual([
        ["session-1", 2],
        ["session-3", 1],
        ["session-2", 1],
      ]);
      expect((await traceSessionPage({ db, scope: userScope(A), filters: { since: "1h" }, page: 1, limit: 25 })).rows.map((r) => r.session_id)).toEqual(["session-1"]);
      expect((await traceSessionPage({ db, scope: userScope(A), filters: { component: { team_id: "desk" } }, page: 1, limit: 25 })).rows.map((r) => r.session_id)).toEqual(["session-2"]);
      expect((await traceSessionPage({ db, scope: userScope(B), filters: {}, page: 1, limit: 25 })).rows.map((r) => r.session_id)).toEqual(["session-b"]);
      expect((await traceSessionPage({ db, scope: adminScope(), filters: {}, page: 1, limit: 25 })).totalCount).toBe(5);
    });

    it("a trace's timeline: the spans in tree order on one time axis, model spans' tokens and cost; another user's is none", async () => {
      const timeline = await loadTraceTimeline(db, { scope: userScope(A), traceId: recent.traceId });
      expect(timeline).toMatchObject({ traceId: recent.traceId, name: "Assistant.run", status: "OK", runId: "run-recent", sessionId: "session-1", userId: A, totalSpans: 4, roots: 1 });
      expect(timeline!.spans.map((s) => [s.type, s.name, s.depth, s.offsetMs, s.durationMs])).toEqual([
        ["AGENT", "Assistant.run", 0, 0, 900],
        ["LLM", "OpenAIChat.invoke", 1, 10, 200],
        ["TOOL", "add", 1, 250, 50],
        ["LLM", "OpenAIChat.invoke", 1, 400, 200],
      ]);
      expect(timeline!.output).toBe("The result is 5.");
      const [, llm, tool] = timeline!.spans;
      // gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
      expect(llm!.llm).toEqual({ model: "gpt-4o-mini", provider: "openai", inputTokens: 100, outputTokens: 20, cost: 0.000027 });
      expect(tool!.tool).toEqual({ name: "add", arguments: '{"a":2,"b":3}', result: '{"result":5}' });
      expect(tool!.attributes).not.toHaveProperty("input.value");
      expect(timeline!.tokens).toEqual({ input: 250, output: 30 });
      expect(timeline!.cost).toBeCloseTo(0.000027 + (150 * 0.15 + 10 * 0.6) / 1e6, 12);
      // Configured prices come first; a model without one leaves the cost out.
      const priced = await loadTraceTimeline(db, { scope: userScope(A), traceId: recent.traceId, prices: { "gpt-4o-mini": { input: 1, output: 2 } } });
      expect(priced!.cost).toBeCloseTo((250 * 1 + 30 * 2) / 1e6, 12);

      expect(await loadTraceTimeline(db, { scope: userScope(A), traceId: others.traceId })).toBeNull();
      expect(await loadTraceTimeline(db, { scope: userScope(B), traceId: recent.traceId })).toBeNull();
      expect((await loadTraceTimeline(db, { scope: adminScope(), traceId: others.traceId }))?.userId).toBe(B);
      const error = await loadTraceTimeline(db, { scope: userScope(A), traceId: failed.traceId });
      expect([error!.status, error!.error, error!.spans[0]!.type, error!.spans[0]!.error]).toEqual(["ERROR", "the model failed", "TEAM", "the model failed"]);
    });

    it("a paused run continued later: both roots, the continuation after the first run's subtree", async () => {
      const timeline = await loadTraceTimeline(db, { scope: userScope(A), traceId: continued });
      expect(timeline!.roots).toBe(2);
      expect(timeline!.spans.map((s) => [s.name, s.depth, s.rootIndex, s.continuation, s.offsetMs])).toEqual([
        ["Assistant.run", 0, 0, false, 0],
        ["Assistant.run", 0, 1, true, HOUR],
        ["server_details", 1, 1, false, HOUR + 10],
      ]);
      expect([timeline!.input, timeline!.output]).toEqual(["show me the server details", "done"]);
    });

    it("a run's trace: its own, a member's parent's, or none yet (awaited while the run is recent and tracing is on)", async () => {
      const settings = { tracing: { enabled: true }, metrics: { prices: {} } } as never;
      const nowS = Math.floor(NOW / 1000);
      const run = (runId: string, extra: Partial<{ parent_run_id: string; status: string; updated_at: number }> = {}) => ({
        run_id: runId,
        parent_run_id: null,
        status: "COMPLETED",
        created_at: nowS - 5,
        updated_at: nowS - 1,
        ...extra,
      });
      const own = await loadRunTrace(db, { scope: userScope(A), run: run("run-recent"), settings, nowMs: NOW });
      expect([own.timeline?.traceId, own.awaiting]).toEqual([recent.traceId, false]);
      const member = await loadRunTrace(db, { scope: userScope(A), run: run("member-run", { parent_run_id: "run-failed" }), settings, nowMs: NOW });
      expect(member.timeline?.traceId).toBe(failed.traceId);
      const pending = await loadRunTrace(db, { scope: userScope(A), run: run("not-exported"), settings, nowMs: NOW });
      expect([pending.timeline, pending.awaiting]).toEqual([null, true]);
      const old = await loadRunTrace(db, { scope: userScope(A), run: run("not-exported", { updated_at: nowS - TRACE_EXPORT_WAIT_SECONDS - 1 }), settings, nowMs: NOW });
      expect(old.awaiting).toBe(false);
      const going = await loadRunTrace(db, { scope: userScope(A), run: run("not-exported", { status: "RUNNING", updated_at: nowS - 3600 }), settings, nowMs: NOW });
      expect(going.awaiting).toBe(true);
      const off = await loadRunTrace(db, { scope: userScope(A), run: run("not-exported"), settings: { tracing: { enabled: false }, metrics: { prices: {} } } as never, nowMs: NOW });
      expect([off.awaiting, off.tracing]).toEqual([false, false]);
      // A paused run continued since: awaited until its trace has the continuation's root.
      const paused = { run_data: { metadata: { agentry_trace_context: "00-x-y-01" } } };
      const beforeContinuation = await loadRunTrace(db, { scope: userScope(A), run: { ...run("run-recent"), ...paused }, settings, nowMs: NOW });
      expect([beforeContinuation.timeline?.roots, beforeContinuation.awaiting]).toEqual([1, true]);
      const stillPaused = await loadRunTrace(db, { scope: userScope(A), run: { ...run("run-recent", { status: "PAUSED" }), ...paused }, settings, nowMs: NOW });
      expect(stillPaused.awaiting).toBe(false);
      const continuedAt = Math.floor((NOW - HOUR) / 1000);
      const afterContinuation = await loadRunTrace(db, { scope: userScope(A), run: { ...run("run-paused", { updated_at: continuedAt }), ...paused }, settings, nowMs: NOW - HOUR + 5000 });
      expect([afterContinuation.timeline?.roots, afterContinuation.awaiting]).toEqual([2, false]);
      // Another user's run id reads as no trace in a member's scope.
      expect((await loadRunTrace(db, { scope: userScope(A), run: run("run-b", { updated_at: nowS - 3600 }), settings, nowMs: NOW })).timeline).toBeNull();
    });

    it("counts the spans dropped over the last 7 days", async () => {
      const before = await droppedSpansRecently(db, { nowMs: NOW });
      const day = (daysAgo: number) => new Date(NOW - daysAgo * 24 * HOUR).toISOString().slice(0, 10);
      await addDroppedSpans(db, { processId: "p1", day: day(0), count: 5 });
      await addDroppedSpans(db, { processId: "p2", day: day(6), count: 2 });
      await addDroppedSpans(db, { processId: "p1", day: day(10), count: 7 });
      expect((await droppedSpansRecently(db, { nowMs: NOW })) - before).toBe(7);
    });
  });
});
