import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal.ts";
import { defineKnowledge, defineTeam, type AgentDefinition } from "@/lib/config/define.ts";
import { defineWorkflow, step } from "@/lib/config/workflow.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { getJob, getRun, type Db } from "@/lib/db/index.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { JobSchema } from "@/lib/http/schemas/queue.ts";
import { ScheduleRunSchema, ScheduleSchema } from "@/lib/http/schemas/schedules.ts";
import { createQueueWorker } from "@/lib/queue/embedded-worker.ts";
import { createScheduleFor } from "@/lib/scheduler/manage.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { templateFor } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

/**
 * Agno AgentOS v3 wire details its clients rely on: /config and /info as Agno's Python client
 * parses them (its config and response models), schedule provenance, the queue's requeue answers and
 * the workflow continue's errors (reference §12A).
 */

type Json = Record<string, unknown>;

// ── Agno's response models, field for field: required fields required, Optional[...] nullish ──

const optionalString = z.string().nullish();
/** Agno's `Model` in /config. */
const AgnoModel = z.object({ id: optionalString, provider: optionalString });
/** Agno's `DatabaseConfig` (session, memory, metrics, evals, traces domains). */
const AgnoDatabaseConfig = z.object({ db_id: z.string(), domain_config: z.object({ display_name: optionalString }).nullish(), tables: z.array(z.string()).nullish() });
const AgnoDomainConfig = z.object({ display_name: optionalString, dbs: z.array(AgnoDatabaseConfig).nullish() });
/** Agno's `KnowledgeConfig` with `KnowledgeDatabaseConfig` and `KnowledgeInstanceConfig`. */
const AgnoKnowledgeConfig = z.object({
  display_name: optionalString,
  dbs: z.array(z.object({ db_id: z.string(), domain_config: z.object({ display_name: optionalString }).nullish(), tables: z.array(z.string()).optional() })).nullish(),
  knowledge_instances: z.array(z.object({ id: z.string(), name: z.string(), description: optionalString, db_id: z.string(), table: z.string() })).nullish(),
});
/** Agno's `ConfigResponse` and its summaries. */
const AgnoConfigResponse = z.object({
  os_id: z.string(),
  name: optionalString,
  description: optionalString,
  available_models: z.array(AgnoModel).optional(),
  os_database: optionalString,
  databases: z.array(z.string()),
  chat: z.object({ quick_prompts: z.record(z.string(), z.array(z.string())) }).nullish(),
  session: AgnoDomainConfig.nullish(),
  metrics: AgnoDomainConfig.nullish(),
  memory: AgnoDomainConfig.nullish(),
  evals: AgnoDomainConfig.nullish(),
  traces: AgnoDomainConfig.nullish(),
  knowledge: AgnoKnowledgeConfig.nullish(),
  agents: z.array(
    z.object({ id: optionalString, name: optionalString, description: optionalString, db_id: optionalString, model: AgnoModel.nullish(), metadata: z.record(z.string(), z.unknown()).nullish() }),
  ),
  teams: z.array(z.object({ id: optionalString, name: optionalString, description: optionalString, db_id: optionalString, mode: optionalString, model: AgnoModel.nullish() })),
  workflows: z.array(
    z.object({
      id: optionalString,
      name: optionalString,
      description: optionalString,
      db_id: optionalString,
      is_factory: z.boolean().optional(),
      factory_input_schema: z.record(z.string(), z.unknown()).nullish(),
      is_component: z.boolean().optional(),
      current_version: z.number().int().nullish(),
      stage: optionalString,
    }),
  ),
  interfaces: z.array(z.object({ type: z.string(), version: z.string(), route: z.string() })),
});
/** Agno's `InfoResponse`. */
const AgnoInfoResponse = z.object({ os_id: z.string(), name: optionalString, os_version: z.string(), agno_version: z.string() });

const BASE = "http://127.0.0.1:7777";
async function get(path: string, settings: Settings): Promise<{ status: number; body: Json }> {
  const template = templateFor(path);
  const response = await dispatch(new Request(`${BASE}${path}`), template, { settings, routes: ROUTES.filter((r) => r.path === template) });
  return { status: response.status, body: (await response.json()) as Json };
}

