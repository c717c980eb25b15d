import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { EvalSchema } from "@/lib/http/schemas/evals.ts";
import { judgeAnswer } from "../../e2e/fixtures/judge-answers.ts";
import { deferred, messageText, startModelServer, type ChatCompletionRequest, type Deferred, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

/**
 * Evals in the background as jobs of the durable queue (the embedded worker of a real database),
 * cancelled wherever they run, and run by a schedule: the job is the eval's, its progress is the
 * eval row's, the queue's view of it and the row agree.
 */

const EVAL_SCOPES = ["evals:read", "evals:write", "evals:delete", "agents:run"];
/** Worker timings small enough for tests: claims within 50 ms, heartbeats every 0.5 s. */
const FAST = { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50", AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "2" };

const lastUserText = (body: ChatCompletionRequest) => messageText([...body.messages].reverse().find((m) => m.role === "user"));

describe.each(DIALECTS)("evals as durable jobs on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    let gate: Deferred;
    const who = mintPrincipals();
    const a = withScopes(who.a, EVAL_SCOPES);
    const b = withScopes(who.b, EVAL_SCOPES);
    const getEval = async (id: string, principal = a) => EvalSchema.parse(await (await app.call("GET", `/eval-runs/${id}`, { principal })).json());

    beforeAll(async () => {
      gate = deferred();
      server = await startModelServer({
        respond: (body): ScriptStep => {
          const judged = judgeAnswer(body);
          if (judged) return judged;
          const text = lastUserText(body);
          // "hold …": the answer waits for the test to open the gate.
          if (text.startsWith("hold")) return { text: "held", hold: () => gate.promise };
          return { text: text.replace(/^say /, ""), usage: { prompt_tokens: 3, completion_tokens: 1 } };
        },
      });
      const agents: AgentDefinition[] = [{ id: "echo", name: "Echo", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } }];
      app = await startTestApp({ dialect, agents, env: FAST });
    });
    afterAll(async () => {
      gate.resolve();
      await app?.close();
      await server?.close();
    });

    it("background=true stores the PENDING eval and its eval_run job together; a worker runs it for its owner and the row follows to COMPLETED", async () => {
      const started = await app.call("POST", "/eval-runs?background=true", {
        json: { agent_id: "echo", eval_type: "accuracy", input: "say yes", expected_output: "yes", num_iterations: 2, name: "bg" },
        principal: a,
      });
      expect(started.status).toBe(202);
      const pending = EvalSchema.parse(await started.json());
      expect(pending).toMatchObject({ status: "PENDING", user_id: who.userA, eval_data: {} });
      await until("the eval job completes", async () => (await getEval(pending.id)).status === "COMPLETED");
      const done = await getEval(pending.id);
      expect(done.eval_data).toMatchObject({ run_id: pending.id, avg_score: 10 });
      expect(done.run_details).toMatchObject({ background: true, progress: { done: 4, total: 4 } });
      // The row is written COMPLETED inside the job; the job itself settles just after.
      const jobOf = async () => (await (await app.call("GET", `/queue/jobs/${pending.id}`, { principal: who.admin })).json()) as Json;
      await until("the eval job settles", async () => (await jobOf()).status === "completed");
      expect(await jobOf()).toMatchObject({ id: pending.id, job_type: "eval_run", component_type: "eval_run", component_id: pending.id, user_id: who.userA, status: "completed" });
      // The job's agent runs are the owner's, like any run.
      const first = (done.run_details as { agent_runs: { run_id: string; session_id: string }[] }).agent_runs[0]!;
      const run = (await (await app.call("GET", `/agents/echo/runs/${first.run_id}?session_id=${first.session_id}`, { principal: withScopes(who.a, ["agents:read"]) })).json()) as Json;
      expect(run).toMatchObject({ user_id: who.userA, status: "COMPLETED" });
    });

    it("a cancel stops a running eval job: its agent run is aborted, the row and the job end CANCELLED; B cannot cancel A's", async () => {
      const before = server.requests.length;
      const started = EvalSchema.parse(
        await (await app.call("POST", "/eval-runs", { json: { agent_id: "echo", eval_type: "performance", input: "hold on", num_iterations: 3, background: true }, principal: a })).json(),
      );
      await server.waitForRequests(before + 1, 10_000);
      expect((await getEval(started.id)).status).toBe("RUNNING");
      expect((await app.call("POST", `/eval-runs/${started.id}/cancel`, { principal: b })).status).toBe(404);
      const cancelled = EvalSchema.parse(await (await app.call("POST", `/eval-runs/${started.id}/cancel`, { principal: a })).json());
      expect(cancelled.status).toBe("CANCELLED");
      await until("the job ends cancelled", async () => ((await (await app.call("GET", `/queue/jobs/${started.id}`, { principal: who.admin })).json()) as Json).status === "cancelled");
      const row = await getEval(started.id);
      expect(row.status).toBe("CANCELLED");
      expect(row.run_details).toMatchObject({ error: "Cancelled by request" });
      // The agent run in flight was aborted: it ends CANCELLED (not an internal error).
      const db = await app.db();
      await until("the eval's agent run ends", async () => {
        const unfinished = await db.sql.query<{ status: string }>("SELECT status FROM agno_runs WHERE user_id = ? AND status <> 'COMPLETED'", [who.userA]);
        return unfinished.length === 1 && unfinished[0]!.status === "CANCELLED";
      });
      // Only one model call was made: nothing ran after the cancel.
      expect(server.requests.length - before).toBe(1);
      // A cancel of an ended eval answers it as it is.
      expect(EvalSchema.parse(await (await app.call("POST", `/eval-runs/${started.id}/cancel`, { principal: a })).json()).status).toBe("CANCELLED");
    });

    it("a queued eval job cancelled from the queue (no worker took it) reads as CANCELLED", async () => {
      const idle = await startTestApp({
        dialect,
        agents: [{ id: "echo", name: "Echo", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } }],
        env: { ...FAST, AGENTRY_EMBEDDED_WORKER: "false" },
      });
      try {
        const queued = EvalSchema.parse(await (await idle.call("POST", "/eval-runs?background=true", { json: { agent_id: "echo", eval_type: "performance", input: "say q" }, principal: a })).json());
        expect(queued.status).toBe("PENDING");
        const cancelled = EvalSchema.parse(await (await idle.call("POST", `/eval-runs/${queued.id}/cancel`, { principal: a })).json());
        expect(cancelled.status).toBe("CANCELLED");
        expect(((await (await idle.call("GET", `/queue/jobs/${queued.id}`, { principal: who.admin })).json()) as Json).status).toBe("cancelled");
      } finally {
        await idle.close();
      }
    });

    it("a full queue refuses a background eval with 429 and stores nothing", async () => {
      const full = await startTestApp({
        dialect,
        agents: [{ id: "echo", name: "Echo", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } }],
        env: { ...FAST, AGENTRY_EMBEDDED_WORKER: "false" },
        queue: { maxQueueDepth: 1 },
      });
      try {
        const body = { agent_id: "echo", eval_type: "performance", input: "say q" };
        expect((await full.call("POST", "/eval-runs?background=true", { json: body, principal: a })).status).toBe(202);
        const refused = await full.call("POST", "/eval-runs?background=true", { json: body, principal: a });
        expect(refused.status).toBe(429);
        expect(await refused.json()).toEqual({ detail: "Job queue is full" });
        const listed = (await (await full.call("GET", "/eval-runs", { principal: a })).json()) as { meta: { total_count: number } };
        expect(listed.meta.total_count).toBe(1);
      } finally {
        await full.close();
      }
    });

    it("an admin's schedule runs an eval on a cron (POST /eval-runs as its endpoint); a member may not schedule it", async () => {
      const admin = who.admin;
      const member = withScopes(who.a, ["schedules:read", "schedules:write", ...EVAL_SCOPES]);
      const payload = { agent_id: "echo", eval_type: "accuracy", input: "say nightly", expected_output: "nightly", name: "nightly-regression" };
      const refused = await app.call("POST", "/schedules", { json: { name: "member-evals", cron_expr: "0 2 * * *", endpoint: "/eval-runs", method: "POST", payload }, principal: member });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ detail: "Only admins can schedule an endpoint that is not a run endpoint" });
      const schedule = (await (
        await app.call("POST", "/schedules", { json: { name: "nightly-evals", cron_expr: "0 2 * * *", endpoint: "/eval-runs", method: "POST", payload }, principal: admin })
      ).json()) as Json;
      expect(schedule.id).toBeTypeOf("string");
      const fired = (await (await app.call("POST", `/schedules/${schedule.id}/trigger`, { principal: admin })).json()) as Json;
      expect(fired).toMatchObject({ status: "success", status_code: 200 });
      const listed = (await (await app.call("GET", "/eval-runs?limit=100", { principal: admin })).json()) as { data: { name: string; status: string; eval_data: Json }[] };
      const nightly = listed.data.filter((r) => r.name === "nightly-regression");
      expect(nightly).toHaveLength(1);
      expect(nightly[0]).toMatchObject({ status: "COMPLETED", eval_data: { avg_score: 10 } });
    });
  });
});
