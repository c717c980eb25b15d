import { hasScope, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { HttpError } from "../errors/http-error.ts";
import type { EvalRunInput } from "../evals/eval-input.ts";
import { planEval, type EvalPlan } from "../evals/eval-plan.ts";
import { requireChildRunScopes } from "./routes/component-runs.ts";

/**
 * An eval request checked as the API and the dashboard both check it: Agno's rules (planEval:
 * 400, 404), then — beyond Agno — the caller's right to run the agent or team the eval runs
 * (`agents:run` / `teams:run`, or the id's), so `evals:write` alone never runs one the caller could not — and
 * only an admin may name a model that is not configured (lib/evals/eval-models.ts).
 */
export async function planEvalFor(settings: Settings, db: Db, principal: Principal, input: EvalRunInput): Promise<EvalPlan> {
  const plan = await planEval(settings, input, { anyModel: principal.isAdmin, db, caller: { userId: principal.userId, isAdmin: principal.isAdmin } });
  const id = plan.agent.definition.id;
  const family = plan.agent.team ? "teams" : "agents";
  if (!hasScope(principal, `${family}:run`) && !hasScope(principal, `${family}:${id}:run`)) {
    throw new HttpError(403, `Insufficient permissions. Required scope(s): ${family}:run (running an eval runs the ${plan.agent.team ? "team" : "agent"})`);
  }
  requireChildRunScopes(principal, plan.agent);
  return plan;
}
