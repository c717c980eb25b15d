import { z } from "zod";
import { EVAL_TYPES, type EvalType } from "../db/evals/eval-runs.ts";
import { HttpError } from "../errors/http-error.ts";

/**
 * What running an eval takes: Agno's `EvalRunInput` (the body of `POST /eval-runs`), with its
 * defaults and limits (num_iterations 1–100, default 1; threshold 1–10, default 7;
 * scoring_strategy binary; warmup_runs 0–10; a non-empty input), plus what Agentry adds: the
 * reliability options Agno's library has (`expected_tool_call_arguments`,
 * `allow_additional_tool_calls`) and the judge model (`judge_model_id`/`judge_model_provider`).
 * The same schema checks a background eval's job payload. Unknown fields are ignored, as pydantic
 * does.
 */
export const EvalRunInputSchema = z.object({
  agent_id: z.string().min(1).nullish(),
  team_id: z.string().min(1).nullish(),
  /** With model_provider: the model the evaluated agent runs with for this eval (Agno's temporary override). */
  model_id: z.string().min(1).nullish(),
  model_provider: z.string().min(1).nullish(),
  eval_type: z.enum(EVAL_TYPES),
  input: z.string().min(1, "input must not be empty"),
  name: z.string().nullish(),
  num_iterations: z.number().int().min(1).max(100).default(1),
  additional_guidelines: z.union([z.string(), z.array(z.string())]).nullish(),
  additional_context: z.string().nullish(),
  expected_output: z.string().nullish(),
  criteria: z.string().nullish(),
  scoring_strategy: z
    .enum(["numeric", "binary"])
    .nullish()
    .transform((v) => v ?? "binary"),
  threshold: z
    .number()
    .int()
    .min(1)
    .max(10)
    .nullish()
    .transform((v) => v ?? 7),
  warmup_runs: z.number().int().min(0).max(10).default(0),
  expected_tool_calls: z.array(z.string()).nullish(),
  allow_additional_tool_calls: z.boolean().nullish(),
  expected_tool_call_arguments: z.record(z.string(), z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))])).nullish(),
  /** Agentry: the judge's model (accuracy, agent_as_judge); default the evaluated agent's own configured model. */
  judge_model_id: z.string().min(1).nullish(),
  judge_model_provider: z.string().min(1).nullish(),
});
export type EvalRunInput = z.output<typeof EvalRunInputSchema>;

/**
 * The checks Agno makes after parsing, with its status codes and messages: exactly one target
 * (400), then — once the target exists (its 404 comes first, from the caller) — what each kind
 * requires (400). Agentry also refuses half a model pair, which Agno would silently ignore.
 */
export function targetProblem(input: EvalRunInput): HttpError | null {
  if (input.agent_id && input.team_id) return new HttpError(400, "Only one of agent_id or team_id must be provided");
  if (!input.agent_id && !input.team_id) return new HttpError(400, "One of agent_id or team_id must be provided");
  return null;
}

export function kindProblem(input: EvalRunInput): HttpError | null {
  if (input.eval_type === "accuracy" && !input.expected_output) return new HttpError(400, "expected_output is required for accuracy evaluation");
  if (input.eval_type === "agent_as_judge" && !input.criteria) return new HttpError(400, "criteria is required for agent-as-judge evaluation");
  if (input.eval_type === "reliability" && (!input.expected_tool_calls || input.expected_tool_calls.length === 0)) {
    return new HttpError(400, "expected_tool_calls is required for reliability evaluations");
  }
  if (Boolean(input.model_id) !== Boolean(input.model_provider)) return new HttpError(400, "model_id and model_provider go together: give both, or neither to use the agent's own model");
  if (Boolean(input.judge_model_id) !== Boolean(input.judge_model_provider)) {
    return new HttpError(400, "judge_model_id and judge_model_provider go together: give both, or neither to judge with the agent's own model");
  }
  return null;
}

/**
 * The stored `eval_input`: Agno's keys for the kind (as its evals log them), plus the input for
 * every kind (Agno keeps it only for accuracy) so each stored run says what it ran.
 */
export function storedEvalInput(input: EvalRunInput): Record<string, unknown> {
  const base = { input: input.input };
  switch (input.eval_type as EvalType) {
    case "accuracy":
      return {
        ...base,
        additional_guidelines: input.additional_guidelines ?? null,
        additional_context: input.additional_context ?? null,
        num_iterations: input.num_iterations,
        expected_output: input.expected_output ?? null,
      };
    case "agent_as_judge":
      return {
        ...base,
        criteria: input.criteria ?? null,
        scoring_strategy: input.scoring_strategy,
        threshold: input.scoring_strategy === "numeric" ? input.threshold : null,
        additional_guidelines: input.additional_guidelines ?? null,
        num_iterations: input.num_iterations,
      };
    case "performance":
      return { ...base, num_iterations: input.num_iterations, warmup_runs: input.warmup_runs };
    case "reliability":
      return {
        ...base,
        expected_tool_calls: input.expected_tool_calls ?? null,
        allow_additional_tool_calls: input.allow_additional_tool_calls ?? false,
        expected_tool_call_arguments: input.expected_tool_call_arguments ?? null,
      };
  }
}

/**
 * The request that runs a stored eval run again: its kind, agent (or team), name and stored
 * `eval_input` (Agno's keys), the model it ran on when that was an override, and its judge — Agno's
 * rows, which keep no input for some kinds, give what they have and the schema names the rest.
 */
export function rerunInput(run: {
  eval_type: string;
  agent_id: string | null;
  team_id: string | null;
  name: string | null;
  model_id: string | null;
  model_provider: string | null;
  eval_input: Record<string, unknown> | null;
  run_details: Record<string, unknown> | null;
}): Record<string, unknown> {
  const stored = run.eval_input ?? {};
  const judge = run.run_details?.judge as { model_id?: string; model_provider?: string } | null | undefined;
  const body: Record<string, unknown> = { ...stored, eval_type: run.eval_type, agent_id: run.agent_id ?? undefined, team_id: run.team_id ?? undefined, name: run.name ?? undefined };
  for (const [key, value] of Object.entries(body)) if (value === null) delete body[key];
  // The model it ran on only when that was an override: otherwise the agent runs as configured now.
  if (run.run_details?.model_override === true && run.model_id && run.model_provider) Object.assign(body, { model_id: run.model_id, model_provider: run.model_provider });
  if (judge?.model_id && judge.model_provider && (run.eval_type === "accuracy" || run.eval_type === "agent_as_judge")) {
    Object.assign(body, { judge_model_id: judge.model_id, judge_model_provider: judge.model_provider });
  }
  return body;
}
