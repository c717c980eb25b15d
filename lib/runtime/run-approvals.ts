import { getRun } from "../db/runs/runs.ts";
import type { DataScope } from "../db/scope.ts";
import {
  approvalStatusAt,
  getApproval,
  resolveApproval,
  unsafeCreateApproval,
  unsafeExpireApprovals,
  unsafeRequiredApprovalsOfRun,
  unsafeUpdateApprovalRunStatus,
  type StoredApproval,
} from "../db/approvals/approvals.ts";
import { unsafeSystemScope } from "../db/scope.ts";
import { log } from "../log.ts";
import { ContinueError } from "./continue-error.ts";
import type { Resolution, RunRequirement, ToolExecution } from "./run-output.ts";
import { now, type RunState } from "./run-state.ts";
import type { ToolDefinition } from "./tools/types.ts";

/** Agno's refusal of a continue while a required approval waits, word for word. */
export const APPROVAL_BLOCKED_DETAIL = "This run requires admin approval before it can be continued";

/** Who continues a run, as far as approvals are concerned. */
export interface Approver {
  /** Recorded as `resolved_by` when this continue resolves a pending approval itself. */
  userId: string | null;
  /** May continue past a pending required approval (holds `approvals:write`); else 403. */
  mayApprove: boolean;
}

const pauseTypeOf = (e: ToolExecution) => (e.requires_user_input ? "user_input" : e.external_execution_required ? "external_execution" : "confirmation");

/**
 * At a pause: the run's pending calls whose tool requires approval get one pending agno_approvals
 * row (as Agno, one per run: the first such call's tool and arguments, every such tool named in
 * `context.tool_names`), written before RunPaused is sent and the run stored, and its id stamped
 * on those calls (so the event, the stored run and its requirements carry `approval_id`). The
 * tool's `approvalExpiresIn` (the shortest, if several) sets `expires_at`.
 */
export async function recordRequiredApproval(state: RunState, pending: ToolExecution[]): Promise<StoredApproval | null> {
  const required = pending.filter((e) => e.approval_type === "required" && !e.approval_id);
  if (required.length === 0) return null;
  const { output, agent } = state;
  const byName = new Map(state.tools.map((t: ToolDefinition<unknown>) => [t.name, t]));
  const lifetimes = required.map((e) => byName.get(e.tool_name)?.approvalExpiresIn).filter((s): s is number => typeof s === "number");
  const first = required[0]!;
  const created = now();
  const team = !!agent.team;
  const ids = new Set(required.map((e) => e.tool_call_id));
  const approval = await unsafeCreateApproval(state.db, {
    runId: output.run_id,
    sessionId: output.session_id,
    status: "pending",
    sourceType: team ? "team" : "agent",
    approvalType: "required",
    pauseType: pauseTypeOf(first),
    toolName: first.tool_name,
    toolArgs: first.tool_args,
    expiresAt: lifetimes.length > 0 ? created + Math.ceil(Math.min(...lifetimes)) : null,
    agentId: team ? null : agent.definition.id,
    teamId: team ? agent.definition.id : null,
    userId: output.user_id ?? null,
    sourceName: agent.definition.name ?? agent.definition.id,
    requirements: (output.requirements ?? []).filter((r) => ids.has(r.tool_execution.tool_call_id)) as unknown as Record<string, unknown>[],
    context: { tool_names: [...new Set(required.map((e) => e.tool_name))], source_name: agent.definition.name ?? agent.definition.id },
    runStatus: "PAUSED",
    now: created,
  });
  for (const execution of required) execution.approval_id = approval.id;
  return approval;
}

/** What a continue does about the run's required approvals (see applyApprovals). */
export interface ApprovalPlan {
  /** The decisions, with each resolved approval's decision in place of the caller's for its calls. */
  resolutions: Resolution[];
  /** Pending approvals this continue resolves itself (an approver continuing), after its claim. */
  resolveOnContinue: StoredApproval[];
}

