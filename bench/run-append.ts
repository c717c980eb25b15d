/**
 * Run-append benchmark: the cost of appending run #N to ONE session, for N = 1 … 10,000, in
 *   - the v3 design: one agno_runs row per run, written by lib/db `upsertRun`, and
 *   - the v2 design: Agno v2's sessions table, where every append reads the session row, appends
 *     the run dict to its `runs` JSON array and rewrites the whole row with
 *     INSERT … ON CONFLICT(session_id) DO UPDATE … RETURNING (Agno v2's `upsert_session`).
 * Both run in the same process, against the same database, interleaved at each measurement point.
 *
 *   npm run bench:run-append                      # SQLite in a temporary file (removed at the end)
 *   npm run bench:run-append -- --postgres        # PostgreSQL, in a throw-away schema (dropped)
 *   BENCH_DATABASE_URL=postgresql://… npm run bench:run-append
 *
 * Options: --points=1,100,1000,10000  --window=20  --v2-full (every v2 append real, no fill)
 *          --url=postgresql://…  --sqlite (ignore BENCH_DATABASE_URL)  --keep (keep the file / schema)
 * See bench/README.md.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, unsafeSystemScope, upsertRun, upsertSession, type Db, type DataScope } from "../lib/db/index.ts";
import { MigrationManager } from "../lib/migrations/migration-manager.ts";
import { fmtBytes, table } from "./report.ts";
import { prng, sentence } from "./synthetic-text.ts";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test";
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const unknownArgs = args.filter((a) => !/^--(postgres|sqlite|v2-full|keep|help|points=.*|window=.*|url=.*)$/.test(a));
if (flag("help") || unknownArgs.length > 0) {
  if (unknownArgs.length > 0) console.error(`Unknown argument(s): ${unknownArgs.join(" ")}`);
  console.error(
    "usage: tsx bench/run-append.ts [--sqlite | --postgres | --url=postgresql://…] [--points=1,100,1000,10000] [--window=20] [--v2-full] [--keep]\n" +
      "       BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test selects PostgreSQL too.",
  );
  process.exit(unknownArgs.length > 0 ? 2 : 0);
}

const POINTS = (option("points") ?? "1,100,1000,10000")
  .split(",")
  .map((s) => Number(s.replace(/_/g, "")))
  .sort((a, b) => a - b);
const WINDOW = Number(option("window") ?? 20);
const V2_FULL = flag("v2-full");
const KEEP = flag("keep");
if (POINTS.some((n) => !Number.isInteger(n) || n < 1) || POINTS[0] !== 1 || !Number.isInteger(WINDOW) || WINDOW < 1) {
  console.error("--points must be positive integers starting with 1; --window a positive integer");
  process.exit(2);
}
for (const n of POINTS.slice(1)) {
  if (n < WINDOW) {
    console.error(`point ${n} is smaller than the window (${WINDOW})`);
    process.exit(2);
  }
}
const MAX_N = POINTS[POINTS.length - 1];

const isPg = (u: string | undefined): u is string => !!u && /^postgres(ql)?:\/\//i.test(u);
const envUrl = process.env.BENCH_DATABASE_URL || undefined;
if (envUrl && !isPg(envUrl)) {
  console.error("BENCH_DATABASE_URL must be a postgresql:// URL (SQLite always runs in a temporary file)");
  process.exit(2);
}
const optionUrl = option("url");
if (optionUrl !== undefined && !isPg(optionUrl)) {
  console.error("--url must be a postgresql:// URL (SQLite always runs in a temporary file)");
  process.exit(2);
}
/** PostgreSQL when asked for (--postgres, --url, BENCH_DATABASE_URL); --sqlite wins over the env var. */
const url = optionUrl ?? (flag("postgres") ? (envUrl ?? DEFAULT_PG_URL) : flag("sqlite") ? undefined : envUrl);
const DIALECT: "sqlite" | "postgres" = isPg(url) ? "postgres" : "sqlite";

const ADMIN: DataScope = unsafeSystemScope("the benchmark writes and reads back its own rows");
const V2_TABLE = "bench_v2_sessions";
const HERE = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Realistic run dicts (~2 KB, deterministic)
// ---------------------------------------------------------------------------------------------

