import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal.ts";
import { defineTeam, type AgentDefinition } from "@/lib/config/define.ts";
import { defineWorkflow } from "@/lib/config/workflow.ts";
import { getApproval, unsafeExpireApprovals } from "@/lib/db/index.ts";
import { approvalExpiryTask } from "@/lib/runtime/run-approvals.ts";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;

const calls: string[] = [];
const transfer = defineTool({
  name: "transfer_funds",
  description: "Moves money",
  parameters: z.object({ amount: z.number() }),
  approval: "required",
  execute: ({ amount }) => {
    calls.push(`transfer ${amount}`);
    return `moved ${amount}`;
  },
});
const purge = defineTool({
  name: "purge_cache",
  description: "Purges a cache",
  parameters: z.object({}),
  approval: "required",
  approvalExpiresIn: 60,
  execute: () => "purged",
});
const publish = defineTool({
  name: "publish_post",
  description: "Publishes a post",
  parameters: z.object({ title: z.string() }),
  requiresConfirmation: true,
  approval: "audit",
  execute: ({ title }) => `published ${title}`,
});

const member = (id: string, extra: string[] = []): Principal => ({
  kind: "user",
  userId: id,
  scopes: ["agents:read", "agents:run", "teams:read", "teams:run", "approvals:read", "approvals:delete", ...extra],
  authenticatedBy: "jwt",
  isAdmin: false,
});
const approver: Principal = { kind: "admin", userId: "approver-root", scopes: ["agent_os:admin"], authenticatedBy: "jwt", isAdmin: true };

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`approvals (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    /** The team test's script (leader delegates, the clerk calls the tool); undefined: "All done." */
    let teamAnswer: ((body: ChatCompletionRequest) => ScriptStep) | undefined;
    const tag = Math.random().toString(36).slice(2, 8);
    const alice = member(`alice-${tag}`);
    const bob = member(`bob-${tag}`);

    beforeAll(async () => {
      server = await startModelServer({ respond: (body) => teamAnswer?.(body) ?? { text: "All done." } });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const agents: AgentDefinition[] = [{ id: "treasurer", name: "Treasurer", model, tools: [transfer, purge, publish] }];
      const clerk: AgentDefinition = { id: "clerk", name: "Clerk", model, instructions: "I am the clerk.", tools: [transfer] };
      const payroll = defineWorkflow({ id: "payroll", name: "Payroll", steps: [clerk] });
      app = await startTestApp({ dialect, agents, teams: [defineTeam({ id: "office", name: "Office", model, members: [clerk] })], workflows: [payroll] });
    });
    beforeEach(() => {
      calls.length = 0;
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    /** A run of `who` whose model calls `tool` first: it pauses. */
    async function pausedRun(who: Principal, tool: string, args: Json = {}) {
      server.enqueue({ toolCalls: [{ name: tool, arguments: args }] });
      const response = await app.call("POST", "/agents/treasurer/runs", { form: { message: `please ${tool}`, stream: "false" }, principal: who });
      expect(response.status).toBe(200);
      const run = (await response.json()) as Json;
      expect(run.status).toBe("PAUSED");
      return run;
    }
    const requirementOf = (run: Json) => (run.requirements as Json[])[0]!;
    const approvalIdOf = (run: Json) => String((requirementOf(run).tool_execution as Json).approval_id);
    const cont = (who: Principal, run: Json, requirements?: Json[]) =>
      app.call("POST", `/agents/treasurer/runs/${run.run_id}/continue`, {
        form: { session_id: String(run.session_id), stream: "false", ...(requirements ? { requirements: JSON.stringify(requirements) } : {}) },
        principal: who,
      });

    it("a required approval pauses the run with a pending row, blocks the asker's continue (403), and an approver's resolve lets it complete without tools", async () => {
      const run = await pausedRun(alice, "transfer_funds", { amount: 250 });
      const execution = requirementOf(run).tool_execution as Json;
      expect(execution).toMatchObject({ tool_name: "transfer_funds", approval_type: "required", requires_confirmation: true });
      const id = approvalIdOf(run);

      const listed = (await (await app.call("GET", "/approvals?status=pending", { principal: alice })).json()) as { data: Json[]; meta: Json };
      expect(listed.data.map((a) => a.id)).toContain(id);
      const row = listed.data.find((a) => a.id === id)!;
      expect(row).toMatchObject({
        run_id: run.run_id,
        session_id: run.session_id,
        status: "pending",
        source_type: "agent",
        approval_type: "required",
        pause_type: "confirmation",
        tool_name: "transfer_funds",
        tool_args: { amount: 250 },
        agent_id: "treasurer",
        user_id: alice.userId,
        run_status: "PAUSED",
        expires_at: null,
      });
      expect(((await (await app.call("GET", "/approvals/count", { principal: alice })).json()) as Json).count).toBeGreaterThanOrEqual(1);

      // The asker may not approve itself, by continue or by resolve.
      const blocked = await cont(alice, run, [{ ...requirementOf(run), confirmation: true }]);
      expect(blocked.status).toBe(403);
      expect(((await blocked.json()) as Json).detail).toBe("This run requires admin approval before it can be continued");
      // Without approvals:write the scope check refuses first (403).
      expect((await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "approved" }, principal: alice })).status).toBe(403);
      expect(calls).not.toContain("transfer 250");

      const resolved = await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "approved", resolved_by: "someone-else", resolution_data: { note: "ok" } }, principal: approver });
      expect(resolved.status).toBe(200);
      expect(await resolved.json()).toMatchObject({ id, status: "approved", resolved_by: "approver-root", resolution_data: { note: "ok" } });
      const again = await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "rejected" }, principal: approver });
      expect(again.status).toBe(409);
      expect(((await again.json()) as Json).detail).toBe("Approval is already 'approved' and cannot be resolved");
      expect(await (await app.call("GET", `/approvals/${id}/status`, { principal: alice })).json()).toMatchObject({
        approval_id: id,
        status: "approved",
        run_id: run.run_id,
        resolved_by: "approver-root",
      });

      const continued = await cont(alice, run);
      expect(continued.status).toBe(200);
      const done = (await continued.json()) as Json;
      expect(done.status).toBe("COMPLETED");
      expect(calls).toContain("transfer 250");
      expect((await getApproval(await app.db(), { scope: adminScope(), id }))!.run_status).toBe("COMPLETED");
      const second = await cont(alice, run);
      expect(second.status).toBe(409);
    });

    it("a rejected approval continues with the call refused: the tool never runs", async () => {
      const run = await pausedRun(alice, "transfer_funds", { amount: 999 });
      const id = approvalIdOf(run);
      expect((await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "rejected" }, principal: approver })).status).toBe(200);
      // Whatever the asker sends, the approver's decision stands.
      const continued = await cont(alice, run, [{ ...requirementOf(run), confirmation: true }]);
      expect(continued.status).toBe(200);
      const done = (await continued.json()) as Json;
      expect(done.status).toBe("COMPLETED");
      expect(calls).not.toContain("transfer 999");
      expect((done.tools as Json[]).find((t) => t.tool_name === "transfer_funds")).toMatchObject({ confirmed: false });
    });

    it("an approver's own continue resolves the pending approval with its decision and identity", async () => {
      const run = await pausedRun(alice, "transfer_funds", { amount: 7 });
      const id = approvalIdOf(run);
      const continued = await cont(approver, run, [{ ...requirementOf(run), confirmation: true }]);
      expect(continued.status).toBe(200);
      expect(((await continued.json()) as Json).status).toBe("COMPLETED");
      const row = await getApproval(await app.db(), { scope: adminScope(), id });
      expect(row).toMatchObject({ status: "approved", resolved_by: "approver-root", run_status: "COMPLETED" });
    });

    it("members read only their own approvals; resolve and delete are an approver's (404 for a member, even its own)", async () => {
      const run = await pausedRun(alice, "transfer_funds", { amount: 1 });
      const id = approvalIdOf(run);
      expect((await app.call("GET", `/approvals/${id}`, { principal: bob })).status).toBe(404);
      expect((await app.call("GET", `/approvals/${id}/status`, { principal: bob })).status).toBe(404);
      const bobs = (await (await app.call("GET", `/approvals?user_id=${alice.userId}`, { principal: bob })).json()) as { data: Json[] };
      expect(bobs.data.map((a) => a.id)).not.toContain(id);
      // Holding approvals:write does not make a member an approver under isolation: 404, its own included.
      const writer = (who: Principal) => ({ ...who, scopes: [...who.scopes, "approvals:write"] });
      expect((await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "approved" }, principal: writer(bob) })).status).toBe(404);
      expect((await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "approved" }, principal: writer(alice) })).status).toBe(404);
      expect((await getApproval(await app.db(), { scope: adminScope(), id }))!.status).toBe("pending");
      expect((await app.call("DELETE", `/approvals/${id}`, { principal: alice })).status).toBe(404);
      expect((await app.call("DELETE", `/approvals/${id}`, { principal: bob })).status).toBe(404);
      const admins = (await (await app.call("GET", `/approvals?user_id=${alice.userId}&approval_type=required`, { principal: approver })).json()) as { data: Json[] };
      expect(admins.data.map((a) => a.id)).toContain(id);
      expect((await app.call("DELETE", `/approvals/${id}`, { principal: approver })).status).toBe(204);
      expect((await app.call("DELETE", `/approvals/${id}`, { principal: approver })).status).toBe(404);
      // A run whose approval row is gone cannot be continued past it.
      const orphan = await cont(approver, run, [{ ...requirementOf(run), confirmation: true }]);
      expect(orphan.status).toBe(409);
      expect(((await orphan.json()) as Json).detail).toMatch(/requires an approval and none is recorded/);
    });

    it("bad input: an unknown status, a limit past 1000, an unknown approval", async () => {
      const bad = await app.call("POST", "/approvals/nope/resolve", { json: { status: "maybe" }, principal: approver });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(await bad.json())).toMatch(/status/);
      expect((await app.call("GET", "/approvals?limit=5000", { principal: approver })).status).toBe(422);
      expect((await app.call("GET", "/approvals?status=unknown", { principal: approver })).status).toBe(422);
      expect((await app.call("POST", "/approvals/nope/resolve", { json: { status: "approved" }, principal: approver })).status).toBe(404);
      expect((await app.call("GET", "/approvals/nope", { principal: approver })).status).toBe(404);
    });

    it("an approval past expires_at expires: resolve and continue answer 409 naming it, the run stays PAUSED and can be cancelled", async () => {
      const run = await pausedRun(alice, "purge_cache");
      const id = approvalIdOf(run);
      const db = await app.db();
      const row = (await getApproval(db, { scope: adminScope(), id }))!;
      expect(row.expires_at).toBe((row.created_at ?? 0) + 60);
      // Not yet due: nothing expires.
      expect(await unsafeExpireApprovals(db, { now: row.expires_at! - 1 })).toEqual([]);
      await approvalExpiryTask(db).run(row.expires_at!);
      expect((await getApproval(db, { scope: adminScope(), id }))!.status).toBe("expired");
      const resolve = await app.call("POST", `/approvals/${id}/resolve`, { json: { status: "approved" }, principal: approver });
      expect(resolve.status).toBe(409);
      expect(((await resolve.json()) as Json).detail).toBe("Approval is already 'expired' and cannot be resolved");
      const continued = await cont(approver, run, [{ ...requirementOf(run), confirmation: true }]);
      expect(continued.status).toBe(409);
      expect(((await continued.json()) as Json).detail).toMatch(/expired at .*cancel it instead/);
      const stored = (await (await app.call("GET", `/agents/treasurer/runs/${run.run_id}?session_id=${run.session_id}`, { principal: alice })).json()) as Json;
      expect(stored.status).toBe("PAUSED");
      expect((await app.call("POST", `/agents/treasurer/runs/${run.run_id}/cancel?session_id=${run.session_id}`, { principal: alice })).status).toBe(200);
      expect((await getApproval(db, { scope: adminScope(), id }))!).toMatchObject({ status: "expired", run_status: "CANCELLED" });
    });

    it("cancelling a run whose approval waits cancels the approval", async () => {
      const run = await pausedRun(alice, "transfer_funds", { amount: 3 });
      const id = approvalIdOf(run);
      expect((await app.call("POST", `/agents/treasurer/runs/${run.run_id}/cancel?session_id=${run.session_id}`, { principal: alice })).status).toBe(200);
      expect((await getApproval(await app.db(), { scope: adminScope(), id }))!).toMatchObject({ status: "cancelled", run_status: "CANCELLED" });
    });

    it("a scheduled run that pauses for approval names the schedule and its fire on the approval; the fire is recorded paused", async () => {
      const scheduler = { ...alice, scopes: [...alice.scopes, "schedules:read", "schedules:write"] };
      const created = await app.call("POST", "/schedules", {
        json: { name: `nightly-${tag}`, cron_expr: "0 3 * * *", endpoint: "/agents/treasurer/runs", payload: { message: "nightly transfer" } },
        principal: scheduler,
      });
      expect(created.status).toBe(201);
      const schedule = (await created.json()) as Json;
      server.enqueue({ toolCalls: [{ name: "transfer_funds", arguments: { amount: 42 } }] });
      const fired = (await (await app.call("POST", `/schedules/${schedule.id}/trigger`, { principal: scheduler })).json()) as Json;
      expect(fired.status).toBe("paused");
      const approvals = (await (await app.call("GET", `/approvals?schedule_id=${schedule.id}`, { principal: alice })).json()) as { data: Json[] };
      expect(approvals.data).toHaveLength(1);
      expect(approvals.data[0]).toMatchObject({ schedule_id: schedule.id, schedule_run_id: fired.id, run_id: fired.run_id, status: "pending", user_id: alice.userId });
    });

    it("a team member's required approval pauses the team, blocks the team's continue, and once approved the member's run and the team complete", async () => {
      const system = (body: ChatCompletionRequest) => messageText(body.messages.find((m) => m.role === "system"));
      const lastIsTool = (body: ChatCompletionRequest) => body.messages.at(-1)?.role === "tool";
      teamAnswer = (body) => {
        const clerk = system(body).includes("I am the clerk.");
        if (clerk) return lastIsTool(body) ? { text: `Clerk: ${messageText(body.messages.at(-1))}` } : { toolCalls: [{ name: "transfer_funds", arguments: { amount: 11 } }] };
        const delegated = lastIsTool(body) || messageText(body.messages.at(-1)).startsWith("Previously delegated tasks have been completed");
        return delegated ? { text: "Team done." } : { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "clerk", task: "Transfer 11" } }] };
      };
      try {
        const response = await app.call("POST", "/teams/office/runs", { form: { message: "Pay 11", stream: "false" }, principal: alice });
        const team = (await response.json()) as Json;
        expect(team.status, JSON.stringify(team)).toBe("PAUSED");
        const requirement = (team.requirements as Json[])[0]!;
        const execution = requirement.tool_execution as Json;
        expect(execution).toMatchObject({ tool_name: "transfer_funds", approval_type: "required" });
        const approval = (await getApproval(await app.db(), { scope: adminScope(), id: String(execution.approval_id) }))!;
        expect(approval).toMatchObject({ run_id: requirement.member_run_id, agent_id: "clerk", user_id: alice.userId, status: "pending" });
        const teamContinue = (who: Principal) =>
          app.call("POST", `/teams/office/runs/${team.run_id}/continue`, {
            form: { session_id: String(team.session_id), stream: "false", requirements: JSON.stringify([{ ...requirement, confirmation: true }]) },
            principal: who,
          });
        expect((await teamContinue(alice)).status).toBe(403);
        expect((await app.call("POST", `/approvals/${approval.id}/resolve`, { json: { status: "approved" }, principal: approver })).status).toBe(200);
        const continued = await teamContinue(alice);
        expect(continued.status).toBe(200);
        expect(((await continued.json()) as Json).status).toBe("COMPLETED");
        expect(calls).toContain("transfer 11");
      } finally {
        teamAnswer = undefined;
      }
    });

    it("a workflow whose step agent waits on a required approval cannot be continued past it by the asker (403)", async () => {
      const system = (body: ChatCompletionRequest) => messageText(body.messages.find((m) => m.role === "system"));
      teamAnswer = (body) =>
        system(body).includes("I am the clerk.") && body.messages.at(-1)?.role !== "tool" ? { toolCalls: [{ name: "transfer_funds", arguments: { amount: 5 } }] } : { text: "Paid." };
      try {
        const scopes = { ...alice, scopes: [...alice.scopes, "workflows:read", "workflows:run"] };
        const run = (await (await app.call("POST", "/workflows/payroll/runs", { form: { message: "Pay 5", stream: "false" }, principal: scopes })).json()) as Json;
        expect(run.status, JSON.stringify(run)).toBe("PAUSED");
        const ids = JSON.stringify(run.step_requirements).match(/"approval_id":"([^"]+)"/);
        expect(ids).not.toBeNull();
        const blocked = await app.call("POST", `/workflows/payroll/runs/${run.run_id}/continue`, { form: { session_id: String(run.session_id), stream: "false" }, principal: scopes });
        expect(blocked.status).toBe(403);
        expect(((await blocked.json()) as Json).detail).toBe("This run requires admin approval before it can be continued");
        expect(calls).not.toContain("transfer 5");
      } finally {
        teamAnswer = undefined;
      }
    });

    it("an audit approval never blocks: the person's decision is recorded as a resolved row", async () => {
      const run = await pausedRun(alice, "publish_post", { title: "Hello" });
      const execution = requirementOf(run).tool_execution as Json;
      expect(execution.approval_type).toBe("audit");
      expect(execution.approval_id ?? null).toBeNull();
      const continued = await cont(alice, run, [{ ...requirementOf(run), confirmation: true }]);
      expect(continued.status).toBe(200);
      expect(((await continued.json()) as Json).status).toBe("COMPLETED");
      const audits = (await (await app.call("GET", `/approvals?run_id=${run.run_id}`, { principal: alice })).json()) as { data: Json[] };
      expect(audits.data).toHaveLength(1);
      expect(audits.data[0]).toMatchObject({ approval_type: "audit", status: "approved", tool_name: "publish_post", resolved_by: alice.userId, user_id: alice.userId });
    });
  });
}

describe("tool definitions", () => {
  it("refuses an audit approval without a human step, an unknown type and a bad expiry", () => {
    expect(() => defineTool({ name: "x", description: "", parameters: z.object({}), approval: "audit" })).toThrow(/needs requiresConfirmation/);
    expect(() => defineTool({ name: "x", description: "", parameters: z.object({}), approval: "sometimes" as "audit" })).toThrow(/invalid approval/);
    expect(() => defineTool({ name: "x", description: "", parameters: z.object({}), approval: "required", approvalExpiresIn: 0 })).toThrow(/positive/);
  });
});