/**
 * Before a paused run is continued: each requirement whose tool requires approval is checked
 * against its approval (the run's own, or a paused member's run's):
 * - approved / rejected: its decision is the requirement's (confirmed = approved; user input from
 *   `resolution_data.values`, an external result from `resolution_data.result`), whatever the
 *   caller sent — so such a continue needs no `tools`;
 * - pending: an approver may continue (its own decision then resolves the approval), anyone else
 *   gets 403; no approver given (a member run continued by its team) passes;
 * - expired or cancelled, or no row at all: 409, the run stays PAUSED (it can be cancelled).
 */
export async function applyApprovals(
  state: { db: RunState["db"]; runId: string },
  requirements: readonly RunRequirement[],
  resolutions: readonly Resolution[],
  approver: Approver | undefined,
): Promise<ApprovalPlan> {
  const gated = requirements.filter((r) => r.tool_execution.approval_type === "required");
  if (gated.length === 0) return { resolutions: [...resolutions], resolveOnContinue: [] };
  const runIds = [...new Set(gated.map((r) => r.member_run_id ?? state.runId))];
  const approvals = (await Promise.all(runIds.map((id) => unsafeRequiredApprovalsOfRun(state.db, id)))).flat();
  const decided = new Map<string, Resolution>();
  const resolveOnContinue = new Map<string, StoredApproval>();
  for (const requirement of gated) {
    const execution = requirement.tool_execution;
    const runId = requirement.member_run_id ?? state.runId;
    const approval = approvals.find((a) => a.id === execution.approval_id) ?? approvals.find((a) => a.run_id === runId);
    if (!approval) throw new ContinueError(`Run ${state.runId} cannot be continued: its call of '${execution.tool_name}' requires an approval and none is recorded`, 409);
    const status = approvalStatusAt(approval, now());
    if (status === "expired") {
      const at = approval.expires_at !== null ? ` at ${new Date(approval.expires_at * 1000).toISOString()}` : "";
      throw new ContinueError(`Approval ${approval.id} for '${execution.tool_name}' expired${at}: run ${state.runId} cannot be continued; cancel it instead`, 409);
    }
    if (status === "cancelled") throw new ContinueError(`Approval ${approval.id} for '${execution.tool_name}' was cancelled: run ${state.runId} cannot be continued`, 409);
    if (status === "pending") {
      if (approver && !approver.mayApprove) throw new ContinueError(APPROVAL_BLOCKED_DETAIL, 403);
      if (approver) resolveOnContinue.set(approval.id, approval);
      continue;
    }
    const approved = approval.status === "approved";
    const data = approval.resolution_data ?? {};
    const values = data.values && typeof data.values === "object" && !Array.isArray(data.values) ? (data.values as Record<string, unknown>) : data;
    decided.set(execution.tool_call_id, {
      tool_call_id: execution.tool_call_id,
      confirmed: approved,
      confirmation_note: typeof data.note === "string" ? data.note : null,
      ...(execution.requires_user_input ? { user_input: values } : {}),
      ...(execution.external_execution_required && "result" in data ? { external_result: data.result } : {}),
    });
  }
  const merged = resolutions.filter((r) => !decided.has(r.tool_call_id)).concat([...decided.values()]);
  return { resolutions: merged, resolveOnContinue: [...resolveOnContinue.values()] };
}

/**
 * After the claim: the pending approvals an approver's continue resolves with its own decisions
 * (approved when every call it covers was confirmed, else rejected). A resolver that got there
 * first wins; the continue goes on with the decisions it carries.
 */
export async function resolveByContinue(db: RunState["db"], plan: ApprovalPlan, resolved: readonly ToolExecution[], approver: Approver | undefined): Promise<void> {
  for (const approval of plan.resolveOnContinue) {
    const calls = resolved.filter((e) => e.approval_id === approval.id);
    const approved = calls.every((e) => e.confirmed !== false);
    const outcome = await resolveApproval(db, {
      scope: unsafeSystemScope("the continue's caller was checked as an approver before the claim"),
      id: approval.id,
      status: approved ? "approved" : "rejected",
      resolvedBy: approver?.userId ?? null,
      resolutionData: { resolved_via: "continue" },
      now: now(),
    });
    if ("conflict" in outcome) log.info(`[approvals] approval ${approval.id} was already ${outcome.conflict.status} when run ${approval.run_id} was continued`);
  }
}