const SYSTEM_PROMPT =
  "You are a helpful assistant for an operations team. Answer concisely, cite the records you used, " +
  "and ask a clarifying question when the request is ambiguous. Use markdown for lists and tables.";

/** The dict Agno stores for one agent run (RunOutput.to_dict(), trimmed to the common fields). */
function makeRun(sessionId: string, runId: string, index: number): Record<string, unknown> {
  const rand = prng(index * 7919 + sessionId.length);
  const createdAt = 1_760_000_000 + index * 30;
  const userText = sentence(rand, 140 + Math.floor(rand() * 40));
  const content = sentence(rand, 320 + Math.floor(rand() * 100));
  const inputTokens = 400 + Math.floor(rand() * 900);
  const outputTokens = 80 + Math.floor(rand() * 300);
  const message = (role: string, text: string, extra: Record<string, unknown> = {}) => ({
    id: `${runId}-${role}`,
    role,
    content: text,
    from_history: false,
    stop_after_tool_call: false,
    created_at: createdAt,
    ...extra,
  });
  return {
    run_id: runId,
    agent_id: "bench-agent",
    agent_name: "Bench Agent",
    session_id: sessionId,
    user_id: null,
    model: "gpt-4o-mini",
    model_provider: "OpenAI",
    content,
    content_type: "str",
    messages: [
      message("system", SYSTEM_PROMPT),
      message("user", userText),
      message("assistant", content, {
        metrics: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      }),
    ],
    metrics: {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      cache_read_tokens: 0,
      reasoning_tokens: 0,
      time_to_first_token: Math.round(rand() * 900) / 1000,
      duration: Math.round((1 + rand() * 6) * 1000) / 1000,
    },
    input: { input_content: userText },
    status: "COMPLETED",
    created_at: createdAt,
  };
}

// ---------------------------------------------------------------------------------------------
// The two designs
// ---------------------------------------------------------------------------------------------

const runId = (sessionId: string, index: number) => `${sessionId}-run-${String(index).padStart(5, "0")}`;

/** v3: one row per run, through lib/db. Returns the bytes of run_data handed to the database. */
async function v3Append(db: Db, sessionId: string, index: number, run: Record<string, unknown>): Promise<void> {
  const { runIndex } = await upsertRun(db, {
    scope: ADMIN,
    run: {
      runId: runId(sessionId, index),
      sessionId,
      runType: "agent",
      agentId: "bench-agent",
      status: "COMPLETED",
      runData: run,
      createdAt: run.created_at as number,
    },
  });
  if (runIndex !== index - 1) throw new Error(`v3: run #${index} of ${sessionId} got run_index ${runIndex}`);
}

async function v3CreateSession(db: Db, sessionId: string): Promise<void> {
  await upsertSession(db, {
    scope: ADMIN,
    session: {
      sessionId,
      sessionType: "agent",
      agentId: "bench-agent",
      sessionData: { session_name: `bench ${sessionId}`, session_state: {} },
      agentData: { name: "Bench Agent", model: { id: "gpt-4o-mini", provider: "OpenAI" } },
    },
  });
}

/** Agno v2's sessions table (its SESSION_TABLE_SCHEMA on SQLite and PostgreSQL). */
function v2Ddl(dialect: "sqlite" | "postgres"): string[] {
  const json = dialect === "postgres" ? "JSONB" : "JSON";
  return [
    `CREATE TABLE ${V2_TABLE} (
       session_id VARCHAR PRIMARY KEY NOT NULL,
       session_type VARCHAR NOT NULL,
       agent_id VARCHAR, team_id VARCHAR, workflow_id VARCHAR, user_id VARCHAR,
       session_data ${json}, agent_data ${json}, team_data ${json}, workflow_data ${json}, metadata ${json},
       runs ${json}, summary ${json},
       created_at BIGINT NOT NULL, updated_at BIGINT)`,
    `CREATE INDEX idx_${V2_TABLE}_session_type ON ${V2_TABLE} (session_type)`,
    `CREATE INDEX idx_${V2_TABLE}_created_at ON ${V2_TABLE} (created_at)`,
  ];
}

