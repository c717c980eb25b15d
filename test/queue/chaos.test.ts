import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/lib/db/index.ts";
import { parseSessionJson } from "@/lib/db/json.ts";
import { RUN_JOB_TYPE } from "@/lib/runs/jobs/run-job.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { postgresDialect, postgresUrl } from "../support/databases.ts";
import { spawnApiServer, spawnWorker, type Spawned } from "../support/processes.ts";
import { redisSkipReason, redisUrl } from "../support/redis.ts";
import { until as poll } from "../support/until.ts";

const until = (what: string, check: () => Promise<boolean>, timeoutMs: number) => poll(what, check, timeoutMs, 250);

/**
 * Chaos: 1,000 durable jobs while standalone workers are killed (SIGKILL) and restarted at
 * random, with a 2 s lease. Every accepted run must end COMPLETED (a lost lease spends no
 * attempt), none may stay PENDING or RUNNING, and none may complete twice — judged from what the
 * database holds afterwards (`expectEachRunCompletedOnce`), not from what the workers logged.
 */

const JOBS = 1000;
const SUBMIT_CONCURRENCY = 16;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function chaos({ env, db, workers: workerCount }: { env: Record<string, string>; db: () => Promise<Db>; workers: number }) {
  const everyProcess: Spawned[] = [];
  const web = await spawnApiServer("chaos-web", env);
  everyProcess.push(web);
  let workers = await Promise.all(Array.from({ length: workerCount }, (_, i) => spawnWorker(`chaos-worker-${i}`, env)));
  everyProcess.push(...workers);
  try {
    // Submit 1,000 runs, SUBMIT_CONCURRENCY at a time, while the chaos below goes on.
    const accepted: string[] = [];
    let next = 0;
    const submitting = Promise.all(
      Array.from({ length: SUBMIT_CONCURRENCY }, async () => {
        while (next < JOBS) {
          const i = next++;
          const response = await fetch(`${web.origin}/agents/assistant/runs`, {
            method: "POST",
            body: new URLSearchParams({ message: `chaos ${i}`, background: "true", stream: "false" }),
          });
          expect(response.status).toBe(202);
          accepted.push(((await response.json()) as { run_id: string }).run_id);
        }
      }),
    );
    // Kill a random worker every 6–8 s: longer than it takes a job taken from a killed worker to
    // be swept (2–3 s lease), claimed again and finished, so a job is rarely caught twice — its
    // third lost lease would fail it, by design, as a likely poison job. Start a replacement
    // a moment later, until every run has ended.
    let kills = 0;
    let settled = false;
    const ended = async () => {
      const [row] = await (await db()).sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_runs WHERE status IN ('PENDING', 'RUNNING')`);
      return accepted.length === JOBS && Number(row.n) === 0;
    };
    const monkey = (async () => {
      while (!settled) {
        await pause(6000 + Math.random() * 2000);
        if (settled) break;
        const victim = workers[Math.floor(Math.random() * workers.length)];
        await victim.kill("SIGKILL");
        kills++;
        await pause(200 + Math.random() * 800);
        const replacement = await spawnWorker(`chaos-worker-r${kills}`, env);
        everyProcess.push(replacement);
        workers = [...workers.filter((w) => w !== victim), replacement];
      }
    })();
    await submitting;
    await until("every run ended", ended, 240_000);
    settled = true;
    await monkey;

    expect(accepted).toHaveLength(JOBS);
    expect(new Set(accepted).size).toBe(JOBS);
    expect(kills).toBeGreaterThan(0);
    const { lost, most, unsummed } = await expectEachRunCompletedOnce(await db(), accepted, kills * Number(env.AGNO_BACKGROUND_MAX_CONCURRENCY));
    console.log(
      `chaos: ${JOBS} runs COMPLETED once each through ${kills} worker kills; ${lost} leases lost and re-claimed (at most ${most} by one job); ` +
        `${unsummed} sessions without their run's tokens (worker killed between the run's final write and the session's sum)`,
    );
    return { kills, lost };
  } finally {
    await Promise.all(everyProcess.map((p) => p.kill("SIGKILL")));
  }
}

/** A stored run's events, in the order they were stored. */
type StoredEvent = { event: string; event_index: number };

/** A JSON column as an object, whichever dialect stored it (SQLite text, PostgreSQL JSONB). */
const jsonColumn = (value: unknown) => parseSessionJson(value) as Record<string, unknown> | null;

/**
 * What the database says about every accepted run, which must hold had each completed exactly
 * once: one run row per run (and per session, each submit opening its own), COMPLETED with an
 * answer; its stored events numbered without a repeat and ending in its one RunCompleted; its job
 * completed on its one allowed attempt (lost leases spend none); and its session holding the run's
 * tokens once — a completion summed twice doubles them. A worker killed between a run's final
 * write and that sum leaves the session without them: at most `interruptible` sessions (each kill
 * takes the runs its worker held), never more than once the run's own.
 */
