/**
 * Synthetic, deterministic data for bench/dashboard.ts: dashboard users, agent sessions and their
 * runs, shaped as Agentry stores them (run_data with input.input_content, content, messages and
 * metrics; session_data with session_name and session_metrics). Written with multi-row INSERTs,
 * straight into the migrated tables: upsertRun would take minutes for 100,000 rows.
 */
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { prng, sentence } from "./synthetic-text.ts";

export interface SeedOptions {
  runs: number;
  sessions: number;
  users: number;
  /** Epoch seconds: the newest run is a little before this. */
  now: number;
}

export interface SeededUser {
  id: string;
  email: string;
  role: "admin" | "member";
}

export interface SeedResult {
  users: SeededUser[];
  runDataBytes: number;
  sessionNames: number;
}

export const AGENTS: readonly { id: string; weight: number }[] = [
  { id: "assistant", weight: 0.35 },
  { id: "researcher", weight: 0.25 },
  { id: "support-bot", weight: 0.2 },
  { id: "sql-analyst", weight: 0.12 },
  { id: "writer", weight: 0.08 },
];

/** Status mix of finished runs; the benchmark relies on there being no PENDING run. */
const STATUSES: readonly { status: string; weight: number }[] = [
  { status: "COMPLETED", weight: 0.86 },
  { status: "ERROR", weight: 0.07 },
  { status: "CANCELLED", weight: 0.04 },
  { status: "PAUSED", weight: 0.03 },
];

const CITIES = ["Paris", "Lisbon", "Osaka", "Denver", "Nairobi", "Oslo", "Lima", "Hanoi"];
const NAMES = ["Dana", "Priya", "Marco", "Keiko", "Samir", "Olga", "Tom", "Ines"];
/** Session names: one template in ten mentions the weather (the name filter's target). */
const SESSION_NAMES: readonly ((n: number) => string)[] = [
  (n) => `Weather in ${CITIES[n % CITIES.length]} this week`,
  (n) => `Quarterly revenue report Q${(n % 4) + 1}`,
  (n) => `Refund for order #${10_000 + n}`,
  (n) => `Flight and hotel for ${CITIES[(n + 3) % CITIES.length]}`,
  (n) => `Fix flaky test in module ${n % 37}`,
  (n) => `Customer onboarding ${NAMES[n % NAMES.length]}`,
  (n) => `Weekly metrics summary ${(n % 52) + 1}`,
  (n) => `Invoice ${2000 + n} question`,
  (n) => `Draft reply to ${NAMES[(n + 5) % NAMES.length]}`,
  (n) => `Stock trend analysis ${["ACME", "GLOBX", "INIT", "UMBR"][n % 4]}`,
];

const SYSTEM_PROMPT =
  "You are a helpful assistant for an operations team. Answer concisely, cite the records you used, " +
  "and ask a clarifying question when the request is ambiguous. Use markdown for lists and tables.";

/** A UUID v4 drawn from `rand`: ids in no relation to time, as Agno's are. */
function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16));
  hex[12] = "4";
  hex[16] = "89ab"[Math.floor(rand() * 4)];
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function pick<T extends { weight: number }>(rand: () => number, items: readonly T[]): T {
  let r = rand();
  for (const item of items) {
    r -= item.weight;
    if (r < 0) return item;
  }
  return items[items.length - 1];
}

interface SessionRow {
  session_id: string;
  agent_id: string;
  user_id: string;
  session_name: string;
  created_at: number;
  updated_at: number;
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
}

interface RunRow {
  run_id: string;
  session_id: string;
  agent_id: string;
  user_id: string;
  status: string;
  run_index: number;
  run_data: string;
  created_at: number;
  updated_at: number;
}

