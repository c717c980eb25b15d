import { type ChildProcess, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJob, getRun } from "@/lib/db/index.ts";
import { deferred, messageText, startModelServer, type Deferred, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { postgresDialect } from "../support/databases.ts";
import { freePort, type Spawned } from "../support/processes.ts";
import { redisSkipReason, spawnTestRedis } from "../support/redis.ts";
import { processDeployment as deployment } from "./process-deployment.ts";
import { until as poll } from "../support/until.ts";
import { adminScope } from "../support/scopes.ts";

const until = (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => poll(what, check, timeoutMs, 50);

/**
 * The durable queue across real processes over one PostgreSQL and one Redis: two web replicas
 * (the API on node:http, no embedded worker) and two standalone workers (`npm run worker`'s
 * entry), as a production deployment runs them. Then a worker killed or frozen mid-run, and Redis
 * killed mid-run.
 */

type Json = Record<string, unknown>;
const skipReason = postgresDialect.skipReason ?? redisSkipReason;

const lastUserText = (body: { messages: { role: string }[] }) => messageText([...body.messages].reverse().find((m) => m.role === "user") as Parameters<typeof messageText>[0]);

/** Reads SSE frames from a response until `stop` says so (or the stream ends); returns the events. */
async function readEvents(response: Response, stop: (event: Json) => boolean = () => false): Promise<Json[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: Json[] = [];
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split("\n").find((l) => l.startsWith("data: "));
      if (!data) continue;
      const event = JSON.parse(data.slice(6)) as Json;
      events.push(event);
      if (stop(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

const runEvents = (events: Json[]) => events.filter((e) => typeof e.event_index === "number");
const form = (fields: Record<string, string>) => ({ method: "POST", body: new URLSearchParams(fields) });

/** How many times each job id was settled as `completed`, from the workers' logs. */
function completions(workers: Spawned[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const worker of workers) {
    for (const line of worker.lines) {
      const match = /\] job (\S+) completed \(attempt/.exec(line);
      if (match) counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
    }
  }
  return counts;
}

describe.skipIf(skipReason !== null)("two web replicas and two workers over one PostgreSQL and Redis", () => {
  let model: ModelServer;
  let gate: Deferred;
  /** How many model calls each message has had (a re-executed run calls again). */
  const calls = new Map<string, number>();
  let d: Awaited<ReturnType<typeof deployment>>;
  let webA: Spawned & { origin: string };
  let webB: Spawned & { origin: string };
  let workers: (Spawned & { workerId: string })[];

  beforeAll(async () => {
    gate = deferred();
    model = await startModelServer({
      respond: (body): ScriptStep => {
        const text = lastUserText(body);
        const n = (calls.get(text) ?? 0) + 1;
        calls.set(text, n);
        // "slow …": 30 words, 100 ms apart (time to watch, disconnect and cancel mid-run).
        if (text.startsWith("slow")) {
          const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
          return { text: words.join(""), chunks: words, delayMs: 100 };
        }
        // "freeze …": the first call's answer starts, then waits for the gate; later calls answer at once.
        if (text.startsWith("freeze")) {
          return n === 1 ? { text: "from the first attempt", chunks: ["from ", "the first attempt"], hold: () => gate.promise } : { text: `from attempt call ${n}` };
        }
        return { text: `done: ${text}` };
      },
    });
    // At most 4 runs per worker, so a burst spreads over both.
    d = await deployment("pair", model, { AGNO_BACKGROUND_MAX_CONCURRENCY: "4" });
    webA = await d.api("web-a"); // migrates the schema first
    [webB, ...workers] = await Promise.all([d.api("web-b"), d.worker("worker-1"), d.worker("worker-2")]);
  }, 120_000);
  afterAll(async () => {
    gate?.resolve();
    await d?.destroy();
    await model?.close();
  });

  const submit = async (origin: string, fields: Record<string, string>) => {
    const response = await fetch(`${origin}/agents/assistant/runs`, form({ background: "true", stream: "false", ...fields }));
    expect(response.status, await response.clone().text()).toBe(202);
    return (await response.json()) as { run_id: string; session_id: string };
  };
  const status = async (runId: string) => (await getRun(await d.db(), { scope: adminScope(), runId }))?.status;

  it("submit on A, tail and cancel on B: the stream ends RunCancelled, RunCompleted and the run is CANCELLED", async () => {
    const run = await submit(webA.origin, { message: "slow cancel me" });
    const tail = await fetch(`${webB.origin}/agents/assistant/runs/${run.run_id}/resume`, form({ session_id: run.session_id }));
    let cancel: Promise<Response> | null = null;
    const events = await readEvents(tail, (event) => {
      if (process.env.DIAG) console.log(Date.now(), event.event, event.event_index);
      cancel ??= event.event === "RunContent" ? fetch(`${webB.origin}/agents/assistant/runs/${run.run_id}/cancel?session_id=${run.session_id}`, { method: "POST" }) : null;
      return event.event === "RunCompleted";
    });
    const answer = await cancel!;
    expect([answer.status, await answer.json()]).toEqual([200, {}]);
    expect(events.slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
    await until("CANCELLED", async () => (await status(run.run_id)) === "CANCELLED");
    expect(await getJob(await d.db(), { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "cancelled" });
    // Cancelled mid-stream: far fewer than the 30 words went out.
    expect(events.filter((e) => e.event === "RunContent").length).toBeLessThan(25);
  });

  it("a background stream opened on A, dropped, and resumed on B has no gap and no duplicate", async () => {
    const first = await fetch(`${webA.origin}/agents/assistant/runs`, form({ message: "slow stream across replicas", background: "true", stream: "true" }));
    expect(first.status).toBe(200);
    let contents = 0;
    const before = runEvents(await readEvents(first, (e) => e.event === "RunContent" && ++contents === 5));
    const { run_id: runId, session_id: sessionId } = before[0] as { run_id: string; session_id: string };
    const last = before.at(-1)!.event_index as number;
    expect(await status(runId)).toBe("RUNNING");
    const after = runEvents(await readEvents(await fetch(`${webB.origin}/agents/assistant/runs/${runId}/resume`, form({ session_id: sessionId, last_event_index: String(last) }))));
    const all = [...before, ...after].map((e) => e.event_index);
    expect(all).toEqual(all.map((_, i) => i));
    expect(after.at(-1)!.event).toBe("RunCompleted");
    const text = [...before, ...after]
      .filter((e) => e.event === "RunContent")
      .map((e) => e.content)
      .join("");
    expect(text).toBe(Array.from({ length: 30 }, (_, i) => `w${i} `).join(""));
    expect(await status(runId)).toBe("COMPLETED");
  });

  it("spreads runs over both workers; each run completes exactly once", async () => {
    const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(i % 2 ? webA.origin : webB.origin, { message: `spread ${i}` })));
    await until("all COMPLETED", async () => (await Promise.all(runs.map((r) => status(r.run_id)))).every((s) => s === "COMPLETED"));
    // A worker logs a completion after its settle statement commits: the log line may trail the row.
    await until("every completion logged", async () => runs.every((r) => completions(workers).has(r.run_id)));
    const counts = completions(workers);
    expect(runs.map((r) => counts.get(r.run_id))).toEqual(Array(20).fill(1));
    // A burst larger than one worker's cap is shared: both workers completed some.
    for (const worker of workers) expect(runs.some((r) => worker.lines.some((l) => l.includes(`job ${r.run_id} completed`)))).toBe(true);
  });

  it("a worker frozen mid-run loses its lease: the other worker runs the job again; the frozen one's late writes are fenced out", async () => {
    const message = `freeze ${Date.now()}`;
    const run = await submit(webA.origin, { message });
    const db = await d.db();
    await until("first attempt at the model", async () => (calls.get(message) ?? 0) >= 1);
    const holder = (await getJob(db, { scope: adminScope(), id: run.run_id }))!.locked_by!;
    const frozen = workers.find((w) => w.workerId === holder)!;
    const other = workers.find((w) => w !== frozen)!;
    frozen.child.kill("SIGSTOP");
    try {
      // No heartbeat for the lease (2 s): the other worker's sweeper takes the job back and runs it.
      await until("COMPLETED by the other worker", async () => (await status(run.run_id)) === "COMPLETED", 20_000);
      expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "completed", attempt: 2, lease_losses: 1 });
    } finally {
      frozen.child.kill("SIGCONT");
    }
    // The frozen worker wakes up to its model answer: it either notices by its own clock that the
    // lease ran out, or hears so from its heartbeat, and stops; or it tries to write and is fenced
    // out. Either way nothing of it lands.
    gate.resolve();
    await frozen.waitForLine(new RegExp(`lease on job ${run.run_id} ran out|lost the lease on job ${run.run_id}|job ${run.run_id}: .* was fenced out`), 15_000);
    await new Promise((r) => setTimeout(r, 500));
    const stored = (await getRun(db, { scope: adminScope(), runId: run.run_id }))!;
    expect(stored.status).toBe("COMPLETED");
    expect(stored.run_data.content).toMatch(/^from attempt call \d+$/);
    const counts = completions([frozen, other]);
    expect(counts.get(run.run_id)).toBe(1);
    expect(other.lines.some((l) => l.includes(`job ${run.run_id} completed`))).toBe(true);
  });

  it("kill -9 of a worker mid-run: the job is claimed again after its lease and completes once; a restarted worker claims again", async () => {
    const run = await submit(webB.origin, { message: "slow survive a crash" });
    const db = await d.db();
    await until("RUNNING", async () => (await status(run.run_id)) === "RUNNING");
    const holder = (await getJob(db, { scope: adminScope(), id: run.run_id }))!.locked_by!;
    const victim = workers.find((w) => w.workerId === holder)!;
    await victim.kill("SIGKILL");
    await until("COMPLETED after the crash", async () => (await status(run.run_id)) === "COMPLETED", 30_000);
    expect(await getJob(db, { scope: adminScope(), id: run.run_id })).toMatchObject({ status: "completed", attempt: 2, lease_losses: 1 });
    await until("the completion logged", async () => completions(workers).has(run.run_id));
    expect(completions(workers).get(run.run_id)).toBe(1);
    // A replacement worker joins and takes work.
    const replacement = await d.worker("worker-3");
    workers = [...workers.filter((w) => w !== victim), replacement];
    const next = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(webA.origin, { message: `after crash ${i}` })));
    await until("all COMPLETED", async () => (await Promise.all(next.map((r) => status(r.run_id)))).every((s) => s === "COMPLETED"));
  });

  it("a worker stopped with SIGTERM finishes or releases its jobs; none is left RUNNING", async () => {
    const target = workers[0];
    const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => submit(webA.origin, { message: `slow graceful ${i}` })));
    await until("all claimed", async () => (await Promise.all(runs.map((r) => status(r.run_id)))).every((s) => s === "RUNNING"));
    expect(await target.kill("SIGTERM")).toBe(0);
    await until("all COMPLETED", async () => (await Promise.all(runs.map((r) => status(r.run_id)))).every((s) => s === "COMPLETED"), 40_000);
    const jobs = await Promise.all(runs.map(async (r) => (await getJob(await d.db(), { scope: adminScope(), id: r.run_id }))!));
    expect(jobs.every((j) => j.status === "completed" && j.attempt - j.lease_losses === 1)).toBe(true);
  });
});

