import type { RunRequirement, ToolExecution } from "@/lib/runtime/run-output.ts";
import type { RunStreamEvent } from "./run-api.ts";

/**
 * The chat as the playground shows it, built from run events alone: one turn per message sent,
 * each with the run that answered it. A continued run stays the same run (same id), so its
 * later events extend the same turn.
 */
export type RunPhase = "starting" | "running" | "paused" | "continuing" | "completed" | "cancelled" | "error";

export type ToolCallStatus = "running" | "awaiting" | "done" | "failed" | "rejected";

export interface ToolCallView {
  id: string;
  name: string;
  args: Record<string, unknown>;
  status: ToolCallStatus;
  result?: unknown;
}

/** What the run said, in order: streamed text, tool calls, and a final answer that is not text. */
export type RunPart = { kind: "text"; text: string } | { kind: "tool"; call: ToolCallView } | { kind: "structured"; value: unknown };

/** A team member's run inside a team run: its own events, shown folded under the team's answer. */
export interface MemberView {
  runId: string;
  name: string;
  view: RunView;
}

export interface RunView {
  runId: string | null;
  sessionId: string | null;
  phase: RunPhase;
  parts: RunPart[];
  /** The decisions a paused run waits for. */
  requirements: RunRequirement[];
  /** A RunError's content, or the API's detail when a request was refused. */
  error: string | null;
  /** Why the run was cancelled. */
  cancelReason: string | null;
  stopRequested: boolean;
  /** A team run's member runs, in the order they started. */
  members: MemberView[];
}

export interface Turn {
  id: string;
  message: string;
  run: RunView;
}

export const IN_FLIGHT: ReadonlySet<RunPhase> = new Set(["starting", "running", "continuing"]);

export function newRun(): RunView {
  return { runId: null, sessionId: null, phase: "starting", parts: [], requirements: [], error: null, cancelReason: null, stopRequested: false, members: [] };
}

function toolStatus(tool: ToolExecution, event: string): ToolCallStatus {
  if (event === "ToolCallError" || tool.tool_call_error) return "failed";
  if (tool.requires_confirmation && tool.confirmed === false) return "rejected";
  return event === "ToolCallStarted" ? "running" : "done";
}

/** Updates the card of this tool call, or adds one (a rejected call completes without starting). */
function upsertTool(parts: RunPart[], tool: ToolExecution, status: ToolCallStatus): RunPart[] {
  const call: ToolCallView = { id: tool.tool_call_id, name: tool.tool_name, args: tool.tool_args ?? {}, status, ...(tool.result !== undefined ? { result: tool.result } : {}) };
  const at = parts.findIndex((p) => p.kind === "tool" && p.call.id === call.id);
  if (at === -1) return [...parts, { kind: "tool", call }];
  return parts.map((p, i) => (i === at ? { kind: "tool", call } : p));
}

function appendText(parts: RunPart[], text: string): RunPart[] {
  const last = parts.at(-1);
  if (last?.kind === "text") return [...parts.slice(0, -1), { kind: "text", text: last.text + text }];
  return [...parts, { kind: "text", text }];
}

/** RunCompleted carries the whole answer: shown only if it was not streamed (or is not text). */
function withFinalContent(parts: RunPart[], content: unknown): RunPart[] {
  if (content === undefined || content === null || content === "") return parts;
  if (typeof content !== "string") return [...parts, { kind: "structured", value: content }];
  return parts.at(-1)?.kind === "text" ? parts : appendText(parts, content);
}

/** A member's event, applied to that member's run (a member seen for the first time is added). */
function withMemberEvent(members: MemberView[], event: RunStreamEvent): MemberView[] {
  const runId = event.run_id!;
  const at = members.findIndex((m) => m.runId === runId);
  const member = at >= 0 ? members[at]! : { runId, name: String(event.agent_name ?? event.team_name ?? "Member"), view: newRun() };
  const next = { ...member, view: applyRunEvent(member.view, event) };
  return at >= 0 ? members.map((m, i) => (i === at ? next : m)) : [...members, next];
}