/** The dict Agentry stores for one agent run (trimmed to the common fields), as JSON text. */
function runData(rand: () => number, run: Omit<RunRow, "run_data">): { json: string; tokens: [number, number] } {
  const userText = sentence(rand, 60 + Math.floor(rand() * 200));
  const content = run.status === "ERROR" ? "" : sentence(rand, 200 + Math.floor(rand() * 500));
  const inputTokens = 300 + Math.floor(rand() * 1500);
  const outputTokens = run.status === "ERROR" ? 0 : 40 + Math.floor(rand() * 500);
  const metrics = {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    cache_read_tokens: 0,
    reasoning_tokens: 0,
    time_to_first_token: Math.round(rand() * 900) / 1000,
    duration: run.updated_at - run.created_at + Math.round(rand() * 1000) / 1000,
  };
  const message = (role: string, text: string, extra: Record<string, unknown> = {}) => ({
    id: `${run.run_id}-${role}`,
    role,
    content: text,
    from_history: false,
    stop_after_tool_call: false,
    created_at: run.created_at,
    ...extra,
  });
  const data: Record<string, unknown> = {
    run_id: run.run_id,
    agent_id: run.agent_id,
    agent_name: run.agent_id.replace(/(^|-)(\w)/g, (_m, dash: string, c: string) => `${dash ? " " : ""}${c.toUpperCase()}`),
    session_id: run.session_id,
    user_id: run.user_id,
    model: "gpt-4o-mini",
    model_provider: "OpenAI",
    content,
    content_type: "str",
    input: { input_content: userText },
    messages: [
      message("system", SYSTEM_PROMPT),
      message("user", userText),
      ...(content ? [message("assistant", content, { metrics: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens } })] : []),
    ],
    metrics,
    status: run.status,
    created_at: run.created_at,
    ...(run.status === "ERROR" ? { error: "Model provider returned 429: rate limit exceeded" } : {}),
  };
  return { json: JSON.stringify(data), tokens: [inputTokens, outputTokens] };
}

/**
 * Sessions with their runs, in batches of whole sessions holding at least `batch` runs (the last
 * one fewer). A session's row is complete (updated_at, session_metrics) once its runs are made.
 */
function* generate(options: SeedOptions, users: SeededUser[], batch: number): Generator<{ sessions: SessionRow[]; runs: RunRow[] }> {
  const rand = prng(20_260_601);
  const span = 90 * 86_400;
  const perSession = Math.floor(options.runs / options.sessions);
  const extra = options.runs - perSession * options.sessions;
  let sessions: SessionRow[] = [];
  let runs: RunRow[] = [];
  for (let s = 0; s < options.sessions; s++) {
    const count = perSession + (s < extra ? 1 : 0);
    const agent = pick(rand, AGENTS).id;
    const user = users[s % users.length];
    // A session's runs are 1–15 minutes apart; sessions start anywhere in the last 90 days.
    const gaps = Array.from({ length: count }, () => 60 + Math.floor(rand() * 840));
    const length = gaps.reduce((a, b) => a + b, 0);
    let at = options.now - 600 - length - Math.floor(rand() * Math.max(1, span - length));
    const session: SessionRow = {
      session_id: uuid(rand),
      agent_id: agent,
      user_id: user.id,
      session_name: SESSION_NAMES[s % SESSION_NAMES.length](s),
      created_at: at,
      updated_at: at,
      total_tokens: 0,
      input_tokens: 0,
      output_tokens: 0,
    };
    for (let i = 0; i < count; i++) {
      at += gaps[i];
      const status = pick(rand, STATUSES).status;
      const base = { run_id: uuid(rand), session_id: session.session_id, agent_id: agent, user_id: user.id, status, run_index: i, created_at: at, updated_at: at + 1 + Math.floor(rand() * 8) };
      const { json, tokens } = runData(rand, base);
      runs.push({ ...base, run_data: json });
      session.input_tokens += tokens[0];
      session.output_tokens += tokens[1];
      session.updated_at = base.updated_at;
    }
    session.total_tokens = session.input_tokens + session.output_tokens;
    sessions.push(session);
    if (runs.length >= batch) {
      yield { sessions, runs };
      sessions = [];
      runs = [];
    }
  }
  if (sessions.length > 0) yield { sessions, runs };
}

/** `users` dashboard users: the first an admin, the rest members. */
function makeUsers(count: number): SeededUser[] {
  const rand = prng(50);
  return Array.from({ length: count }, (_, i) => ({
    id: uuid(rand),
    email: `${i === 0 ? "admin" : `member-${String(i).padStart(2, "0")}`}@bench.test`,
    role: i === 0 ? "admin" : "member",
  }));
}

const sessionData = (s: SessionRow) =>
  JSON.stringify({
    session_name: s.session_name,
    session_state: {},
    session_metrics: { input_tokens: s.input_tokens, output_tokens: s.output_tokens, total_tokens: s.total_tokens, cache_read_tokens: 0, reasoning_tokens: 0 },
  });
