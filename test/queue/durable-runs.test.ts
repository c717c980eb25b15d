import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { getJob, getRun, listJobs, queueStats, type Db } from "@/lib/db/index.ts";
import { clearCancel } from "@/lib/live-runs/run-registry.ts";
import { deferred, messageText, startModelServer, type Deferred, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS, type TestDialect } from "../support/databases.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";
import { adminScope } from "../support/scopes.ts";

/**
 * Durable background runs through the API, with the embedded worker of a real database (SQLite
 * file, PostgreSQL schema): the cap, one run per session, cancel, timeout, retries, events kept
 * with the run, streams and resume, Idempotency-Key, and one user against another.
 */

type Json = Record<string, unknown>;
const RUN_SCOPES = ["agents:read", "agents:run", "sessions:read"];
const user = (id: string): Principal => ({ kind: "user", userId: id, scopes: RUN_SCOPES, authenticatedBy: "jwt", isAdmin: false });
/** Worker timings small enough for tests: claims within 50 ms, heartbeats every 0.5 s. */
const FAST = { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50", AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "2" };

const lastUserText = (body: { messages: { role: string }[] }) => messageText([...body.messages].reverse().find((m) => m.role === "user") as Parameters<typeof messageText>[0]);

describe.each(DIALECTS)("durable background runs on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let gate: Deferred;
    /** Messages the model saw, with how many times (a re-executed run is seen twice). */
    const failuresLeft = new Map<string, number>();
    /** "denied …" messages that answer normally now (the key was fixed). */
    const allowed = new Set<string>();
    let app: TestApp;
    let db: Db;

    beforeAll(async () => {
      gate = deferred();
      server = await startModelServer({
        respond: (body): ScriptStep => {
          const text = lastUserText(body);
          // "hold …": the answer starts, then waits for the test to open the gate.
          if (text.startsWith("hold")) return { text: "held answer", chunks: ["held ", "answer"], hold: () => gate.promise };
          // "hang …": never answers (until the run is aborted).
          if (text.startsWith("hang")) return { text: "never", hold: () => new Promise(() => undefined) };
          // "flaky <n> …": the first n calls fail with a 500 (a retryable provider error).
          const flaky = /^flaky (\d+)/.exec(text);
          if (flaky) {
            const left = failuresLeft.get(text) ?? Number(flaky[1]);
            failuresLeft.set(text, left - 1);
            if (left > 0) return { error: { status: 500, message: "upstream exploded" } };
          }
          // "denied …": a permanent provider error (bad key), unless the test has since allowed it.
          if (text.startsWith("denied") && !allowed.has(text)) return { error: { status: 401, message: "invalid api key" } };
          return { text: `done: ${text}`, usage: { prompt_tokens: 5, completion_tokens: 3 } };
        },
      });
      app = await startTestApp({
        dialect,
        agents: [
          { id: "bg", name: "Background", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } },
          { id: "other", name: "Other", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } },
        ],
        env: { ...FAST, AGNO_BACKGROUND_MAX_CONCURRENCY: "32" },
        queue: { maxAttempts: 2, retryDelaySeconds: 0 },
      });
      db = await app.db();
    });
    afterAll(async () => {
      gate.resolve();
      await app?.close();
      await server?.close();
    });

    /** Lets every held answer finish; held answers that arrive later wait for the next gate. */
    const openGate = () => {
      gate.resolve();
      gate = deferred();
    };

    async function submit(fields: Record<string, string>, init: { as?: Principal; headers?: Record<string, string>; agent?: string } = {}) {
      return app.call("POST", `/agents/${init.agent ?? "bg"}/runs`, {
        form: { background: "true", stream: "false", ...fields },
        principal: init.as,
        headers: init.headers,
      });
    }
    async function accepted(fields: Record<string, string>, init: Parameters<typeof submit>[1] = {}) {
      const response = await submit(fields, init);
      expect(response.status, await response.clone().text()).toBe(202);
      return (await response.json()) as { run_id: string; session_id: string; status: string };
    }
    const run = (runId: string) => getRun(db, { scope: adminScope(), runId });
    const status = async (runId: string) => (await run(runId))?.status;
    const job = (id: string) => getJob(db, { scope: adminScope(), id });

    it("40 submits with maxConcurrency 32: 32 RUNNING, 8 PENDING, then every one COMPLETED", async () => {
      const before = server.requests.length;
      const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => accepted({ message: `hold cap ${i}` })));
      expect(runs.every((r) => r.status === "PENDING")).toBe(true);
      await server.waitForRequests(before + 32, 20_000);
      await until("32 RUNNING", async () => (await Promise.all(runs.map((r) => status(r.run_id)))).filter((s) => s === "RUNNING").length === 32);
      // Nothing more starts while 32 run: the worker holds at most maxConcurrency.
      await new Promise((r) => setTimeout(r, 300));
      const statuses = await Promise.all(runs.map((r) => status(r.run_id)));
      expect(statuses.filter((s) => s === "RUNNING")).toHaveLength(32);
      expect(statuses.filter((s) => s === "PENDING")).toHaveLength(8);
      expect(server.requests.length - before).toBe(32);
      const stats = await queueStats(db, { scope: adminScope() });
      expect(stats.counts).toMatchObject({ running: 32, queued: 8 });
      // The poll endpoint shows a waiting run as PENDING.
      const waiting = runs[statuses.indexOf("PENDING")];
      const polled = (await (await app.call("GET", `/agents/bg/runs/${waiting.run_id}?session_id=${waiting.session_id}`)).json()) as Json;
      expect(polled.status).toBe("PENDING");
      // Let this test's held answers through, the 8 still queued included.
      const open = gate;
      open.resolve();
      await until("all COMPLETED", async () => (await Promise.all(runs.map((r) => status(r.run_id)))).every((s) => s === "COMPLETED"));
      if (gate === open) gate = deferred();
      // A run is COMPLETED by its final write; its job's settlement is group-committed just after.
      await until("every job settled", async () => (await Promise.all(runs.map((r) => job(r.run_id)))).every((j) => j?.status !== "running"));
      const jobs = await Promise.all(runs.map((r) => job(r.run_id)));
      expect(jobs.every((j) => j?.status === "completed" && j.attempt === 1)).toBe(true);
    });

    it("a second submit to a busy session waits as PENDING behind the first", async () => {
      const first = await accepted({ message: "hold session first" });
      await until("first RUNNING", async () => (await status(first.run_id)) === "RUNNING");
      const second = await accepted({ message: "second in session", session_id: first.session_id });
      await new Promise((r) => setTimeout(r, 300));
      expect(await status(second.run_id)).toBe("PENDING");
      expect((await job(second.run_id))?.status).toBe("queued");
      expect(server.requests.some((r) => lastUserText(r.body) === "second in session")).toBe(false);
      openGate();
      await until("second COMPLETED", async () => (await status(second.run_id)) === "COMPLETED");
      expect(await status(first.run_id)).toBe("COMPLETED");
    });

    it("keeps a durable run's events with the run (storeEvents off) and replays them from the database, final event included", async () => {
      const done = await accepted({ message: "events please" });
      await until("COMPLETED", async () => (await status(done.run_id)) === "COMPLETED");
      const stored = (await run(done.run_id))!.run_data.events as Json[];
      expect(stored.map((e) => e.event)).toEqual(expect.arrayContaining(["RunStarted", "RunContent", "RunCompleted"]));
      expect(stored.at(-1)!.event).toBe("RunCompleted");
      expect(stored.map((e) => e.event_index)).toEqual(stored.map((_, i) => i));
      const replay = await readSse(await app.call("POST", `/agents/bg/runs/${done.run_id}/resume`, { form: { session_id: done.session_id, last_event_index: "0" } }));
      expect(replay.map((e) => e.event_index).filter((i) => i !== undefined)).toEqual(stored.slice(1).map((e) => e.event_index));
      expect(replay.at(-1)!.event).toBe("RunCompleted");
    });

    it("streams a background run (stream=true) to its end; a reconnect from an event index (form or Last-Event-ID) has no gap and no duplicate", async () => {
      const response = await submit({ message: "hold stream me", stream: "true" });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const reader = response.body!.getReader();
      let text = "";
      while (!text.includes('"event":"RunContent"')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel(); // the client goes away; the run goes on
      const seen = text
        .split("\n\n")
        .map((f) => f.split("\n").find((l) => l.startsWith("data: ")))
        .filter((l): l is string => !!l)
        .map((l) => JSON.parse(l.slice(6)) as Json);
      const runId = String(seen[0].run_id);
      const sessionId = String(seen[0].session_id);
      const last = Math.max(...seen.map((e) => Number(e.event_index)));
      expect(await status(runId)).toBe("RUNNING");
      const resumed = app.call("POST", `/agents/bg/runs/${runId}/resume`, { form: { session_id: sessionId, last_event_index: String(last) } });
      const viaHeader = app.call("POST", `/agents/bg/runs/${runId}/resume`, { form: { session_id: sessionId }, headers: { "last-event-id": String(last) } });
      await new Promise((r) => setTimeout(r, 100));
      openGate();
      for (const tail of [await readSse(await resumed), await readSse(await viaHeader)]) {
        const indices = tail.map((e) => e.event_index).filter((i): i is number => typeof i === "number");
        expect(indices[0]).toBe(last + 1);
        expect(indices).toEqual(indices.map((_, i) => last + 1 + i));
        expect(tail.at(-1)!.event).toBe("RunCompleted");
      }
      const bad = await app.call("POST", `/agents/bg/runs/${runId}/resume`, { form: { session_id: sessionId }, headers: { "last-event-id": "abc" } });
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as Json).detail).toMatch(/Last-Event-ID/);
    });

    it("durable run cancelled while followed (stream=true): the follower reads on past RunCancelled to RunCompleted, the run stored CANCELLED", async () => {
      const response = await submit({ message: "hold follow and cancel", stream: "true" });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (!text.includes('"event":"RunContent"')) text += decoder.decode((await reader.read()).value);
      const frames = () =>
        text
          .split("\n\n")
          .map((f) => f.split("\n").find((l) => l.startsWith("data: ")))
          .filter((l): l is string => !!l)
          .map((l) => JSON.parse(l.slice(6)) as Json);
      const { run_id: runId, session_id: sessionId } = frames().find((e) => e.event === "RunStarted") as { run_id: string; session_id: string };
      expect((await app.call("POST", `/agents/bg/runs/${runId}/cancel?session_id=${sessionId}`)).status).toBe(200);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      const events = frames();
      expect(events.slice(-2)).toMatchObject([
        { event: "RunCancelled", run_id: runId, reason: "Run cancelled by request", content: "held " },
        { event: "RunCompleted", run_id: runId, content: "held " },
      ]);
      const indices = events.map((e) => e.event_index);
      expect(indices).toEqual(indices.map((_, i) => i));
      await until("CANCELLED", async () => (await status(runId)) === "CANCELLED", 5_000);
      await until("job cancelled", async () => (await job(runId))?.status === "cancelled", 5_000);
      const stored = (await run(runId))!;
      expect(stored.run_data).toMatchObject({ status: "CANCELLED", content: "held " });
      expect((stored.run_data.events as Json[]).slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
      // Followed again once it ended, from the database: the same end, nothing made up after it.
      const replay = await readSse(await app.call("POST", `/agents/bg/runs/${runId}/resume`, { form: { session_id: sessionId } }));
      expect(replay.slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
      expect(replay.filter((e) => e.event === "RunCompleted")).toHaveLength(1);
    });

    it("cancels a queued run at once (the model never sees it) and a running one within a poll interval, without Redis", async () => {
      const blocker = await accepted({ message: "hold blocker" });
      await until("blocker RUNNING", async () => (await status(blocker.run_id)) === "RUNNING");
      const queued = await accepted({ message: "never-sent-to-the-model", session_id: blocker.session_id });
      expect((await app.call("POST", `/agents/bg/runs/${queued.run_id}/cancel?session_id=${queued.session_id}`)).status).toBe(200);
      expect(await status(queued.run_id)).toBe("CANCELLED");
      expect((await job(queued.run_id))?.status).toBe("cancelled");
      // A stream of it ends as a cancelled run's does, though it never ran: RunCancelled, then RunCompleted.
      const replay = await readSse(await app.call("POST", `/agents/bg/runs/${queued.run_id}/resume`, { form: { session_id: queued.session_id } }));
      expect(replay.slice(-2)).toMatchObject([
        { event: "RunCancelled", run_id: queued.run_id, agent_id: "bg" },
        { event: "RunCompleted", run_id: queued.run_id, agent_id: "bg" },
      ]);

      expect((await app.call("POST", `/agents/bg/runs/${blocker.run_id}/cancel?session_id=${blocker.session_id}`)).status).toBe(200);
      await until("blocker CANCELLED", async () => (await status(blocker.run_id)) === "CANCELLED", 5_000);
      expect((await job(blocker.run_id))?.status).toBe("cancelled");
      expect(((await run(blocker.run_id))!.run_data.events as Json[]).slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
      openGate();
      expect(server.requests.some((r) => lastUserText(r.body) === "never-sent-to-the-model")).toBe(false);
    });

    it("retries a retryable failure while attempts remain (no RunError in between); a permanent one fails at once", async () => {
      // The runtime retries a provider error 3 times within one attempt; 3 failures spend the first attempt.
      const flaky = await accepted({ message: `flaky 3 ${Date.now()}` });
      await until("flaky COMPLETED", async () => (await status(flaky.run_id)) === "COMPLETED");
      expect(await job(flaky.run_id)).toMatchObject({ status: "completed", attempt: 2, lease_losses: 0 });
      const events = (await run(flaky.run_id))!.run_data.events as Json[];
      expect(events.some((e) => e.event === "RunError")).toBe(false);
      expect(events.at(-1)!.event).toBe("RunCompleted");
      // event_index keeps counting across attempts.
      expect(events.map((e) => e.event_index)).toEqual(events.map((_, i) => i));

      const twice = await accepted({ message: `flaky 6 ${Date.now()}` });
      await until("twice ERROR", async () => (await status(twice.run_id)) === "ERROR");
      expect(await job(twice.run_id)).toMatchObject({ status: "failed", attempt: 2 });

      const denied = await accepted({ message: "denied please" });
      await until("denied ERROR", async () => (await status(denied.run_id)) === "ERROR");
      expect(await job(denied.run_id)).toMatchObject({ status: "failed", attempt: 1 });
      expect((await run(denied.run_id))!.run_data.error).toMatchObject({ error_type: "model_provider_error" });
    });

    it("Idempotency-Key: 100 concurrent submits make one job; another agent or stream mode is 409; a key over 512 characters is 422", async () => {
      const key = `key-${Date.now()}`;
      const before = (await listJobs(db, { scope: adminScope() })).totalCount;
      const answers = await Promise.all(Array.from({ length: 100 }, () => submit({ message: "once only" }, { headers: { "idempotency-key": key } })));
      expect(answers.map((a) => a.status)).toEqual(Array(100).fill(202));
      const bodies = (await Promise.all(answers.map((a) => a.json()))) as { run_id: string; session_id: string }[];
      expect(new Set(bodies.map((b) => b.run_id)).size).toBe(1);
      expect(new Set(bodies.map((b) => b.session_id)).size).toBe(1);
      expect((await listJobs(db, { scope: adminScope() })).totalCount).toBe(before + 1);
      await until("once COMPLETED", async () => (await status(bodies[0].run_id)) === "COMPLETED");
      // A retry after completion answers with the original run and its status.
      const again = await submit({ message: "once only" }, { headers: { "idempotency-key": key } });
      expect(again.status).toBe(202);
      expect(await again.json()).toEqual({ run_id: bodies[0].run_id, session_id: bodies[0].session_id, status: "COMPLETED" });
      expect(server.requests.filter((r) => lastUserText(r.body) === "once only")).toHaveLength(1);

      const otherAgent = await submit({ message: "once only" }, { headers: { "idempotency-key": key }, agent: "other" });
      expect(otherAgent.status).toBe(409);
      expect(((await otherAgent.json()) as Json).detail).toMatch(/already used for agent bg/);
      const streaming = await submit({ message: "once only", stream: "true" }, { headers: { "idempotency-key": key } });
      expect(streaming.status).toBe(409);
      expect(((await streaming.json()) as Json).detail).toMatch(/non-streaming/);
      const tooLong = await submit({ message: "x" }, { headers: { "idempotency-key": "k".repeat(513) } });
      expect(tooLong.status).toBe(422);
      expect(((await tooLong.json()) as Json).detail).toMatch(/Idempotency-Key/);
      expect((await submit({ message: "x" }, { headers: { "idempotency-key": "k".repeat(512) } })).status).toBe(202);
    });

    it("a cancel recorded for a failed run is re-applied when it is requeued, unless the requeue clears it", async () => {
      const failOnce = async (message: string) => {
        const run = await accepted({ message });
        await until("ERROR", async () => (await status(run.run_id)) === "ERROR");
        // Cancel the failed run (the intent is kept with its job), as seen from another replica:
        // the database has the intent, this process's registry does not.
        expect((await app.call("POST", `/agents/bg/runs/${run.run_id}/cancel?session_id=${run.session_id}`)).status).toBe(200);
        expect((await job(run.run_id))?.cancel_requested_at).not.toBeNull();
        clearCancel(run.run_id);
        allowed.add(message);
        return run;
      };
      const kept = await failOnce(`denied keep ${Date.now()}`);
      const callsBefore = server.requests.filter((r) => lastUserText(r.body).startsWith("denied keep")).length;
      const requeued = await app.call("POST", `/queue/jobs/${kept.run_id}/requeue?force=true`);
      expect(requeued.status).toBe(200);
      await until("CANCELLED after the requeue", async () => (await status(kept.run_id)) === "CANCELLED");
      expect((await job(kept.run_id))?.status).toBe("cancelled");
      // Cancelled as it started: the model was not asked again.
      expect(server.requests.filter((r) => lastUserText(r.body).startsWith("denied keep")).length).toBe(callsBefore);

      const cleared = await failOnce(`denied clear ${Date.now()}`);
      expect((await app.call("POST", `/queue/jobs/${cleared.run_id}/requeue?force=true&clear_cancellation=true`)).status).toBe(200);
      await until("COMPLETED after the requeue", async () => (await status(cleared.run_id)) === "COMPLETED");
      expect(await job(cleared.run_id)).toMatchObject({ status: "completed", cancel_requested_at: null });
    });

    it("user B cannot poll, cancel, resume or reuse the Idempotency-Key of user A's durable run", async () => {
      const tag = Date.now().toString(36);
      const a = user(`dur-a-${tag}`);
      const b = user(`dur-b-${tag}`);
      const key = `shared-${tag}`;
      const mine = await accepted({ message: "hold private" }, { as: a, headers: { "idempotency-key": key } });
      await until("A's run RUNNING", async () => (await status(mine.run_id)) === "RUNNING");
      const poll = await app.call("GET", `/agents/bg/runs/${mine.run_id}?session_id=${mine.session_id}`, { principal: b });
      expect(poll.status).toBe(404);
      const cancel = await app.call("POST", `/agents/bg/runs/${mine.run_id}/cancel?session_id=${mine.session_id}`, { principal: b });
      expect(cancel.status).toBe(404);
      const resumed = await readSse(await app.call("POST", `/agents/bg/runs/${mine.run_id}/resume`, { form: { session_id: mine.session_id }, principal: b }));
      expect(resumed).toEqual([{ event: "error", error: `Run ${mine.run_id} not found in buffer or database` }]);
      // The same key is B's own: a separate job.
      const theirs = await accepted({ message: "hold b's own" }, { as: b, headers: { "idempotency-key": key } });
      expect(theirs.run_id).not.toBe(mine.run_id);
      // B cannot write into A's session either.
      expect((await submit({ message: "intrude", session_id: mine.session_id }, { as: b })).status).toBe(404);
      await new Promise((r) => setTimeout(r, 200));
      expect(await status(mine.run_id)).toBe("RUNNING"); // B's cancel did nothing
      expect((await job(mine.run_id))?.cancel_requested_at).toBeNull();
      openGate();
      await until("both COMPLETED", async () => (await status(mine.run_id)) === "COMPLETED" && (await status(theirs.run_id)) === "COMPLETED");
      expect((await run(mine.run_id))!.user_id).toBe(a.userId);
      expect((await run(theirs.run_id))!.user_id).toBe(b.userId);
    });
  });
});