const GPT = { provider: "openai" as const, id: "gpt-4.1-mini" };
const CLAUDE = { provider: "anthropic" as const, id: "claude-sonnet-4" };
const writer: AgentDefinition = { id: "writer", name: "Writer", model: GPT };
const editor: AgentDefinition = { id: "editor", name: "Editor", model: GPT };
const reviewer: AgentDefinition = { id: "reviewer", name: "Reviewer", model: null };
const fullOs = testSettings({
  file: {
    agents: [writer, editor, reviewer],
    teams: [defineTeam({ id: "desk", name: "Desk", model: CLAUDE, members: [writer] }), defineTeam({ id: "pair", name: "Pair", model: GPT, members: [editor] })],
    workflows: [
      defineWorkflow({ id: "pipeline", name: "Pipeline", description: "Two steps.", steps: [step({ name: "shout", executor: () => "HI" }), step({ name: "done", executor: () => "done" })] }),
    ],
    knowledge: { bases: [defineKnowledge({ id: "handbook", name: "Handbook", description: "How we work." })] },
    quickPrompts: { writer: ["Write a haiku"] },
  },
});

describe("GET /config as Agno's client reads it", () => {
  it("has every field Agno's ConfigResponse (and its nested models) requires, knowledge instances with their contents table", async () => {
    const { status, body } = await get("/config", fullOs);
    expect(status).toBe(200);
    const parsed = AgnoConfigResponse.safeParse(body);
    expect(parsed.success, parsed.success ? "" : z.prettifyError(parsed.error)).toBe(true);
    const knowledge = body.knowledge as { knowledge_instances: Json[] };
    expect(knowledge.knowledge_instances.length).toBeGreaterThan(0);
    for (const instance of knowledge.knowledge_instances) expect(instance).toMatchObject({ db_id: fullOs.database.id, table: "agno_knowledge" });
    expect(knowledge.knowledge_instances.map((k) => k.id)).toContain("handbook");
    // A bare OS (no agents, teams or workflows) parses too.
    expect(AgnoConfigResponse.safeParse((await get("/config", testSettings())).body).success).toBe(true);
  });

  it("lists the traces database as Agno's _get_traces_config does: the OS's database, named after itself, no tables", async () => {
    const { body } = await get("/config", fullOs);
    expect(body.traces).toEqual({ dbs: [{ db_id: fullOs.database.id, domain_config: { display_name: fullOs.database.id } }] });
  });

  it("lists every configured workflow, as /workflows does", async () => {
    const config = await get("/config", fullOs);
    const workflows = await get("/workflows", fullOs);
    expect(workflows.status).toBe(200);
    expect(config.body.workflows).toEqual(workflows.body);
    expect(config.body.workflows).toEqual([{ id: "pipeline", name: "Pipeline", description: "Two steps.", db_id: fullOs.database.id, is_component: false }]);
  });

  it("available_models holds exactly {id, provider} of each unique model of the agents and the teams", async () => {
    const { body } = await get("/config", fullOs);
    expect(body.available_models).toEqual([
      { id: "gpt-4.1-mini", provider: "openai" },
      { id: "claude-sonnet-4", provider: "anthropic" },
    ]);
  });
});

describe("GET /info", () => {
  it("carries os_version: agentry.config.ts's version, else Agno's default 1.0.0", async () => {
    const settings = testSettings({ file: { version: "2.4.1" } });
    const versioned = await get("/info", settings);
    expect(AgnoInfoResponse.parse(versioned.body)).toMatchObject({ os_version: "2.4.1", agno_version: "3.0.0" });
    expect((await get("/info", testSettings())).body.os_version).toBe("1.0.0");
    // The API description declares the same version, as Agno's FastAPI app does.
    expect((await get("/openapi.json", settings)).body.info).toMatchObject({ version: "2.4.1" });
  });
});

const admin: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "none", isAdmin: true };

