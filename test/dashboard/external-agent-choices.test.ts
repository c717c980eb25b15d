import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import { defineExternalAgent, type ExternalAgentAdapter } from "@/lib/config/external-agent.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { listRunSummaries } from "@/lib/db/runs/run-list.ts";
import { listSessionSummaries } from "@/lib/db/sessions/session-list.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { startEvalAction } from "@/lib/http/dashboard/eval-actions.ts";
import { agentChoices } from "@/lib/http/dashboard/list-choices.ts";
import { cancelRunAction } from "@/lib/http/dashboard/run-actions.ts";
import { createScheduleAction } from "@/lib/http/dashboard/schedule-actions.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { DIALECTS } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/** An adapter answering "Tides: <message>" whole or as one chunk (no framework or model behind it). */
const tideAdapter: ExternalAgentAdapter = {
  framework: "langgraph",
  invoke: async (run) => `Tides: ${run.input}`,
  async *stream(run) {
    yield { type: "content", content: `Tides: ${run.input}` };
  },
};

const AGENTS = [{ id: "native", name: "Native", model: null }, defineExternalAgent({ id: "tide-graph", name: "Tide Graph", adapter: tideAdapter })];
const TEAMS = [{ id: "desk", name: "Desk", model: null, members: [AGENTS[0]!] }];

describe.each(DIALECTS)("external agents in the dashboard's choices and actions on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    let db: Db;
    let a: Principal;
    let b: Principal;

    const call = (action: DashboardAction, principal: Principal, fields: Record<string, string>) =>
      action.run({ principal, formData: formOf(fields), db, settings: app.settings, origin: ACTION_ORIGIN });

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: AGENTS, teams: TEAMS as never });
      db = await app.db();
      a = principalForUser(await createUser(db), app.settings);
      b = principalForUser(await createUser(db), app.settings);
    });
    afterAll(async () => {
      await app?.close();
    });

    it("the Runs and Sessions filters offer external agents after the agents defined in code; the evals filter does not", () => {
      expect(agentChoices(app.settings, { teams: true, external: true })).toEqual([
        { value: "native", label: "Native" },
        { value: "tide-graph", label: "Tide Graph" },
        { value: "desk", label: "Desk" },
      ]);
      expect(agentChoices(app.settings)).toEqual([{ value: "native", label: "Native" }]);
    });

    it("filtering runs and sessions by an external agent's choice finds its runs, in the caller's scope only", async () => {
      const response = await app.call("POST", "/agents/tide-graph/runs", { form: { message: "high water?", stream: "false" }, principal: a });
      expect(response.status).toBe(200);
      const run = (await response.json()) as { run_id: string; session_id: string; content: string };
      expect(run.content).toBe("Tides: high water?");
      const [choice] = agentChoices(app.settings, { external: true }).filter((c) => c.label === "Tide Graph");

      const runs = await listRunSummaries(db, { scope: dataScopeFor(a), agentId: choice!.value, limit: 10 });
      expect(runs.rows.map((r) => [r.run_id, r.agent_id, r.status])).toEqual([[run.run_id, "tide-graph", "COMPLETED"]]);
      const sessions = await listSessionSummaries(db, { scope: dataScopeFor(a), componentId: choice!.value, limit: 10 });
      expect(sessions.rows.map((s) => s.session_id)).toEqual([run.session_id]);

      // Another user's filter by the same agent finds none of a's.
      expect((await listRunSummaries(db, { scope: dataScopeFor(b), agentId: choice!.value, limit: 10 })).rows).toEqual([]);
      expect((await listSessionSummaries(db, { scope: dataScopeFor(b), componentId: choice!.value, limit: 10 })).rows).toEqual([]);
    });

    it("a schedule or an eval naming an external agent is refused with a message saying so; cancelling its run answers as the API's 501", async () => {
      const schedule = await call(createScheduleAction, a, { name: "tides", target: "agent", agent_id: "tide-graph", message: "high water?", cron_expr: "0 9 * * *" });
      expect(schedule).toEqual({ ok: false, status: 422, error: "agent_id: 'tide-graph' is an external agent (langgraph); schedules run agents defined with defineAgent" });
      const evaluation = await call(startEvalAction, a, { agent_id: "tide-graph", eval_type: "accuracy", input: "high water?", expected_output: "noon" });
      expect(evaluation).toEqual({ ok: false, status: 422, error: "agent_id: 'tide-graph' is an external agent (langgraph); evals run agents defined with defineAgent" });
      const cancel = await call(cancelRunAction, a, { kind: "agent", agentId: "tide-graph", runId: "r", sessionId: "s" });
      expect(cancel).toMatchObject({ ok: false, status: 501, error: expect.stringMatching(/^This agent does not support cancel_run/) });
      // An id that is no agent at all keeps its own message.
      expect(await call(createScheduleAction, a, { name: "nothing", target: "agent", agent_id: "no-such", message: "hi", cron_expr: "0 9 * * *" })).toEqual({
        ok: false,
        status: 422,
        error: "agent_id: there is no agent 'no-such' on this server",
      });
    });
  });
});
