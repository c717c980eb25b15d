import { z } from "zod";
import { transitionRunStatus } from "../../db/runs/runs.ts";
import { startChildRun, type StartedRun } from "../agent-run.ts";
import { continueAgentRun } from "../continue-run.ts";
import type { RuntimeAgent, TeamLeader } from "../agents.ts";
import { eventsAfter, subscribe } from "../../live-runs/run-registry.ts";
import type { Resolution, RunOutput, RunRequirement } from "../run-output.ts";
import { emitNamed, forward, type RunState } from "../run-state.ts";
import { TASK_TOOL_DESCRIPTIONS, taskTools } from "./team-tasks.ts";
import { defineTool, type ToolDefinition } from "../tools/types.ts";
import { membersBlock } from "./team-prompt.ts";

/** The delegation tools and what the leader is told each does (also listed by GET /teams/{team_id}). */
export const DELEGATION_TOOL_DESCRIPTIONS = {
  delegate_task_to_member: "Delegate a task to one member of the team and get its answer.",
  delegate_task_to_members: "Send one task to every member of the team at once and get all their answers. One call reaches every member; do not call it once per member.",
} as const;

/** The leader's own tools in a mode, by name and description. */
export function leaderToolsOf(mode: TeamLeader["mode"]): { name: string; description: string }[] {
  const table: Record<string, string> =
    mode === "tasks"
      ? TASK_TOOL_DESCRIPTIONS
      : {
          [mode === "broadcast" ? "delegate_task_to_members" : "delegate_task_to_member"]: DELEGATION_TOOL_DESCRIPTIONS[mode === "broadcast" ? "delegate_task_to_members" : "delegate_task_to_member"],
        };
  return Object.entries(table).map(([name, description]) => ({ name, description }));
}

/**
 * The leader's delegation tools for one team run. Each delegation starts the member's own run —
 * stored as its own row in the team's session, `parent_run_id` the team run — forwards its events
 * into the team's stream (unless `streamMemberEvents` is false), and gives the leader its answer.
 * Cancelling the team run aborts the member runs in flight. A member that pauses for a person
 * leaves its requirements on `state.memberRequirements`, and the team run pauses after the tools.
 */
export function teamTools(state: RunState, team: TeamLeader): ToolDefinition<unknown>[] {
  if (team.mode === "broadcast") {
    return [
      defineTool({
        name: "delegate_task_to_members",
        description: DELEGATION_TOOL_DESCRIPTIONS.delegate_task_to_members,
        parameters: z.object({ task: z.string().describe("The task for every member, self-contained, with what a good answer looks like.") }),
        execute: async ({ task }) => {
          const outputs = await Promise.all(team.members.map((member) => runMember(state, team, member, task)));
          return outputs.map((output, i) => `Agent ${team.members[i]!.definition.name}: ${memberAnswer(output, "broadcast")}`).join("\n\n");
        },
      }) as ToolDefinition<unknown>,
    ];
  }
  if (team.mode === "tasks") {
    if (state.taskIteration === undefined) {
      state.taskIteration = 1;
      emitNamed(state, "TeamTaskIterationStarted", { iteration: 1, max_iterations: team.definition.maxIterations ?? 10 });
    }
    return taskTools(
      state,
      async (memberId, task) => {
        const member = findMember(team, memberId);
        if (!member) return { found: false };
        const output = await runMember(state, team, member, task);
        return {
          found: true,
          name: member.definition.name,
          status: output.status,
          content: output.status === "COMPLETED" ? memberAnswer(output, team.mode) : (output.error?.message ?? memberAnswer(output, team.mode)),
        };
      },
      () => membersBlock(team.members, 0),
    );
  }
  return [
    defineTool({
      name: "delegate_task_to_member",
      description: DELEGATION_TOOL_DESCRIPTIONS.delegate_task_to_member,
      parameters: z.object({
        member_id: z.string().describe("The member's id, exactly as listed in <team_members>."),
        task: z.string().describe("What the member should achieve, self-contained, with what a good answer looks like."),
      }),
      // Route mode: the member's answer is the team's answer.
      stopAfterToolCall: team.mode === "route",
      execute: async ({ member_id, task }) => {
        const member = findMember(team, member_id);
        if (!member) return `Member with ID ${member_id} not found in the team or its sub-teams. Choose one of these members:\n\n${membersBlock(team.members, 0)}`;
        const output = await runMember(state, team, member, task);
        const answer = memberAnswer(output, team.mode);
        return team.mode === "route" || output.status !== "COMPLETED" ? answer : `[${member_id}]: ${answer}`;
      },
    }) as ToolDefinition<unknown>,
  ];
}

