import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  cancelJob,
  requestJobCancel,
  claimJobs,
  completeJob,
  duplicateMismatch,
  enqueueRunJob,
  settleJobs,
  failJob,
  getJob,
  getRun,
  heartbeat,
  listJobs,
  openDatabase,
  pauseJob,
  queueStats,
  releaseJob,
  requeueJob,
  retryDelaySeconds,
  unsafeDeleteFinishedJobs,
  unsafeSweepExpiredLeases,
  upsertRun,
  upsertSession,
  type DataScope,
  type Db,
  type JobInput,
  type StoredJob,
} from "@/lib/db/index.ts";
import { ConflictError, NotFoundError, PaginationError, PermissionError, QueueFullError } from "@/lib/errors/domain-errors.ts";
import { enqueueJob, plainJobsInsert } from "@/lib/db/jobs/enqueue-job.ts";
import { DIALECTS, openMigrated, type TestDb, type TestDialect } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { RUN_JOBS } from "@/test/support/run-jobs.ts";
import { adminScope } from "../support/scopes.ts";

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
const NOW = 1_800_000_000;
const LEASE = 60;

async function newSession(db: Db, scope: DataScope) {
  return upsertSession(db, { scope, session: { sessionId: uid("s"), sessionType: "agent", agentId: "assistant" } });
}

function runOf(sessionId: string, runId = uid("r")) {
  return { runId, sessionId, runType: "agent" as const, agentId: "assistant", runData: { run_id: runId, session_id: sessionId } };
}

function jobOf(extra: Partial<JobInput> = {}): JobInput {
  return { componentType: "agent", componentId: "assistant", jobType: "run", payload: { input: "hi" }, stream: false, maxAttempts: 1, ...extra };
}

/**
 * Enqueues `count` jobs of the scope, `now` apart by one second each, each in a new session (a
 * session runs one job at a time, so jobs of one session are claimed one after another).
 */
async function enqueueMany(db: Db, scope: DataScope, count: number, job: Partial<JobInput> = {}, now = NOW) {
  const jobs: StoredJob[] = [];
  for (let i = 0; i < count; i++) {
    const session = await newSession(db, scope);
    const result = await enqueueRunJob(db, { scope, run: runOf(session.session_id), job: jobOf(job), now: now + i });
    jobs.push(result.job);
  }
  return jobs;
}

