/**
 * The metrics refresh over 1,000,000 runs against one hand-written GROUP BY statement computing
 * the same figures in raw SQL, on the same database, in the same run.
 *
 *   npm run bench:metrics                          # PostgreSQL at postgresql://postgres@127.0.0.1:5432/test
 *   npm run bench:metrics -- --sqlite              # SQLite, in a temporary file
 *          --runs=1000000 --sessions=100000 --users=1000 --days=30 --repeat=3 --url=postgresql://… --keep
 *
 * See bench/README.md ("metrics").
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../lib/db/open-database.ts";
import { MigrationManager } from "../lib/migrations/migration-manager.ts";
import { refreshMetrics } from "../lib/metrics/refresh.ts";
import { table } from "./report.ts";

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(runs|sessions|users|days|repeat|url)=.+$|^--(keep|sqlite)$/.test(a));
if (unknown.length > 0 || args.includes("--help")) {
  console.error("usage: tsx bench/metrics.ts [--sqlite] [--runs=1000000] [--sessions=100000] [--users=1000] [--days=30] [--repeat=3] [--url=postgresql://…] [--keep]");
  process.exit(2);
}
const RUNS = Number(option("runs") ?? 1_000_000);
const SESSIONS = Number(option("sessions") ?? 100_000);
const USERS = Number(option("users") ?? 1000);
const DAYS = Number(option("days") ?? 30);
const REPEAT = Number(option("repeat") ?? 3);
const DIALECT: "postgres" | "sqlite" = args.includes("--sqlite") ? "sqlite" : "postgres";
const URL = option("url") ?? process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const KEEP = args.includes("--keep");
const TARGET = 1.5;

const TODAY = Math.floor(Date.now() / 86_400_000);

// ---------------------------------------------------------------------------------------------
// Seeding: bulk SQL (generate_series on PostgreSQL, a recursive CTE on SQLite), never the API.
// Session g: created on one of the last DAYS days; every 10th a team session, every 10th + 1 a
// workflow session, the rest agent sessions; every 50th has no user. Run r belongs to session
// ((r-1) % SESSIONS) + 1, its (r-1) / SESSIONS-th run, 5 minutes apart (some a day later); four
// models, one of them without a price (no cost stored); run_data ~0.8 KB with two messages.
// ---------------------------------------------------------------------------------------------

function seedStatements(dialect: "postgres" | "sqlite"): string[] {
  const pg = dialect === "postgres";
  const cat = (...parts: string[]) => (pg ? parts.join(" || ") : parts.join(" || "));
  const sessionCreated = (g: string) => `((${TODAY} - (${g} % ${DAYS})) * 86400 + ((${g} * 7919) % 86000))`;
  const sessionUser = (g: string) => `(CASE WHEN ${g} % 50 = 0 THEN NULL ELSE ${cat("'user-'", `CAST(${g} % ${USERS} AS TEXT)`)} END)`;
  const sessionType = (g: string) => `(CASE ${g} % 10 WHEN 0 THEN 'team' WHEN 1 THEN 'workflow' ELSE 'agent' END)`;
  const obj = pg ? "jsonb_build_object" : "json_object";
  const arr = pg ? "jsonb_build_array" : "json_array";
  const series = (n: number, body: string) =>
    pg ? body.replace("{FROM}", `FROM generate_series(1, ${n}) AS t(g)`) : `WITH RECURSIVE t(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM t WHERE g < ${n}) ${body.replace("{FROM}", "FROM t")}`;
  const sessions = series(
    SESSIONS,
    `INSERT INTO agno_sessions (session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, created_at, updated_at)
     SELECT ${cat("'s'", "CAST(g AS TEXT)")}, ${sessionType("g")},
            CASE WHEN g % 10 > 1 THEN ${cat("'agent-'", "CAST(g % 5 AS TEXT)")} END, CASE WHEN g % 10 = 0 THEN 'team-1' END, CASE WHEN g % 10 = 1 THEN 'flow-1' END,
            ${sessionUser("g")},
            ${obj}('session_name', ${cat("'Session '", "CAST(g AS TEXT)")}, 'session_metrics', ${obj}('input_tokens', 1000 + g % 500, 'output_tokens', 200 + g % 100, 'total_tokens', 1200 + g % 500 + g % 100, 'cache_read_tokens', g % 64)),
            ${sessionCreated("g")}, ${sessionCreated("g")}
     {FROM}`,
  );
  const s = `((g - 1) % ${SESSIONS} + 1)`;
  const idx = `((g - 1) / ${SESSIONS})`;
  const model = `(CASE g % 4 WHEN 0 THEN 'gpt-4o-mini' WHEN 1 THEN 'claude-3-5-haiku' WHEN 2 THEN 'gpt-4o' ELSE 'local-llm' END)`;
  const provider = `(CASE g % 4 WHEN 0 THEN 'OpenAI' WHEN 1 THEN 'Anthropic' WHEN 2 THEN 'OpenAI' ELSE 'Ollama' END)`;
  const input = "(100 + g % 50)";
  const output = "(20 + g % 30)";
  const cost = `(CASE g % 4 WHEN 0 THEN (${input} * 0.15 + ${output} * 0.6) / 1000000.0 WHEN 1 THEN (${input} * 0.8 + ${output} * 4) / 1000000.0 WHEN 2 THEN (${input} * 2.5 + ${output} * 10) / 1000000.0 END)`;
  const member = `(${sessionType(s)} = 'team' AND ${idx} % 2 = 1)`;
  const runType = `(CASE WHEN ${member} THEN 'agent' ELSE ${sessionType(s)} END)`;
  const created = `(${sessionCreated(s)} + ${idx} * 300 + CASE WHEN ${idx} = 9 AND ${s} % 7 = 0 THEN 86400 ELSE 0 END)`;
  const runId = cat("'r'", "CAST(g AS TEXT)");
  const metrics = `${obj}('input_tokens', ${input}, 'output_tokens', ${output}, 'total_tokens', ${input} + ${output}, 'cache_read_tokens', 0, 'duration', 1.5)`;
  const runs = series(
    RUNS,
    `INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at)
     SELECT ${runId}, ${cat("'s'", `CAST(${s} AS TEXT)`)}, ${runType},
            CASE WHEN ${member} THEN 'member' WHEN ${sessionType(s)} = 'agent' THEN ${cat("'agent-'", `CAST(${s} % 5 AS TEXT)`)} END,
            CASE WHEN ${sessionType(s)} = 'team' THEN 'team-1' END, CASE WHEN ${sessionType(s)} = 'workflow' THEN 'flow-1' END,
            ${sessionUser(s)}, CASE WHEN ${member} THEN ${cat("'r'", `CAST(g - ${SESSIONS} AS TEXT)`)} END, 'COMPLETED', ${idx},
            ${obj}('run_id', ${runId}, 'session_id', ${cat("'s'", `CAST(${s} AS TEXT)`)}, 'status', 'COMPLETED', 'model', ${model}, 'model_provider', ${provider},
                   'input', ${obj}('input_content', 'Summarise the quarterly report for the team, please.'),
                   'content', 'The quarterly report shows steady growth in every region, with costs held flat and two new customers signed in the last month of the quarter.',
                   'messages', ${arr}(${obj}('role', 'user', 'content', 'Summarise the quarterly report for the team, please.'), ${obj}('role', 'assistant', 'content', 'The quarterly report shows steady growth in every region.')),
                   'metrics', CASE WHEN g % 4 = 3 THEN ${metrics} ELSE ${pg ? `${metrics} || jsonb_build_object('cost', ${cost})` : `json_set(${metrics}, '$.cost', ${cost})`} END,
                   'created_at', ${created}),
            ${created}, ${created}
     {FROM}`,
  );
  return [sessions, runs, pg ? "ANALYZE" : "ANALYZE"];
}

// ---------------------------------------------------------------------------------------------
// The hand-written statement: the same figures (sessions, session tokens, runs and model counts
// per session day and user; runs, tokens and cost per run day, user, component and model), one
// statement of GROUP BYs, reading each JSON document once as the refresh does. No upsert.
// ---------------------------------------------------------------------------------------------

function handWritten(dialect: "postgres" | "sqlite"): string {
  if (dialect === "postgres") {
    const num = (o: string, k: string) => `(CASE WHEN jsonb_typeof(${o} -> '${k}') = 'number' THEN (${o} ->> '${k}')::numeric ELSE 0 END)`;
    const tokens = ["input_tokens", "output_tokens", "total_tokens", "audio_total_tokens", "audio_input_tokens", "audio_output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"];
    return `WITH s AS MATERIALIZED (SELECT session_id, created_at, COALESCE(user_id, '') AS u, session_type,
                   CASE WHEN jsonb_typeof(session_data -> 'session_metrics') = 'object' THEN session_data -> 'session_metrics' END AS m
              FROM agno_sessions WHERE created_at >= $1 AND created_at < $2 AND session_type IN ('agent', 'team', 'workflow')),
      by_session_day AS (SELECT created_at / 86400 AS day, u, session_type, COUNT(*) AS n, ${tokens.map((t) => `SUM(${num("m", t)}) AS ${t}`).join(", ")} FROM s GROUP BY 1, 2, 3),
      runs_by_session_day AS (SELECT s.created_at / 86400 AS day, s.u, s.session_type, r.run_data ->> 'model' AS model, r.run_data ->> 'model_provider' AS provider, COUNT(*) AS n
              FROM s JOIN agno_runs r ON r.session_id = s.session_id GROUP BY 1, 2, 3, 4, 5),
      by_run_day AS (SELECT r.created_at / 86400 AS day, COALESCE(r.user_id, '') AS u, r.run_type,
                   CASE r.run_type WHEN 'team' THEN r.team_id WHEN 'workflow' THEN r.workflow_id ELSE r.agent_id END AS component, x.model, x.model_provider,
                   COUNT(*) AS n, COUNT(CASE WHEN jsonb_typeof(x.metrics -> 'cost') = 'number' THEN 1 END) AS priced,
                   SUM(CASE WHEN jsonb_typeof(x.metrics -> 'cost') = 'number' THEN (x.metrics ->> 'cost')::numeric END) AS cost,
                   SUM(${num("x.metrics", "input_tokens")}) AS input_tokens, SUM(${num("x.metrics", "output_tokens")}) AS output_tokens,
                   SUM(${num("x.metrics", "total_tokens")}) AS total_tokens, SUM(${num("x.metrics", "cache_read_tokens")}) AS cache_read_tokens
              FROM agno_runs r CROSS JOIN LATERAL jsonb_to_record(r.run_data) AS x(model text, model_provider text, metrics jsonb)
             WHERE r.created_at >= $1 AND r.created_at < $2 GROUP BY 1, 2, 3, 4, 5, 6)
      SELECT 'sessions' AS part, day, u, session_type AS kind, NULL AS model, NULL AS provider, n, total_tokens AS tokens, NULL::numeric AS cost FROM by_session_day
      UNION ALL SELECT 'session_runs', day, u, session_type, model, provider, n, NULL, NULL FROM runs_by_session_day
      UNION ALL SELECT 'run_costs', day, u, run_type, model, model_provider, n, total_tokens, cost FROM by_run_day`;
  }
  const num = (o: string, k: string) => `(CASE WHEN json_type(${o}, '$.${k}') IN ('integer', 'real') THEN json_extract(${o}, '$.${k}') ELSE 0 END)`;
  const tokens = ["input_tokens", "output_tokens", "total_tokens", "audio_total_tokens", "audio_input_tokens", "audio_output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"];
  return `WITH s AS MATERIALIZED (SELECT session_id, created_at, COALESCE(user_id, '') AS u, session_type,
                 CASE WHEN json_type(session_data, '$.session_metrics') = 'object' THEN json_extract(session_data, '$.session_metrics') END AS m
            FROM agno_sessions WHERE created_at >= ? AND created_at < ? AND session_type IN ('agent', 'team', 'workflow')),
    by_session_day AS (SELECT created_at / 86400 AS day, u, session_type, COUNT(*) AS n, ${tokens.map((t) => `SUM(${num("m", t)}) AS ${t}`).join(", ")} FROM s GROUP BY 1, 2, 3),
    runs_by_session_day AS (SELECT s.created_at / 86400 AS day, s.u, s.session_type, json_extract(r.run_data, '$.model') AS model, json_extract(r.run_data, '$.model_provider') AS provider, COUNT(*) AS n
            FROM s JOIN agno_runs r ON r.session_id = s.session_id GROUP BY 1, 2, 3, 4, 5),
    r AS (SELECT created_at, user_id, run_type, agent_id, team_id, workflow_id, json_extract(run_data, '$.model') AS model, json_extract(run_data, '$.model_provider') AS provider,
                 CASE WHEN json_type(run_data, '$.metrics') = 'object' THEN json_extract(run_data, '$.metrics') END AS metrics
            FROM agno_runs WHERE created_at >= ? AND created_at < ?),
    by_run_day AS (SELECT created_at / 86400 AS day, COALESCE(user_id, '') AS u, run_type,
                 CASE run_type WHEN 'team' THEN team_id WHEN 'workflow' THEN workflow_id ELSE agent_id END AS component, model, provider,
                 COUNT(*) AS n, COUNT(CASE WHEN json_type(metrics, '$.cost') IN ('integer', 'real') THEN 1 END) AS priced,
                 SUM(CASE WHEN json_type(metrics, '$.cost') IN ('integer', 'real') THEN json_extract(metrics, '$.cost') END) AS cost,
                 SUM(${num("metrics", "input_tokens")}) AS input_tokens, SUM(${num("metrics", "output_tokens")}) AS output_tokens,
                 SUM(${num("metrics", "total_tokens")}) AS total_tokens, SUM(${num("metrics", "cache_read_tokens")}) AS cache_read_tokens
            FROM r GROUP BY 1, 2, 3, 4, 5, 6)
    SELECT 'sessions' AS part, day, u, session_type AS kind, NULL AS model, NULL AS provider, n, total_tokens AS tokens, NULL AS cost FROM by_session_day
    UNION ALL SELECT 'session_runs', day, u, session_type, model, provider, n, NULL, NULL FROM runs_by_session_day
    UNION ALL SELECT 'run_costs', day, u, run_type, model, provider, n, total_tokens, cost FROM by_run_day`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const dir = DIALECT === "sqlite" ? mkdtempSync(join(tmpdir(), "agentry-bench-metrics-")) : null;
  const schema = `bench_metrics_${process.pid}_${Date.now().toString(36)}`;
  const db: Db = await openDatabase(DIALECT === "sqlite" ? { url: `file:${join(dir!, "bench.db")}` } : { url: URL, schema });
  const cleanup = async () => {
    if (KEEP) {
      console.log(`\n--keep: left ${DIALECT === "sqlite" ? join(dir!, "bench.db") : `schema ${schema}`} in place`);
      await db.close();
      return;
    }
    if (DIALECT === "postgres") await db.sql.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((e) => console.error(`could not drop schema ${schema}: ${e}`));
    await db.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));
  try {
    await new MigrationManager(db).up();
    console.log(
      `bench:metrics on ${DIALECT === "sqlite" ? "SQLite" : `PostgreSQL (${db.location}, schema ${schema})`}: ${RUNS.toLocaleString("en")} runs in ${SESSIONS.toLocaleString("en")} sessions of ${USERS} users over ${DAYS} days`,
    );
    let started = performance.now();
    for (const statement of seedStatements(DIALECT)) await db.sql.exec(statement);
    const [counted] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs");
    console.log(`seeded ${Number(counted.n).toLocaleString("en")} runs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (Number(counted.n) !== RUNS) throw new Error(`expected ${RUNS} runs, found ${counted.n}`);

    const window = [(TODAY - DAYS) * 86_400, (TODAY + 1) * 86_400];
    const handSql = handWritten(DIALECT);
    const runHand = async () => {
      const t = performance.now();
      const rows = await db.sql.query(handSql.replace(/\$[12]/g, "?"), [window[0], window[1], window[0], window[1]]);
      return { ms: performance.now() - t, rows };
    };
    const runRefresh = async () => {
      // From scratch every time: every day of the 30 is owed.
      await db.sql.exec("DELETE FROM agno_metrics");
      const t = performance.now();
      const rows = await refreshMetrics(db);
      return { ms: performance.now() - t, rows };
    };
    // One warm-up of each (caches, plans), then interleaved measurements.
    const warmHand = await runHand();
    const warmRefresh = await runRefresh();
    const handMs: number[] = [];
    const refreshMs: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      refreshMs.push((await runRefresh()).ms);
      handMs.push((await runHand()).ms);
    }

    // Both computed the same figures.
    const sum = (rows: Record<string, unknown>[], part: string, field: string) => rows.filter((r) => r.part === part).reduce((n, r) => n + Number(r[field] ?? 0), 0);
    const hand = warmHand.rows;
    const refreshed = warmRefresh.rows;
    const checks = [
      ["sessions", sum(hand, "sessions", "n"), refreshed.reduce((n, r) => n + r.agent_sessions_count + r.team_sessions_count + r.workflow_sessions_count, 0)],
      ["runs (by session day)", sum(hand, "session_runs", "n"), refreshed.reduce((n, r) => n + r.agent_runs_count + r.team_runs_count + r.workflow_runs_count, 0)],
      ["session tokens", sum(hand, "sessions", "tokens"), refreshed.reduce((n, r) => n + (Number(r.token_metrics.total_tokens) || 0), 0)],
      ["runs (by run day)", sum(hand, "run_costs", "n"), refreshed.reduce((n, r) => n + (r.cost_metrics?.runs ?? 0), 0)],
      ["run tokens", sum(hand, "run_costs", "tokens"), refreshed.reduce((n, r) => n + (r.cost_metrics?.total_tokens ?? 0), 0)],
      ["cost (USD)", sum(hand, "run_costs", "cost"), refreshed.reduce((n, r) => n + (r.cost_metrics?.cost ?? 0), 0)],
    ] as const;
    console.log(
      `\n${table(
        ["figure", "hand-written", "refresh"],
        checks.map(([name, a, b]) => [name, name.startsWith("cost") ? a.toFixed(6) : a.toLocaleString("en"), name.startsWith("cost") ? b.toFixed(6) : b.toLocaleString("en")]),
      )}`,
    );
    const mismatch = checks.filter(([, a, b]) => Math.abs(a - b) > 1e-6 * Math.max(1, Math.abs(a)));
    if (mismatch.length > 0) throw new Error(`the refresh and the hand-written statement disagree on ${mismatch.map(([n]) => n).join(", ")}`);

    started = performance.now();
    const handMedian = median(handMs);
    const refreshMedian = median(refreshMs);
    console.log(
      `\n${table(
        ["", "median ms", "runs"],
        [
          ["hand-written GROUP BY (one statement, no writes)", handMedian.toFixed(0), handMs.map((m) => m.toFixed(0)).join(" / ")],
          [`refresh (${refreshed.length.toLocaleString("en")} rows upserted and read back)`, refreshMedian.toFixed(0), refreshMs.map((m) => m.toFixed(0)).join(" / ")],
        ],
      )}`,
    );
    const ratio = refreshMedian / handMedian;
    console.log(`\nrefresh vs hand-written GROUP BY: ${ratio.toFixed(2)}x (target <= ${TARGET}x) ${ratio <= TARGET ? "PASS" : "FAIL"}`);
    if (ratio > TARGET) process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

await main();