/**
 * The run after one of its events. Events this view does not show leave it as it was. A team
 * run's own events carry Team* names (TeamRunContent is RunContent here); its members' events,
 * forwarded in its stream with their own run ids, go to the member they belong to.
 */
export function applyRunEvent(run: RunView, event: RunStreamEvent): RunView {
  if (run.runId !== null && event.run_id && event.run_id !== run.runId) return { ...run, members: withMemberEvent(run.members, event) };
  const ids = { runId: event.run_id ?? run.runId, sessionId: event.session_id ?? run.sessionId };
  const tool = event.tool as ToolExecution | undefined;
  switch (event.event.replace(/^Team/, "")) {
    case "RunStarted":
    case "RunContinued":
      return { ...run, ...ids, phase: "running", error: null };
    case "RunContent":
      return typeof event.content === "string" && event.content ? { ...run, ...ids, parts: appendText(run.parts, event.content) } : run;
    case "ToolCallStarted":
    case "ToolCallCompleted":
    case "ToolCallError":
      return tool ? { ...run, ...ids, parts: upsertTool(run.parts, tool, toolStatus(tool, event.event.replace(/^Team/, ""))) } : run;
    case "RunPaused": {
      const requirements = (event.requirements as RunRequirement[] | undefined) ?? [];
      const parts = requirements.reduce((acc, r) => upsertTool(acc, r.tool_execution, "awaiting"), run.parts);
      return { ...run, ...ids, phase: "paused", parts, requirements };
    }
    case "RunCompleted":
      // A cancelled run's stream ends with RunCompleted too: the run stays cancelled.
      if (run.phase === "cancelled") return { ...run, ...ids };
      return { ...run, ...ids, phase: "completed", parts: withFinalContent(run.parts, event.content), requirements: [] };
    case "RunError":
      return { ...run, ...ids, phase: "error", error: typeof event.content === "string" && event.content ? event.content : "The run failed", requirements: [] };
    case "RunCancelled":
      return { ...run, ...ids, phase: "cancelled", cancelReason: typeof event.reason === "string" ? event.reason : null, requirements: [] };
    default:
      return run;
  }
}

/** A stream that closed while the run was still going has lost it: say so, and where to look. */
export function endOfStream(run: RunView): RunView {
  if (!IN_FLIGHT.has(run.phase)) return run;
  return { ...run, phase: "error", error: "The connection closed before the run finished; its details page shows how it ended." };
}

/** The tool executions to continue a paused run with, once the user has decided. */
export interface Decisions {
  confirmed: Record<string, boolean>;
  values: Record<string, Record<string, unknown>>;
  results: Record<string, unknown>;
}

/** The tool executions to continue a paused run with (Agno's agent `tools` field), once decided. */
export function decidedTools(requirements: RunRequirement[], decisions: Decisions): ToolExecution[] {
  return requirements.map((requirement) => {
    const execution = requirement.tool_execution;
    const id = requirement.id;
    const values = decisions.values[id] ?? {};
    return {
      ...execution,
      ...(needsConfirmation(requirement) ? { confirmed: decisions.confirmed[id] } : {}),
      ...(needsUserInput(requirement) ? { answered: true, user_input_schema: inputFields(requirement).map((field) => ({ ...field, value: values[field.name] })) } : {}),
      ...(needsExternalResult(requirement) ? { result: decisions.results[id] } : {}),
    };
  });
}

export const needsConfirmation = (r: RunRequirement) => r.tool_execution.requires_confirmation === true && r.tool_execution.confirmed == null;
export const needsUserInput = (r: RunRequirement) => r.tool_execution.requires_user_input === true && !r.tool_execution.answered;
export const needsExternalResult = (r: RunRequirement) => r.tool_execution.external_execution_required === true && r.tool_execution.result === undefined;
export const inputFields = (r: RunRequirement) => r.user_input_schema ?? r.tool_execution.user_input_schema ?? [];
