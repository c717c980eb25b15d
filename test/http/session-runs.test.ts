import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nullsOmittedSchema } from "@/lib/http/omit-nulls.ts";
import { RunSchema, SessionRunsSchema, TeamRunSchema, WorkflowRunSchema } from "@/lib/http/schemas/sessions.ts";
import { agnoRun, seedSession } from "../support/agno-runs.ts";
import { openApiSuite } from "../support/api.ts";
import { adminScope } from "../support/scopes.ts";

let suite: Awaited<ReturnType<typeof openApiSuite>>;
beforeAll(async () => {
  suite = await openApiSuite("session-runs");
});
afterAll(() => suite.close());

const T0 = 1_750_000_000;
/** GET /sessions/{id}/runs leaves null fields out (excludeNone); GET …/runs/{run_id} keeps them. */
const Wire = {
  runs: nullsOmittedSchema(SessionRunsSchema),
  run: nullsOmittedSchema(RunSchema),
  teamRun: nullsOmittedSchema(TeamRunSchema),
  workflowRun: nullsOmittedSchema(WorkflowRunSchema),
};

describe("GET /sessions/{id}/runs", () => {
  it("returns a plain array of RunSchema mapped from the stored run dicts", async () => {
    const s = await seedSession(suite.db, {
      scope: adminScope(),
      session: {},
      runs: [
        agnoRun({ runId: "r-text", sessionId: "", agentId: "assistant", input: "Hi", content: "Hello!", createdAt: T0 }),
        agnoRun({ runId: "r-json", sessionId: "", agentId: "assistant", input: { q: 1 }, content: { answer: 42 }, contentType: "Answer", messages: null, createdAt: T0 + 60 }),
      ],
    });
    const { status, body } = await suite.api("GET", `/sessions/${s.session_id}/runs`);
    expect(status).toBe(200);
    const runs = Wire.runs.parse(body).map((r) => Wire.run.parse(r));
    expect(runs.map((r) => [r.run_id, r.run_input, r.content, r.run_response_format])).toEqual([
      ["r-text", "Hi", "Hello!", "text"],
      ["r-json", JSON.stringify({ q: 1 }, null, 2), { answer: 42 }, "json"],
    ]);
    expect(runs[0]).toMatchObject({
      agent_id: "assistant",
      status: "COMPLETED",
      created_at: "2025-06-15T15:06:40.000Z",
      metrics: { total_tokens: 12 },
      input_media: { images: [], videos: [], audio: [], files: [] },
    });
    expect(runs[0].messages?.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(body[1]).not.toHaveProperty("messages");
  });

  it("filters by created_after / created_before (inclusive epoch seconds) and rejects non-integers", async () => {
    const s = await seedSession(suite.db, {
      scope: adminScope(),
      session: {},
      runs: [0, 100, 200].map((dt) => agnoRun({ runId: `t${dt}-${T0}`, sessionId: "", agentId: "assistant", createdAt: T0 + dt })),
    });
    const ids = async (query: string) => ((await suite.api("GET", `/sessions/${s.session_id}/runs?${query}`)).body as { run_id: string }[]).map((r) => r.run_id.split("-")[0]);
    expect(await ids(`created_after=${T0 + 100}`)).toEqual(["t100", "t200"]);
    expect(await ids(`created_before=${T0 + 100}`)).toEqual(["t0", "t100"]);
    expect(await ids(`created_after=${T0 + 50}&created_before=${T0 + 150}`)).toEqual(["t100"]);
    for (const query of ["created_after=yesterday", "created_before=1.5"]) {
      const response = await suite.api("GET", `/sessions/${s.session_id}/runs?${query}`);
      expect(response.status, query).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["query", query.split("=")[0]]);
    }
  });

  it("classifies team and workflow runs and drops a team session's unclassifiable runs", async () => {
    const team = await seedSession(suite.db, {
      scope: adminScope(),
      session: { sessionType: "team", agentId: null, teamId: "squad" },
      runs: [
        agnoRun({ runId: "team-run", sessionId: "", teamId: "squad", input: "Plan a trip" }),
        agnoRun({ runId: "member-run", sessionId: "", agentId: "researcher", teamId: "squad", parentRunId: "team-run" }),
        agnoRun({ runId: "orphan-run", sessionId: "" }),
      ],
    });
    const teamRuns = (await suite.api("GET", `/sessions/${team.session_id}/runs`)).body as Record<string, unknown>[];
    expect(teamRuns.map((r) => r.run_id)).toEqual(["team-run", "member-run"]);
    expect(Wire.teamRun.parse(teamRuns[0])).toMatchObject({ team_id: "squad", run_input: "Plan a trip" });
    expect(Wire.run.parse(teamRuns[1])).toMatchObject({ agent_id: "researcher", parent_run_id: "team-run" });

    const wf = await seedSession(suite.db, {
      scope: adminScope(),
      session: { sessionType: "workflow", agentId: null, workflowId: "wf" },
      runs: [{ run_id: "wf-run", workflow_id: "wf", input: { topic: "AI" }, content: "report", content_type: "str", step_results: [{ step_name: "research" }], status: "COMPLETED", created_at: T0 }],
    });
    const [wfRun] = (await suite.api("GET", `/sessions/${wf.session_id}/runs?type=workflow`)).body as unknown[];
    expect(Wire.workflowRun.parse(wfRun)).toMatchObject({
      run_id: "wf-run",
      workflow_id: "wf",
      run_input: JSON.stringify({ topic: "AI" }),
      content_type: "str",
      step_results: [{ step_name: "research" }],
    });
    const session = (await suite.api("GET", `/sessions/${wf.session_id}`)).body as { session_name: string };
    expect(session.session_name).toBe(JSON.stringify({ topic: "AI" }));
  });

  it("answers 404 for a missing session or a session of another type", async () => {
    expect(await suite.api("GET", "/sessions/nope/runs")).toEqual({ status: 404, body: { detail: "Session with ID nope not found" } });
    const s = await seedSession(suite.db, { scope: adminScope(), session: {} });
    expect((await suite.api("GET", `/sessions/${s.session_id}/runs?type=team`)).status).toBe(404);
    expect((await suite.api("GET", `/sessions/${s.session_id}/runs?type=agent`)).body).toEqual([]);
  });
});

describe("GET /sessions/{id}/runs/{run_id}", () => {
  it("returns one run, and 404 naming the session or the run when either is missing", async () => {
    const s = await seedSession(suite.db, { scope: adminScope(), session: {}, runs: [agnoRun({ runId: `one-${T0}`, sessionId: "", agentId: "assistant" })] });
    const found = await suite.api("GET", `/sessions/${s.session_id}/runs/one-${T0}`);
    expect(found.status).toBe(200);
    expect(RunSchema.parse(found.body).run_id).toBe(`one-${T0}`);
    const missingRun = await suite.api("GET", `/sessions/${s.session_id}/runs/other`);
    expect(missingRun).toEqual({ status: 404, body: { detail: `Run with ID other not found in session ${s.session_id}` } });
    expect(await suite.api("GET", "/sessions/nope/runs/x")).toEqual({ status: 404, body: { detail: "Session with ID nope not found" } });
  });
});
