import type { ModelSpec } from "../config/define.ts";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../errors/http-error.ts";
import { MODEL_ENV_HINT } from "../config/model-from-env.ts";
import type { Db } from "../db/open-database.ts";
import type { RuntimeAgent } from "../runtime/agents.ts";
import { resolveComponent, type ComponentCaller } from "../runtime/component-source.ts";
import { kindProblem, targetProblem, type EvalRunInput } from "./eval-input.ts";
import { evaluatedAgent, judgeModel } from "./eval-models.ts";

/** What an eval runs, resolved and checked before anything is stored. */
export interface EvalPlan {
  input: EvalRunInput;
  /** The agent as the eval runs it (with the request's model, if it names one). */
  agent: RuntimeAgent;
  /** The judge's model (accuracy, agent_as_judge); null for the kinds without a judge. */
  judge: ModelSpec | null;
  /** Whether the agent runs on the request's model rather than its own. */
  modelOverride: boolean;
}

const JUDGED = new Set(["accuracy", "agent_as_judge"]);

/**
 * Checks an eval request as Agno's route does, in its order — exactly one target (400), the target
 * exists (404: an agent or team defined in code or stored), what
 * the kind requires (400) — and resolves its models: the agent must have one to run with (400
 * naming the fix), and so must the judge. `anyModel`: the request may name a model that is not
 * configured (admins; an eval job whose request was checked when it was submitted).
 */
export async function planEval(
  settings: Settings,
  input: EvalRunInput,
  { anyModel, db, caller, version }: { anyModel: boolean; db: Db; caller: ComponentCaller; version?: number },
): Promise<EvalPlan> {
  const target = targetProblem(input);
  if (target) throw target;
  // Defined in code, else a stored (Studio) agent or team at its current published version (or `version`, a background eval's, resolved at its submit).
  const ref = input.team_id ? { type: "team" as const, id: input.team_id, version } : { type: "agent" as const, id: input.agent_id!, version };
  const configured = (await resolveComponent(settings, db, ref, caller))?.agent;
  if (!configured) throw new HttpError(404, input.team_id ? `Team with id '${input.team_id}' not found` : `Agent with id '${input.agent_id}' not found`);
  // A team's leader and members run on their own models: a request cannot swap the leader's alone.
  if (configured.team && input.model_id) throw new HttpError(400, "model_id and model_provider apply to an agent's eval; a team runs on its own models");
  const kind = kindProblem(input);
  if (kind) throw kind;
  const agent = evaluatedAgent(settings, configured, { modelId: input.model_id, modelProvider: input.model_provider }, anyModel);
  if (!agent.definition.model) {
    throw new HttpError(
      400,
      `${configured.team ? "Team" : "Agent"} '${configured.definition.id}' has no model configured, so it cannot be evaluated: ${MODEL_ENV_HINT}${configured.team ? "" : ", or pass model_id and model_provider"}`,
    );
  }
  let judge: ModelSpec | null = null;
  if (JUDGED.has(input.eval_type)) {
    judge = judgeModel(settings, configured, { modelId: input.judge_model_id, modelProvider: input.judge_model_provider }, anyModel);
    // The agent's own model is the default judge; an agent that only runs on an override has none.
    judge ??= agent.definition.model;
  }
  return { input, agent, judge, modelOverride: agent !== configured };
}
