import { z } from "zod";
import { NotFoundError } from "../../errors/domain-errors.ts";
import { cancelComponentRun } from "../../runs/cancel.ts";
import { defineDashboardAction } from "./action.ts";

/** Cancels a run the signed-in user may see, through the same function as the cancel route. */
export const cancelRunAction = defineDashboardAction({
  name: "cancelRun",
  access: "signed-in",
  // `agentId` names the agent, or the team when `kind` is "team" (a job's component_type).
  input: z.object({ kind: z.enum(["agent", "team"]).default("agent"), agentId: z.string().min(1), runId: z.string().min(1), sessionId: z.string().min(1) }),
  async handler({ input, principal, db, settings }) {
    // As the cancel route answers for an external agent (lib/http/routes/external-agent-runs.ts).
    if (input.kind === "agent" && settings.externalAgents.some((a) => a.id === input.agentId))
      return { ok: false, status: 501, error: "This agent does not support cancel_run: an external agent's run stops when the client streaming it goes away." };
    if (!(input.kind === "team" ? settings.teams : settings.agents).some((a) => a.id === input.agentId)) throw new NotFoundError(`No ${input.kind} '${input.agentId}'`);
    const result = await cancelComponentRun({ db, settings, principal }, { component: { type: input.kind, id: input.agentId }, runId: input.runId, sessionId: input.sessionId, recordUnseen: false });
    if (result.outcome === "not_found") throw new NotFoundError("Run not found");
    if (result.outcome === "finished") return { ok: false, status: 409, error: `The run had already finished (${result.status}); nothing was cancelled.` };
    return { ok: true, message: "Cancel requested; the run stops at its next step." };
  },
});
