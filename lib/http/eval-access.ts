import { hasScope, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../errors/http-error.ts";
import type { EvalRunInput } from "../evals/eval-input.ts";
import { planEval, type EvalPlan } from "../evals/eval-plan.ts";

/**
 * An eval request checked as the API and the dashboard both check it: Agno's rules (planEval:
 * 400, 404), then — beyond Agno — the caller's right to run the agent the eval runs (`agents:run`
 * or `agents:<id>:run`), so `evals:write` alone never runs an agent the caller could not — and
 * only an admin may name a model that is not configured (lib/evals/eval-models.ts).
 */
export function planEvalFor(settings: Settings, principal: Principal, input: EvalRunInput): EvalPlan {
  const plan = planEval(settings, input, { anyModel: principal.isAdmin });
  const agentId = plan.agent.definition.id;
  if (!hasScope(principal, "agents:run") && !hasScope(principal, `agents:${agentId}:run`)) {
    throw new HttpError(403, "Insufficient permissions. Required scope(s): agents:run (running an eval runs the agent)");
  }
  return plan;
}