describe.each(DIALECTS)("durable queue limits on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    beforeAll(async () => {
      server = await startModelServer({
        respond: (body) => (lastUserText(body).startsWith("hang") ? { text: "never", hold: () => new Promise(() => undefined) } : { text: "ok" }),
      });
    });
    afterAll(() => server?.close());
    const agents = () => [{ id: "bg", name: "Background", model: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } }];

    it("answers 429 'Job queue is full' at maxQueueDepth, writing nothing for the refused submit", async () => {
      const app = await startTestApp({ dialect, agents: agents(), env: { ...FAST, AGENTRY_EMBEDDED_WORKER: "false" }, queue: { maxQueueDepth: 3 } });
      try {
        for (let i = 0; i < 3; i++) {
          expect((await app.call("POST", "/agents/bg/runs", { form: { message: `q${i}`, background: "true", stream: "false" } })).status).toBe(202);
        }
        const full = await app.call("POST", "/agents/bg/runs", { form: { message: "one too many", background: "true", stream: "false" } });
        expect(full.status).toBe(429);
        expect(await full.json()).toEqual({ detail: "Job queue is full" });
        expect(full.headers.get("retry-after")).toBe("5");
        const db = await app.db();
        expect((await listJobs(db, { scope: adminScope() })).totalCount).toBe(3);
        const runs = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_runs`);
        expect(Number(runs[0].n)).toBe(3);
      } finally {
        await app.close();
      }
    });

    it("timeoutSeconds aborts the model call in flight: the run ends in ERROR run_timeout_error", async () => {
      const app = await startTestApp({ dialect, agents: agents(), env: FAST, queue: { timeoutSeconds: 1 } });
      try {
        const response = await app.call("POST", "/agents/bg/runs", { form: { message: "hang forever", background: "true", stream: "false" } });
        const { run_id: runId } = (await response.json()) as { run_id: string };
        const db = await app.db();
        await until("ERROR", async () => (await getRun(db, { scope: adminScope(), runId }))?.status === "ERROR", 10_000);
        const stored = (await getRun(db, { scope: adminScope(), runId }))!;
        expect(stored.run_data.error).toMatchObject({ error_type: "run_timeout_error", message: "Run timed out after 1 s" });
        expect((stored.run_data.events as Json[]).at(-1)!.event).toBe("RunError");
        expect(await getJob(db, { scope: adminScope(), id: runId })).toMatchObject({ status: "failed", error: "Run timed out after 1 s" });
      } finally {
        await app.close();
      }
    });
  });
});