async function expectEachRunCompletedOnce(db: Db, accepted: string[], interruptible: number) {
  const runs = await db.sql.query<{ run_id: string; session_id: string; status: string; run_data: unknown }>(`SELECT run_id, session_id, status, run_data FROM agno_runs`);
  expect(runs.map((r) => String(r.run_id)).sort()).toEqual([...accepted].sort());
  expect(new Set(runs.map((r) => String(r.session_id))).size).toBe(runs.length);
  const notCompleted = runs.filter((r) => r.status !== "COMPLETED");
  const why = (r: (typeof runs)[number]) => JSON.stringify((jsonColumn(r.run_data)?.error as { message?: string } | undefined)?.message ?? null);
  expect(notCompleted.map((r) => `${r.run_id}=${r.status} ${why(r)}`).slice(0, 5), `${notCompleted.length} runs not COMPLETED`).toEqual([]);

  const badEvents: string[] = [];
  for (const run of runs) {
    const data = jsonColumn(run.run_data)!;
    const events = (data.events ?? []) as StoredEvent[];
    const completions = events.filter((e) => e.event === "RunCompleted").length;
    const increasing = events.every((e, i) => i === 0 || e.event_index > events[i - 1].event_index);
    if (typeof data.content !== "string" || !data.content.startsWith("ok ") || completions !== 1 || events.at(-1)?.event !== "RunCompleted" || !increasing) {
      badEvents.push(`${run.run_id}: content ${JSON.stringify(data.content)}, ${completions} RunCompleted, events ${events.map((e) => `${e.event_index}:${e.event}`).join(" ")}`);
    }
  }
  expect(badEvents.slice(0, 5), `${badEvents.length} runs whose stored completion is not one`).toEqual([]);

  // Run jobs only: the workers' schedulers also enqueue their daily metrics refresh (lib/metrics/start-refresh.ts).
  const jobs = await db.sql.query<{ id: string; status: string; attempt: number; lease_losses: number }>(`SELECT id, status, attempt, lease_losses FROM agno_jobs WHERE job_type = ?`, [RUN_JOB_TYPE]);
  expect(jobs.map((j) => String(j.id)).sort()).toEqual([...accepted].sort());
  expect(jobs.filter((j) => j.status !== "completed")).toEqual([]);
  const respent = jobs.filter((j) => Number(j.attempt) - Number(j.lease_losses) !== 1);
  expect(respent.map((j) => `${j.id}: attempt ${j.attempt}, ${j.lease_losses} lost`).slice(0, 5)).toEqual([]);

  const sessions = await db.sql.query<{ session_id: string; session_data: unknown }>(`SELECT session_id, session_data FROM agno_sessions`);
  const sessionTokens = new Map(sessions.map((s) => [String(s.session_id), Number((jsonColumn(s.session_data)?.session_metrics as { total_tokens?: number } | undefined)?.total_tokens ?? 0)]));
  let unsummed = 0;
  const miscounted: string[] = [];
  for (const run of runs) {
    const own = Number((jsonColumn(run.run_data)!.metrics as { total_tokens?: number } | undefined)?.total_tokens ?? 0);
    const summed = sessionTokens.get(String(run.session_id)) ?? 0;
    if (own <= 0 || (summed !== own && summed !== 0)) miscounted.push(`${run.run_id}: run ${own} tokens, its session ${summed}`);
    else if (summed === 0) unsummed++;
  }
  expect(miscounted.slice(0, 5), `${miscounted.length} sessions whose tokens are not their run's once`).toEqual([]);
  expect(unsummed).toBeLessThanOrEqual(interruptible);

  return { lost: jobs.reduce((n, j) => n + Number(j.lease_losses), 0), most: Math.max(...jobs.map((j) => Number(j.lease_losses))), unsummed };
}

function modelEnv(model: ModelServer) {
  return { OPENAI_COMPATIBLE_BASE_URL: model.url, OPENAI_COMPATIBLE_MODEL: "scripted" };
}

const QUEUE_ENV = {
  AGENTRY_QUEUE_DURABLE: "true",
  AGENTRY_EMBEDDED_WORKER: "false",
  AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "2",
  AGENTRY_QUEUE_POLL_INTERVAL_MS: "200",
  // The workers' ready line ("claiming from …") is logged at info.
  AGENTRY_LOG_LEVEL: "info",
  // A kill takes every run its worker holds: 8 at a time keeps each run short under the load.
  AGNO_BACKGROUND_MAX_CONCURRENCY: "8",
};

describe("chaos: workers killed and restarted at random", () => {
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer({ respond: (body) => ({ text: `ok ${body.messages.length}`, delayMs: 20 + Math.floor(Math.random() * 60) }) });
  });
  afterAll(() => model?.close());

  it.skipIf(postgresDialect.skipReason !== null || redisSkipReason !== null)(
    "PostgreSQL and Redis, 3 workers: 1,000 runs all COMPLETED, none twice",
    async () => {
      const tag = `${process.pid}_${Date.now().toString(36)}`;
      const schema = `chaos_${tag}`;
      const opened: { db?: Db } = {};
      try {
        await chaos({
          env: { ...QUEUE_ENV, ...modelEnv(model), DATABASE_URL: postgresUrl, AGENTRY_DB_SCHEMA: schema, REDIS_URL: redisUrl, AGENTRY_OS_ID: `chaos-${tag}` },
          db: async () => (opened.db ??= await openDatabase({ url: postgresUrl, schema })),
          workers: 3,
        });
      } finally {
        await opened.db?.close();
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    },
    300_000,
  );

  it("SQLite shared by a web process and 2 worker processes: 1,000 runs all COMPLETED, none twice", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentry-chaos-"));
    const url = `file:${join(dir, "chaos.db")}`;
    const opened: { db?: Db } = {};
    try {
      await chaos({ env: { ...QUEUE_ENV, ...modelEnv(model), DATABASE_URL: url }, db: async () => (opened.db ??= await openDatabase({ url })), workers: 2 });
    } finally {
      await opened.db?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