describe.each(DIALECTS)("wire v3 on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    /** Inline runs (schedules fire and wait, workflows continue). */
    let app: TestApp;
    /** The durable queue with no embedded worker: a test starts one when it wants jobs run. */
    let queued: TestApp;
    let db: Db;
    let seq = 0;
    const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

    beforeAll(async () => {
      server = await startModelServer({ respond: () => ({ text: "model answer" }) });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      app = await startTestApp({
        dialect,
        agents: [{ id: "wire", name: "Wire", model }],
        workflows: [
          defineWorkflow({
            id: "confirmed",
            name: "Confirmed",
            steps: [
              step({ name: "act", executor: () => "acted", humanReview: { requiresConfirmation: true } }),
              step({
                name: "explode",
                executor: () => {
                  throw new Error("secret internal detail at /srv/app.py:42");
                },
              }),
            ],
          }),
          defineWorkflow({ id: "plain", name: "Plain", steps: [step({ name: "act", executor: () => "acted", humanReview: { requiresConfirmation: true } })] }),
        ],
      });
      db = await app.db();
      queued = await startTestApp({ dialect, agents: [{ id: "wire", name: "Wire", model }], env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_EMBEDDED_WORKER: "false" } });
    });
    afterAll(async () => {
      await app?.close();
      await queued?.close();
      await server?.close();
    });

    const call = async (method: string, path: string, init: { json?: unknown; form?: Record<string, string> } = {}, target = app) => {
      const response = await target.call(method, path, { ...init, principal: admin });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
    };

    it("schedule responses carry target_type and target_id (null for the API's, the component for a managed one); schedule runs add only user_id", async () => {
      const definition = { name: uid("wire"), cron_expr: "0 3 * * *", endpoint: "/agents/wire/runs", payload: { message: "hi" } };
      const created = await call("POST", "/schedules", { json: definition });
      expect(created.status).toBe(201);
      expect(ScheduleSchema.parse(created.body)).toMatchObject({ managed_by: null, target_type: null, target_id: null });
      expect((await call("GET", `/schedules/${created.body.id}`)).body).toMatchObject({ target_type: null, target_id: null });

      const managed = await createScheduleFor(db, {
        scope: adminScope(),
        owner: "wire-user",
        definition: { ...definition, name: uid("managed"), method: "POST", timezone: "UTC", timeout_seconds: 60, max_retries: 0, retry_delay_seconds: 60 },
        provenance: { managed_by: "agent", target_type: "agent", target_id: "wire" },
      });
      const shown = await call("GET", `/schedules/${managed.id}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ managed_by: "agent", target_type: "agent", target_id: "wire", user_id: "wire-user" });
      const listed = (await call("GET", "/schedules?limit=100")).body.data as Json[];
      expect(listed.find((s) => s.id === managed.id)).toMatchObject({ target_type: "agent", target_id: "wire" });

      const fired = await call("POST", `/schedules/${created.body.id}/trigger`);
      expect(fired.status).toBe(200);
      const run = ScheduleRunSchema.parse(fired.body);
      expect(run).toMatchObject({ schedule_id: created.body.id, user_id: null, status: "success" });
      expect(Object.keys(fired.body)).not.toEqual(expect.arrayContaining(["target_type"]));
      expect(Object.keys(fired.body)).not.toEqual(expect.arrayContaining(["target_id"]));
    });

    /** A durable background run of the agent, cancelled while queued (no worker runs yet): its job ends cancelled. */
    async function cancelledJob(jobs: Db, message: string) {
      const submitted = await call("POST", "/agents/wire/runs", { form: { message, background: "true", stream: "false" } }, queued);
      expect(submitted.status).toBe(202);
      const { run_id: runId, session_id: sessionId } = submitted.body as { run_id: string; session_id: string };
      expect((await call("POST", `/agents/wire/runs/${runId}/cancel?session_id=${sessionId}`, {}, queued)).status).toBe(200);
      expect(await getJob(jobs, { scope: adminScope(), id: runId })).toMatchObject({ status: "cancelled", cancel_requested_at: expect.any(Number) });
      return runId;
    }

    it("queue requeue: a cancelled job sent without clear_cancellation is requeued and cancelled again at its first checkpoint; with it, it runs", async () => {
      const db = await queued.db();
      const kept = await cancelledJob(db, `kept ${uid("m")}`);
      const cleared = await cancelledJob(db, `cleared ${uid("m")}`);
      const requeued = await call("POST", `/queue/jobs/${kept}/requeue`, {}, queued);
      expect(requeued.status).toBe(200);
      expect(JobSchema.parse(requeued.body)).toMatchObject({ status: "queued", cancel_requested_at: expect.any(Number) });
      expect((await getRun(db, { scope: adminScope(), runId: kept }))?.status).toBe("PENDING");
      expect((await call("POST", `/queue/jobs/${cleared}/requeue?clear_cancellation=true`, {}, queued)).body).toMatchObject({ status: "queued", cancel_requested_at: null });

      const worker = createQueueWorker(queued.settings, db);
      worker.start();
      try {
        const ended = async (runId: string) => (await getJob(db, { scope: adminScope(), id: runId }))?.status ?? "";
        await until("both requeued jobs ended", async () => !["queued", "running"].includes(await ended(kept)) && !["queued", "running"].includes(await ended(cleared)), 20_000);
      } finally {
        await worker.stop({ timeoutSeconds: 0 });
      }
      expect(await getJob(db, { scope: adminScope(), id: kept })).toMatchObject({ status: "cancelled" });
      expect((await getRun(db, { scope: adminScope(), runId: kept }))?.status).toBe("CANCELLED");
      expect(await getJob(db, { scope: adminScope(), id: cleared })).toMatchObject({ status: "completed" });
      expect((await getRun(db, { scope: adminScope(), runId: cleared }))?.status).toBe("COMPLETED");

      // Not requeueable (it ended) or unknown: Agno's 400, the same words.
      expect(await call("POST", `/queue/jobs/${cleared}/requeue`, {}, queued)).toEqual({ status: 400, body: { detail: `Job ${cleared} not found or not in a requeueable state` } });
      expect(await call("POST", "/queue/jobs/no-such-job/requeue", {}, queued)).toEqual({ status: 400, body: { detail: "Job no-such-job not found or not in a requeueable state" } });
    });

    it("GET /queue/jobs?status=x answers Agno's 400 naming the value and the statuses as Python prints them", async () => {
      const choices = "('queued', 'running', 'completed', 'failed', 'cancelled', 'paused')";
      const list = async (status: string) => call("GET", `/queue/jobs?status=${encodeURIComponent(status)}`, {}, queued);
      expect(await list("done")).toEqual({ status: 400, body: { detail: `Invalid status 'done'; expected one of ${choices}` } });
      // Python's repr: double quotes around a value holding a single quote, escapes for what it does not print.
      expect((await list("it's")).body).toEqual({ detail: `Invalid status "it's"; expected one of ${choices}` });
      expect((await list("a\tb")).body).toEqual({ detail: `Invalid status 'a\\tb'; expected one of ${choices}` });
    });

    const pausedRun = async (workflowId: string) => {
      const paused = (await call("POST", `/workflows/${workflowId}/runs`, { form: { message: "go", stream: "false" } })).body;
      expect(paused.status).toBe("PAUSED");
      return paused;
    };
    const confirm = (workflowId: string, paused: Json, runId = String(paused.run_id)) =>
      call("POST", `/workflows/${workflowId}/runs/${runId}/continue`, {
        form: { step_requirements: JSON.stringify([{ ...(paused.step_requirements as Json[]).at(-1), confirmed: true }]), session_id: String(paused.session_id), stream: "false" },
      });

    it("workflow continue: 404 for a run it does not have, 409 for one not paused", async () => {
      const paused = await pausedRun("plain");
      expect(await confirm("plain", paused, "no-such-run")).toEqual({ status: 404, body: { detail: "Run not found" } });
      // Another workflow's run is not this one's.
      expect(await confirm("confirmed", paused)).toEqual({ status: 404, body: { detail: "Run not found" } });
      expect((await confirm("plain", paused)).body).toMatchObject({ status: "COMPLETED" });
      expect(await confirm("plain", paused)).toEqual({ status: 409, body: { detail: "run is already completed" } });
    });

    it("workflow continue: a 500 answers 'Internal server error' without the failure's text", async () => {
      const paused = await pausedRun("confirmed");
      const failed = await confirm("confirmed", paused);
      expect(failed.status).toBe(500);
      expect(failed.body.detail).toBe("Internal server error");
      expect(JSON.stringify(failed.body)).not.toMatch(/secret internal detail|app\.py/);
      // The failure stays on the stored run, for whoever may read it.
      expect((await getRun(db, { scope: adminScope(), runId: String(paused.run_id) }))?.status).toBe("ERROR");
    });
  });
});