const V2_JSON_COLUMNS = ["session_data", "agent_data", "team_data", "workflow_data", "metadata", "runs", "summary"] as const;

type V2Session = Record<string, unknown> & { runs: Record<string, unknown>[] | null };

/** deserialize_session_json_fields: SQLite hands JSON columns back as text, pg parses JSONB itself. */
function v2Deserialize(row: Record<string, unknown>): V2Session {
  const out: Record<string, unknown> = { ...row };
  for (const column of V2_JSON_COLUMNS) {
    const value = out[column];
    if (typeof value === "string") out[column] = JSON.parse(value);
  }
  return out as V2Session;
}

/** get_session: the whole row, JSON fields deserialized. */
async function v2Read(db: Db, sessionId: string): Promise<V2Session | null> {
  const rows = await db.sql.query(`SELECT * FROM ${V2_TABLE} WHERE session_id = ?`, [sessionId]);
  return rows[0] ? v2Deserialize(rows[0]) : null;
}

/**
 * upsert_session for an agent session, as Agno v2's SqliteDb/PostgresDb build it with SQLAlchemy:
 * every JSON field serialized, INSERT … ON CONFLICT(session_id) DO UPDATE SET <the same values,
 * bound again> … RETURNING every column, and the returned row deserialized.
 * Returns the bytes of the `runs` JSON written (the blob).
 */
async function v2Upsert(db: Db, session: V2Session): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const ser = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const runs = ser(session.runs);
  const agentData = ser(session.agent_data);
  const sessionData = ser(session.session_data);
  const metadata = ser(session.metadata);
  const summary = ser(session.summary);
  const rows = await db.sql.query(
    `INSERT INTO ${V2_TABLE}
       (session_id, session_type, agent_id, user_id, runs, agent_data, session_data, summary, metadata, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET
       agent_id = ?, user_id = ?, agent_data = ?, session_data = ?, summary = ?, metadata = ?, runs = ?, updated_at = ?
     RETURNING *`,
    [
      session.session_id,
      "agent",
      session.agent_id,
      session.user_id ?? null,
      runs,
      agentData,
      sessionData,
      summary,
      metadata,
      (session.created_at as number | undefined) ?? now,
      now,
      session.agent_id,
      session.user_id ?? null,
      agentData,
      sessionData,
      summary,
      metadata,
      runs,
      now,
    ],
  );
  const returned = v2Deserialize(rows[0]);
  if ((returned.runs?.length ?? 0) !== (session.runs?.length ?? 0)) throw new Error("v2: upsert returned a different runs array");
  return runs === null ? 0 : Buffer.byteLength(runs);
}

/** One v2 append: read the session, append the run dict, rewrite the whole row. */
async function v2Append(db: Db, sessionId: string, index: number, run: Record<string, unknown>): Promise<number> {
  const session: V2Session = (await v2Read(db, sessionId)) ?? {
    session_id: sessionId,
    agent_id: "bench-agent",
    user_id: null,
    session_data: { session_name: `bench ${sessionId}`, session_state: {} },
    agent_data: { name: "Bench Agent", model: { id: "gpt-4o-mini", provider: "OpenAI" } },
    metadata: null,
    summary: null,
    runs: null,
    created_at: Math.floor(Date.now() / 1000),
  };
  const runs = session.runs ?? [];
  if (runs.length !== index - 1) throw new Error(`v2: appending run #${index} to ${sessionId}, which holds ${runs.length} runs`);
  runs.push(run);
  session.runs = runs;
  return v2Upsert(db, session);
}

/** Sampled mode only: writes runs 1…count into the blob in one UPDATE (untimed build-up). */
async function v2Fill(db: Db, sessionId: string, count: number, runFor: (i: number) => Record<string, unknown>): Promise<void> {
  const runs = Array.from({ length: count }, (_, k) => runFor(k + 1));
  await db.sql.exec(`UPDATE ${V2_TABLE} SET runs = ?, updated_at = ? WHERE session_id = ?`, [JSON.stringify(runs), Math.floor(Date.now() / 1000), sessionId]);
}