/** A member by id, at any depth (a sub-team's member is run directly). */
function findMember(team: TeamLeader, memberId: string): RuntimeAgent | undefined {
  for (const member of team.members) {
    if (member.definition.id === memberId) return member;
    const nested = member.team ? findMember(member.team, memberId) : undefined;
    if (nested) return nested;
  }
  return undefined;
}

/** Runs one member as a child of the team run and returns its final output. */
async function runMember(state: RunState, team: TeamLeader, member: RuntimeAgent, task: string): Promise<RunOutput> {
  const input = state.output.input.input_content;
  // determineInputForMembers false: the member gets the user's own message.
  const started = await startChildRun(state, member, team.definition.determineInputForMembers === false && typeof input === "string" ? input : task);
  return followMember(state, team, member, started);
}

/**
 * Continues the paused member runs the team run's requirements name, one continuation per member
 * run, at once, each with the decisions the person sent; returns each member's answer for the
 * leader. A member that pauses again leaves its new requirements on the state.
 */
export async function continueMembers(state: RunState, team: TeamLeader, requirements: readonly RunRequirement[], resolutions: readonly Resolution[]): Promise<{ name: string; answer: string }[]> {
  const byRun = new Map<string, RunRequirement[]>();
  for (const requirement of requirements) byRun.set(requirement.member_run_id!, [...(byRun.get(requirement.member_run_id!) ?? []), requirement]);
  const { db, scope } = state;
  const sessionId = state.output.session_id;
  return Promise.all(
    [...byRun].map(async ([runId, group]) => {
      const member = findMember(team, group[0]!.member_agent_id ?? "");
      if (!member) throw new Error(`Team '${team.definition.id}' has no member '${group[0]!.member_agent_id}' any more: its paused run ${runId} cannot be continued`);
      const started = await continueAgentRun({
        db,
        agent: member,
        scope,
        runId,
        sessionId,
        resolutions: [...resolutions],
        claim: () => transitionRunStatus(db, { scope, runId, sessionId, from: "PAUSED", to: "RUNNING" }),
        retry: state.retry,
        stream: state.stream,
        signal: state.live.controller.signal,
      });
      const output = await followMember(state, team, member, started);
      return { name: member.definition.name, answer: memberAnswer(output, team.mode) };
    }),
  );
}

/**
 * Forwards a member run's events into the team's stream (unless `streamMemberEvents` is false),
 * waits for its end, and records it on the team run: its output among `member_responses` (a
 * continued member's replacing its paused one), its requirements if it paused.
 */
async function followMember(state: RunState, team: TeamLeader, member: RuntimeAgent, started: StartedRun): Promise<RunOutput> {
  let unsubscribe = () => {};
  if (team.definition.streamMemberEvents !== false) {
    // Buffered events, then each as it comes, in one synchronous step: none is missed or doubled.
    for (const event of eventsAfter(started.live, started.firstEventIndex - 1)) forward(state, event);
    unsubscribe = subscribe(started.live, { onEvent: (event) => forward(state, event), onEnd: () => undefined });
  }
  let output: RunOutput;
  try {
    output = await started.done;
  } finally {
    unsubscribe();
  }
  const responses = (state.output.member_responses ??= []);
  const earlier = responses.findIndex((r) => r.run_id === output.run_id);
  if (earlier >= 0) responses[earlier] = output;
  else responses.push(output);
  if (output.status === "PAUSED") {
    const requirements: RunRequirement[] = (output.requirements ?? []).map((r) => ({
      ...r,
      member_agent_id: member.definition.id,
      member_agent_name: member.definition.name,
      member_run_id: output.run_id,
    }));
    (state.memberRequirements ??= []).push(...requirements);
  }
  return output;
}

/** What the leader reads of a member's run. */
function memberAnswer(output: RunOutput, mode: TeamLeader["mode"]): string {
  const name = output.agent_name ?? output.team_name ?? "member";
  if (output.status === "PAUSED") return `Member '${name}' requires human input before continuing.`;
  if (output.status === "ERROR") return `Error - ${output.error?.message ?? "the member's run failed"}`;
  if (output.status === "CANCELLED") return `Member '${name}' was cancelled.`;
  const content = output.content;
  if (typeof content === "string" && content.trim() !== "") return mode === "route" ? content : content.trim();
  if (content !== null && content !== undefined && typeof content !== "string") return JSON.stringify(content, null, 2);
  const results = output.tools.map((t) => (typeof t.result === "string" ? t.result : JSON.stringify(t.result ?? null))).filter(Boolean);
  if (results.length > 0) return results.join(",");
  return `No usable answer from team member '${name}' (its content was empty). The delegated task was not completed; delegate it again or answer without it.`;
}
