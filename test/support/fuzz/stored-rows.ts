import { createHash } from "node:crypto";
import type { Db } from "@/lib/db/open-database.ts";
import type { Statement } from "@/lib/db/sql.ts";
import { userEntityKey } from "@/lib/db/learnings/learning-ids.ts";
import { pythonJsonDumps } from "../../fixtures/python-json.ts";

/**
 * Rows the way Agno 2.x/3.x writes them into the tables Agentry reads, for the route fuzz suites:
 * written with raw SQL and Python's json.dumps text, never through Agentry's own writers, so the
 * fuzzed routes meet what a real Agno database holds.
 *
 * - Python None in a JSON column is the JSON text `null` (SQLAlchemy's JSON type), not SQL NULL;
 *   a column Agno leaves out of its insert is SQL NULL.
 * - Agno 2.x on SQLite stores every JSON column of `agno_sessions` double-encoded (a JSON string
 *   literal holding the document); PostgreSQL (JSONB) and every other table are single-encoded.
 * - A session migrated from 2.x keeps its `runs` blob in the legacy `runs` column.
 * - A run Agno cut short carries a `run_data` with little more than its id; a paused run written
 *   by Agno 2.x lists its pending tools and has no `requirements`.
 * - Rows without an owner (`user_id` NULL) are shared.
 * - Traces and spans as Agno's exporter writes them: times from `datetime.isoformat()` (six
 *   fraction digits, none on a whole second), a child-only batch's trace with no context, an
 *   orphan span (its parent never exported), a span without a kind, a workflow root whose output
 *   is the text "None", attributes holding lists and JSON text.
 * - Learnings as Agno's stores write them: a user's profile and memories (one with SQL NULL
 *   metadata and `updated_at`, as a pre-2.0 row), a shared global entity, an entity in namespace
 *   `user` on its digest key, a shared decision.
 */

export interface StoredOddRows {
  /** Every run written (in a row or a legacy blob) with its session; each session has one or more. */
  runs: { sessionId: string; runId: string }[];
  memoryIds: string[];
  /** Every trace written, and every span (parallel: span_id[i] is a span of trace_id[i]). */
  traces: { traceId: string; spanId: string }[];
  learningIds: string[];
}

const T0 = 1_748_779_200; // 2025-06-01T12:00:00Z
const UNICODE = '😀 漢字 e\u0301 שלום 👨\u200d👩\u200d👧 "q" back\\slash 100% a_b';

type Encoding = "none" | "json-null" | "sql-null";

/** A session column's text as Agno writes it (SQLite: double-encoded), JSON null, or SQL NULL. */
function sessionJson(dialect: Db["dialect"], value: unknown): string | null {
  if (value === undefined) return null;
  if (value === null) return "null";
  return dialect === "sqlite" ? pythonJsonDumps(pythonJsonDumps(value)) : pythonJsonDumps(value);
}

/** Any other JSON column: single-encoded; null is JSON null (Python None), undefined SQL NULL. */
const json = (value: unknown): string | null => (value === undefined ? null : pythonJsonDumps(value));

