import { z } from "zod";
import { dataScopeFor, type Principal } from "../../auth/principal.ts";
import { approvalStatusAt, getApproval, resolveApproval } from "../../db/approvals/approvals.ts";
import { getRun } from "../../db/runs/runs.ts";
import { NotFoundError } from "../../errors/domain-errors.ts";
import { log } from "../../log.ts";
import { continuePausedRun } from "../../runs/jobs/continue-paused-run.ts";
import type { Settings } from "../../config/settings.ts";
import { resolveComponent } from "../../runtime/component-source.ts";
import { defineDashboardAction } from "./action.ts";

/**
 * The Approvals page's decision: an admin (the approver; the person who asked is not the one who
 * approves) approves or rejects a pending approval with an optional note — a compare-and-set, so
 * a second decision is told the current status — and, beyond Agno, the paused run is continued in
 * the background at once with that decision, without its original caller. The run's page shows
 * how it went; a continue that cannot start (the run moved on meanwhile) is logged and said.
 */
export const resolveApprovalAction = defineDashboardAction({
  name: "resolveApproval",
  access: "admin",
  input: z.object({
    approvalId: z.string().min(1),
    decision: z.enum(["approved", "rejected"], { error: "decide: approved or rejected" }),
    note: z.string().max(2000).optional(),
  }),
  revalidate: "/dashboard/approvals",
  async handler({ input, principal, scope, db, settings }) {
    const note = input.note?.trim() || undefined;
    const now = Math.floor(Date.now() / 1000);
    const outcome = await resolveApproval(db, {
      scope,
      id: input.approvalId,
      status: input.decision,
      resolvedBy: principal.userId,
      resolutionData: note ? { note } : undefined,
      now,
    });
    if ("notFound" in outcome) throw new NotFoundError("Approval not found");
    if ("conflict" in outcome) {
      return { ok: false, status: 409, error: `This approval is already ${approvalStatusAt(outcome.conflict, now)}; nothing was changed.` };
    }
    const approval = outcome.resolved;
    const verdict = input.decision === "approved" ? "Approved" : "Rejected";
    const continued = await continueInBackground({ db, settings, principal, approvalId: approval.id });
    return { ok: true, message: continued ? `${verdict}; the run continues in the background.` : `${verdict}. ${continuedNote}` };
  },
});

const continuedNote = "The run was not continued here (it is not paused, or its agent is not configured); its owner can continue it.";

/** Continues the approval's paused run as the approver; false when it cannot start. */
async function continueInBackground({ db, settings, principal, approvalId }: { db: Parameters<typeof getRun>[0]; settings: Settings; principal: Principal; approvalId: string }): Promise<boolean> {
  // The approver is an admin: it sees every row.
  const all = dataScopeFor(principal);
  const approval = await getApproval(db, { scope: all, id: approvalId });
  const run = approval ? await getRun(db, { scope: all, runId: approval.run_id }) : null;
  if (!approval || !run || run.status !== "PAUSED") return false;
  // A stored component's run continues on the version it was stamped with.
  const stamped = (run.run_data.metadata as Record<string, unknown> | null | undefined)?.agno_component_version;
  const component = { type: run.team_id ? ("team" as const) : ("agent" as const), id: (run.team_id ?? run.agent_id) || "", version: typeof stamped === "number" ? stamped : undefined };
  const agent = (await resolveComponent(settings, db, component, { userId: run.user_id ?? null, isAdmin: true }))?.agent;
  if (!agent) return false;
  // The run is continued as its owner (its rows stay the owner's); the approval decides its calls.
  const owner = dataScopeFor(principal, run.user_id);
  try {
    const started = await continuePausedRun({
      db,
      settings,
      agent,
      scope: owner,
      runId: run.run_id,
      sessionId: run.session_id,
      resolutions: [],
      stream: false,
      approver: { userId: principal.userId, mayApprove: true },
    });
    started.done.catch((error: Error) => log.warn(`[approvals] the continue of run ${run.run_id} failed: ${error.message}`));
    return true;
  } catch (error) {
    log.warn(`[approvals] could not continue run ${run.run_id} after approval ${approvalId}: ${(error as Error).message}`);
    return false;
  }
}