// ---------------------------------------------------------------------------------------------
// Bytes written
// ---------------------------------------------------------------------------------------------

interface WalMark {
  generation: string;
  frames: number;
  frameBytes: number;
}

/**
 * SQLite: the committed frames of the current WAL generation, read from the -wal file's headers.
 * A checkpoint that completes lets the next writer restart the log at frame 1 with new salts, so
 * the file size alone says nothing; counting the frames whose salts match the header does.
 */
function sqliteWalMark(walPath: string): WalMark {
  if (!existsSync(walPath)) return { generation: "none", frames: 0, frameBytes: 0 };
  const fd = openSync(walPath, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < 32) return { generation: "empty", frames: 0, frameBytes: 0 };
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageSize = header.readUInt32BE(8);
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    const frameBytes = 24 + pageSize;
    const frame = Buffer.alloc(24);
    let frames = 0;
    for (let offset = 32; offset + frameBytes <= size; offset += frameBytes) {
      readSync(fd, frame, 0, 24, offset);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break;
      frames++;
    }
    return { generation: `${salt1}:${salt2}`, frames, frameBytes };
  } finally {
    closeSync(fd);
  }
}

interface BytesProbe {
  /** What "bytes written" means for this dialect. */
  readonly definition: string;
  before(): Promise<unknown>;
  after(mark: unknown): Promise<number>;
}