function insert(table: string, row: Record<string, unknown>): Statement {
  const columns = Object.keys(row);
  return { text: `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, params: Object.values(row) };
}

/** The legacy `runs` column a database migrated from Agno 2.x keeps (a fresh Agentry one has none). */
async function addLegacyRunsColumn(db: Db): Promise<void> {
  const present =
    db.dialect === "postgres"
      ? await db.sql.query("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'agno_sessions' AND column_name = 'runs'")
      : await db.sql.query("SELECT 1 FROM pragma_table_info('agno_sessions') WHERE name = 'runs'");
  if (present.length === 0) await db.sql.exec(`ALTER TABLE agno_sessions ADD COLUMN runs ${db.dialect === "postgres" ? "JSONB" : "JSON"}`);
}

/**
 * Writes the rows, replacing any of the same ids (and, with a session, every run in it): calling
 * it again puts them back as Agno wrote them after requests changed or deleted them. Call it first
 * right after the database is opened and before any request, so the legacy `runs` column exists
 * from the server's first look at the table. `owner` owns the rows that are not shared; `tag`
 * keeps ids apart between suites.
 */
export async function seedAgnoShapedRows(db: Db, { owner, tag }: { owner: string; tag: string }): Promise<StoredOddRows> {
  await addLegacyRunsColumn(db);
  const d = db.dialect;
  const id = (name: string) => `agno-${name}-${tag}`;
  const session = (row: {
    id: string;
    type?: "agent" | "team" | "workflow";
    user: string | null;
    data?: unknown;
    agentData?: unknown;
    teamData?: unknown;
    workflowData?: unknown;
    metadata?: unknown;
    summary?: unknown;
    runs?: unknown;
    at: number;
  }) =>
    insert("agno_sessions", {
      session_id: row.id,
      session_type: row.type ?? "agent",
      agent_id: (row.type ?? "agent") === "agent" ? "assistant" : null,
      team_id: row.type === "team" ? "fuzz-team" : null,
      workflow_id: row.type === "workflow" ? "fuzz-workflow" : null,
      user_id: row.user,
      session_data: sessionJson(d, row.data),
      agent_data: sessionJson(d, row.agentData),
      team_data: sessionJson(d, row.teamData),
      workflow_data: sessionJson(d, row.workflowData),
      metadata: sessionJson(d, row.metadata),
      summary: sessionJson(d, row.summary),
      runs: sessionJson(d, row.runs),
      created_at: row.at,
      updated_at: row.at + 5,
    });
  const run = (row: { id: string; session: string; type?: "agent" | "team" | "workflow"; user: string | null; index: number; status: string | null; data: Record<string, unknown>; at: number }) =>
    insert("agno_runs", {
      run_id: row.id,
      session_id: row.session,
      run_type: row.type ?? "agent",
      agent_id: (row.type ?? "agent") === "agent" ? "assistant" : null,
      team_id: row.type === "team" ? "fuzz-team" : null,
      workflow_id: row.type === "workflow" ? "fuzz-workflow" : null,
      user_id: row.user,
      parent_run_id: null,
      status: row.status,
      run_index: row.index,
      run_data: json(row.data),
      created_at: row.at,
      updated_at: row.at,
    });
  const memory = (row: { id: string; user: string | null; memory: unknown; topics: unknown | Encoding; at: number; updated?: number | null }) =>
    insert("agno_memories", {
      memory_id: row.id,
      memory: json(row.memory),
      feedback: null,
      input: null,
      agent_id: "assistant",
      team_id: null,
      user_id: row.user,
      topics: row.topics === "sql-null" ? null : row.topics === "json-null" ? "null" : json(row.topics),
      created_at: row.at,
      updated_at: row.updated === undefined ? row.at + 1 : row.updated,
    });

  const learning = (row: {
    id: string;
    type: string;
    user: string | null;
    content: unknown;
    metadata?: unknown;
    at: number;
    updated?: number | null;
    namespace?: string | null;
    entity?: { id: string; type: string };
    session?: string | null;
  }) =>
    insert("agno_learnings", {
      learning_id: row.id,
      learning_type: row.type,
      namespace: row.namespace ?? null,
      user_id: row.user,
      agent_id: "assistant",
      team_id: null,
      workflow_id: null,
      session_id: row.session ?? null,
      entity_id: row.entity?.id ?? null,
      entity_type: row.entity?.type ?? null,
      content: json(row.content),
      metadata: json(row.metadata),
      created_at: row.at,
      updated_at: row.updated === undefined ? row.at + 1 : row.updated,
    });

  /** A time as Python's isoformat writes a UTC datetime: six fraction digits, or none on a whole second. */
  const iso = (seconds: number, micros = 0) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}${micros ? `.${String(micros).padStart(6, "0")}` : ""}+00:00`;
  const trace = (row: {
    id: string;
    name: string;
    status: string;
    start: string;
    end: string;
    duration: number;
    run?: string | null;
    session?: string | null;
    user: string | null;
    agent?: string | null;
    workflow?: string | null;
  }) =>
    insert("agno_traces", {
      trace_id: row.id,
      name: row.name,
      status: row.status,
      start_time: row.start,
      end_time: row.end,
      duration_ms: row.duration,
      run_id: row.run ?? null,
      session_id: row.session ?? null,
      user_id: row.user,
      agent_id: row.agent ?? null,
      team_id: null,
      workflow_id: row.workflow ?? null,
      created_at: row.end,
    });
  const spanRow = (row: {
    id: string;
    trace: string;
    parent?: string | null;
    name: string;
    status?: string;
    message?: string | null;
    start: string;
    end: string;
    duration: number;
    attributes: unknown;
  }) =>
    insert("agno_spans", {
      span_id: row.id,
      trace_id: row.trace,
      parent_span_id: row.parent ?? null,
      name: row.name,
      span_kind: "INTERNAL",
      status_code: row.status ?? "OK",
      status_message: row.message ?? null,
      start_time: row.start,
      end_time: row.end,
      duration_ms: row.duration,
      attributes: json(row.attributes),
      created_at: row.end,
    });

  const ids = {
    nullData: id("null-session-data"),
    double: id("double-encoded"),
    legacy: id("legacy-runs"),
    shared: id("shared session"),
    team: id("team-null-data"),
    workflow: id("workflow-null-data"),
    sparseRun: id("sparse-run"),
    legacyRun: id("legacy-run"),
    legacySparseRun: id("legacy-sparse-run"),
    sharedRun: id("shared-run"),
    teamRun: id("team-sparse-run"),
    workflowRun: id("workflow-sparse-run"),
    pausedV2Run: id("paused-v2-run"),
    pausedSparseRun: id("paused-sparse-run"),
    nullTopics: id("memory-json-null-topics"),
    sqlNullTopics: id("memory-sql-null-topics"),
    sharedMemory: id("memory-shared"),
  };
  const legacyRuns = [
    {
      run_id: ids.legacyRun,
      session_id: ids.legacy,
      agent_id: "assistant",
      user_id: owner,
      status: "COMPLETED",
      input: { input_content: `legacy question ${UNICODE}` },
      content: "legacy answer",
      messages: [
        { role: "user", content: `legacy question ${UNICODE}`, created_at: T0 },
        { role: "assistant", content: "legacy answer", created_at: T0 + 1 },
      ],
      metrics: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
      created_at: T0,
    },
    { run_id: ids.legacySparseRun, status: "ERROR" },
  ];
  const runs = [
    { sessionId: ids.nullData, runId: ids.sparseRun },
    { sessionId: ids.nullData, runId: ids.pausedSparseRun },
    { sessionId: ids.double, runId: ids.pausedV2Run },
    { sessionId: ids.legacy, runId: ids.legacyRun },
    { sessionId: ids.legacy, runId: ids.legacySparseRun },
    { sessionId: ids.shared, runId: ids.sharedRun },
    { sessionId: ids.team, runId: ids.teamRun },
    { sessionId: ids.workflow, runId: ids.workflowRun },
  ];
  const sessionIds = [...new Set(runs.map((r) => r.sessionId))];
  const runIds = runs.map((r) => r.runId);
  const memoryIds = [ids.nullTopics, ids.sqlNullTopics, ids.sharedMemory];
  const l = {
    profile: `user_profile_${owner}`,
    memories: `memories_${owner}`,
    entity: `entity_global_person_${id("sarah_chen")}`,
    userEntity: userEntityKey(owner, "company", id("acme")),
    decision: `dec_${createHash("sha256").update(`decision-${tag}`).digest("hex").slice(0, 8)}`,
  };
  const learningIds = Object.values(l);
  // 32 and 16 hex digits, as OpenTelemetry's ids are written.
  const hex = (name: string, length: number) => createHash("sha256").update(`${name}-${tag}`).digest("hex").slice(0, length);
  const t = { run: hex("trace-run", 32), orphaned: hex("trace-orphan", 32), workflow: hex("trace-workflow", 32), shared: hex("trace-shared", 32) };
  const sp = {
    root: hex("span-root", 16),
    llm: hex("span-llm", 16),
    tool: hex("span-tool", 16),
    orphan: hex("span-orphan", 16),
    kindless: hex("span-kindless", 16),
    flow: hex("span-flow", 16),
    step: hex("span-step", 16),
    shared: hex("span-shared", 16),
  };
  const traces = [
    { traceId: t.run, spanId: sp.root },
    { traceId: t.run, spanId: sp.llm },
    { traceId: t.run, spanId: sp.tool },
    { traceId: t.orphaned, spanId: sp.orphan },
    { traceId: t.orphaned, spanId: sp.kindless },
    { traceId: t.workflow, spanId: sp.flow },
    { traceId: t.workflow, spanId: sp.step },
    { traceId: t.shared, spanId: sp.shared },
  ];
  const traceIds = [...new Set(traces.map((x) => x.traceId))];
  const list = (values: string[]) => values.map(() => "?").join(", ");
  await db.sql.batch([
    // Spans first: their foreign key to the trace does not cascade.
    { text: `DELETE FROM agno_spans WHERE trace_id IN (${list(traceIds)})`, params: traceIds },
    { text: `DELETE FROM agno_traces WHERE trace_id IN (${list(traceIds)})`, params: traceIds },
    { text: `DELETE FROM agno_runs WHERE run_id IN (${list(runIds)})`, params: runIds },
    // Runs go with their session (ON DELETE CASCADE), those other requests added too.
    { text: `DELETE FROM agno_sessions WHERE session_id IN (${list(sessionIds)})`, params: sessionIds },
    { text: `DELETE FROM agno_memories WHERE memory_id IN (${list(memoryIds)})`, params: memoryIds },
    { text: `DELETE FROM agno_learnings WHERE learning_id IN (${list(learningIds)})`, params: learningIds },
    learning({
      id: l.profile,
      type: "user_profile",
      user: owner,
      content: { user_id: owner, name: UNICODE, preferred_name: null, agent_id: "assistant", team_id: null, created_at: iso(T0), updated_at: iso(T0 + 1) },
      metadata: null,
      at: T0,
    }),
    learning({ id: l.memories, type: "user_memory", user: owner, content: { user_id: owner, memories: [{ id: "m1", content: `likes ${UNICODE}` }] }, at: T0, updated: null }),
    learning({
      id: l.entity,
      type: "entity_memory",
      user: null,
      namespace: "global",
      entity: { id: id("sarah_chen"), type: "person" },
      content: {
        entity_id: id("sarah_chen"),
        entity_type: "person",
        name: "Sarah Chen",
        facts: [{ id: "f1", content: "works on fuzzing" }],
        events: [],
        relationships: [],
        aliases: [],
        properties: {},
        archived_at: null,
      },
      metadata: { source: "agent" },
      at: T0 + 1,
    }),
    learning({
      id: l.userEntity,
      type: "entity_memory",
      user: owner,
      namespace: "user",
      entity: { id: id("acme"), type: "company" },
      content: { entity_id: id("acme"), entity_type: "company", name: `Acme ${UNICODE}`, user_id: owner },
      at: T0 + 2,
    }),
    learning({ id: l.decision, type: "decision_log", user: null, content: { decision: "use SQLite", reasoning: null, alternatives: ["PostgreSQL"], confidence: 0.5 }, at: T0 + 3 }),
    session({ id: ids.nullData, user: owner, data: null, agentData: null, metadata: null, summary: null, at: T0 }),
    session({
      id: ids.double,
      user: owner,
      data: { session_name: `double ${UNICODE}`, session_state: { "ключ": [1, { nested: null }], "": "" }, session_metrics: { total_tokens: 7 } },
      agentData: { agent_id: "assistant", name: "Assistant", model: { id: "gpt-4o-mini", provider: "OpenAI" } },
      metadata: { origin: "agno" },
      at: T0 + 10,
    }),
    session({ id: ids.legacy, user: owner, data: { session_state: {} }, runs: legacyRuns, at: T0 + 20 }),
    session({ id: ids.shared, user: null, data: { session_name: "shared", session_state: { shared: true } }, metadata: null, at: T0 + 30 }),
    session({ id: ids.team, type: "team", user: owner, data: null, teamData: null, at: T0 + 40 }),
    session({ id: ids.workflow, type: "workflow", user: owner, data: null, workflowData: null, at: T0 + 50 }),
    run({ id: ids.sparseRun, session: ids.nullData, user: owner, index: 0, status: null, data: { run_id: ids.sparseRun }, at: T0 + 1 }),
    run({ id: ids.sharedRun, session: ids.shared, user: null, index: 0, status: "COMPLETED", data: { run_id: ids.sharedRun, content: { answer: 42 }, messages: null, metrics: null }, at: T0 + 31 }),
    run({ id: ids.teamRun, session: ids.team, type: "team", user: owner, index: 0, status: "RUNNING", data: { run_id: ids.teamRun, team_id: "fuzz-team" }, at: T0 + 41 }),
    run({ id: ids.workflowRun, session: ids.workflow, type: "workflow", user: owner, index: 0, status: "COMPLETED", data: { run_id: ids.workflowRun, workflow_id: "fuzz-workflow" }, at: T0 + 51 }),
    run({ id: ids.pausedSparseRun, session: ids.nullData, user: owner, index: 1, status: "PAUSED", data: { run_id: ids.pausedSparseRun, status: "PAUSED" }, at: T0 + 2 }),
    run({
      id: ids.pausedV2Run,
      session: ids.double,
      user: owner,
      index: 0,
      status: "PAUSED",
      data: {
        run_id: ids.pausedV2Run,
        session_id: ids.double,
        agent_id: "assistant",
        user_id: owner,
        status: "PAUSED",
        input: { input_content: "delete everything?" },
        messages: [{ role: "user", content: "delete everything?", created_at: T0 + 11 }],
        tools: [{ tool_call_id: "call-v2", tool_name: "delete_all", tool_args: {}, requires_confirmation: true, confirmed: null }],
        created_at: T0 + 11,
      },
      at: T0 + 11,
    }),
    memory({ id: ids.nullTopics, user: owner, memory: `likes ${UNICODE}`, topics: "json-null", at: T0 }),
    memory({ id: ids.sqlNullTopics, user: owner, memory: "topics never written", topics: "sql-null", at: T0 + 1, updated: null }),
    memory({ id: ids.sharedMemory, user: null, memory: { memory: "an older dict-shaped memory" }, topics: ["shared", "漢字"], at: T0 + 2 }),
    // An agent run's trace: AGENT root → LLM, TOOL (an errored one).
    trace({
      id: t.run,
      name: "Assistant.run",
      status: "ERROR",
      start: iso(T0 + 60, 120_000),
      end: iso(T0 + 62, 5),
      duration: 1880,
      run: ids.sparseRun,
      session: ids.nullData,
      user: owner,
      agent: "assistant",
    }),
    spanRow({
      id: sp.root,
      trace: t.run,
      name: "Assistant.run",
      start: iso(T0 + 60, 120_000),
      end: iso(T0 + 62, 5),
      duration: 1880,
      attributes: {
        "openinference.span.kind": "AGENT",
        "input.value": `weather ${UNICODE}`,
        "output.value": "sunny",
        "agno.run.id": ids.sparseRun,
        "session.id": ids.nullData,
        "user.id": owner,
        "agno.tools": ["lookup"],
      },
    }),
    spanRow({
      id: sp.llm,
      trace: t.run,
      parent: sp.root,
      name: "gpt-4o-mini.invoke",
      start: iso(T0 + 60, 200_000),
      end: iso(T0 + 61),
      duration: 800,
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.token_count.prompt": 12,
        "llm.token_count.completion": 3,
        "input.value": '{"messages": []}',
        "llm.invocation_parameters": "{}",
      },
    }),
    spanRow({
      id: sp.tool,
      trace: t.run,
      parent: sp.root,
      name: "lookup",
      status: "ERROR",
      message: "Exception: no such city",
      start: iso(T0 + 61, 1),
      end: iso(T0 + 61, 2),
      duration: 0,
      attributes: { "openinference.span.kind": "TOOL", "tool.name": "lookup", "tool.parameters": '{"city": null}', "exception.message": "no such city" },
    }),
    // A child-only batch: a trace without context, its spans' parent never exported, one without a kind.
    trace({ id: t.orphaned, name: "lookup", status: "OK", start: iso(T0 + 70), end: iso(T0 + 70), duration: 0, user: null }),
    spanRow({
      id: sp.orphan,
      trace: t.orphaned,
      parent: hex("span-never-exported", 16),
      name: "lookup",
      start: iso(T0 + 70),
      end: iso(T0 + 70),
      duration: 0,
      attributes: { "openinference.span.kind": "TOOL" },
    }),
    spanRow({ id: sp.kindless, trace: t.orphaned, parent: sp.orphan, name: "inner", status: "UNSET", start: iso(T0 + 70), end: iso(T0 + 70), duration: 0, attributes: {} }),
    // A workflow run: CHAIN root (output "None") → step.
    trace({
      id: t.workflow,
      name: "Fuzz_Workflow.run",
      status: "OK",
      start: iso(T0 + 80),
      end: iso(T0 + 83, 999_999),
      duration: 3999,
      run: ids.workflowRun,
      session: ids.workflow,
      user: owner,
      workflow: "fuzz-workflow",
    }),
    spanRow({
      id: sp.flow,
      trace: t.workflow,
      name: "Fuzz_Workflow.run",
      start: iso(T0 + 80),
      end: iso(T0 + 83, 999_999),
      duration: 3999,
      attributes: {
        "openinference.span.kind": "CHAIN",
        "input.value": "topic",
        "output.value": "None",
        "agno.workflow.step_types": ["Step", "Condition"],
        "agno.workflow.steps": ["a", "b"],
        "agno.workflow.steps_count": 2,
      },
    }),
    spanRow({
      id: sp.step,
      trace: t.workflow,
      parent: sp.flow,
      name: "a.execute",
      start: iso(T0 + 80, 1),
      end: iso(T0 + 83),
      duration: 2999,
      attributes: { "openinference.span.kind": "CHAIN", "output.value": "stepped" },
    }),
    // A shared (owner-less) run's trace.
    trace({ id: t.shared, name: "Assistant.run", status: "OK", start: iso(T0 + 90), end: iso(T0 + 91), duration: 1000, run: ids.sharedRun, session: ids.shared, user: null, agent: "assistant" }),
    spanRow({
      id: sp.shared,
      trace: t.shared,
      name: "Assistant.run",
      start: iso(T0 + 90),
      end: iso(T0 + 91),
      duration: 1000,
      attributes: { "openinference.span.kind": "AGENT", "input.value": "shared?" },
    }),
  ]);
  return { runs, memoryIds, traces, learningIds };
}