/**
 * Audit approvals (Agno's `approval: "audit"`): after the person's decision on such a call is
 * applied, a resolved row records it (approved, or rejected when the confirmation was refused).
 * Never blocks: a failed write is logged.
 */
export async function recordAuditApprovals(state: RunState, resolved: readonly ToolExecution[], resolvedBy: string | null): Promise<void> {
  const { output, agent } = state;
  for (const execution of resolved.filter((e) => e.approval_type === "audit")) {
    const at = now();
    try {
      await unsafeCreateApproval(state.db, {
        runId: output.run_id,
        sessionId: output.session_id,
        status: execution.confirmed === false ? "rejected" : "approved",
        sourceType: agent.team ? "team" : "agent",
        approvalType: "audit",
        pauseType: pauseTypeOf(execution),
        toolName: execution.tool_name,
        toolArgs: execution.tool_args,
        agentId: agent.team ? null : agent.definition.id,
        teamId: agent.team ? agent.definition.id : null,
        userId: output.user_id ?? null,
        sourceName: agent.definition.name ?? agent.definition.id,
        context: { tool_names: [execution.tool_name], source_name: agent.definition.name ?? agent.definition.id },
        resolvedBy,
        resolvedAt: at,
        now: at,
      });
    } catch (error) {
      log.warn(`[run ${output.run_id}] could not record the audit approval of '${execution.tool_name}': ${(error as Error).message}`);
    }
  }
}

/**
 * A run that asked for approval ends: its approvals record the run's status (`run_status`), and a
 * pending one of a cancelled run is cancelled. Only runs that carry an approval id pay the write.
 */
export async function recordRunEndOnApprovals(state: RunState): Promise<void> {
  const { output } = state;
  const asked = (output.tools ?? []).some((t) => !!t.approval_id) || (output.requirements ?? []).some((r) => !!r.tool_execution?.approval_id);
  if (!asked) return;
  try {
    await unsafeUpdateApprovalRunStatus(state.db, { runId: output.run_id, runStatus: output.status, now: now() });
  } catch (error) {
    log.warn(`[run ${output.run_id}] could not record its end on its approvals: ${(error as Error).message}`);
  }
}

/**
 * The expiry of required approvals, as a scheduler system task (run on every scheduler loop, in
 * every process that runs a scheduler: the update is a compare-and-set, so two processes expire a
 * row once). Pending approvals past `expires_at` become `expired`; their runs stay PAUSED (a
 * continue answers 409 naming the expiry; they can be cancelled).
 */
export function approvalExpiryTask(db: RunState["db"]): { run(nowSeconds: number): Promise<void> } {
  return {
    async run(nowSeconds) {
      const expired = await unsafeExpireApprovals(db, { now: nowSeconds });
      if (expired.length > 0) log.info(`[approvals] ${expired.length} pending approval(s) expired: ${expired.map((a) => `${a.id} (run ${a.run_id})`).join(", ")}`);
    },
  };
}

/** Every `approval_id` anywhere in a stored value (a workflow's step requirements nest its step agents' calls). */
function approvalIdsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) approvalIdsIn(item, found);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "approval_id" && typeof item === "string") found.add(item);
      else approvalIdsIn(item, found);
    }
  }
  return found;
}

/**
 * A paused workflow whose step agent waits on a required approval: a caller who may not approve
 * gets the same 403 as for the agent's own run (the step agent's continue runs inside the
 * workflow's, past the route's gate).
 */
export async function refuseWhilePendingInWorkflow(db: RunState["db"], { scope, runId, sessionId }: { scope: DataScope; runId: string; sessionId: string }): Promise<void> {
  const stored = await getRun(db, { scope, runId, sessionId });
  if (!stored || stored.status !== "PAUSED") return;
  for (const id of approvalIdsIn(stored.run_data.step_requirements)) {
    const approval = await getApproval(db, { scope, id });
    if (approval?.status === "pending" && approval.approval_type === "required") throw new ContinueError(APPROVAL_BLOCKED_DETAIL, 403);
  }
}