function bytesProbe(db: Db): BytesProbe {
  if (db.dialect === "sqlite") {
    const walPath = `${db.location}-wal`;
    return {
      definition: "WAL bytes the append's commit wrote (frames x (page_size + 24), counted in the -wal file)",
      async before() {
        return sqliteWalMark(walPath);
      },
      async after(mark) {
        const was = mark as WalMark;
        const now = sqliteWalMark(walPath);
        const frames = now.generation === was.generation ? now.frames - was.frames : now.frames;
        return frames * now.frameBytes;
      },
    };
  }
  const lsn = async () => (await db.sql.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn"))[0].lsn;
  return {
    definition: "WAL bytes generated during the append (pg_current_wal_insert_lsn() difference; server-wide)",
    async before() {
      return lsn();
    },
    async after(mark) {
      const rows = await db.sql.query<{ bytes: number }>("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ?::pg_lsn)::bigint AS bytes", [mark]);
      return Number(rows[0].bytes);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement
// ---------------------------------------------------------------------------------------------

interface Sample {
  ms: number;
  walBytes: number;
  logicalBytes: number;
}

interface PointStats {
  n: number;
  /** Which appends were measured, e.g. "981…1000" or "#1 of 20 fresh sessions". */
  window: string;
  samples: number;
  medianMs: number;
  meanMs: number;
  minMs: number;
  maxMs: number;
  medianWalBytes: number;
  meanWalBytes: number;
  /** v3: run_data JSON bytes; v2: bytes of the whole `runs` JSON array rewritten. */
  logicalBytes: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function stats(n: number, window: string, samples: Sample[]): PointStats {
  const ms = samples.map((s) => s.ms);
  return {
    n,
    window,
    samples: samples.length,
    medianMs: median(ms),
    meanMs: mean(ms),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
    medianWalBytes: median(samples.map((s) => s.walBytes)),
    meanWalBytes: mean(samples.map((s) => s.walBytes)),
    logicalBytes: median(samples.map((s) => s.logicalBytes)),
  };
}

async function measure(probe: BytesProbe, logicalBytes: () => number, append: () => Promise<number | void>): Promise<Sample> {
  const mark = await probe.before();
  const t0 = performance.now();
  const result = await append();
  const ms = performance.now() - t0;
  const walBytes = await probe.after(mark);
  return { ms, walBytes, logicalBytes: typeof result === "number" ? result : logicalBytes() };
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(3));
const fmtRatio = (r: number) => (r >= 100 ? `${r.toFixed(0)}x` : r >= 10 ? `${r.toFixed(1)}x` : `${r.toFixed(2)}x`);

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function settingsOf(db: Db): Promise<Record<string, string>> {
  if (db.dialect === "sqlite") {
    const one = async (pragma: string) => {
      const rows = await db.sql.query(`PRAGMA ${pragma}`);
      return String(Object.values(rows[0] ?? {})[0]);
    };
    return {
      sqlite_version: String((await db.sql.query<{ v: string }>("SELECT sqlite_version() AS v"))[0].v),
      journal_mode: await one("journal_mode"),
      synchronous: await one("synchronous"),
      page_size: await one("page_size"),
      wal_autocheckpoint: await one("wal_autocheckpoint"),
    };
  }
  const out: Record<string, string> = {};
  for (const name of ["server_version", "synchronous_commit", "fsync", "full_page_writes", "wal_compression", "default_toast_compression"]) {
    const rows = await db.sql.query(`SELECT current_setting(?, true) AS v`, [name]);
    out[name] = String(rows[0].v);
  }
  return out;
}

async function maxIndexPlan(db: Db, sessionId: string): Promise<string> {
  const sql = "SELECT MAX(r.run_index) FROM agno_runs r WHERE r.session_id = ?";
  if (db.dialect === "sqlite") {
    const rows = await db.sql.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [sessionId]);
    return rows.map((r) => r.detail).join("; ");
  }
  const rows = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${sql.replace("?", `'${sessionId}'`)}`);
  return rows.map((r) => r["QUERY PLAN"].trim()).join("; ");
}

async function otherPgActivity(db: Db): Promise<number> {
  const rows = await db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()");
  return Number(rows[0].n);
}

/** Set by SIGINT/SIGTERM: the in-flight query then fails on the closed pool, which is not an error to report. */
let interrupted = false;

async function main(): Promise<void> {
  const startedAt = new Date();
  const stamp = `${process.pid}_${startedAt.getTime()}`;
  const sqliteFile = join(tmpdir(), `agentry-bench-run-append-${stamp}.db`);
  const pgSchema = `bench_run_append_${stamp}`;
  const db = await openDatabase(DIALECT === "sqlite" ? { url: `file:${sqliteFile}` } : { url: url!, schema: pgSchema });

  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    if (KEEP) {
      console.log(`\n--keep: left ${DIALECT === "sqlite" ? sqliteFile : `schema ${pgSchema}`} in place`);
    } else if (DIALECT === "postgres") {
      await db.sql.exec(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).catch((e) => console.error(`could not drop schema ${pgSchema}: ${e}`));
    }
    await db.close().catch(() => undefined);
    if (DIALECT === "sqlite" && !KEEP) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(sqliteFile + suffix, { force: true });
  };
  const onSignal = () => {
    interrupted = true;
    console.error("\ninterrupted: cleaning up");
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    await new MigrationManager(db).up();
    for (const ddl of v2Ddl(db.dialect)) await db.sql.exec(ddl);
    const probe = bytesProbe(db);
    const settings = await settingsOf(db);

    const sampleRun = makeRun("s", runId("s", 1), 1);
    const runBytes = Buffer.byteLength(JSON.stringify(sampleRun));

    // ---- header -------------------------------------------------------------------------------
    const where = DIALECT === "sqlite" ? `SQLite file ${sqliteFile}` : `PostgreSQL ${db.location}, schema ${pgSchema}`;
    console.log(`Run-append benchmark — ${DIALECT}`);
    console.log(`  database : ${where} (removed at the end${KEEP ? " unless --keep" : ""})`);
    console.log(
      `  settings : ${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}`,
    );
    const loadAtStart = loadavg()[0];
    console.log(
      `  machine  : ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, load average ${loadAtStart.toFixed(2)} at start` +
        (loadAtStart >= cpus().length ? " — the machine is busy, timings may be noisy" : ""),
    );
    console.log(`  run dict : ~${runBytes} B of JSON each (run_id, session_id, agent_id, content, 3 messages, metrics, status, created_at)`);
    console.log(`  v3       : lib/db upsertRun (one agno_runs row per run, admin scope) into one session made with upsertSession`);
    console.log(
      `  v2       : ${V2_TABLE} shaped like Agno v2's sessions table; each append = SELECT the row + parse, push the run,\n` +
        `             INSERT … ON CONFLICT(session_id) DO UPDATE SET … RETURNING * with every JSON field re-serialized\n` +
        `             (values bound twice, as Agno v2's SQLAlchemy statement does) + parse the returned row`,
    );
    console.log(
      `  time     : wall time of one append as the server would call it (JSON (de)serialization included), per point\n` +
        `             N=1: append #1 into ${WINDOW} fresh sessions (one of them is the measured session); N>1: the ${WINDOW} appends ending at N`,
    );
    console.log(`  bytes    : ${probe.definition}; "blob"/"payload" = JSON bytes handed to the database`);
    console.log(
      V2_FULL
        ? "  v2 series: every append 1…N is real (--v2-full)"
        : `  v2 series: SAMPLED — between points the blob is built up with one untimed UPDATE that writes runs 1…N-${WINDOW},\n` +
            `             then the ${WINDOW} appends ending at N are real and timed (a full v2 series to ${MAX_N} would rewrite\n` +
            `             ~${fmtBytes((runBytes * MAX_N * MAX_N) / 2)} in total). v3 always does every append 1…N for real.`,
    );
    if (DIALECT === "postgres") {
      const others = await otherPgActivity(db);
      console.log(`  server   : ${others} other active client backend(s) at start (their WAL would show in the WAL column)`);
    }

    const v3Main = "v3-main";
    const v2Main = "v2-main";
    const v3Sessions = Array.from({ length: WINDOW }, (_, i) => (i === 0 ? v3Main : `v3-fresh-${i}`));
    const v2Sessions = Array.from({ length: WINDOW }, (_, i) => (i === 0 ? v2Main : `v2-fresh-${i}`));
    for (const s of [...v3Sessions, "v3-warmup"]) await v3CreateSession(db, s);

    // ---- warm-up (JIT, statement paths, caches), on sessions that are not measured -----------------
    for (let i = 1; i <= 30; i++) {
      await v3Append(db, "v3-warmup", i, makeRun("v3-warmup", runId("v3-warmup", i), i));
      await v2Append(db, "v2-warmup", i, makeRun("v2-warmup", runId("v2-warmup", i), i));
    }

    const runFor = (sessionId: string) => (i: number) => makeRun(sessionId, runId(sessionId, i), i);
    const v3Run = runFor(v3Main);
    const v2Run = runFor(v2Main);
    const v3Points: PointStats[] = [];
    const v2Points: PointStats[] = [];
    let v3Done = 0;
    let v2Done = 0;
    let v3SeriesMs = 0;
    let v2RealAppends = 0;
    let v2FillMs = 0;
    const wall0 = performance.now();

    for (const n of POINTS) {
      process.stderr.write(`  … N=${n}\n`);
      // v3
      const v3Samples: Sample[] = [];
      if (n === 1) {
        for (const s of v3Sessions) {
          const run = makeRun(s, runId(s, 1), 1);
          const bytes = Buffer.byteLength(JSON.stringify(run));
          const sample = await measure(
            probe,
            () => bytes,
            () => v3Append(db, s, 1, run),
          );
          v3Samples.push(sample);
          if (s === v3Main) v3SeriesMs += sample.ms;
        }
        v3Done = 1;
      } else {
        while (v3Done < n - WINDOW) {
          const i = ++v3Done;
          const run = v3Run(i);
          const t0 = performance.now();
          await v3Append(db, v3Main, i, run);
          v3SeriesMs += performance.now() - t0;
        }
        while (v3Done < n) {
          const i = ++v3Done;
          const run = v3Run(i);
          const bytes = Buffer.byteLength(JSON.stringify(run));
          const sample = await measure(
            probe,
            () => bytes,
            () => v3Append(db, v3Main, i, run),
          );
          v3Samples.push(sample);
          v3SeriesMs += sample.ms;
        }
      }
      v3Points.push(stats(n, n === 1 ? `#1 of ${WINDOW} fresh sessions` : `${n - WINDOW + 1}…${n}`, v3Samples));

      // v2
      const v2Samples: Sample[] = [];
      if (n === 1) {
        for (const s of v2Sessions) {
          const run = makeRun(s, runId(s, 1), 1);
          v2Samples.push(
            await measure(
              probe,
              () => 0,
              () => v2Append(db, s, 1, run),
            ),
          );
          v2RealAppends++;
        }
        v2Done = 1;
      } else {
        if (!V2_FULL && v2Done < n - WINDOW) {
          const t0 = performance.now();
          await v2Fill(db, v2Main, n - WINDOW, v2Run);
          v2FillMs += performance.now() - t0;
          v2Done = n - WINDOW;
        }
        while (v2Done < n - WINDOW) {
          const i = ++v2Done;
          await v2Append(db, v2Main, i, v2Run(i));
          v2RealAppends++;
        }
        while (v2Done < n) {
          const i = ++v2Done;
          v2Samples.push(
            await measure(
              probe,
              () => 0,
              () => v2Append(db, v2Main, i, v2Run(i)),
            ),
          );
          v2RealAppends++;
        }
      }
      v2Points.push(stats(n, n === 1 ? `#1 of ${WINDOW} fresh sessions` : `${n - WINDOW + 1}…${n}`, v2Samples));
    }
    const wallMs = performance.now() - wall0;

    // ---- sanity: the measured sessions hold exactly MAX_N runs in order ------------------------
    const v3Count = await db.sql.query<{ n: number; lo: number; hi: number }>("SELECT COUNT(*) AS n, MIN(run_index) AS lo, MAX(run_index) AS hi FROM agno_runs WHERE session_id = ?", [v3Main]);
    const v2Final = await v2Read(db, v2Main);
    if (Number(v3Count[0].n) !== MAX_N || Number(v3Count[0].lo) !== 0 || Number(v3Count[0].hi) !== MAX_N - 1) {
      throw new Error(`v3 session holds ${v3Count[0].n} runs (index ${v3Count[0].lo}…${v3Count[0].hi}), expected ${MAX_N}`);
    }
    if (v2Final?.runs?.length !== MAX_N) throw new Error(`v2 session holds ${v2Final?.runs?.length} runs, expected ${MAX_N}`);
    const plan = await maxIndexPlan(db, v3Main);

    // ---- results ------------------------------------------------------------------------------
    console.log("");
    const rows = POINTS.map((n, k) => {
      const a = v3Points[k];
      const b = v2Points[k];
      return [
        n.toLocaleString("en-US"),
        fmtMs(a.medianMs),
        fmtMs(a.meanMs),
        fmtBytes(a.medianWalBytes),
        fmtBytes(a.logicalBytes),
        fmtMs(b.medianMs),
        fmtMs(b.meanMs),
        fmtBytes(b.medianWalBytes),
        fmtBytes(b.logicalBytes),
        fmtRatio(b.medianMs / a.medianMs),
      ];
    });
    console.log(table(["N", "v3 med ms", "v3 mean ms", "v3 WAL/append", "v3 payload", "v2 med ms", "v2 mean ms", "v2 WAL/append", "v2 blob", "v2/v3 time"], rows));
    const first = (p: PointStats[]) => p[0];
    const last = (p: PointStats[]) => p[p.length - 1];
    const ratios = {
      v3_time_last_over_first: last(v3Points).medianMs / first(v3Points).medianMs,
      v2_time_last_over_first: last(v2Points).medianMs / first(v2Points).medianMs,
      v2_over_v3_time_at_last: last(v2Points).medianMs / last(v3Points).medianMs,
      v3_wal_last_over_first: last(v3Points).medianWalBytes / first(v3Points).medianWalBytes,
      v2_wal_last_over_first: last(v2Points).medianWalBytes / first(v2Points).medianWalBytes,
      v2_over_v3_wal_at_last: last(v2Points).medianWalBytes / last(v3Points).medianWalBytes,
    };
    const L = MAX_N.toLocaleString("en-US");
    const verdict = ratios.v3_time_last_over_first <= 1.2 ? "OK, target <= 1.2x" : "ABOVE the 1.2x target";
    console.log("");
    console.log(`Ratios (median time per append; WAL bytes in brackets)`);
    console.log(`  v3 @ ${L} / v3 @ 1 : ${fmtRatio(ratios.v3_time_last_over_first)}  (${verdict})   [WAL ${fmtRatio(ratios.v3_wal_last_over_first)}]`);
    console.log(`  v2 @ ${L} / v2 @ 1 : ${fmtRatio(ratios.v2_time_last_over_first)}   [WAL ${fmtRatio(ratios.v2_wal_last_over_first)}]`);
    console.log(`  v2 @ ${L} / v3 @ ${L} : ${fmtRatio(ratios.v2_over_v3_time_at_last)}   [WAL ${fmtRatio(ratios.v2_over_v3_wal_at_last)}]`);
    console.log("");
    console.log(`  v3: all ${L} appends to the session took ${(v3SeriesMs / 1000).toFixed(1)} s (${fmtMs(v3SeriesMs / MAX_N)} ms/append on average)`);
    // Linear model through the measured v2 medians (cost grows with the blob): what a full series would take.
    const lastV2 = last(v2Points);
    const slope = (lastV2.medianMs - first(v2Points).medianMs) / Math.max(1, lastV2.n - 1);
    const fullV2Ms = MAX_N * first(v2Points).medianMs + (slope * (MAX_N - 1) * MAX_N) / 2;
    console.log(
      `  v2: ${v2RealAppends} real appends${V2_FULL ? "" : ` + untimed blob build-up (${(v2FillMs / 1000).toFixed(1)} s)`}; ` +
        `a full series of ${L} appends would take ~${fullV2Ms < 120_000 ? `${(fullV2Ms / 1000).toFixed(1)} s` : `${(fullV2Ms / 60_000).toFixed(1)} min`} at these rates ` +
        `(linear fit through the medians)`,
    );
    console.log(`  plan of the run_index subquery (SELECT MAX(run_index) … WHERE session_id = ?): ${plan}`);
    const loadAtEnd = loadavg()[0];
    console.log(`  wall time of the measured phase: ${(wallMs / 1000).toFixed(1)} s; 1-min load average ${loadAtStart.toFixed(2)} -> ${loadAtEnd.toFixed(2)}`);

    // ---- JSON ---------------------------------------------------------------------------------
    const outDir = join(HERE, "results");
    mkdirSync(outDir, { recursive: true });
    const outFile = join(outDir, `run-append-${DIALECT}.json`);
    writeFileSync(
      outFile,
      JSON.stringify(
        {
          benchmark: "run-append",
          dialect: DIALECT,
          startedAt: startedAt.toISOString(),
          database: DIALECT === "sqlite" ? { file: sqliteFile } : { url: db.location, schema: pgSchema },
          settings,
          machine: {
            cpus: cpus().length,
            cpuModel: cpus()[0]?.model ?? null,
            node: process.version,
            platform: process.platform,
            loadAverageStart: loadAtStart,
            loadAverageEnd: loadAtEnd,
          },
          options: { points: POINTS, window: WINDOW, v2Mode: V2_FULL ? "full" : "sampled" },
          definitions: {
            time: "wall-clock ms of one append as the server calls it; median/mean over the window",
            window: `N=1: append #1 into ${WINDOW} fresh sessions; N>1: the ${WINDOW} appends ending at N of the one measured session`,
            walBytes: probe.definition,
            v3LogicalBytes: "bytes of the run_data JSON of the appended run",
            v2LogicalBytes: "bytes of the whole runs JSON array rewritten by the append",
            v2Sampling: V2_FULL ? "every v2 append is real" : `between points the v2 blob is built up by one untimed UPDATE writing runs 1…N-${WINDOW}; the ${WINDOW} appends ending at N are real`,
          },
          runDictBytes: runBytes,
          v3: v3Points,
          v2: v2Points,
          ratios,
          v3SeriesSeconds: v3SeriesMs / 1000,
          v2RealAppends,
          v2FillSeconds: v2FillMs / 1000,
          v2FullSeriesEstimateSeconds: fullV2Ms / 1000,
          runIndexSubqueryPlan: plan,
          wallSeconds: wallMs / 1000,
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`\nResults written to ${resolve(outFile)}`);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    if (interrupted) return; // the signal handler exits once cleanup is done
    console.error(error);
    process.exit(1);
  },
);
