import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSchedule, type Db, type StoredSchedule } from "@/lib/db/index.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { slotAfter } from "@/lib/scheduler/cron.ts";
import { deferred, messageText, startModelServer, type Deferred, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { processDeployment } from "../queue/process-deployment.ts";
import { postgresDialect } from "../support/databases.ts";
import type { Spawned } from "../support/processes.ts";
import { redisSkipReason } from "../support/redis.ts";
import { userScope } from "../support/scopes.ts";
import { until as poll } from "../support/until.ts";

/**
 * The cron scheduler across real OS processes over one PostgreSQL and one Redis: standalone
 * workers (workers/queue-worker.ts — each runs the durable queue's worker and a scheduler loop,
 * and calls endpoints through lib/http/internal-call.ts) racing for the same due slots, and a
 * worker killed mid-fire whose fire another worker takes over. Everything is judged from what the
 * database holds afterwards.
 */

const skipReason = postgresDialect.skipReason ?? redisSkipReason;
const until = (what: string, check: () => Promise<boolean>, timeoutMs: number) => poll(what, check, timeoutMs, 200);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The agent of agentry.config.ts, the config every spawned process loads. */
const AGENT = "assistant";
/**
 * Yearly: its next slot after the one the test arms is next 1 January, so each schedule has one
 * slot due during the test. lib/scheduler/tick.ts fires a due next_run_at as the slot itself
 * (slotsToFire) and re-arms at slotAfter(expression, max(now, slot)).
 */
const CRON = "0 0 1 1 *";
/** Every spawned scheduler looks at agno_schedules at least this often (lib/scheduler/scheduler.ts). */
const SCHEDULER_ENV = { AGENTRY_SCHEDULER_POLL_INTERVAL_MS: "250" };

const lastUserText = (body: { messages: { role: string }[] }) => messageText([...body.messages].reverse().find((m) => m.role === "user") as Parameters<typeof messageText>[0]);

type Deployment = Awaited<ReturnType<typeof processDeployment>>;

/** The deployment's database, migrated by the test so schedules can be written before any worker starts. */
async function migratedDb(d: Deployment): Promise<Db> {
  const db = await d.db();
  await new MigrationManager(db).up();
  return db;
}

const scheduleInput = (name: string, message: string, nextRunAt: number) => ({
  name,
  method: "POST",
  endpoint: `/agents/${AGENT}/runs`,
  payload: { message },
  cron_expr: CRON,
  timezone: "UTC",
  timeout_seconds: 120,
  max_retries: 0,
  retry_delay_seconds: 1,
  next_run_at: nextRunAt,
});

/** What the processes printed last, and the queue's state, for a failure's message. */
async function explain(db: Db, processes: Spawned[]): Promise<string> {
  const jobs = await db.sql.query("SELECT job_type, status, COUNT(*) AS n FROM agno_jobs GROUP BY job_type, status ORDER BY job_type, status");
  const runs = await db.sql.query("SELECT status, COUNT(*) AS n FROM agno_schedule_runs GROUP BY status ORDER BY status");
  return [`jobs: ${JSON.stringify(jobs)}`, `schedule runs: ${JSON.stringify(runs)}`, ...processes.map((p) => `--- ${p.name}:\n${p.lines.slice(-25).join("\n")}`)].join("\n");
}

describe.skipIf(skipReason !== null)("three scheduler processes racing for 1,000 due schedules", () => {
  const SCHEDULES = 1000;
  const OWNERS = ["owner-a", "owner-b", "owner-c", "owner-d", "owner-e"];
  let model: ModelServer;
  let d: Deployment;
  let db: Db;
  let schedules: StoredSchedule[];
  let workers: (Spawned & { workerId: string })[] = [];

  beforeAll(async () => {
    model = await startModelServer({ respond: (body): ScriptStep => ({ text: `fired: ${lastUserText(body)}` }) });
    // A 10 s lease: three processes running 1,000 fires and runs on two cores must not lose leases
    // to a late heartbeat (the next describe block loses one on purpose).
    d = await processDeployment("sched_race", model, { ...SCHEDULER_ENV, AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "10" });
    db = await migratedDb(d);
    // Armed an hour away while the workers start; the test then moves every one to the same second.
    const parked = nowSeconds() + 3600;
    schedules = [];
    // Four inserts at a time: the test's pool opens no more connections than that (PostgreSQL's
    // max_connections is shared with the workers, each of which holds up to 20: the pool of
    // workers/queue-worker.ts and the one lib/server/app-context.ts opens for the routes its fires call).
    for (let i = 0; i < SCHEDULES; i += 4) {
      const batch = Array.from({ length: Math.min(4, SCHEDULES - i) }, (_, j) => i + j);
      schedules.push(...(await Promise.all(batch.map((n) => createSchedule(db, { scope: userScope(OWNERS[n % OWNERS.length]!), schedule: scheduleInput(`race-${n}`, `race ${n}`, parked) })))));
    }
  }, 60_000);
  afterAll(async () => {
    await d?.destroy();
    await model?.close();
  });

  it("fires each schedule's slot exactly once: one successful schedule run and one agent run per slot, owned by the schedule's owner", async () => {
    workers = await Promise.all([d.worker("worker-1"), d.worker("worker-2"), d.worker("worker-3")]);
    // Every scheduler loop is running (each worker prints "claiming from" after ensureScheduler):
    // arm all 1,000 at one second a moment away; each loop sleeps until that second
    // (unsafeNextDueAt), so the three claim from the same due rows in the same second.
    const slot = nowSeconds() + 2;
    await db.sql.exec("UPDATE agno_schedules SET next_run_at = ?", [slot]);
    const started = Date.now();
    await until(
      "every fire job ended and every slot has a finished schedule run",
      async () => {
        const [jobs] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_jobs WHERE job_type = 'schedule_fire' AND status IN ('completed', 'failed', 'cancelled')");
        const [finished] = await db.sql.query<{ n: number }>("SELECT COUNT(DISTINCT schedule_id) AS n FROM agno_schedule_runs WHERE status <> 'running'");
        return Number(jobs!.n) >= SCHEDULES && Number(finished!.n) >= SCHEDULES;
      },
      75_000,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await explain(db, workers)}`);
    });
    const seconds = (Date.now() - started) / 1000;

    const owners = new Map(schedules.map((s) => [s.id, s.user_id]));
    // Schedule runs: exactly one per schedule, for the armed slot, succeeded on its first attempt,
    // owned by the schedule's owner, each with its own run.
    const scheduleRuns = await db.sql.query<{ schedule_id: string; scheduled_for: number; status: string; attempt: number; user_id: string; run_id: string | null; error: string | null }>(
      "SELECT schedule_id, scheduled_for, status, attempt, user_id, run_id, error FROM agno_schedule_runs",
    );
    const perSlot = new Map<string, number>();
    for (const r of scheduleRuns) perSlot.set(`${r.schedule_id}:${r.scheduled_for}`, (perSlot.get(`${r.schedule_id}:${r.scheduled_for}`) ?? 0) + 1);
    expect(
      [...perSlot.values()].filter((n) => n !== 1),
      "slots with more than one schedule run",
    ).toEqual([]);
    expect(scheduleRuns).toHaveLength(SCHEDULES);
    expect(new Set(scheduleRuns.map((r) => r.schedule_id)).size).toBe(SCHEDULES);
    expect(scheduleRuns.filter((r) => Number(r.scheduled_for) !== slot)).toEqual([]);
    const notSuccess = scheduleRuns.filter((r) => r.status !== "success" || Number(r.attempt) !== 1 || r.run_id === null);
    expect(notSuccess.slice(0, 5), `${notSuccess.length} schedule runs not a first-attempt success with a run`).toEqual([]);
    expect(scheduleRuns.filter((r) => r.user_id !== owners.get(r.schedule_id))).toEqual([]);
    const runIds = scheduleRuns.map((r) => r.run_id!);
    expect(new Set(runIds).size).toBe(SCHEDULES);

    // Agent runs: exactly the 1,000 the schedule runs name, COMPLETED, each its schedule's owner's.
    const runs = await db.sql.query<{ run_id: string; user_id: string; agent_id: string; status: string }>("SELECT run_id, user_id, agent_id, status FROM agno_runs");
    expect(runs.map((r) => r.run_id).sort()).toEqual([...runIds].sort());
    const ownerOfRun = new Map(scheduleRuns.map((r) => [r.run_id!, r.user_id]));
    expect(runs.filter((r) => r.status !== "COMPLETED" || r.agent_id !== AGENT || r.user_id !== ownerOfRun.get(r.run_id))).toEqual([]);

    // Jobs: one fire job per slot (key schedule:<id>:<slot>) and one run job per slot (Idempotency-Key
    // schedule-run:<id>:<slot>, lib/scheduler/fire.ts fireIdempotencyKey), each completed on its first spent attempt.
    const jobs = await db.sql.query<{ id: string; job_type: string; idempotency_key: string; status: string; attempt: number; lease_losses: number; locked_by: string; user_id: string }>(
      "SELECT id, job_type, idempotency_key, status, attempt, lease_losses, locked_by, user_id FROM agno_jobs WHERE job_type IN ('schedule_fire', 'run')",
    );
    const fireJobs = jobs.filter((j) => j.job_type === "schedule_fire");
    const runJobs = jobs.filter((j) => j.job_type === "run");
    expect(fireJobs.map((j) => j.idempotency_key).sort()).toEqual(schedules.map((s) => `schedule:${s.id}:${slot}`).sort());
    expect(runJobs.map((j) => j.idempotency_key).sort()).toEqual(schedules.map((s) => `schedule-run:${s.id}:${slot}`).sort());
    expect(runJobs.map((j) => j.id).sort()).toEqual([...runIds].sort());
    const unclean = jobs.filter((j) => j.status !== "completed" || Number(j.attempt) - Number(j.lease_losses) !== 1);
    expect(unclean.slice(0, 5), `${unclean.length} jobs not completed on their one spent attempt`).toEqual([]);

    // Every schedule re-armed at its expression's next slot, unlocked.
    const rearmed = await db.sql.query<{ next_run_at: number; locked_by: string | null; enabled: boolean }>("SELECT next_run_at, locked_by, enabled FROM agno_schedules");
    const next = slotAfter(CRON, "UTC", slot);
    expect(rearmed.filter((s) => Number(s.next_run_at) !== next || s.locked_by !== null || !s.enabled)).toEqual([]);

    // A completed job keeps its worker in locked_by (lib/db/jobs/settle-jobs.ts): which worker ran
    // each fire. One worker holds at most scheduler.maxConcurrentFires (100) fires at once, so the
    // 1,000 cannot all be one worker's unless the others claimed nothing.
    const byWorker = new Map<string, number>();
    for (const j of fireJobs) byWorker.set(j.locked_by, (byWorker.get(j.locked_by) ?? 0) + 1);
    expect([...byWorker.keys()].every((id) => workers.some((w) => w.workerId === id))).toBe(true);
    expect(byWorker.size).toBeGreaterThan(1);
    const lostLeases = jobs.reduce((sum, j) => sum + Number(j.lease_losses), 0);
    console.log(
      `scheduler race: ${SCHEDULES} slots fired once each in ${seconds.toFixed(1)} s; fires per worker ${JSON.stringify(Object.fromEntries(byWorker))}; ` +
        `${model.requests.length} model calls; ${lostLeases} leases lost`,
    );
  }, 120_000);
});

describe.skipIf(skipReason !== null)("a scheduler process killed mid-fire", () => {
  let model: ModelServer;
  let gate: Deferred;
  let d: Deployment;
  let db: Db;
  const processes: Spawned[] = [];

  beforeAll(async () => {
    gate = deferred();
    // "hold …": every call waits for the gate (the first one's connection drops with its process).
    model = await startModelServer({
      respond: (body): ScriptStep => {
        const text = lastUserText(body);
        return text.startsWith("hold") ? { text: `answered: ${text}`, hold: () => gate.promise } : { text: `answered: ${text}` };
      },
    });
    d = await processDeployment("sched_takeover", model, SCHEDULER_ENV);
    db = await migratedDb(d);
  }, 60_000);
  afterAll(async () => {
    gate?.resolve();
    await d?.destroy();
    await model?.close();
  });

  it("another worker takes the fire over, adopts the running attempt and follows the same run: one schedule run, one agent run", async () => {
    const first = await d.worker("worker-1");
    processes.push(first);
    const slot = nowSeconds() + 2;
    const schedule = await createSchedule(db, { scope: userScope("takeover-owner"), schedule: scheduleInput("takeover", "hold takeover", slot) });
    const holds = () => model.requests.filter((r) => lastUserText(r.body) === "hold takeover").length;
    const slotRuns = () =>
      db.sql.query<{ id: string; status: string; attempt: number; run_id: string | null; session_id: string | null; user_id: string }>(
        "SELECT id, status, attempt, run_id, session_id, user_id FROM agno_schedule_runs WHERE schedule_id = ? AND scheduled_for = ?",
        [schedule.id, slot],
      );
    const fireJob = async () =>
      (
        await db.sql.query<{ status: string; attempt: number; lease_losses: number; locked_by: string | null }>(
          "SELECT status, attempt, lease_losses, locked_by FROM agno_jobs WHERE job_type = 'schedule_fire' AND idempotency_key = ?",
          [`schedule:${schedule.id}:${slot}`],
        )
      )[0];
    const fail = async (error: Error) => {
      throw new Error(`${error.message}\n${await explain(db, processes)}`);
    };

    // The fire submitted its run, recorded it on its running attempt, and the run is at the model.
    await until("the fire's run in flight at the model", async () => holds() >= 1 && (await slotRuns()).some((r) => r.status === "running" && r.run_id !== null), 30_000).catch(fail);
    const [attempt] = await slotRuns();
    expect((await fireJob())!).toMatchObject({ status: "running", locked_by: first.workerId });
    expect(await first.kill("SIGKILL")).toBe("SIGKILL");

    const second = await d.worker("worker-2");
    processes.push(second);
    // The second worker's sweeper takes both leases back (2 s) and claims the fire and the run again;
    // the run's re-execution waits at the model until the gate opens.
    await until(
      "the fire and its run claimed by the second worker",
      async () => {
        const job = await fireJob();
        const [runJob] = await db.sql.query<{ locked_by: string | null; status: string }>("SELECT locked_by, status FROM agno_jobs WHERE id = ?", [attempt!.run_id]);
        return job?.status === "running" && job.locked_by === second.workerId && runJob?.status === "running" && runJob.locked_by === second.workerId && holds() >= 2;
      },
      30_000,
    ).catch(fail);
    gate.resolve();
    await until("the fire job completed", async () => (await fireJob())?.status === "completed", 30_000).catch(fail);

    // One attempt for the slot, the one the dead worker started, now a success following its same run.
    const after = await slotRuns();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: attempt!.id, status: "success", attempt: 1, run_id: attempt!.run_id, session_id: attempt!.session_id, user_id: "takeover-owner" });
    expect(Number((await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_schedule_runs"))[0]!.n)).toBe(1);
    // One agent run, COMPLETED with the released answer; its job ran again after its lost lease.
    const runs = await db.sql.query<{ run_id: string; status: string; user_id: string }>("SELECT run_id, status, user_id FROM agno_runs");
    expect(runs).toEqual([{ run_id: attempt!.run_id, status: "COMPLETED", user_id: "takeover-owner" }]);
    const jobs = await db.sql.query<{ id: string; job_type: string; status: string; attempt: number; lease_losses: number; locked_by: string }>(
      "SELECT id, job_type, status, attempt, lease_losses, locked_by FROM agno_jobs WHERE job_type IN ('schedule_fire', 'run') ORDER BY job_type",
    );
    expect(jobs.map((j) => ({ ...j, attempt: Number(j.attempt), lease_losses: Number(j.lease_losses) }))).toEqual([
      { id: attempt!.run_id, job_type: "run", status: "completed", attempt: 2, lease_losses: 1, locked_by: second.workerId },
      { id: expect.any(String), job_type: "schedule_fire", status: "completed", attempt: 2, lease_losses: 1, locked_by: second.workerId },
    ]);
    expect(holds()).toBe(2);
  }, 90_000);
});