const rawJob = async (db: Db, id: string) => (await db.sql.query(`SELECT * FROM agno_jobs WHERE id = ?`, [id]))[0];
const rawRun = async (db: Db, id: string) => (await db.sql.query(`SELECT run_id, status FROM agno_runs WHERE run_id = ?`, [id]))[0];
const count = async (db: Db, table: string) => Number((await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
const fenceOf = (job: { id: string; attempt: number; locked_by: string | null }) => ({ id: job.id, attempt: job.attempt, workerId: job.locked_by! });

/** A second, independent connection (its own pool / its own SQLite handle) to the same database. */
async function secondConnection(db: TestDb): Promise<Db> {
  if (db.dialect === "sqlite") return openDatabase({ url: `file:${db.location}` });
  const url = (await import("../support/databases.ts")).postgresUrl;
  return openDatabase({ url, schema: db.schema! });
}

describe.each(DIALECTS)("job queue contract on $name", (dialect: TestDialect) => {
  const principals = mintPrincipals();
  const { scopes } = principals;

  /** Every test gets its own database: claims take any ready job, so tests must not share a queue. */
  const withDb = (fn: (db: TestDb) => Promise<void>) => async () => {
    const db = await openMigrated(dialect);
    try {
      await fn(db);
    } finally {
      await db.destroy();
    }
  };

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    describe("enqueue", () => {
      it(
        "writes the PENDING run and the queued job together, the run indexed like upsertRun",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          await upsertRun(db, { scope: scopes.a, run: { ...runOf(session.session_id), status: "COMPLETED" } });
          const run = runOf(session.session_id);
          const result = await enqueueRunJob(db, { scope: scopes.a, run, job: jobOf({ stream: true, maxAttempts: 3 }), now: NOW });
          expect(result.duplicate).toBe(false);
          expect(result.job).toMatchObject({
            id: run.runId,
            session_id: session.session_id,
            user_id: principals.userA,
            status: "queued",
            attempt: 0,
            lease_losses: 0,
            max_attempts: 3,
            available_at: NOW,
            created_at: NOW,
            locked_by: null,
            payload: { input: "hi", stream: true },
          });
          const stored = await getRun(db, { scope: scopes.a, runId: run.runId });
          expect(stored).toMatchObject({ status: "PENDING", run_index: 1, user_id: principals.userA, run_data: { status: "PENDING" } });
          const next = runOf(session.session_id);
          await enqueueRunJob(db, { scope: scopes.a, run: next, job: jobOf(), now: NOW });
          expect((await getRun(db, { scope: scopes.a, runId: next.runId }))!.run_index).toBe(2);
        }),
      );

      it(
        "writes neither row when the job insert fails (the run id is already a job)",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          const run = runOf(session.session_id);
          await db.sql.exec(`INSERT INTO agno_jobs (id, component_type, job_type, component_id, status, available_at, created_at) VALUES (?, 'agent', 'run', 'x', 'completed', 0, 0)`, [run.runId]);
          await expect(enqueueRunJob(db, { scope: scopes.a, run, job: jobOf(), now: NOW })).rejects.toBeInstanceOf(ConflictError);
          expect(await rawRun(db, run.runId)).toBeUndefined();
          expect(await count(db, "agno_runs")).toBe(0);
        }),
      );

      it(
        "writes neither row when the run insert fails (the run id exists): the job insert is rolled back",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          const run = runOf(session.session_id);
          await upsertRun(db, { scope: scopes.a, run: { ...run, status: "COMPLETED" } });
          await expect(enqueueRunJob(db, { scope: scopes.a, run, job: jobOf(), now: NOW })).rejects.toBeInstanceOf(ConflictError);
          expect(await rawJob(db, run.runId)).toBeUndefined();
          expect(await rawRun(db, run.runId)).toMatchObject({ status: "COMPLETED" });
        }),
      );

      it(
        "refuses a session the user does not own, writing nothing",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          await expect(enqueueRunJob(db, { scope: scopes.b, run: runOf(session.session_id), job: jobOf(), now: NOW })).rejects.toBeInstanceOf(NotFoundError);
          await expect(enqueueRunJob(db, { scope: scopes.a, run: runOf("no-such-session"), job: jobOf(), now: NOW })).rejects.toBeInstanceOf(NotFoundError);
          expect([await count(db, "agno_jobs"), await count(db, "agno_runs")]).toEqual([0, 0]);
        }),
      );

      it(
        "makes exactly one job and one run for 100 concurrent submits with one Idempotency-Key, over two connections",
        withDb(async (db) => {
          const other = await secondConnection(db);
          try {
            const session = await newSession(db, scopes.a);
            const runs = Array.from({ length: 100 }, () => runOf(session.session_id));
            const results = await Promise.all(runs.map((run, i) => enqueueRunJob(i % 2 === 0 ? db : other, { scope: scopes.a, run, job: jobOf({ idempotencyKey: "key-1" }), now: NOW })));
            const winners = results.filter((r) => !r.duplicate);
            expect(winners).toHaveLength(1);
            const winnerId = winners[0].job.id;
            expect(new Set(results.map((r) => r.job.id))).toEqual(new Set([winnerId]));
            expect(await count(db, "agno_jobs")).toBe(1);
            expect(await count(db, "agno_runs")).toBe(1);
            expect(await rawRun(db, winnerId)).toMatchObject({ status: "PENDING" });

            // The same key is another user's own key.
            const sessionB = await newSession(db, scopes.b);
            const b = await enqueueRunJob(db, { scope: scopes.b, run: runOf(sessionB.session_id), job: jobOf({ idempotencyKey: "key-1" }), now: NOW });
            expect(b.duplicate).toBe(false);
            expect(b.job.user_id).toBe(principals.userB);
          } finally {
            await other.close();
          }
        }),
      );

      it(
        "dedupes owner-less submits too (no identity: user_id NULL)",
        withDb(async (db) => {
          const shared = await newSession(db, adminScope());
          expect(shared.user_id).toBeNull();
          const results = await Promise.all(Array.from({ length: 20 }, () => enqueueRunJob(db, { scope: adminScope(), run: runOf(shared.session_id), job: jobOf({ idempotencyKey: "k" }), now: NOW })));
          expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
          expect([await count(db, "agno_jobs"), await count(db, "agno_runs")]).toEqual([1, 1]);
        }),
      );

      it(
        "says when a duplicate may not reuse the earlier job (other component, other stream mode)",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          const first = await enqueueRunJob(db, { scope: scopes.a, run: runOf(session.session_id), job: jobOf({ idempotencyKey: "k", stream: true }), now: NOW });
          const again = await enqueueRunJob(db, { scope: scopes.a, run: runOf(session.session_id), job: jobOf({ idempotencyKey: "k" }), now: NOW });
          expect(again).toMatchObject({ duplicate: true, job: { id: first.job.id } });
          expect(duplicateMismatch(again.job, { componentType: "agent", componentId: "assistant", stream: true })).toBeNull();
          expect(duplicateMismatch(again.job, { componentType: "agent", componentId: "assistant", stream: false })).toMatch(/streaming/);
          expect(duplicateMismatch(again.job, { componentType: "team", componentId: "assistant", stream: true })).toMatch(/agent assistant/);
        }),
      );

      it(
        "throws QueueFullError at maxQueueDepth without writing, and accepts again once a job is claimed",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          const submit = (extra: Partial<JobInput> = {}) => enqueueRunJob(db, { scope: scopes.a, run: runOf(session.session_id), job: jobOf(extra), maxQueueDepth: 2, now: NOW });
          await submit({ idempotencyKey: "first" });
          await submit();
          const rejected = submit();
          await expect(rejected).rejects.toBeInstanceOf(QueueFullError);
          await expect(rejected).rejects.toThrow("Job queue is full");
          expect([await count(db, "agno_jobs"), await count(db, "agno_runs")]).toEqual([2, 2]);
          // A duplicate of a queued job is still answered with the original.
          expect((await submit({ idempotencyKey: "first" })).duplicate).toBe(true);
          await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW, leaseSeconds: LEASE });
          // Queued jobs of other kinds (here three schedule fires) do not count against the runs' depth.
          for (const i of [1, 2, 3]) {
            await enqueueJob(db, { job: { jobType: "schedule_fire", componentType: "schedule", componentId: `s${i}`, payload: {}, maxAttempts: 1 }, owner: null, now: NOW });
          }
          expect((await submit()).duplicate).toBe(false);
          await expect(submit()).rejects.toBeInstanceOf(QueueFullError);
        }),
      );
    });

    it(
      "plainJobsInsert writes thousands of jobs in chunked multi-row statements, once per owner and key",
      withDb(async (db) => {
        const jobs = Array.from({ length: 2500 }, (_, i) => ({
          id: `bulk-${i}`,
          jobType: "schedule_fire",
          componentType: "schedule",
          componentId: `s${i}`,
          payload: { slot: i },
          maxAttempts: 1,
          idempotencyKey: `bulk:${i}`,
          owner: i < 2100 ? "bulk-owner" : null,
        }));
        const statements = plainJobsInsert(jobs, { now: NOW });
        // 2,100 owned rows in chunks of 1,000, 400 shared ones in one.
        expect(statements.map((s) => s.params.length / 12)).toEqual([1000, 1000, 100, 400]);
        await db.sql.batch(statements);
        // The same keys again (new ids) write nothing.
        await db.sql.batch(
          plainJobsInsert(
            jobs.map((job) => ({ ...job, id: `again-${job.id}` })),
            { now: NOW },
          ),
        );
        expect(await count(db, "agno_jobs")).toBe(2500);
        const [owned] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_jobs WHERE user_id = ?", ["bulk-owner"]);
        expect(Number(owned!.n)).toBe(2100);
      }),
    );

    describe("claims", () => {
      it(
        "never gives one job to two of many concurrent claimers on two connections",
        withDb(async (db) => {
          const jobs = await enqueueMany(db, scopes.a, 200);
          const other = await secondConnection(db);
          try {
            const claimer = async (worker: number) => {
              const claimed: { id: string; worker: number }[] = [];
              for (;;) {
                const batch = await claimJobs(worker % 2 ? other : db, { ...RUN_JOBS, workerId: `w${worker}`, limit: 10, now: NOW + 1000, leaseSeconds: LEASE });
                if (batch.length === 0) return claimed;
                for (const job of batch) {
                  expect(job).toMatchObject({ status: "running", attempt: 1, locked_by: `w${worker}`, locked_at: NOW + 1000 });
                  claimed.push({ id: job.id, worker });
                }
              }
            };
            const all = (await Promise.all(Array.from({ length: 8 }, (_, i) => claimer(i)))).flat();
            expect(all).toHaveLength(200);
            expect(new Set(all.map((c) => c.id)).size).toBe(200);
            expect(new Set(all.map((c) => c.id))).toEqual(new Set(jobs.map((j) => j.id)));
            const rows = await db.sql.query<{ attempt: number; status: string }>(`SELECT attempt, status FROM agno_jobs`);
            expect(rows.every((r) => Number(r.attempt) === 1 && r.status === "running")).toBe(true);
          } finally {
            await other.close();
          }
        }),
      );

      it.runIf(dialect.name === "sqlite")(
        "never gives one job to two claimers in separate processes on one SQLite file",
        withDb(async (db) => {
          const jobs = await enqueueMany(db, scopes.a, 300);
          const script = fileURLToPath(new URL("../support/claim-jobs-process.ts", import.meta.url));
          const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
          const children = Array.from({ length: 4 }, (_, i) => spawn(tsx, [script, db.location, `p${i}`, "5", String(NOW + 1000)]));
          const outputs = children.map((child) => {
            const lines = createInterface({ input: child.stdout });
            const received: string[] = [];
            const ready = new Promise<void>((resolve) => lines.on("line", (line) => (received.push(line), line === "ready" && resolve())));
            const done = new Promise<string>((resolve, reject) => {
              let stderr = "";
              child.stderr.on("data", (chunk) => (stderr += chunk));
              child.on("exit", (code) => (code === 0 ? resolve(received[received.length - 1]) : reject(new Error(`claimer exited ${code}: ${stderr}`))));
            });
            return { child, ready, done };
          });
          await Promise.all(outputs.map((o) => o.ready));
          for (const { child } of outputs) child.stdin.write("go\n");
          const claimed = (await Promise.all(outputs.map((o) => o.done))).map((line) => JSON.parse(line) as { id: string }[]);
          const ids = claimed.flat().map((c) => c.id);
          expect(ids).toHaveLength(300);
          expect(new Set(ids)).toEqual(new Set(jobs.map((j) => j.id)));
          // The processes really interleaved (each took some of the queue).
          expect(claimed.filter((list) => list.length > 0).length).toBeGreaterThan(1);
        }),
        60_000,
      );

      it(
        "claims ready jobs oldest first, routing by deployment",
        withDb(async (db) => {
          const put = async (deploymentId: string | null, availableAt: number) =>
            (await enqueueRunJob(db, { scope: scopes.a, run: runOf((await newSession(db, scopes.a)).session_id), job: jobOf({ deploymentId, availableAt }), now: NOW })).job.id;
          const anyLate = await put(null, NOW + 5);
          const anyEarly = await put(null, NOW + 1);
          const d1 = await put("d1", NOW);
          const d2 = await put("d2", NOW);
          const future = await put(null, NOW + 1000);
          const claim = (deploymentId: string | null, limit = 10) =>
            claimJobs(db, { ...RUN_JOBS, workerId: `w-${deploymentId}`, limit, now: NOW + 10, leaseSeconds: LEASE, deploymentId }).then((jobs) => jobs.map((j) => j.id));
          // A worker of no deployment takes only jobs of none, oldest available first, never a future one.
          expect(await claim(null, 1)).toEqual([anyEarly]);
          expect(await claim("d1")).toEqual([d1, anyLate]);
          expect(await claim("d1")).toEqual([]);
          expect(await claim("d2")).toEqual([d2]);
          expect(await claim(null)).toEqual([]);
          expect((await rawJob(db, future)).status).toBe("queued");
          const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW + 1000, leaseSeconds: LEASE });
          expect(claimed).toMatchObject({ id: future, lease_expires_at: NOW + 1000 + LEASE });
        }),
      );

      it(
        "runs one job per session at a time, in submission order; other sessions are not held up",
        withDb(async (db) => {
          const session = await newSession(db, scopes.a);
          const put = async (sessionId: string, now: number, runId: string) => (await enqueueRunJob(db, { scope: scopes.a, run: runOf(sessionId, runId), job: jobOf(), now })).job;
          // Submitted within one second, ids in the other order: the run_index keeps submission order.
          const first = await put(session.session_id, NOW, uid("z"));
          const second = await put(session.session_id, NOW, uid("a"));
          const other = await put((await newSession(db, scopes.a)).session_id, NOW + 2, uid("m"));
          const claim = () => claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 10, now: NOW + 10, leaseSeconds: LEASE });
          const claimed = await claim();
          expect(claimed.map((j) => j.id)).toEqual([first.id, other.id]);
          // The session's second job waits while the first runs…
          expect(await claim()).toEqual([]);
          expect(await completeJob(db, { ...fenceOf(claimed[0]), now: NOW + 11 })).toBe(true);
          // …and goes once it has finished.
          expect((await claim()).map((j) => j.id)).toEqual([second.id]);
        }),
      );

      it(
        "marks the claimed jobs' runs RUNNING in the claim, leaving a run that already moved on alone",
        withDb(async (db) => {
          const [a, b] = await enqueueMany(db, scopes.a, 2);
          await db.sql.exec(`UPDATE agno_runs SET status = 'CANCELLED' WHERE run_id = ?`, [b.id]);
          await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 5, now: NOW + 5, leaseSeconds: LEASE });
          expect(await getRun(db, { scope: scopes.a, runId: a.id })).toMatchObject({ status: "RUNNING", run_data: { status: "RUNNING" } });
          expect(await rawRun(db, b.id)).toMatchObject({ status: "CANCELLED" });
        }),
      );
    });

    describe("settling in batches", () => {
      it(
        "settles many attempts at once, each with its run; one whose fence no longer holds changes nothing",
        withDb(async (db) => {
          const jobs = await enqueueMany(db, scopes.a, 4);
          const claimed = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 4, now: NOW + 5, leaseSeconds: LEASE });
          // The last one's lease was lost meanwhile: swept and claimed by another worker.
          await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + 5 + LEASE + 1, leaseSeconds: LEASE, limit: 100 });
          const [a, b, c] = claimed.map((j) => ({ ...fenceOf(j) }));
          await db.sql.exec(`UPDATE agno_jobs SET status = 'running', locked_by = 'w', locked_at = ? WHERE id IN (?, ?, ?)`, [NOW + 70, a.id, b.id, c.id]);
          const [stolen] = await claimJobs(db, { ...RUN_JOBS, workerId: "other", limit: 1, now: NOW + 70, leaseSeconds: LEASE });
          expect(stolen.id).toBe(jobs[3].id);
          const staleFence = fenceOf(claimed[3]);
          const run = (status: string) => ({ status, data: { status, content: `as ${status}` } });
          const settled = await settleJobs(db, {
            ...RUN_JOBS,
            workerId: "w",
            now: NOW + 80,
            items: [
              { fence: a, jobType: "run", settlement: { status: "completed" }, subject: run("COMPLETED") },
              { fence: b, jobType: "run", settlement: { status: "queued", error: "try again", availableAt: NOW + 200 }, subject: run("PENDING") },
              { fence: c, jobType: "run", settlement: { status: "failed", error: "boom" }, subject: run("ERROR") },
              { fence: staleFence, jobType: "run", settlement: { status: "completed" }, subject: run("COMPLETED") },
            ],
          });
          expect([...settled].sort()).toEqual([a.id, b.id, c.id].sort());
          expect(await getJob(db, { scope: scopes.a, id: a.id })).toMatchObject({ status: "completed", completed_at: NOW + 80, locked_by: "w" });
          expect(await getJob(db, { scope: scopes.a, id: b.id })).toMatchObject({ status: "queued", available_at: NOW + 200, error: "try again", locked_by: null });
          expect(await getJob(db, { scope: scopes.a, id: c.id })).toMatchObject({ status: "failed", error: "boom", completed_at: NOW + 80 });
          expect(await rawRun(db, a.id)).toMatchObject({ status: "COMPLETED" });
          expect(await rawRun(db, b.id)).toMatchObject({ status: "PENDING" });
          expect(await rawRun(db, c.id)).toMatchObject({ status: "ERROR" });
          // The stale item: its job is the other worker's, running; its run untouched (still RUNNING from the claim).
          expect(await getJob(db, { scope: scopes.a, id: stolen.id })).toMatchObject({ status: "running", locked_by: "other" });
          expect(await rawRun(db, stolen.id)).toMatchObject({ status: "RUNNING" });
          await expect(
            settleJobs(db, { ...RUN_JOBS, workerId: "w", items: [{ fence: fenceOf(stolen), jobType: "run", settlement: { status: "completed" }, subject: run("COMPLETED") }] }),
          ).rejects.toThrow(/held by the settling worker/);
        }),
      );
    });

    describe("fencing and leases", () => {
      it(
        "rejects every write of a stale worker once the sweeper re-queued its job and another worker claimed it",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1, { maxAttempts: 3 });
          const [mine] = await claimJobs(db, { ...RUN_JOBS, workerId: "w1", limit: 1, now: NOW, leaseSeconds: LEASE });
          expect(await heartbeat(db, { ...fenceOf(mine), now: NOW + 30 })).toBe(true);
          // The heartbeat kept the lease: a sweep within it takes nothing.
          expect(await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + 30 + LEASE - 1, leaseSeconds: LEASE })).toEqual({ requeued: [], failed: [] });
          expect(await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + 30 + LEASE + 1, leaseSeconds: LEASE })).toEqual({ requeued: [job.id], failed: [] });
          const [theirs] = await claimJobs(db, { ...RUN_JOBS, workerId: "w2", limit: 1, now: NOW + 100, leaseSeconds: LEASE });
          expect(theirs).toMatchObject({ id: job.id, attempt: 2, lease_losses: 1, locked_by: "w2" });
          const before = await rawJob(db, job.id);
          const stale = { ...fenceOf(mine), now: NOW + 101 };
          expect(await heartbeat(db, stale)).toBe(false);
          expect(await completeJob(db, stale)).toBe(false);
          expect(await failJob(db, { ...stale, error: "late", retryable: true, retryDelaySeconds: 30 })).toEqual({ applied: false });
          expect(await pauseJob(db, stale)).toBe(false);
          expect(await cancelJob(db, stale)).toBe(false);
          expect(await releaseJob(db, { ...RUN_JOBS, ...stale })).toBe(false);
          expect(await rawJob(db, job.id)).toEqual(before);
          // The new holder's fence works.
          expect(await heartbeat(db, { ...fenceOf(theirs), now: NOW + 102 })).toBe(true);
          expect(await completeJob(db, { ...fenceOf(theirs), now: NOW + 103 })).toBe(true);
          expect(await getJob(db, { scope: scopes.a, id: job.id })).toMatchObject({ status: "completed", completed_at: NOW + 103 });
          expect(await completeJob(db, { ...fenceOf(theirs), now: NOW + 104 })).toBe(false);
        }),
      );

      it(
        "releases on shutdown without spending an attempt; even the same worker id's old fence is dead after it reclaims",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1);
          const [first] = await claimJobs(db, { ...RUN_JOBS, workerId: "w1", limit: 1, now: NOW, leaseSeconds: LEASE });
          expect(await releaseJob(db, { ...RUN_JOBS, ...fenceOf(first), now: NOW + 5 })).toBe(true);
          expect(await getJob(db, { scope: scopes.a, id: job.id })).toMatchObject({
            status: "queued",
            available_at: NOW + 5,
            attempt: 1,
            lease_losses: 1,
            locked_by: null,
            locked_at: null,
          });
          expect(await releaseJob(db, { ...RUN_JOBS, ...fenceOf(first), now: NOW + 6 })).toBe(false);
          const [again] = await claimJobs(db, { ...RUN_JOBS, workerId: "w1", limit: 1, now: NOW + 5, leaseSeconds: LEASE });
          expect(again).toMatchObject({ attempt: 2, lease_losses: 1, locked_by: "w1" });
          expect(await heartbeat(db, { ...fenceOf(first), now: NOW + 7 })).toBe(false);
          // max_attempts 1 and a release behind it: the one real attempt is still there to spend.
          expect(await failJob(db, { ...fenceOf(again), error: "boom", retryable: true, retryDelaySeconds: 30, now: NOW + 8 })).toEqual({
            applied: true,
            status: "failed",
          });
        }),
      );

      it(
        "does not spend attempts on lost leases: a retry is still due after one",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1, { maxAttempts: 2 });
          await claimJobs(db, { ...RUN_JOBS, workerId: "dies", limit: 1, now: NOW, leaseSeconds: LEASE });
          await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + LEASE + 1, leaseSeconds: LEASE });
          const [second] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW + 100, leaseSeconds: LEASE });
          expect(second).toMatchObject({ attempt: 2, lease_losses: 1 });
          const retry = await failJob(db, { ...fenceOf(second), error: "flaky", retryable: true, retryDelaySeconds: 10, random: 0, now: NOW + 100 });
          // First real attempt: base delay.
          expect(retry).toEqual({ applied: true, status: "queued", availableAt: NOW + 110 });
          const [third] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW + 110, leaseSeconds: LEASE });
          expect(third.attempt).toBe(3);
          expect(await failJob(db, { ...fenceOf(third), error: "flaky", retryable: true, retryDelaySeconds: 10, now: NOW + 111 })).toEqual({
            applied: true,
            status: "failed",
          });
          expect(await getJob(db, { scope: scopes.a, id: job.id })).toMatchObject({ status: "failed", error: "flaky", attempt: 3, lease_losses: 1 });
        }),
      );

      it(
        "fails a job that lost its worker 3 times and sets its run ERROR in the same sweep",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1, { maxAttempts: 5 });
          let now = NOW;
          let last: { id: string; attempt: number; locked_by: string | null } | undefined;
          for (let loss = 1; loss <= 3; loss++) {
            [last] = await claimJobs(db, { ...RUN_JOBS, workerId: `dies-${loss}`, limit: 1, now, leaseSeconds: LEASE });
            await upsertRun(db, { scope: scopes.a, run: { ...runOf(job.session_id!, job.id), status: "RUNNING" } });
            now += LEASE + 1;
            const swept = await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now, leaseSeconds: LEASE });
            expect(swept).toEqual(loss < 3 ? { requeued: [job.id], failed: [] } : { requeued: [], failed: [job.id] });
          }
          const failed = await getJob(db, { scope: scopes.a, id: job.id });
          expect(failed).toMatchObject({ status: "failed", attempt: 3, lease_losses: 3, completed_at: now });
          expect(failed!.error).toMatch(/lost its worker 3 times/);
          const run = await getRun(db, { scope: scopes.a, runId: job.id });
          expect(run).toMatchObject({ status: "ERROR", run_data: { status: "ERROR", error: { error_type: "job_lost_worker" } } });
          expect(String(run!.run_data.content)).toMatch(/lost its worker 3 times/);
          expect(await heartbeat(db, { ...fenceOf(last!), now })).toBe(false);
          expect(await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: now + 1000, leaseSeconds: LEASE })).toEqual([]);
        }),
      );

      it(
        "leaves a run that already ended alone when the sweeper gives up on its job",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1);
          await db.sql.exec(`UPDATE agno_jobs SET lease_losses = 2 WHERE id = ?`, [job.id]);
          await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW, leaseSeconds: LEASE });
          // The worker wrote the run COMPLETED, then died before completing the job.
          await upsertRun(db, { scope: scopes.a, run: { ...runOf(job.session_id!, job.id), status: "COMPLETED" } });
          expect((await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + LEASE + 1, leaseSeconds: LEASE })).failed).toEqual([job.id]);
          expect(await rawRun(db, job.id)).toMatchObject({ status: "COMPLETED" });
        }),
      );

      it("bounds retry delays: base·2^(n−1) plus at most 20% jitter, never above 10× the base", () => {
        for (let spent = 1; spent <= 8; spent++) {
          const exponential = Math.min(300, 30 * 2 ** (spent - 1));
          const low = retryDelaySeconds({ baseSeconds: 30, spentAttempts: spent, random: 0 });
          const high = retryDelaySeconds({ baseSeconds: 30, spentAttempts: spent, random: 0.999999 });
          expect(low).toBe(exponential);
          expect(high).toBeGreaterThanOrEqual(low);
          expect(high).toBeLessThanOrEqual(Math.min(300, Math.ceil(exponential * 1.2)));
          expect(high).toBeLessThanOrEqual(300);
        }
        expect(retryDelaySeconds({ baseSeconds: 30, spentAttempts: 2, random: 0.5 })).toBe(66);
        expect(retryDelaySeconds({ baseSeconds: 0, spentAttempts: 3 })).toBe(0);
      });

      it(
        "retries with growing backoff while attempts remain, and fails at once on a non-retryable error",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1, { maxAttempts: 4 });
          let now = NOW + 10;
          const delays: number[] = [];
          for (let attempt = 1; attempt <= 3; attempt++) {
            const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now, leaseSeconds: LEASE });
            expect(claimed).toMatchObject({ id: job.id, attempt });
            const result = await failJob(db, { ...fenceOf(claimed), error: `e${attempt}`, retryable: true, retryDelaySeconds: 30, now });
            if (!result.applied || result.status !== "queued") throw new Error(`expected a retry, got ${JSON.stringify(result)}`);
            delays.push(result.availableAt - now);
            expect(await getJob(db, { scope: scopes.a, id: job.id })).toMatchObject({ status: "queued", locked_by: null, error: `e${attempt}` });
            // Not claimable before its backoff ends.
            expect(await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: result.availableAt - 1, leaseSeconds: LEASE })).toEqual([]);
            now = result.availableAt;
          }
          expect(delays[0]).toBeGreaterThanOrEqual(30);
          expect(delays[0]).toBeLessThanOrEqual(36);
          expect(delays[1]).toBeGreaterThanOrEqual(60);
          expect(delays[1]).toBeLessThanOrEqual(72);
          expect(delays[2]).toBeGreaterThanOrEqual(120);
          expect(delays[2]).toBeLessThanOrEqual(144);
          const [last] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now, leaseSeconds: LEASE });
          expect(await failJob(db, { ...fenceOf(last), error: "final", retryable: true, retryDelaySeconds: 30, now })).toEqual({
            applied: true,
            status: "failed",
          });

          const [fresh] = await enqueueMany(db, scopes.a, 1, { maxAttempts: 4 }, now);
          const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now, leaseSeconds: LEASE });
          expect(claimed.id).toBe(fresh.id);
          expect(await failJob(db, { ...fenceOf(claimed), error: "bad input", retryable: false, retryDelaySeconds: 30, now })).toEqual({
            applied: true,
            status: "failed",
          });
          // The claim started the run (RUNNING); failing the job does not write it: the run's end
          // is the runtime's, under its own fence.
          expect(await rawRun(db, fresh.id)).toMatchObject({ status: "RUNNING" });
        }),
      );

      it(
        "a job taken back from its worker (released or swept) has its run PENDING again; a cancel before the next claim ends both",
        withDb(async (db) => {
          const [released, swept] = await enqueueMany(db, scopes.a, 2);
          const claimed = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 2, now: NOW + 5, leaseSeconds: LEASE });
          expect(await rawRun(db, released.id)).toMatchObject({ status: "RUNNING" });
          expect(await releaseJob(db, { ...RUN_JOBS, ...fenceOf(claimed.find((j) => j.id === released.id)!), now: NOW + 6 })).toBe(true);
          expect(await unsafeSweepExpiredLeases(db, { ...RUN_JOBS, now: NOW + 5 + LEASE + 1, leaseSeconds: LEASE })).toEqual({ requeued: [swept.id], failed: [] });
          for (const job of [released, swept]) {
            expect(await rawRun(db, job.id)).toMatchObject({ status: "PENDING" });
            expect(await requestJobCancel(db, { ...RUN_JOBS, scope: scopes.a, id: job.id, now: NOW + 100 })).toBe("cancelled");
            expect(await rawRun(db, job.id)).toMatchObject({ status: "CANCELLED" });
          }
        }),
      );

      it(
        "a release that is the job's third lost lease fails the job and its run",
        withDb(async (db) => {
          const [job] = await enqueueMany(db, scopes.a, 1);
          for (let i = 0; i < 3; i++) {
            const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW + 10 + i, leaseSeconds: LEASE });
            expect(await releaseJob(db, { ...RUN_JOBS, ...fenceOf(claimed), now: NOW + 10 + i })).toBe(true);
          }
          expect(await getJob(db, { scope: scopes.a, id: job.id })).toMatchObject({ status: "failed", lease_losses: 3, attempt: 3 });
          expect((await getRun(db, { scope: scopes.a, runId: job.id }))!.run_data).toMatchObject({ status: "ERROR", error: { error_type: "job_lost_worker" } });
        }),
      );

      it(
        "pauses and cancels under the fence; cancels a queued job by scope",
        withDb(async (db) => {
          const [a, b, c] = await enqueueMany(db, scopes.a, 3);
          const claimed = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 2, now: NOW + 5, leaseSeconds: LEASE });
          expect(claimed.map((j) => j.id)).toEqual([a.id, b.id]);
          expect(await pauseJob(db, { ...fenceOf(claimed[0]), now: NOW + 6 })).toBe(true);
          expect(await cancelJob(db, { ...fenceOf(claimed[1]), reason: "user asked", now: NOW + 6 })).toBe(true);
          expect(await getJob(db, { scope: scopes.a, id: a.id })).toMatchObject({ status: "paused" });
          expect(await getJob(db, { scope: scopes.a, id: b.id })).toMatchObject({ status: "cancelled", error: "user asked", completed_at: NOW + 6 });
          expect(await heartbeat(db, { ...fenceOf(claimed[0]), now: NOW + 7 })).toBe(false);
          // A queued job: only its owner (or an admin) cancels it, with its run; a running one is its worker's to cancel.
          expect(await requestJobCancel(db, { ...RUN_JOBS, scope: scopes.b, id: c.id })).toBeNull();
          expect(await requestJobCancel(db, { ...RUN_JOBS, scope: scopes.a, id: c.id, now: NOW + 8 })).toBe("cancelled");
          expect(await requestJobCancel(db, { ...RUN_JOBS, scope: scopes.a, id: c.id })).toBe("cancelled");
          expect(await getJob(db, { scope: scopes.a, id: c.id })).toMatchObject({ status: "cancelled", cancel_requested_at: NOW + 8 });
          expect(await rawRun(db, c.id)).toMatchObject({ status: "CANCELLED" });
          // A paused job is held by no worker either: cancelled at once.
          expect(await requestJobCancel(db, { ...RUN_JOBS, scope: scopes.a, id: a.id })).toBe("cancelled");
          expect(await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 5, now: NOW + 100, leaseSeconds: LEASE })).toEqual([]);
        }),
      );
    });

    describe("requeue and retention", () => {
      /** A job of `scope` run once and failed (or cancelled) at `at`. */
      async function finishedJob(db: Db, scope: DataScope, how: "failed" | "cancelled", at: number) {
        const [job] = await enqueueMany(db, scope, 1, {}, at - 10);
        const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: at - 5, leaseSeconds: LEASE });
        if (how === "failed") {
          await failJob(db, { ...fenceOf(claimed), error: "boom", retryable: false, retryDelaySeconds: 30, now: at });
          await upsertRun(db, { scope, run: { ...runOf(job.session_id!, job.id), status: "ERROR", runData: { status: "ERROR", error: { message: "boom" } } } });
        } else {
          await cancelJob(db, { ...fenceOf(claimed), now: at });
          await upsertRun(db, { scope, run: { ...runOf(job.session_id!, job.id), status: "CANCELLED" } });
        }
        return job;
      }

      it(
        "requeues failed and cancelled jobs for admins only, by the rules",
        withDb(async (db) => {
          const fresh = await finishedJob(db, scopes.a, "failed", NOW);
          const now = NOW + 30;
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.a, id: fresh.id, force: true, now })).rejects.toBeInstanceOf(PermissionError);
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: fresh.id, now })).rejects.toThrow(/failed 30 s ago/);
          await expect(requeueJob(db, { ...RUN_JOBS, scope: adminScope(principals.userB), id: fresh.id, force: true, now })).rejects.toBeInstanceOf(NotFoundError);
          const requeued = await requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: fresh.id, force: true, now });
          expect(requeued).toMatchObject({ status: "queued", available_at: now, error: null, completed_at: null, attempt: 1, max_attempts: 2 });
          const run = await getRun(db, { scope: scopes.a, runId: fresh.id });
          expect(run).toMatchObject({ status: "PENDING", run_data: { status: "PENDING" } });
          expect(run!.run_data).not.toHaveProperty("error");
          // Queued (not failed/cancelled): a conflict.
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: fresh.id, force: true, now })).rejects.toBeInstanceOf(ConflictError);
          // It runs again with a new attempt, so the old worker's fence stays dead.
          const [again] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now, leaseSeconds: LEASE });
          expect(again).toMatchObject({ id: fresh.id, attempt: 2 });
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: fresh.id, force: true, now })).rejects.toThrow(/is running/);

          const old = await finishedJob(db, scopes.a, "failed", NOW);
          expect(await requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: old.id, now: NOW + 61 })).toMatchObject({ status: "queued" });

          // A cancelled job is requeued with its cancel intent (its worker cancels it again), as in Agno; clear_cancellation drops it.
          const kept = await finishedJob(db, scopes.a, "cancelled", NOW);
          expect(await requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: kept.id, force: true, now: NOW + 100 })).toMatchObject({ status: "queued" });
          const cancelled = await finishedJob(db, scopes.a, "cancelled", NOW);
          expect(await requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: cancelled.id, clearCancellation: true, now: NOW + 100 })).toMatchObject({
            status: "queued",
          });
          expect(await rawRun(db, cancelled.id)).toMatchObject({ status: "PENDING" });
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.admin, id: "no-such-job" })).rejects.toBeInstanceOf(NotFoundError);
        }),
      );

      it(
        "deletes finished jobs past retention only, keeping their runs",
        withDb(async (db) => {
          const oldFailed = await finishedJob(db, scopes.a, "failed", NOW);
          const oldCancelled = await finishedJob(db, scopes.a, "cancelled", NOW);
          const [oldCompleted] = await enqueueMany(db, scopes.a, 1, {}, NOW);
          const [claimed] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW, leaseSeconds: LEASE });
          await completeJob(db, { ...fenceOf(claimed), now: NOW });
          const recent = await finishedJob(db, scopes.a, "failed", NOW + 500);
          const [oldQueued] = await enqueueMany(db, scopes.a, 1, { availableAt: NOW + 10_000 }, NOW - 5000);
          const [oldRunning] = await enqueueMany(db, scopes.a, 1, {}, NOW - 5000);
          await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW - 5000, leaseSeconds: LEASE });

          const deleted = await unsafeDeleteFinishedJobs(db, { now: NOW + 1000, retentionSeconds: 600 });
          expect(deleted).toBe(3);
          const left = (await listJobs(db, { scope: scopes.admin })).jobs.map((j) => j.id).sort();
          expect(left).toEqual([recent.id, oldQueued.id, oldRunning.id].sort());
          for (const id of [oldFailed.id, oldCancelled.id, oldCompleted.id]) expect(await rawRun(db, id)).toBeDefined();
        }),
      );
      it(
        "deletes finished jobs in batches of batchSize, one statement each, until none is left",
        withDb(async (db) => {
          const jobs = await enqueueMany(db, scopes.a, 7, {}, NOW);
          const claimed = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 7, now: NOW + 10, leaseSeconds: LEASE });
          expect(claimed).toHaveLength(7);
          for (const job of claimed) await completeJob(db, { ...fenceOf(job), now: NOW + 10 });
          const [live] = await enqueueMany(db, scopes.a, 1, {}, NOW - 5000);

          expect(await unsafeDeleteFinishedJobs(db, { now: NOW + 1000, retentionSeconds: 600, batchSize: 3, maxBatches: 1 })).toBe(3);
          let stops = 0;
          expect(await unsafeDeleteFinishedJobs(db, { now: NOW + 1000, retentionSeconds: 600, batchSize: 2, shouldStop: () => ++stops > 1 })).toBe(4);
          expect(await unsafeDeleteFinishedJobs(db, { now: NOW + 1000, retentionSeconds: 600, batchSize: 3 })).toBe(0);
          const left = (await listJobs(db, { scope: scopes.admin })).jobs.map((j) => j.id);
          expect(left).toEqual([live.id]);
          for (const job of jobs) expect(await rawRun(db, job.id)).toBeDefined();
        }),
      );
    });

    describe("reads and isolation", () => {
      it(
        "user A cannot list, get, count, requeue or cancel user B's jobs; admins see everyone's",
        withDb(async (db) => {
          const aJobs = await enqueueMany(db, scopes.a, 3);
          const [bJob] = await enqueueMany(db, scopes.b, 1);
          expect(await getJob(db, { scope: scopes.a, id: bJob.id })).toBeNull();
          expect(await getJob(db, { scope: scopes.b, id: bJob.id })).toMatchObject({ id: bJob.id });
          const listed = await listJobs(db, { scope: scopes.a });
          expect(listed.totalCount).toBe(3);
          expect(listed.jobs.map((j) => j.id).sort()).toEqual(aJobs.map((j) => j.id).sort());
          expect((await listJobs(db, { scope: scopes.b })).jobs.map((j) => j.id)).toEqual([bJob.id]);
          expect((await listJobs(db, { scope: scopes.admin })).totalCount).toBe(4);
          expect((await listJobs(db, { scope: adminScope(principals.userB) })).totalCount).toBe(1);
          expect((await queueStats(db, { scope: scopes.b, now: NOW + 100 })).counts.queued).toBe(1);
          expect(await requestJobCancel(db, { ...RUN_JOBS, scope: scopes.a, id: bJob.id })).toBeNull();
          expect((await getJob(db, { scope: scopes.b, id: bJob.id }))?.cancel_requested_at).toBeNull();
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.b, id: bJob.id, force: true })).rejects.toBeInstanceOf(PermissionError);
          await expect(requeueJob(db, { ...RUN_JOBS, scope: scopes.a, id: bJob.id, force: true })).rejects.toBeInstanceOf(PermissionError);
        }),
      );

      it(
        "lists by status, sorted and paginated, and counts per status with the oldest queued age",
        withDb(async (db) => {
          const jobs = await enqueueMany(db, scopes.a, 5);
          const [running] = await claimJobs(db, { ...RUN_JOBS, workerId: "w", limit: 1, now: NOW + 10, leaseSeconds: LEASE });
          const page1 = await listJobs(db, { scope: scopes.a, statuses: ["queued"], limit: 2, page: 1, sortBy: "created_at", sortOrder: "asc" });
          const page2 = await listJobs(db, { scope: scopes.a, statuses: ["queued"], limit: 2, page: 2, sortBy: "created_at", sortOrder: "asc" });
          expect(page1.totalCount).toBe(4);
          expect([...page1.jobs, ...page2.jobs].map((j) => j.id)).toEqual(jobs.slice(1).map((j) => j.id));
          const both = await listJobs(db, { scope: scopes.a, statuses: ["queued", "running"], sortOrder: "desc" });
          expect(both.jobs.map((j) => j.id)).toEqual(jobs.map((j) => j.id).reverse());
          expect((await listJobs(db, { scope: scopes.a, statuses: ["running"] })).jobs.map((j) => j.id)).toEqual([running.id]);
          await expect(listJobs(db, { scope: scopes.a, page: 2 })).rejects.toBeInstanceOf(PaginationError);

          const stats = await queueStats(db, { scope: scopes.a, now: NOW + 100 });
          expect(stats).toEqual({
            counts: { queued: 4, running: 1, completed: 0, failed: 0, cancelled: 0, paused: 0 },
            oldest_queued_age_seconds: 99,
          });
          expect(await queueStats(db, { scope: scopes.b })).toEqual({
            counts: { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0, paused: 0 },
            oldest_queued_age_seconds: null,
          });
        }),
      );
    });
  });
});