const agentData = (s: SessionRow) => JSON.stringify({ agent_id: s.agent_id, name: s.agent_id, model: { id: "gpt-4o-mini", provider: "OpenAI" } });

/** Users first, then each batch's sessions before their runs (runs reference their session). */
async function seedWith(
  options: SeedOptions,
  insertUsers: (users: SeededUser[]) => Promise<void>,
  insertSessions: (rows: SessionRow[]) => Promise<void>,
  insertRuns: (rows: RunRow[]) => Promise<void>,
): Promise<SeedResult> {
  const users = makeUsers(options.users);
  await insertUsers(users);
  let runDataBytes = 0;
  for (const chunk of generate(options, users, 5000)) {
    await insertSessions(chunk.sessions);
    if (chunk.runs.length > 0) await insertRuns(chunk.runs);
    for (const r of chunk.runs) runDataBytes += Buffer.byteLength(r.run_data);
  }
  return { users, runDataBytes, sessionNames: SESSION_NAMES.length };
}

/** Seeds PostgreSQL through `pool` (search_path on the migrated schema). */
export function seedPostgres(pool: pg.Pool, options: SeedOptions): Promise<SeedResult> {
  return seedWith(
    options,
    async (users) => {
      await pool.query(
        `INSERT INTO agentry_users (id, email, name, role, session_version, created_at, updated_at)
         SELECT id, email, email, role, 1, $4, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, email, role)`,
        [users.map((u) => u.id), users.map((u) => u.email), users.map((u) => u.role), options.now - 100 * 86_400],
      );
    },
    async (rows) => {
      await pool.query(
        `INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, session_data, agent_data, created_at, updated_at)
         SELECT id, 'agent', agent, owner, sdata, adata, created, updated
           FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::bigint[], $7::bigint[]) AS s(id, agent, owner, sdata, adata, created, updated)`,
        [
          rows.map((s) => s.session_id),
          rows.map((s) => s.agent_id),
          rows.map((s) => s.user_id),
          rows.map(sessionData),
          rows.map(agentData),
          rows.map((s) => s.created_at),
          rows.map((s) => s.updated_at),
        ],
      );
    },
    async (rows) => {
      await pool.query(
        `INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, user_id, status, run_index, run_data, created_at, updated_at)
         SELECT id, sid, 'agent', agent, owner, status, idx, data, created, updated
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::jsonb[], $8::bigint[], $9::bigint[])
             AS r(id, sid, agent, owner, status, idx, data, created, updated)`,
        [
          rows.map((r) => r.run_id),
          rows.map((r) => r.session_id),
          rows.map((r) => r.agent_id),
          rows.map((r) => r.user_id),
          rows.map((r) => r.status),
          rows.map((r) => r.run_index),
          rows.map((r) => r.run_data),
          rows.map((r) => r.created_at),
          rows.map((r) => r.updated_at),
        ],
      );
    },
  );
}

/** Seeds a SQLite file through its own connection, one transaction per batch. */
export function seedSqlite(connection: BetterSqlite3.Database, options: SeedOptions): Promise<SeedResult> {
  const user = connection.prepare(`INSERT INTO agentry_users (id, email, name, role, session_version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)`);
  const session = connection.prepare(`INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, session_data, agent_data, created_at, updated_at) VALUES (?, 'agent', ?, ?, ?, ?, ?, ?)`);
  const run = connection.prepare(
    `INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, user_id, status, run_index, run_data, created_at, updated_at) VALUES (?, ?, 'agent', ?, ?, ?, ?, ?, ?, ?)`,
  );
  const at = options.now - 100 * 86_400;
  return seedWith(
    options,
    async (users) =>
      connection.transaction(() =>
        users.forEach((u) => {
          user.run(u.id, u.email, u.email, u.role, at, at);
        }),
      )(),
    async (rows) =>
      connection.transaction(() =>
        rows.forEach((s) => {
          session.run(s.session_id, s.agent_id, s.user_id, sessionData(s), agentData(s), s.created_at, s.updated_at);
        }),
      )(),
    async (rows) =>
      connection.transaction(() =>
        rows.forEach((r) => {
          run.run(r.run_id, r.session_id, r.agent_id, r.user_id, r.status, r.run_index, r.run_data, r.created_at, r.updated_at);
        }),
      )(),
  );
}
