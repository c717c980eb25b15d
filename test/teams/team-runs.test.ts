import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, TeamDefinition } from "@/lib/config/define.ts";
import { defineTeam } from "@/lib/config/define.ts";
import { getRun } from "@/lib/db/index.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { deferred, messageText, startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { withScopes } from "../support/api.ts";
import { adminScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

const wipe = defineTool({
  name: "wipe_disk",
  description: "Erases a disk",
  parameters: z.object({ disk: z.string() }),
  requiresConfirmation: true,
  execute: ({ disk }) => `wiped ${disk}`,
});

/** Who is calling the scripted model: the team's leader, or a member (by its instructions). */
function caller(body: ChatCompletionRequest): string {
  const system = messageText(body.messages.find((m) => m.role === "system"));
  if (system.includes("<team_members>")) return "leader";
  const match = /I am the (\w+)\./.exec(system);
  return match ? match[1]! : "unknown";
}

const lastTool = (body: ChatCompletionRequest) => body.messages.at(-1)?.role === "tool";

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`team runs (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    /** Per-caller answers: a function of the request, so members running at once each get theirs. */
    let answer: (who: string, body: ChatCompletionRequest) => ScriptStep | Promise<ScriptStep>;

    beforeAll(async () => {
      server = await startModelServer({ respond: (body) => answer(caller(body), body) });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const researcher: AgentDefinition = { id: "researcher", name: "Researcher", description: "Finds facts.", model, instructions: "I am the researcher." };
      const writer: AgentDefinition = { id: "writer", name: "Writer", description: "Writes prose.", model: null, instructions: "I am the writer." };
      const operator: AgentDefinition = { id: "operator", name: "Operator", model, instructions: "I am the operator.", tools: [wipe] };
      const teams: TeamDefinition[] = [
        defineTeam({ id: "desk", name: "Desk", model, members: [researcher, writer], instructions: "Answer well." }),
        defineTeam([researcher, writer], { id: "router", name: "Router", mode: "route", model }),
        defineTeam({ id: "panel", name: "Panel", mode: "broadcast", model, members: [researcher, writer] }),
        defineTeam({ id: "ops", name: "Ops", model, members: [operator], storeMemberResponses: true }),
        defineTeam({ id: "planner", name: "Planner", mode: "tasks", model, members: [researcher, writer], maxIterations: 4 }),
      ];
      app = await startTestApp({ dialect, agents: [researcher], teams });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("lists the teams with their mode and members; an unknown team is a 404", async () => {
      const list = (await (await app.call("GET", "/teams")).json()) as Json[];
      expect(list.map((t) => [t.id, t.mode])).toEqual([
        ["desk", "coordinate"],
        ["router", "route"],
        ["panel", "broadcast"],
        ["ops", "coordinate"],
        ["planner", "tasks"],
      ]);
      const desk = (await (await app.call("GET", "/teams/desk")).json()) as Json;
      expect(desk).toMatchObject({
        id: "desk",
        name: "Desk",
        mode: "coordinate",
        members: [
          { id: "researcher", name: "Researcher" },
          { id: "writer", name: "Writer" },
        ],
      });
      expect((desk.tools as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain("delegate_task_to_member");
      // Agno's null-field rule: a team without a role leaves it out.
      expect(desk).not.toHaveProperty("role");
      const missing = await app.call("GET", "/teams/nope");
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ detail: "Team not found" });
      expect((await app.call("POST", "/teams/nope/runs", { form: { message: "hi" } })).status).toBe(404);
    });

    it("coordinate: the leader delegates, the member's run is its own row under the team run, and the leader answers", async () => {
      answer = (who, body) => {
        if (who === "researcher") return { text: "Oslo has 700,000 people." };
        if (who === "leader" && !lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Population of Oslo?" } }] };
        if (who === "leader") return { text: `Summary: ${messageText(body.messages.at(-1))}` };
        return { error: { status: 400, message: `unexpected caller ${who}` } };
      };
      const response = await app.call("POST", "/teams/desk/runs", { form: { message: "How big is Oslo?", stream: "false" } });
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ team_id: "desk", team_name: "Desk", status: "COMPLETED", content: "Summary: [researcher]: Oslo has 700,000 people." });
      expect(output.agent_id).toBeUndefined();
      const members = output.member_responses as Json[];
      expect(members).toHaveLength(1);
      expect(members[0]).toMatchObject({ agent_id: "researcher", parent_run_id: output.run_id, session_id: output.session_id, content: "Oslo has 700,000 people.", status: "COMPLETED" });
      // The leader was told who its members are.
      const leaderRequest = server.requests.find((r) => caller(r.body) === "leader")!;
      expect(messageText(leaderRequest.body.messages[0])).toContain('<member id="researcher" name="Researcher">');
      expect(leaderRequest.body.tools?.map((t) => t.function.name)).toEqual(["delegate_task_to_member"]);

      const db = await app.db();
      const stored = await getRun(db, { scope: adminScope(), runId: String(output.run_id) });
      expect(stored).toMatchObject({ run_type: "team", team_id: "desk", agent_id: null, parent_run_id: null, status: "COMPLETED" });
      // storeMemberResponses is off by default: the member run is its own row, not nested.
      expect(stored!.run_data.member_responses).toEqual([]);
      const memberRow = await getRun(db, { scope: adminScope(), runId: String(members[0]!.run_id) });
      expect(memberRow).toMatchObject({ run_type: "agent", agent_id: "researcher", parent_run_id: output.run_id, session_id: output.session_id, status: "COMPLETED" });

      const listed = (await (await app.call("GET", `/teams/desk/runs?session_id=${output.session_id}`)).json()) as Json[];
      expect(listed.map((r) => [r.run_id, r.team_id])).toEqual([[output.run_id, "desk"]]);
      const one = (await (await app.call("GET", `/teams/desk/runs/${output.run_id}?session_id=${output.session_id}`)).json()) as Json;
      expect(one).toMatchObject({ run_id: output.run_id, team_id: "desk", status: "COMPLETED" });
      // A member's run is not the team's.
      expect((await app.call("GET", `/teams/desk/runs/${members[0]!.run_id}?session_id=${output.session_id}`)).status).toBe(404);
      const session = (await (await app.call("GET", `/sessions/${output.session_id}?type=team`)).json()) as Json;
      expect(session).toMatchObject({ session_id: output.session_id, team_id: "desk" });
      const sessionRuns = (await (await app.call("GET", `/sessions/${output.session_id}/runs?type=team`)).json()) as Json[];
      expect(sessionRuns.map((r) => [r.team_id ?? null, r.agent_id ?? null, r.parent_run_id ?? null])).toEqual(
        expect.arrayContaining([
          ["desk", null, null],
          [null, "researcher", output.run_id],
        ]),
      );
    });

    it("streams Team* events and the member's own events, each carrying the member's identity and the team run as parent", async () => {
      answer = (who, body) => {
        if (who === "researcher") return { text: "A fact.", chunks: ["A ", "fact."] };
        if (who === "leader" && !lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "A fact?" } }] };
        return { text: "Done.", chunks: ["Do", "ne."] };
      };
      const events = await readSse(await app.call("POST", "/teams/desk/runs", { form: { message: "Tell me a fact" } }));
      const names = events.map((e) => e.event);
      expect(names[0]).toBe("TeamRunStarted");
      expect(names.at(-1)).toBe("TeamRunCompleted");
      expect(names).toContain("TeamToolCallStarted");
      expect(names).toContain("TeamToolCallCompleted");
      const teamRunId = events[0]!.run_id;
      expect(events[0]).toMatchObject({ team_id: "desk", team_name: "Desk" });
      const memberEvents = events.filter((e) => e.agent_id === "researcher");
      expect(memberEvents.map((e) => e.event)).toEqual(expect.arrayContaining(["RunStarted", "RunContent", "RunCompleted"]));
      for (const e of memberEvents) expect(e).toMatchObject({ agent_name: "Researcher", parent_run_id: teamRunId });
      expect(memberEvents[0]!.run_id).not.toBe(teamRunId);
      // The member's events come between the delegation's start and its end, numbered in the team's stream.
      const indexes = events.map((e) => e.event_index as number);
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
      expect(names.indexOf("TeamToolCallStarted")).toBeLessThan(names.indexOf("RunStarted"));
      expect(names.indexOf("RunCompleted")).toBeLessThan(names.indexOf("TeamToolCallCompleted"));
      expect(events.at(-1)).toMatchObject({ content: "Done.", member_responses: [expect.objectContaining({ agent_id: "researcher" })] });
    });

    it("route: the chosen member's answer is the team's, without another leader call", async () => {
      let leaderCalls = 0;
      answer = (who) => {
        if (who === "leader") {
          leaderCalls++;
          return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "writer", task: "Write a haiku" } }] };
        }
        return { text: who === "writer" ? "Old pond, frog jumps in." : "wrong member" };
      };
      const output = (await (await app.call("POST", "/teams/router/runs", { form: { message: "A haiku please", stream: "false" } })).json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: "Old pond, frog jumps in.", team_id: "router" });
      expect(leaderCalls).toBe(1);
      // The writer has no model of its own: it ran on the team's.
      expect((output.member_responses as Json[])[0]).toMatchObject({ agent_id: "writer", model: "scripted" });
    });

    it("broadcast: every member gets the task at once and the leader reads all their answers", async () => {
      const bothStarted = deferred();
      let started = 0;
      answer = async (who, body) => {
        if (who === "leader") {
          if (!lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_members", arguments: { task: "Your view?" } }] };
          return { text: messageText(body.messages.at(-1)) };
        }
        // Each member waits until both have been called: they run concurrently.
        if (++started === 2) bothStarted.resolve();
        await bothStarted.promise;
        return { text: `${who} thinks yes` };
      };
      const output = (await (await app.call("POST", "/teams/panel/runs", { form: { message: "Should we?", stream: "false" } })).json()) as Json;
      expect(output.status).toBe("COMPLETED");
      expect(output.content).toContain("Agent Researcher: researcher thinks yes");
      expect(output.content).toContain("Agent Writer: writer thinks yes");
      expect((output.member_responses as Json[]).map((m) => m.agent_id).sort()).toEqual(["researcher", "writer"]);
    });

    it("a member's tool waiting for confirmation pauses the team run, the requirement naming the member and its run", async () => {
      answer = (who, body) => {
        if (who === "operator") return { toolCalls: [{ name: "wipe_disk", arguments: { disk: "sda" } }] };
        if (who === "leader" && !lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "operator", task: "Wipe sda" } }] };
        return { text: "unexpected" };
      };
      const events = await readSse(await app.call("POST", "/teams/ops/runs", { form: { message: "Wipe the disk" } }));
      const paused = events.at(-1)!;
      expect(paused.event).toBe("TeamRunPaused");
      const requirements = paused.requirements as Json[];
      expect(requirements).toHaveLength(1);
      const member = events.find((e) => e.event === "RunPaused" && e.agent_id === "operator")!;
      expect(requirements[0]).toMatchObject({ member_agent_id: "operator", member_agent_name: "Operator", member_run_id: member.run_id, tool_execution: { tool_name: "wipe_disk" } });
      const db = await app.db();
      // The pause is stored as the stream ends (lib/runtime/run-settle.ts: PAUSED is written last).
      await until("the team run is stored PAUSED", async () => (await getRun(db, { scope: adminScope(), runId: String(paused.run_id) }))?.status === "PAUSED");
      const stored = await getRun(db, { scope: adminScope(), runId: String(paused.run_id) });
      expect(stored).toMatchObject({ status: "PAUSED", run_type: "team" });
      expect(stored!.run_data.content).toMatch(/Operator: wipe_disk requires confirmation/);
      // storeMemberResponses on: the paused member run is nested in the stored team run.
      expect((stored!.run_data.member_responses as Json[]).map((m) => m.run_id)).toEqual([member.run_id]);
      expect((await getRun(db, { scope: adminScope(), runId: String(member.run_id) }))?.status).toBe("PAUSED");

      // Continuing the team continues the member's own run with the decision, then the leader.
      answer = (who, body) => {
        if (who === "operator") return { text: `Operator: ${messageText(body.messages.at(-1))}` };
        if (who === "leader") return { text: `All done. ${messageText(body.messages.at(-1)).split("\n").at(-1)}` };
        return { text: "unexpected" };
      };
      const form = { requirements: JSON.stringify([{ ...requirements[0], confirmation: true }]), session_id: String(paused.session_id) };
      const missing = await app.call("POST", `/teams/ops/runs/${paused.run_id}/continue`, {
        form: { requirements: JSON.stringify([requirements[0]]), session_id: String(paused.session_id), stream: "false" },
      });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as Json).detail).toMatch(/wipe_disk\) needs confirmed: true or false/);
      const continued = await readSse(await app.call("POST", `/teams/ops/runs/${paused.run_id}/continue`, { form }));
      const names = continued.map((e) => e.event);
      expect(names[0]).toBe("TeamRunContinued");
      expect(names).toContain("RunContinued");
      expect(continued.find((e) => e.event === "ToolCallCompleted" && e.agent_id === "operator")).toMatchObject({ content: "wiped sda" });
      expect(continued.at(-1)).toMatchObject({ event: "TeamRunCompleted", run_id: paused.run_id, content: "All done. Operator: wiped sda" });
      await until("the team run is stored COMPLETED", async () => (await getRun(db, { scope: adminScope(), runId: String(paused.run_id) }))?.status === "COMPLETED");
      expect((await getRun(db, { scope: adminScope(), runId: String(member.run_id) }))?.status).toBe("COMPLETED");
      // One trace: the team's run and its continuation are its two roots; the member's continuation nests under the team's.
      await flushTracing();
      const [listed] = ((await (await app.call("GET", `/traces?run_id=${paused.run_id}`)).json()) as { data: Json[] }).data;
      const trace = (await (await app.call("GET", `/traces/${listed!.trace_id}`)).json()) as { tree: Json[] };
      expect(trace.tree.map((root) => [root.type, root.name])).toEqual([
        ["TEAM", "Ops.run"],
        ["TEAM", "Ops.run"],
      ]);
      const spanNames = (node: Json): string[] => [String(node.name), ...((node.spans as Json[] | undefined) ?? []).flatMap(spanNames)];
      expect(spanNames(trace.tree[1]!)).toContain("Operator.run");
      const again = await app.call("POST", `/teams/ops/runs/${paused.run_id}/continue`, { form: { ...form, stream: "false" } });
      expect(again.status).toBe(409);
    });

    /** The leader delegates to the researcher, whose answer waits for `release` (called: `memberCalled`). */
    function slowResearcher() {
      const memberCalled = deferred();
      const release = deferred();
      answer = async (who, body) => {
        if (who === "researcher") {
          memberCalled.resolve();
          await release.promise;
          return { text: "too late" };
        }
        if (!lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Slow work" } }] };
        return { text: "unexpected" };
      };
      return { memberCalled, release };
    }

    it("cancelling a team run cancels the member run in flight", async () => {
      const { memberCalled, release } = slowResearcher();
      const { admin } = mintPrincipals();
      const response = app.call("POST", "/teams/desk/runs", { form: { message: "Go", stream: "false" }, principal: admin });
      await memberCalled.promise;
      const db = await app.db();
      const live = (await db.sql.query<{ run_id: string; run_type: string; session_id: string }>("SELECT run_id, run_type, session_id FROM agno_runs WHERE status = 'RUNNING'")) as {
        run_id: string;
        run_type: string;
        session_id: string;
      }[];
      const teamRun = live.find((r) => r.run_type === "team")!;
      const memberRun = live.find((r) => r.run_type === "agent")!;
      const cancel = await app.call("POST", `/teams/desk/runs/${teamRun.run_id}/cancel?session_id=${teamRun.session_id}`, { principal: admin });
      expect(cancel.status).toBe(200);
      expect(await cancel.json()).toEqual({});
      release.resolve();
      const output = (await (await response).json()) as Json;
      expect(output.status).toBe("CANCELLED");
      await until("the member run is cancelled", async () => (await getRun(db, { scope: adminScope(), runId: memberRun.run_id }))?.status === "CANCELLED");
    });

    it("team stream cancelled: it ends TeamRunCancelled then TeamRunCompleted, the team run stored CANCELLED; its member's forwarded run ends RunCancelled, RunCompleted", async () => {
      const { memberCalled, release } = slowResearcher();
      const { admin } = mintPrincipals();
      const response = app.call("POST", "/teams/desk/runs", { form: { message: "Go" }, principal: admin });
      await memberCalled.promise;
      const db = await app.db();
      const running = await db.sql.query<{ run_id: string; run_type: string; session_id: string }>("SELECT run_id, run_type, session_id FROM agno_runs WHERE status = 'RUNNING'");
      const teamRun = running.find((r) => r.run_type === "team")!;
      const memberRun = running.find((r) => r.run_type === "agent")!;
      expect((await app.call("POST", `/teams/desk/runs/${teamRun.run_id}/cancel?session_id=${teamRun.session_id}`, { principal: admin })).status).toBe(200);
      release.resolve();
      const events = await readSse(await response);
      const [cancelled, completed] = events.slice(-2);
      expect(cancelled).toMatchObject({ event: "TeamRunCancelled", run_id: teamRun.run_id, team_id: "desk", reason: "Run cancelled by request", content: "Run cancelled by request" });
      expect(completed).toMatchObject({ event: "TeamRunCompleted", run_id: teamRun.run_id, team_id: "desk", content: "Run cancelled by request", member_responses: expect.any(Array) });
      expect(completed.event_index).toBe((cancelled.event_index as number) + 1);
      expect(events.filter((e) => e.event === "TeamRunCompleted")).toHaveLength(1);
      const memberEnd = events.filter((e) => e.run_id === memberRun.run_id && ["RunCancelled", "RunCompleted"].includes(String(e.event)));
      expect(memberEnd.map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
      await until("the team run is stored CANCELLED", async () => (await getRun(db, { scope: adminScope(), runId: teamRun.run_id }))?.status === "CANCELLED");
      expect((await getRun(db, { scope: adminScope(), runId: teamRun.run_id }))?.run_data).toMatchObject({ status: "CANCELLED", content: "Run cancelled by request" });
      await until("the member run is stored CANCELLED", async () => (await getRun(db, { scope: adminScope(), runId: memberRun.run_id }))?.status === "CANCELLED");
    });

    it("tasks: the leader plans a task list in the session state, runs the tasks through members, and is sent back until the goal is complete", async () => {
      let leaderTurn = 0;
      let ids: string[] = [];
      answer = (who, body) => {
        if (who === "researcher") return { text: "Facts: 42." };
        if (who === "writer") return { text: `Prose from ${messageText(body.messages.at(-1))}` };
        const last = messageText(body.messages.at(-1));
        leaderTurn++;
        if (leaderTurn === 1) {
          return {
            toolCalls: [
              { name: "create_task", arguments: { title: "Research", description: "Find the facts", assignee: "researcher" } },
              { name: "create_task", arguments: { title: "Write", description: "Write it up", assignee: "writer" } },
            ],
          };
        }
        if (leaderTurn === 2) {
          ids = [...body.messages.flatMap((m) => (m.role === "tool" ? [/\[(\w+)\]/.exec(messageText(m))?.[1] ?? ""] : []))];
          return { toolCalls: [{ name: "execute_tasks_parallel", arguments: { task_ids: ids } }] };
        }
        // An answer without marking the goal complete: both tasks ended, so the run ends here.
        return { text: `Finished: ${last.split("\n").length} results` };
      };
      const events = await readSse(await app.call("POST", "/teams/planner/runs", { form: { message: "Write about the answer" } }));
      const names = events.map((e) => e.event);
      expect(names[0]).toBe("TeamRunStarted");
      expect(names.filter((n) => n === "TeamTaskCreated")).toHaveLength(2);
      expect(names).toContain("TeamTaskIterationStarted");
      expect(names).toContain("TeamTaskIterationCompleted");
      const updates = events.filter((e) => e.event === "TeamTaskUpdated" && e.status === "completed");
      expect(updates.map((e) => e.title).sort()).toEqual(["Research", "Write"]);
      const last = events.at(-1)!;
      expect(last).toMatchObject({ event: "TeamRunCompleted", content: "Finished: 2 results" });
      const tasks = ((last.session_state as Json)._team_tasks as { tasks: Json[] }).tasks;
      expect(tasks.map((t) => [t.title, t.status, t.assignee, t.result])).toEqual([
        ["Research", "completed", "researcher", "Facts: 42."],
        ["Write", "completed", "writer", "Prose from Write it up"],
      ]);
      // The list is kept in the session for its next run.
      const session = (await (await app.call("GET", `/sessions/${last.session_id}?type=team`)).json()) as Json;
      expect(((session.session_state as Json)._team_tasks as { tasks: unknown[] }).tasks).toHaveLength(2);
      expect(leaderTurn).toBe(3);
    });

    it("tasks: an answer while tasks remain sends the leader back with the list, until maxIterations", async () => {
      let leaderTurn = 0;
      const prompts: string[] = [];
      answer = (who, body) => {
        if (who !== "leader") return { text: "member" };
        leaderTurn++;
        prompts.push(messageText(body.messages.at(-1)));
        if (leaderTurn === 1) return { toolCalls: [{ name: "create_task", arguments: { title: "Never done" } }] };
        return { text: `turn ${leaderTurn}` };
      };
      const output = (await (await app.call("POST", "/teams/planner/runs", { form: { message: "Stall", stream: "false" } })).json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: "turn 5" });
      // Answers 2, 3 and 4 were each followed by the list's state; the 4th iteration's answer ended the run.
      expect(leaderTurn).toBe(5);
      expect(prompts.filter((p) => p.includes("<current_task_state>"))).toHaveLength(3);
      expect(prompts.at(-1)).toContain("Never done - PENDING");
    });

    it("an eval can target the team (team_id): its runs are team runs, and the eval row names the team", async () => {
      answer = (who, body) => {
        if (who === "researcher") return { text: "A fact." };
        if (who === "leader" && !lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "A fact?" } }] };
        return { text: "Done." };
      };
      const response = await app.call("POST", "/eval-runs", { json: { team_id: "desk", eval_type: "reliability", input: "Tell me a fact", expected_tool_calls: ["delegate_task_to_member"] } });
      expect(response.status).toBe(200);
      const evalRun = (await response.json()) as Json;
      expect(evalRun).toMatchObject({ team_id: "desk", agent_id: null, eval_type: "reliability" });
      expect((evalRun.eval_data as Json).eval_status).toBe("PASSED");
      const overridden = await app.call("POST", "/eval-runs", { json: { team_id: "desk", eval_type: "performance", input: "x", model_id: "scripted", model_provider: "openai-compatible" } });
      expect(overridden.status).toBe(400);
      expect(((await overridden.json()) as Json).detail).toMatch(/a team runs on its own models/);
    });

    it("user B can neither read, list, cancel nor continue in user A's team session", async () => {
      answer = () => ({ text: "Hello." });
      const minted = mintPrincipals();
      const scopes = ["teams:read", "teams:run", "sessions:read"];
      const [a, b] = [withScopes(minted.a, scopes), withScopes(minted.b, scopes)];
      // A team answering without delegating: a plain leader run.
      const mine = (await (await app.call("POST", "/teams/desk/runs", { form: { message: "hi", stream: "false" }, principal: a })).json()) as Json;
      expect(mine).toMatchObject({ status: "COMPLETED", content: "Hello.", member_responses: [] });
      const path = `/teams/desk/runs/${mine.run_id}`;
      const session = String(mine.session_id);
      expect((await app.call("GET", `${path}?session_id=${session}`, { principal: a })).status).toBe(200);
      expect((await app.call("GET", `${path}?session_id=${session}`, { principal: b })).status).toBe(404);
      expect((await app.call("GET", `/teams/desk/runs?session_id=${session}`, { principal: b })).status).toBe(404);
      expect((await app.call("POST", `${path}/cancel?session_id=${session}`, { principal: b })).status).toBe(404);
      expect((await app.call("POST", "/teams/desk/runs", { form: { message: "into A's session", session_id: session, stream: "false" }, principal: b })).status).toBe(404);
      expect((await app.call("GET", `/sessions/${session}?type=team`, { principal: b })).status).toBe(404);
    });
  });
}

describe("defineTeam", () => {
  const model = { provider: "openai" as const, id: "gpt-4.1-mini" };
  const a: AgentDefinition = { id: "a", name: "A", model };
  const b: AgentDefinition = { id: "b", name: "B", model: null };
  it("takes the members positionally or by keyword, with ids from the name or the members", () => {
    expect(defineTeam([a, b])).toMatchObject({ id: "team-a-b", name: "Team", model, members: [a, b] });
    expect(defineTeam({ name: "Support Desk", members: [a] })).toMatchObject({ id: "support-desk", name: "Support Desk" });
    expect(defineTeam([a], { id: "x", mode: "broadcast" })).toMatchObject({ id: "x", mode: "broadcast" });
  });
  it("refuses what is wrong with a message naming it", () => {
    expect(() => defineTeam({ members: [] })).toThrow(/members: a team needs at least one member/);
    expect(() => defineTeam([a], { mode: "vote" as never })).toThrow(/mode/);
    expect(() => defineTeam({ members: [a], flavour: 1 } as never)).toThrow(/flavour/);
    expect(() => defineTeam(undefined as never)).toThrow(/defineTeam needs members/);
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`team runs on the durable queue, sessions and /config (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    beforeAll(async () => {
      server = await startModelServer({
        respond: (body) => {
          const who = caller(body);
          if (who === "researcher") return { text: "Durable fact." };
          if (!lastTool(body)) return { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "A fact" } }] };
          return { text: `Leader: ${messageText(body.messages.at(-1))}` };
        },
      });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const researcher: AgentDefinition = { id: "researcher", name: "Researcher", model, instructions: "I am the researcher." };
      app = await startTestApp({
        dialect,
        agents: [],
        teams: [defineTeam({ id: "desk", name: "Desk", description: "Answers with research.", model, members: [researcher] })],
        env: { AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "50", AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "2" },
      });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("a background team run is a team job any worker runs; a repeated Idempotency-Key answers with the same run", async () => {
      const submit = () => app.call("POST", "/teams/desk/runs", { form: { message: "Background please", background: "true", stream: "false" }, headers: { "idempotency-key": "team-once" } });
      const first = await submit();
      expect(first.status).toBe(202);
      const accepted = (await first.json()) as Json;
      expect(accepted).toMatchObject({ status: "PENDING" });
      const again = (await (await submit()).json()) as Json;
      expect(again.run_id).toBe(accepted.run_id);
      const db = await app.db();
      const [job] = await db.sql.query<{ component_type: string; component_id: string }>("SELECT component_type, component_id FROM agno_jobs WHERE id = ?", [accepted.run_id]);
      expect(job).toEqual({ component_type: "team", component_id: "desk" });
      const path = `/teams/desk/runs/${accepted.run_id}?session_id=${accepted.session_id}`;
      await until("the team run completes", async () => ((await (await app.call("GET", path)).json()) as Json).status === "COMPLETED");
      const run = (await (await app.call("GET", path)).json()) as Json;
      expect(run).toMatchObject({ team_id: "desk", content: "Leader: [researcher]: Durable fact." });
      const members = await db.sql.query<{ agent_id: string; parent_run_id: string; status: string }>("SELECT agent_id, parent_run_id, status FROM agno_runs WHERE parent_run_id = ?", [
        accepted.run_id,
      ]);
      expect(members).toEqual([{ agent_id: "researcher", parent_run_id: accepted.run_id, status: "COMPLETED" }]);
      // The stored events (kept for durable runs) replay through resume, the member's among them.
      // The row is stored COMPLETED a moment before the worker's live entry ends (its final events
      // follow the write); a resume in that moment tails the run live, so wait for the replay.
      let replay: Json[] = [];
      await until("a resume replays the finished run", async () => {
        replay = await readSse(await app.call("POST", `/teams/desk/runs/${accepted.run_id}/resume`, { form: { session_id: String(accepted.session_id) } }));
        return replay[0]?.event === "replay";
      });
      expect(replay.map((e) => e.event)).toEqual(expect.arrayContaining(["TeamRunStarted", "RunStarted", "TeamRunCompleted"]));
      expect(replay.at(-1)!.event).toBe("TeamRunCompleted");
    });

    it("POST /sessions makes a team session with its team_data; /config lists the team with its mode", async () => {
      const created = await app.call("POST", "/sessions?type=team", { json: { team_id: "desk", session_name: "Team chat" } });
      expect(created.status).toBe(201);
      const session = (await created.json()) as Json;
      expect(session).toMatchObject({ team_id: "desk", session_name: "Team chat" });
      const db = await app.db();
      const [row] = await db.sql.query<{ session_type: string; team_data: unknown }>("SELECT session_type, team_data FROM agno_sessions WHERE session_id = ?", [session.session_id]);
      expect(row!.session_type).toBe("team");
      expect(typeof row!.team_data === "string" ? JSON.parse(row!.team_data) : row!.team_data).toMatchObject({ team_id: "desk", name: "Desk" });
      const config = (await (await app.call("GET", "/config")).json()) as { teams: Json[] };
      expect(config.teams).toEqual([
        expect.objectContaining({ id: "desk", name: "Desk", description: "Answers with research.", mode: "coordinate", model: { id: "scripted", provider: "openai-compatible" } }),
      ]);
    });
  });
}