/** This suite starts (and kills) a Redis of its own: it needs the redis-server binary. */
const redisServerMissing = spawnSync("redis-server", ["--version"]).error ? "redis-server is not installed" : null;
if (redisServerMissing && process.env.AGENTRY_TEST_REQUIRE_SERVICES) throw new Error(`${redisServerMissing}; AGENTRY_TEST_REQUIRE_SERVICES is set`);
if (redisServerMissing && !postgresDialect.skipReason) console.warn(`[skip] Redis-killed suite skipped: ${redisServerMissing}`);

describe.skipIf(postgresDialect.skipReason !== null || redisServerMissing !== null)("Redis killed mid-run", () => {
  let model: ModelServer;
  let redisPort: number;
  let redis: ChildProcess;
  let d: Awaited<ReturnType<typeof deployment>>;

  beforeAll(async () => {
    model = await startModelServer({
      respond: (body): ScriptStep => {
        const text = lastUserText(body);
        const words = Array.from({ length: 40 }, (_, i) => `r${i} `);
        return text.startsWith("slow") ? { text: words.join(""), chunks: words, delayMs: 100 } : { text: `done: ${text}` };
      },
    });
    redisPort = await freePort();
    // A Redis of this suite's own, so killing it touches nobody else.
    redis = (await spawnTestRedis(redisPort)).process;
    // A lease of 10 s: under a loaded CI machine a 2 s lease can run out and the run be executed
    // again, numbering on after what the first attempt published to Redis only (a legitimate gap
    // in the stream this test asserts has none).
    d = await deployment("redis", model, { REDIS_URL: `redis://127.0.0.1:${redisPort}`, AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "10" });
  }, 60_000);
  afterAll(async () => {
    redis?.kill("SIGKILL");
    await d?.destroy();
    await model?.close();
  });

  it("every run completes and is stored, streams fall back to the database, and cancel still works", async () => {
    const web = await d.api("web");
    const worker = await d.worker("worker");
    const submit = async (message: string) => {
      const response = await fetch(`${web.origin}/agents/assistant/runs`, form({ message, background: "true", stream: "false" }));
      return (await response.json()) as { run_id: string; session_id: string };
    };
    const db = await d.db();
    const status = async (runId: string) => (await getRun(db, { scope: adminScope(), runId }))?.status;
    const runs = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(`slow redis ${i}`)));
    const victim = await submit("slow cancel without redis");
    const watched = runs[0];
    const tail = fetch(`${web.origin}/agents/assistant/runs/${watched.run_id}/resume`, form({ session_id: watched.session_id }));
    await until("all RUNNING", async () => (await Promise.all([...runs, victim].map((r) => status(r.run_id)))).every((s) => s === "RUNNING"));
    await new Promise((r) => setTimeout(r, 500));
    redis.kill("SIGKILL");
    // Cancel with Redis gone: the intent is in the database, the worker sees it at its next poll.
    expect((await fetch(`${web.origin}/agents/assistant/runs/${victim.run_id}/cancel?session_id=${victim.session_id}`, { method: "POST" })).status).toBe(200);
    await until("victim CANCELLED", async () => (await status(victim.run_id)) === "CANCELLED", 15_000);
    await until("all COMPLETED", async () => (await Promise.all(runs.map((r) => status(r.run_id)))).every((s) => s === "COMPLETED"), 30_000);
    for (const run of runs) {
      const stored = (await getRun(db, { scope: adminScope(), runId: run.run_id }))!;
      expect(stored.run_data.content).toBe(Array.from({ length: 40 }, (_, i) => `r${i} `).join(""));
    }
    // The stream that was reading from Redis finished from the database: every event, in order, once.
    const events = runEvents(await readEvents(await tail));
    // On failure, the worker's word on leases and attempts says whether the run was executed twice.
    const attempts = worker.lines.filter((l) => /lease|attempt|took back/.test(l)).join("\n");
    expect(
      events.map((e) => e.event_index),
      attempts,
    ).toEqual(events.map((_, i) => i));
    expect(events.at(-1)!.event).toBe("RunCompleted");
  });
});
